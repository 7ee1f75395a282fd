// Figures of the kernels lesson.
export const kernels = {
  'coalescing-sectors': () => import('../coalescing-sectors.js'),
  'tiled-matmul-traffic': () => import('../tiled-matmul-traffic.js'),
  'fusion-chain': () => import('../fusion-chain.js'),
  'launch-overhead-size': () => import('../launch-overhead-size.js'),
};
