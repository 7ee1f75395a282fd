// Figures of the transformer-block lesson.
export const transformer = {
  'param-breakdown': () => import('../param-breakdown.js'),
  'flops-per-token-context': () => import('../flops-per-token-context.js'),
  'training-cost-6nd': () => import('../training-cost-6nd.js'),
};
