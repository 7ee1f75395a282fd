// Figures of the numerical-stability lesson.
export const stability = {
  'softmax-overflow': () => import('../softmax-overflow.js'),
  'loss-spike-clipping': () => import('../loss-spike-clipping.js'),
  'logit-growth-range': () => import('../logit-growth-range.js'),
};
