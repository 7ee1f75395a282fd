// Figures of the roofline lesson.
export const roofline = {
  'roofline-plot': () => import('../roofline-plot.js'),
  'matmul-intensity': () => import('../matmul-intensity.js'),
  'batch-crossover': () => import('../batch-crossover.js'),
  'transformer-ops-roofline': () => import('../transformer-ops-roofline.js'),
};
