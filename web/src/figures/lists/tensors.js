// Figures of the tensors-and-layout lesson.
export const tensors = {
  'tensor-strides': () => import('../tensor-strides.js'),
  'tensor-bytes': () => import('../tensor-bytes.js'),
  'broadcast-checker': () => import('../broadcast-checker.js'),
};
