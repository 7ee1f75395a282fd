// Figures of the attention-and-masks lesson.
export const masks = {
  'attention-mask-weights': () => import('../attention-mask-weights.js'),
  'score-matrix-memory': () => import('../score-matrix-memory.js'),
  'attention-variants': () => import('../attention-variants.js'),
};
