// Figures of the evaluation lesson.
export const evaluation = {
  'accuracy-ci-width': () => import('../accuracy-ci-width.js'),
  'paired-mdd': () => import('../paired-mdd.js'),
  'seed-spread-contamination': () => import('../seed-spread-contamination.js'),
};
