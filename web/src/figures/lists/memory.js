// Figures of the memory lesson.
export const memory = {
  'model-state-bytes': () => import('../model-state-bytes.js'),
  'activation-memory-vs-seq': () => import('../activation-memory-vs-seq.js'),
  'checkpointing-tradeoff': () => import('../checkpointing-tradeoff.js'),
  'step-memory-timeline': () => import('../step-memory-timeline.js'),
  'training-fit': () => import('../training-fit.js'),
};
