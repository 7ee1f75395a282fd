// Figures of the optimizers lesson.
export const optimizers = {
};
