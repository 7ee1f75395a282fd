// Figures of the kernels lesson.
export const kernels = {
};
