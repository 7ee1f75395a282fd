// Figures of the tokens-and-embeddings lesson.
export const tokens = {
  'bpe-merges': () => import('../bpe-merges.js'),
  'vocab-tokens-memory': () => import('../vocab-tokens-memory.js'),
  'embedding-share': () => import('../embedding-share.js'),
};
