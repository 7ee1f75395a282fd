// Figures of the attention lesson.
export const attention = {
};
