// Figures of the tensors-and-layout lesson.
export const tensors = {
};
