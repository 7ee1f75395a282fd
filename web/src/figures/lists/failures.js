// Figures of the surviving-failures lesson.
export const failures = {
  'cluster-mtbf': () => import('../cluster-mtbf.js'),
  'checkpoint-goodput': () => import('../checkpoint-goodput.js'),
  'checkpoint-save-time': () => import('../checkpoint-save-time.js'),
};
