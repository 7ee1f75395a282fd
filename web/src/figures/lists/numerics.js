// Figures of the numerics lesson (mixed precision).
export const numerics = {
  'float-format-explorer': () => import('../float-format-explorer.js'),
  'sum-stagnation': () => import('../sum-stagnation.js'),
  'loss-scaling-range': () => import('../loss-scaling-range.js'),
  'precision-throughput': () => import('../precision-throughput.js'),
};
