// The concept map (/concept-map/): lessons as nodes, prerequisite edges from the lessons'
// front matter (prerequisites.lessons and prerequisites.topics), outside topics as nodes of
// their own. Laid out at build time by dagre into a static SVG whose lesson nodes are links,
// so no layout code ships to the browser. Pure: no I/O.
import dagre from '@dagrejs/dagre';
import { esc } from './markdown.js';

export const topicId = (topic) => `topic-${String(topic).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;

// lessons: front matter of existing lessons (in course order); outline: Map slug -> course.yaml entry.
// Returns {nodes: [{id, kind: lesson|planned|topic, label, href?}], edges: [{from, to}]}.
export function conceptGraph(lessons, outline) {
  const nodes = new Map();
  const edges = [];
  const written = new Set(lessons.map((l) => l.slug));
  const lessonNode = (slug) => {
    if (!nodes.has(slug)) {
      const planned = outline.get(slug);
      nodes.set(slug, written.has(slug)
        ? { id: slug, kind: 'lesson', label: planned.title, href: `/lessons/${slug}/`, track: planned.track }
        : { id: slug, kind: 'planned', label: planned.title });
    }
  };
  for (const l of lessons) lessonNode(l.slug);
  for (const l of lessons) {
    for (const p of l.prerequisites?.lessons ?? []) {
      if (!outline.has(p)) throw new Error(`content/lessons/${l.slug}.md: prerequisite lesson "${p}" is not in content/course.yaml`);
      if (p === l.slug) throw new Error(`content/lessons/${l.slug}.md: a lesson cannot be its own prerequisite`);
      lessonNode(p);
      edges.push({ from: p, to: l.slug });
    }
    for (const t of l.prerequisites?.topics ?? []) {
      const id = topicId(t);
      if (!nodes.has(id)) nodes.set(id, { id, kind: 'topic', label: String(t) });
      edges.push({ from: id, to: l.slug });
    }
  }
  return { nodes: [...nodes.values()], edges };
}

// Wraps a label into lines of at most `width` characters.
function wrap(text, width) {
  const lines = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && (line + ' ' + word).length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

const CHAR_W = 7.2, LINE_H = 17, PAD_X = 12, PAD_Y = 9;

// Lays the graph out (top to bottom) and returns {svg, width, height}. The SVG fills its
// box but never shrinks below 3/4 of its natural size (the box scrolls instead), so the
// labels stay readable on any screen.
export function conceptMapSvg(graph, { wrapAt = 18 } = {}) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 14, ranksep: 40, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) {
    const lines = wrap(n.label, wrapAt);
    const width = Math.max(...lines.map((s) => s.length)) * CHAR_W + 2 * PAD_X;
    g.setNode(n.id, { width, height: lines.length * LINE_H + 2 * PAD_Y, lines, node: n });
  }
  for (const e of graph.edges) g.setEdge(e.from, e.to);
  dagre.layout(g);
  const { width, height } = g.graph();
  const edgeSvg = g.edges().map((e) => {
    const pts = g.edge(e).points;
    const d = pts.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    return `<path class="cm-edge" data-from="${esc(e.v)}" data-to="${esc(e.w)}" d="${d}" marker-end="url(#cm-arrow)"/>`;
  }).join('\n');
  const nodeSvg = g.nodes().map((id) => {
    const { x, y, width: w, height: h, lines, node } = g.node(id);
    const text = lines.map((s, i) => `<tspan x="${x.toFixed(1)}" y="${(y - (lines.length - 1) * LINE_H / 2 + i * LINE_H + 5).toFixed(1)}">${esc(s)}</tspan>`).join(' ');
    const shape = node.kind === 'topic'
      ? `<ellipse cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" rx="${(w / 2 + 6).toFixed(1)}" ry="${(h / 2).toFixed(1)}"/>`
      : `<rect x="${(x - w / 2).toFixed(1)}" y="${(y - h / 2).toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" rx="8"/>`;
    const body = `${shape}<text text-anchor="middle">${text}</text>`;
    const attrs = `class="cm-node cm-${node.kind}" data-node="${esc(id)}"`;
    // A lesson's link is named by its visible title (the tspans are joined by spaces).
    if (node.href) return `<a ${attrs} href="${esc(node.href)}">${body}</a>`;
    const what = node.kind === 'topic' ? 'outside topic' : 'lesson in preparation';
    return `<g ${attrs} role="img" aria-label="${esc(node.label)} (${what})">${body}</g>`;
  }).join('\n');
  const svg = `<svg class="concept-map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${Math.ceil(width)} ${Math.ceil(height)}" ` +
    `width="${Math.ceil(width)}" height="${Math.ceil(height)}" style="min-width:${Math.ceil(width * 0.75)}px" role="group" aria-label="Concept map: lessons and their prerequisites">
<defs><marker id="cm-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="cm-arrowhead"/></marker></defs>
${edgeSvg}
${nodeSvg}
</svg>`;
  return { svg, width: Math.ceil(width), height: Math.ceil(height) };
}
