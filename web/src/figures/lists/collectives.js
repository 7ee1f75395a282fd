// Figures of the collectives lesson.
export const collectives = {
  'collective-steps': () => import('../collective-steps.js'),
  'collective-time-vs-size': () => import('../collective-time-vs-size.js'),
  'ring-allreduce-bytes': () => import('../ring-allreduce-bytes.js'),
  'hierarchical-allreduce': () => import('../hierarchical-allreduce.js'),
};
