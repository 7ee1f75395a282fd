// Figures of the tensor-pipeline-parallel lesson.
export const modelParallel = {
  'tp-comm-ratio': () => import('../tp-comm-ratio.js'),
  'pp-schedule-timeline': () => import('../pp-schedule-timeline.js'),
  'pp-activation-memory': () => import('../pp-activation-memory.js'),
  'layout-search': () => import('../layout-search.js'),
};
