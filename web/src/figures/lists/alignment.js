// Figures of the preference-alignment lesson.
export const alignment = {
  'rlhf-memory-methods': () => import('../rlhf-memory-methods.js'),
  'dpo-beta-sweep': () => import('../dpo-beta-sweep.js'),
  'rlhf-step-split': () => import('../rlhf-step-split.js'),
};
