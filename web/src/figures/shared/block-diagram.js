// Labelled block diagram: boxes with labels, gathered in labelled groups (a GPU, a node, a
// stage), arrows between boxes, flowing left to right. A graph (graph.js) with groups and a
// filled look for the boxes. Pure: returns a scene (svg-scene.js).
import { graphScene } from './graph.js';

// spec: {label, groups: [{id, label, boxes: [{id, label, fill?, tip?}]}], boxes?: [...] (outside
//   any group), arrows: [{from, to, stroke?, dash?}], rankdir? ('LR' by default), legend?}.
// A box's fill is a theme colour drawn pale (its text stays readable); by default the grid colour.
export function blockDiagram(theme, spec) {
  const look = (b, group) => ({
    id: b.id, label: b.label, group, ...(b.tip ? { tip: b.tip } : {}),
    fill: b.fill ?? theme.grid, ...(b.fill ? { opacity: 0.3 } : {}), stroke: b.stroke ?? theme.text,
  });
  const nodes = [
    ...(spec.groups ?? []).flatMap((g) => g.boxes.map((b) => look(b, g.id))),
    ...(spec.boxes ?? []).map((b) => look(b, undefined)),
  ];
  return graphScene(theme, {
    label: spec.label, nodes, edges: spec.arrows ?? [], rankdir: spec.rankdir ?? 'LR', wrapAt: spec.wrapAt ?? 14,
    groups: (spec.groups ?? []).map(({ id, label }) => ({ id, label })), legend: spec.legend,
  });
}
