// Figures of the llm-serving lesson.
export const serving = {
  'kv-cache-capacity': () => import('../kv-cache-capacity.js'),
  'decode-roofline': () => import('../decode-roofline.js'),
  'ttft-tpot': () => import('../ttft-tpot.js'),
  'continuous-batching': () => import('../continuous-batching.js'),
  'paged-kv-waste': () => import('../paged-kv-waste.js'),
  'speculative-decoding': () => import('../speculative-decoding.js'),
};
