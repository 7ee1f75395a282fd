// Figures of the backpropagation lesson.
export const backprop = {
};
