// Figures of the sharing-a-gpu lesson.
export const sharing = {
  'mig-partitions': () => import('../mig-partitions.js'),
  'sharing-throughput': () => import('../sharing-throughput.js'),
  'sharing-utilization': () => import('../sharing-utilization.js'),
};
