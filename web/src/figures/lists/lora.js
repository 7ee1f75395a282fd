// Figures of the fine-tuning-lora lesson.
export const lora = {
  'lora-memory-methods': () => import('../lora-memory-methods.js'),
  'low-rank-error': () => import('../low-rank-error.js'),
  'lora-step-time': () => import('../lora-step-time.js'),
};
