// Figures of the gpu lesson.
export const gpu = {
};
