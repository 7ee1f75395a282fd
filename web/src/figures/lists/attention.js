// Figures of the attention lesson(s).
export const attention = {
  'online-softmax-stepper': () => import('../online-softmax-stepper.js'),
  'flash-hbm-traffic': () => import('../flash-hbm-traffic.js'),
  'flash-tiling-causal': () => import('../flash-tiling-causal.js'),
  'attention-backward-memory': () => import('../attention-backward-memory.js'),
  'split-kv-decoding': () => import('../split-kv-decoding.js'),
};
