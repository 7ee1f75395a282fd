// Figures of the interconnects lesson.
export const interconnect = {
  'interconnect-ladder': () => import('../interconnect-ladder.js'),
  'fat-tree-topology': () => import('../fat-tree-topology.js'),
  'wired-collectives': () => import('../wired-collectives.js'),
};
