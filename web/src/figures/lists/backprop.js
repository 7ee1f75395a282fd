// Figures of the backpropagation lesson.
export const backprop = {
  'autograd-graph': () => import('../autograd-graph.js'),
  'gradient-check-error': () => import('../gradient-check-error.js'),
  'backprop-memory-depth': () => import('../backprop-memory-depth.js'),
};
