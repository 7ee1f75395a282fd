// Figures of the data-parallel-zero-fsdp lesson.
export const dataParallel = {
  'dp-step-scaling': () => import('../dp-step-scaling.js'),
  'zero-memory-per-gpu': () => import('../zero-memory-per-gpu.js'),
  'zero-communication': () => import('../zero-communication.js'),
  'fsdp-tokens-to-hide': () => import('../fsdp-tokens-to-hide.js'),
};
