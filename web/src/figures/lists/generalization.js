// Figures of the generalization lesson.
export const generalization = {
  'capacity-curve': () => import('../capacity-curve.js'),
  'error-vs-samples': () => import('../error-vs-samples.js'),
  'regularization-effect': () => import('../regularization-effect.js'),
};
