// Figures of the quantization lesson.
export const quantization = {
  'quantizer-staircase': () => import('../quantizer-staircase.js'),
  'quantization-mse-vs-bits': () => import('../quantization-mse-vs-bits.js'),
  'clip-tradeoff': () => import('../clip-tradeoff.js'),
  'quantization-granularity': () => import('../quantization-granularity.js'),
  'smoothquant-migration': () => import('../smoothquant-migration.js'),
};
