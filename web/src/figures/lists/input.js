// Figures of the feeding-data lesson.
export const input = {
  'input-pipeline-workers': () => import('../input-pipeline-workers.js'),
  'packing-efficiency': () => import('../packing-efficiency.js'),
  'global-batch-lr': () => import('../global-batch-lr.js'),
};
