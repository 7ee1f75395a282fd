// Figures of the generalization lesson.
export const generalization = {
};
