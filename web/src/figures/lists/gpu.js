// Figures of the gpu lesson.
export const gpu = {
  'wave-quantization': () => import('../wave-quantization.js'),
  'littles-law': () => import('../littles-law.js'),
  'occupancy-calculator': () => import('../occupancy-calculator.js'),
  'memory-hierarchy': () => import('../memory-hierarchy.js'),
};
