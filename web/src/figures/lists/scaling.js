// Figures of the scaling-laws lesson.
export const scaling = {
  'isoflop-curves': () => import('../isoflop-curves.js'),
  'compute-optimal-frontier': () => import('../compute-optimal-frontier.js'),
  'overtraining': () => import('../overtraining.js'),
};
