// Every figure of the course: id -> lazy module loader (one module per figure).
export const figureLoaders = {
  'roofline-plot': () => import('./roofline-plot.js'),
  'matmul-intensity': () => import('./matmul-intensity.js'),
  'batch-crossover': () => import('./batch-crossover.js'),
  'transformer-ops-roofline': () => import('./transformer-ops-roofline.js'),
};
