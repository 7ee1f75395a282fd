// Figures of the sequence-context-expert lesson.
export const sequence = {
  'sp-activation-memory': () => import('../sp-activation-memory.js'),
  'ring-attention-balance': () => import('../ring-attention-balance.js'),
  'ulysses-vs-ring': () => import('../ulysses-vs-ring.js'),
  'moe-router': () => import('../moe-router.js'),
  'moe-balance-a2a': () => import('../moe-balance-a2a.js'),
};
