// Figures of the optimizers lesson.
export const optimizers = {
  'optimizer-trajectories': () => import('../optimizer-trajectories.js'),
  'lr-schedules': () => import('../lr-schedules.js'),
  'optimizer-state-bytes': () => import('../optimizer-state-bytes.js'),
};
