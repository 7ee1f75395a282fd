// Figures of the profiling-mfu lesson.
export const profiling = {
  'mfu-flops-counter': () => import('../mfu-flops-counter.js'),
  'training-time-6nd': () => import('../training-time-6nd.js'),
  'step-timeline': () => import('../step-timeline.js'),
  'mfu-waterfall': () => import('../mfu-waterfall.js'),
};
