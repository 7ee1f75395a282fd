// Figures of the comparing-accelerators lesson.
export const accelerators = {
  'accelerator-ridge-points': () => import('../accelerator-ridge-points.js'),
  'accelerator-workload-time': () => import('../accelerator-workload-time.js'),
  'accelerator-cost-efficiency': () => import('../accelerator-cost-efficiency.js'),
};
