// Lays the concept graph (concept-map.js) out in bands, top to bottom: outside topics first,
// then the 7 modules in course order, each band labelled, its lessons left to right in course
// order. An edge between adjacent lessons of a band is a short arrow; a longer one inside a
// band arcs above it; one between bands runs from the bottom of what to know first to the
// top of the lesson that needs it (or upwards, when a later module teaches it), through the
// gaps between the nodes of the bands it passes. Hand-rolled rather than dagre, which cannot
// hold nodes to their module's band. Built at build time into a static SVG. Pure: no I/O.
import { esc } from './markdown.js';

export const WIDTH = 980; // fits the wide page column (64rem less padding) at its natural size
export const FONT = 13; // px in viewBox units; the SVG is never drawn smaller than its viewBox
const CHAR_W = 7.6, LINE_H = 16, PAD_X = 8, PAD_Y = 8, MAX_NODE_W = 180;
const HEADER = 48; // band label and the room for arcs above the row
const GAP = 28; // below a row, before the next band's label
const SIDE_COST = 60; // px of detour worth saving a crossing of an arrow between neighbours
const ARC_UP = (span) => 12 + 8 * (span - 1);

export function wrap(text, width) {
  const lines = [];
  let line = '';
  for (const word of String(text).split(/\s+/)) {
    if (line && (line + ' ' + word).length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

// Places the nodes: {x, y (centre), w, h, lines} per node id, and the bands' rows.
function place(graph, bandTitles) {
  const bands = bandTitles.map(() => []);
  for (const n of graph.nodes) bands[n.band].push(n);
  for (const b of bands) b.sort((a, c) => a.order - c.order);
  const pos = new Map();
  const rows = [];
  let y = 8;
  bands.forEach((members, i) => {
    const slot = WIDTH / Math.max(members.length, 1);
    const wMax = Math.min(MAX_NODE_W, slot - 16);
    const chars = Math.floor((wMax - 2 * PAD_X) / CHAR_W);
    const lines = members.map((n) => wrap(n.label, chars));
    const extra = (n) => (n.kind === 'planned' ? 1 : 0); // the "not written yet" line
    const h = Math.max(1, ...members.map((n, k) => lines[k].length + extra(n))) * LINE_H + 2 * PAD_Y;
    const top = y + HEADER;
    // Lessons fill even slots; outside topics are as wide as their text, each as near the
    // mean x of the lessons it leads to (its `want`) as the others leave room for.
    const ws = members.map((n, k) => (n.kind === 'topic' ? Math.min(wMax, Math.max(...lines[k].map((l) => l.length)) * CHAR_W + 2 * PAD_X + 12) : wMax));
    const xs = members.map((n, k) => n.want ?? slot * (k + 0.5));
    for (let k = 0; k < xs.length; k++) xs[k] = Math.max(xs[k], k ? xs[k - 1] + (ws[k - 1] + ws[k]) / 2 + 16 : ws[k] / 2 + 4);
    const over = xs.length ? xs.at(-1) + ws.at(-1) / 2 + 4 - WIDTH : 0;
    if (over > 0) for (let k = xs.length - 1; k >= 0; k--) xs[k] = Math.min(xs[k] - over, k < xs.length - 1 ? xs[k + 1] - (ws[k + 1] + ws[k]) / 2 - 16 : Infinity);
    members.forEach((n, k) => pos.set(n.id, { x: xs[k], y: top + h / 2, w: ws[k], h, lines: lines[k], node: n }));
    rows.push({ title: bandTitles[i], labelY: y + 14, top, bottom: top + h, members: members.map((n) => n.id) });
    y = top + h + GAP;
  });
  return { pos, rows, height: Math.ceil(y - GAP + 12) };
}

// Outside topics sit above the lessons that need them: ordered by the mean x of those lessons.
function orderTopics(graph, bandTitles) {
  const { pos } = place(graph, bandTitles);
  const meanX = new Map();
  for (const n of graph.nodes.filter((m) => m.kind === 'topic')) {
    const xs = graph.edges.filter((e) => e.from === n.id).map((e) => pos.get(e.to).x);
    meanX.set(n.id, xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1));
  }
  const topics = graph.nodes.filter((m) => m.kind === 'topic').sort((a, b) => meanX.get(a.id) - meanX.get(b.id));
  topics.forEach((n, i) => { n.order = i; n.want = meanX.get(n.id); });
}

const bez = (a, b) => { const ym = (a[1] + b[1]) / 2; return [[a[0], ym], [b[0], ym], b]; };

// Each edge as a list of drawing steps: ['M', p], ['L', p] or ['C', c1, c2, p]. `toward`
// (`${edge}|${node}` -> x) orders a node's ports by where each edge heads first: its lane in
// the next band it passes, once a first routing has found the lanes.
function route(graph, pos, rows, toward = new Map()) {
  const kinds = graph.edges.map((e) => {
    const s = pos.get(e.from), t = pos.get(e.to);
    if (s.node.band === t.node.band) return Math.abs(s.node.order - t.node.order) === 1 ? 'side' : 'arc';
    return t.node.band > s.node.band ? 'down' : 'up';
  });
  // Ports: the ends on a node's top or bottom, spread in the order of the other end's x.
  const ends = new Map();
  const addEnd = (id, side, i, other) => {
    const k = `${id}|${side}`;
    if (!ends.has(k)) ends.set(k, []);
    ends.get(k).push({ i, other });
  };
  graph.edges.forEach((e, i) => {
    const k = kinds[i], sx = pos.get(e.from).x, tx = pos.get(e.to).x;
    const [hs, ht] = [toward.get(`${i}|${e.from}`) ?? tx, toward.get(`${i}|${e.to}`) ?? sx];
    if (k === 'down') { addEnd(e.from, 'bottom', i, hs); addEnd(e.to, 'top', i, ht); }
    if (k === 'up') { addEnd(e.from, 'top', i, hs); addEnd(e.to, 'bottom', i, ht); }
    if (k === 'arc') { addEnd(e.from, 'top', i, tx); addEnd(e.to, 'top', i, sx); }
  });
  const port = new Map(); // `${edge}|${id}` -> [x, y]
  for (const [k, list] of ends) {
    const [id, side] = k.split('|');
    const p = pos.get(id);
    list.sort((a, b) => a.other - b.other || a.i - b.i);
    const step = list.length > 1 ? Math.min(14, (p.w * 0.8) / (list.length - 1)) : 0;
    list.forEach((end, j) => port.set(`${end.i}|${id}`, [p.x + (j - (list.length - 1) / 2) * step, side === 'top' ? p.y - p.h / 2 : p.y + p.h / 2]));
  }
  const sides = new Set();
  graph.edges.forEach((e, i) => {
    if (kinds[i] !== 'side') return;
    const [l, r] = [e.from, e.to].sort((a, b) => pos.get(a).x - pos.get(b).x);
    sides.add(`${l}|${r}`);
  });
  // Lanes through the bands an edge passes: the gap between nodes nearest its straight line.
  const lanes = new Map(); // `${band}|${gap}` -> [{i, x}]
  const passes = graph.edges.map((e, i) => {
    if (kinds[i] !== 'down' && kinds[i] !== 'up') return [];
    const a = port.get(`${i}|${e.from}`), b = port.get(`${i}|${e.to}`);
    const [lo, hi] = [pos.get(e.from).node.band, pos.get(e.to).node.band].sort((m, n) => m - n);
    const bands = [];
    for (let band = lo + 1; band < hi; band++) bands.push(band);
    if (kinds[i] === 'up') bands.reverse();
    return bands.map((band) => {
      const row = rows[band];
      const mid = (row.top + row.bottom) / 2;
      const want = a[0] + (b[0] - a[0]) * (mid - a[1]) / (b[1] - a[1]);
      const boxes = row.members.map((id) => pos.get(id));
      const gaps = [[4, boxes[0].x - boxes[0].w / 2 - 4]];
      for (let k = 1; k < boxes.length; k++) gaps.push([boxes[k - 1].x + boxes[k - 1].w / 2 + 4, boxes[k].x - boxes[k].w / 2 - 4]);
      gaps.push([boxes.at(-1).x + boxes.at(-1).w / 2 + 4, WIDTH - 4]);
      // A gap between two lessons joined by an arrow costs more: passing it crosses the arrow.
      const joined = (k) => k > 0 && k < boxes.length && sides.has(`${row.members[k - 1]}|${row.members[k]}`);
      const dist = (g, k) => (want < g[0] ? g[0] - want : want > g[1] ? want - g[1] : 0) + (joined(k) ? SIDE_COST : 0);
      const gap = gaps.reduce((best, g, k) => (dist(g, k) < dist(gaps[best], best) ? k : best), 0);
      const x = Math.min(Math.max(want, gaps[gap][0] + 2), gaps[gap][1] - 2);
      const key = `${band}|${gap}`;
      if (!lanes.has(key)) lanes.set(key, { gap: gaps[gap], list: [] });
      const lane = { x, band };
      lanes.get(key).list.push(lane);
      return lane;
    });
  });
  // Edges sharing a gap are spread 5 px apart, in the order they wanted.
  for (const { gap, list } of lanes.values()) {
    list.sort((m, n) => m.x - n.x);
    for (let k = 1; k < list.length; k++) list[k].x = Math.max(list[k].x, list[k - 1].x + 5);
    const over = list.at(-1).x - (gap[1] - 1);
    if (over > 0) for (const l of list) l.x = Math.max(gap[0] + 1, l.x - over);
  }
  if (!toward.size && passes.some((p) => p.length)) {
    const next = new Map();
    graph.edges.forEach((e, i) => {
      if (!passes[i].length) return;
      next.set(`${i}|${e.from}`, passes[i][0].x);
      next.set(`${i}|${e.to}`, passes[i].at(-1).x);
    });
    return route(graph, pos, rows, next);
  }
  return graph.edges.map((e, i) => {
    const s = pos.get(e.from), t = pos.get(e.to);
    if (kinds[i] === 'side') {
      const dir = Math.sign(t.x - s.x);
      return [['M', [s.x + dir * s.w / 2, s.y]], ['L', [t.x - dir * t.w / 2, t.y]]];
    }
    const a = port.get(`${i}|${e.from}`), b = port.get(`${i}|${e.to}`);
    if (kinds[i] === 'arc') {
      const up = a[1] - ARC_UP(Math.abs(s.node.order - t.node.order));
      return [['M', a], ['C', [a[0], up], [b[0], up], b]];
    }
    const steps = [['M', a]];
    let at = a;
    for (const lane of passes[i]) {
      const row = rows[lane.band];
      const [enter, leave] = kinds[i] === 'down' ? [row.top - 4, row.bottom + 4] : [row.bottom + 4, row.top - 4];
      steps.push(['C', ...bez(at, [lane.x, enter])], ['L', [lane.x, leave]]);
      at = [lane.x, leave];
    }
    steps.push(['C', ...bez(at, b)]);
    return steps;
  });
}

// A path's steps as points (curves sampled), for measuring crossings.
export function polyline(steps) {
  const pts = [];
  for (const [op, ...p] of steps) {
    if (op !== 'C') { pts.push(p[0]); continue; }
    const p0 = pts.at(-1);
    for (let k = 1; k <= 12; k++) {
      const t = k / 12, u = 1 - t;
      pts.push([0, 1].map((d) => u * u * u * p0[d] + 3 * u * u * t * p[0][d] + 3 * u * t * t * p[1][d] + t * t * t * p[2][d]));
    }
  }
  return pts;
}

const cross = (p, q, r, s) => {
  const d = (a, b, c) => (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  return d(p, q, r) * d(p, q, s) < 0 && d(r, s, p) * d(r, s, q) < 0;
};

// The number of pairs of edges, not sharing a node, whose paths cross.
export function countCrossings(edges) {
  let n = 0;
  for (let i = 0; i < edges.length; i++) {
    for (let j = i + 1; j < edges.length; j++) {
      const [e, f] = [edges[i], edges[j]];
      if (e.from === f.from || e.from === f.to || e.to === f.from || e.to === f.to) continue;
      const [a, b] = [e.points, f.points];
      let hit = false;
      for (let k = 1; k < a.length && !hit; k++) for (let m = 1; m < b.length && !hit; m++) hit = cross(a[k - 1], a[k], b[m - 1], b[m]);
      if (hit) n++;
    }
  }
  return n;
}

// Edges drawn across a node that is neither of their ends: [{edge, node}].
export function edgesThroughNodes(edges, boxes) {
  const out = [];
  for (const e of edges) {
    for (const [id, b] of boxes) {
      if (id === e.from || id === e.to) continue;
      const inside = (p) => Math.abs(p[0] - b.x) < b.w / 2 - 1 && Math.abs(p[1] - b.y) < b.h / 2 - 1;
      if (e.points.some(inside)) out.push({ edge: `${e.from}>${e.to}`, node: id });
    }
  }
  return out;
}

const f1 = (v) => v.toFixed(1);
const d = (steps) => steps.map(([op, ...p]) => `${op}${p.map((q) => `${f1(q[0])},${f1(q[1])}`).join(' ')}`).join(' ');

// bandTitles: ['Outside topics', '1 · Foundations', ...]. Returns {svg, width, height, edges
// (with their points), boxes (Map id -> box)}.
export function conceptMapSvg(full, bandTitles) {
  const graph = { nodes: full.nodes, edges: full.edges.filter((e) => !e.implied) };
  orderTopics(graph, bandTitles);
  const { pos, rows, height } = place(graph, bandTitles);
  const paths = route(graph, pos, rows);
  const edges = graph.edges.map((e, i) => ({ ...e, points: polyline(paths[i]) }));
  const bandSvg = rows.map((r) => `<text class="cm-band" x="8" y="${r.labelY}" aria-hidden="true">${esc(r.title)}</text>`).join('\n');
  const edgeSvg = graph.edges.map((e, i) => `<path class="cm-edge" data-from="${esc(e.from)}" data-to="${esc(e.to)}" d="${d(paths[i])}" marker-end="url(#cm-arrow)"/>`).join('\n');
  const nodeSvg = graph.nodes.map((n) => {
    const { x, y, w, h, lines } = pos.get(n.id);
    const count = lines.length + (n.kind === 'planned' ? 1 : 0);
    const line0 = y - ((count - 1) * LINE_H) / 2 + 4.5;
    const text = lines.map((s, i) => `<tspan x="${f1(x)}" y="${f1(line0 + i * LINE_H)}">${esc(s)}</tspan>`).join(' ');
    const note = n.kind === 'planned' ? `<text class="cm-note" text-anchor="middle" x="${f1(x)}" y="${f1(line0 + lines.length * LINE_H)}">not written yet</text>` : '';
    const rx = n.kind === 'topic' ? h / 2 : 8;
    const body = `<rect x="${f1(x - w / 2)}" y="${f1(y - h / 2)}" width="${f1(w)}" height="${f1(h)}" rx="${f1(Math.min(rx, w / 2))}"/>` +
      `<text text-anchor="middle">${text}</text>${note}`;
    const attrs = `class="cm-node cm-${n.kind}" data-node="${esc(n.id)}"`;
    // A lesson's link is named by its visible title (the tspans are joined by spaces).
    if (n.href) return `<a ${attrs} href="${esc(n.href)}">${body}</a>`;
    const what = n.kind === 'topic' ? 'outside topic' : 'lesson not written yet';
    return `<g ${attrs} role="img" aria-label="${esc(n.label)} (${what})">${body}</g>`;
  }).join('\n');
  const svg = `<svg class="concept-map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" ` +
    `width="${WIDTH}" height="${height}" role="group" aria-label="Concept map: the lessons by module and their prerequisites">
<defs><marker id="cm-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="cm-arrowhead"/></marker></defs>
${bandSvg}
${edgeSvg}
${nodeSvg}
</svg>`;
  return { svg, width: WIDTH, height, edges, boxes: new Map([...pos].map(([id, p]) => [id, { x: p.x, y: p.y, w: p.w, h: p.h }])) };
}
