// Node-link graph or tree, laid out by dagre (as the concept map is at build time): boxes with
// wrapped labels, arrows along dagre's edge routes, optional groups drawn as labelled frames
// around their members (dagre's compound graphs; the block diagram uses them). Pure: returns
// a scene (svg-scene.js), or the layout alone for the tests.
import dagre from '@dagrejs/dagre';
import { sizeOf, fontFor, text, textWidth, legendNodes, scene } from './svg-scene.js';

// Wraps a label into lines of at most `chars` characters (a longer word keeps its own line).
export function wrap(label, chars) {
  const lines = [];
  let line = '';
  for (const word of String(label).split(/\s+/).filter(Boolean)) {
    if (line && `${line} ${word}`.length > chars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.length ? lines : [''];
}

// An arrowhead at (x, y) pointing away from (fx, fy).
function arrowhead(fx, fy, x, y, len, fill) {
  const a = Math.atan2(y - fy, x - fx);
  const p = (da) => [x - len * Math.cos(a + da), y - len * Math.sin(a + da)];
  return { kind: 'polygon', points: [[x, y], p(0.45), p(-0.45)], fill };
}

// spec: {nodes: [{id, label, group?}], edges: [{from, to}], groups?: [{id, label}],
//   rankdir?: 'TB' | 'LR', wrapAt? (characters)}, at font `size`. Returns {nodes: Map id ->
//   {x, y, w, h, lines}, edges: [{from, to, points}], groups: Map id -> {x, y, w, h}, width, height}
// (x, y: top-left corners).
export function layoutGraph(spec, size) {
  const ids = new Set(spec.nodes.map((n) => n.id));
  if (ids.size !== spec.nodes.length) throw new Error('graph: node ids must be unique');
  const groups = spec.groups ?? [];
  const g = new dagre.graphlib.Graph({ compound: groups.length > 0, multigraph: true });
  // Groups' frames get a label strip above their members (drawn by graphScene), so groups are
  // set further apart.
  // (dagre keeps frames apart by edgesep: its border nodes are dummies.)
  const strip = groups.length ? size * 1.6 : 0;
  g.setGraph({ rankdir: spec.rankdir ?? 'TB', nodesep: size * 1.4, ranksep: size * 2.6, edgesep: 20 + strip,
    marginx: 6, marginy: 6 + strip });
  g.setDefaultEdgeLabel(() => ({}));
  const lineH = size * 1.3;
  for (const n of spec.nodes) {
    const lines = wrap(n.label, spec.wrapAt ?? 18);
    g.setNode(n.id, { width: Math.max(...lines.map((s) => textWidth(s, size))) + size * 1.4, height: lines.length * lineH + size * 0.9, lines });
  }
  for (const grp of groups) {
    if (ids.has(grp.id)) throw new Error(`graph: group id "${grp.id}" is also a node id`);
    g.setNode(grp.id, { label: grp.label });
  }
  for (const n of spec.nodes) if (n.group !== undefined) g.setParent(n.id, n.group);
  spec.edges.forEach((e, k) => {
    for (const end of [e.from, e.to]) if (!ids.has(end)) throw new Error(`graph: edge to unknown node "${end}"`);
    // A labelled edge gets room for its label on its route (dagre lays it out as a dummy node).
    const label = e.label ? { width: textWidth(e.label, size) + 6, height: size * 1.2, labelpos: 'c' } : {};
    g.setEdge(e.from, e.to, label, String(k));
  });
  dagre.layout(g);
  const box = (id) => {
    const { x, y, width, height } = g.node(id);
    return { x: x - width / 2, y: y - height / 2, w: width, h: height };
  };
  return {
    nodes: new Map(spec.nodes.map((n) => [n.id, { ...box(n.id), lines: g.node(n.id).lines }])),
    groups: new Map(groups.map((grp) => [grp.id, box(grp.id)])),
    edges: spec.edges.map((e, k) => {
      const d = g.edge({ v: e.from, w: e.to, name: String(k) });
      return { ...e, points: d.points.map((p) => [p.x, p.y]), ...(e.label ? { labelAt: [d.x, d.y] } : {}) };
    }),
    width: g.graph().width,
    height: g.graph().height,
  };
}

// spec: {label, nodes: [{id, label, tip?, fill?, opacity?, stroke?}], edges: [{from, to, stroke?,
//   dash?, label?, labelColor?}], groups?, rankdir?, legend?}. An edge's label sits on its route, in a gap of its line. Node fills default to none (the page) with a theme border.
export function graphScene(theme, spec) {
  const box = sizeOf(theme);
  const size = fontFor(box.width);
  const legend = spec.legend ?? [];
  const key = legendNodes(legend, 4, 4, box.width - 8, size, theme.text);
  let lay = layoutGraph(spec, size);
  // A left-to-right graph too wide for the box (a phone) flows top to bottom if that fits better:
  // a viewBox wider than the box would shrink its text.
  if (spec.rankdir === 'LR' && lay.width > box.width) {
    const tb = layoutGraph({ ...spec, rankdir: 'TB' }, size);
    const shrink = (l) => Math.min(1, box.width / l.width, (box.height - key.height - 6) / l.height);
    if (shrink(tb) > shrink(lay)) lay = tb;
  }
  const top = key.height + (key.height ? 6 : 0);
  // The layout keeps its own size; a larger graph widens the viewBox (the renderer scales it
  // down), a smaller one is centred.
  const width = Math.max(box.width, lay.width);
  const height = Math.max(box.height, lay.height + top);
  const dx = (width - lay.width) / 2;
  const dy = top + (height - top - lay.height) / 2;
  const nodes = [...key.nodes];
  for (const grp of spec.groups ?? []) {
    const b = lay.groups.get(grp.id);
    const strip = size * 1.6; // the label's strip, above the members
    const w = Math.max(b.w, textWidth(grp.label, size) + 16);
    nodes.push({ kind: 'rect', x: b.x + dx - (w - b.w) / 2, y: b.y + dy - strip, w, h: b.h + strip, rx: 6, fill: 'none', stroke: theme.muted, strokeWidth: 1, dash: [4, 3] });
    nodes.push(text(b.x + dx - (w - b.w) / 2 + 8, b.y + dy - strip + size * 1.25, grp.label, size, theme.muted, { weight: 'bold' }));
  }
  for (const e of lay.edges) {
    const pts = e.points.map(([x, y]) => [x + dx, y + dy]);
    const stroke = e.stroke ?? theme.muted;
    nodes.push({ kind: 'polyline', points: pts, stroke, strokeWidth: 1.5, ...(e.dash ? { dash: e.dash } : {}) });
    nodes.push(arrowhead(...pts.at(-2), ...pts.at(-1), size * 0.7, stroke));
    if (e.labelAt) {
      // The label interrupts its arrow (a patch of the page's colour under it), so the line does
      // not strike through the text.
      const [lx, ly] = [e.labelAt[0] + dx, e.labelAt[1] + dy];
      const w = textWidth(e.label, size) + 4;
      nodes.push({ kind: 'rect', x: lx - w / 2, y: ly - size * 0.6, w, h: size * 1.2, fill: theme.background ?? '#ffffff', stroke: 'none' });
      nodes.push(text(lx, ly + size * 0.35, e.label, size, e.labelColor ?? theme.text, { anchor: 'middle' }));
    }
  }
  const lineH = size * 1.3;
  for (const n of spec.nodes) {
    const b = lay.nodes.get(n.id);
    nodes.push({ kind: 'rect', x: b.x + dx, y: b.y + dy, w: b.w, h: b.h, rx: 5, fill: n.fill ?? 'none',
      ...(n.opacity !== undefined ? { opacity: n.opacity } : {}), stroke: n.stroke ?? theme.text, strokeWidth: 1.2,
      ...(n.tip ? { tip: n.tip } : {}) });
    const y0 = b.y + dy + b.h / 2 - ((b.lines.length - 1) * lineH) / 2 + size * 0.35;
    b.lines.forEach((s, i) => nodes.push(text(b.x + dx + b.w / 2, y0 + i * lineH, s, size, n.color ?? theme.text, { anchor: 'middle' })));
  }
  return scene({ width, height, label: spec.label, nodes, legend });
}
