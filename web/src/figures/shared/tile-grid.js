// Tile grid: rows × cols of tiles, each with its own fill (from a named state or given) and a
// tooltip, optional lines over them (a diagonal, a boundary) in data units, row and column
// axis titles and tick labels, and a legend or a colour bar above. The heat map
// (heat-map.js) is a tile grid whose fills come from a colour scale. Pure: returns a scene
// (svg-scene.js).
import { sizeOf, fontFor, text, textWidth, legendNodes, tickIndices, scene } from './svg-scene.js';

const fmtEdge = (v) => (Number.isInteger(v) ? String(v) : v.toPrecision(3));

// Where a tile sits, in the grid's data units: its row and column edges.
const span = (edges, k) => [edges[k], edges[k + 1]];

const range = (n) => Array.from({ length: n + 1 }, (_, k) => k);

function checkEdges(edges, n, what) {
  if (edges.length !== n + 1) throw new Error(`tile grid: ${what} needs ${n + 1} edges, got ${edges.length}`);
  for (let k = 1; k < edges.length; k++) {
    if (!(edges[k] > edges[k - 1])) throw new Error(`tile grid: ${what} edges must increase`);
  }
}

// spec: {label, rows, cols, tiles: [{row, col, state | fill, opacity?, tip}],
//   states?: {name: {fill, stroke?, strokeWidth?, opacity?}},
//   rowEdges?, colEdges? (data units, rows+1 / cols+1 increasing; default 0..n: tile indices),
//   rowLabels?, colLabels? (one label per row / column, instead of numbers at the edges),
//   xTitle, yTitle (with units), lines?: [{from: [x, y], to: [x, y], stroke, dash?, strokeWidth?}],
//   legend?: [{label, fill | stroke, ...}], top?: (x, y, width, size) => {nodes, height}
//   (what goes above the map instead of a legend: the heat map's colour bar)}
export function tileGrid(theme, spec) {
  const { width, height } = sizeOf(theme);
  const size = fontFor(width);
  const { rows, cols, tiles, states = {}, lines = [], legend = [] } = spec;
  if (!(rows >= 1 && cols >= 1)) throw new Error('tile grid: needs at least one row and one column');
  const rowEdges = spec.rowEdges ?? range(rows);
  const colEdges = spec.colEdges ?? range(cols);
  checkEdges(rowEdges, rows, 'rows');
  checkEdges(colEdges, cols, 'columns');
  const nodes = [];
  const pad = 4;

  // Above: the legend (or the colour bar), then the column axis title and its tick labels.
  const top = spec.top ? spec.top(pad, pad, width - 2 * pad, size) : legendNodes(legend, pad, pad, width - 2 * pad, size, theme.text);
  nodes.push(...top.nodes);
  const yXTitle = pad + top.height + size * 1.2;
  const yXTicks = yXTitle + size * 1.3;
  const plotTop = yXTicks + size * 0.5;

  // Left: the row axis title (turned) and the tick labels' width.
  const rowText = spec.rowLabels ?? rowEdges.map(fmtEdge);
  const tickW = Math.max(...rowText.map((s) => textWidth(s, size)));
  const plotLeftMin = pad + size * 1.4 + tickW + 6;
  const availW = width - plotLeftMin - pad - size;
  const availH = height - plotTop - pad;
  const xExtent = colEdges[cols] - colEdges[0];
  const yExtent = rowEdges[rows] - rowEdges[0];
  // One scale for both axes (a square matrix stays square), the map centred in what is left.
  const scale = Math.max(0.01, Math.min(availW / xExtent, availH / yExtent));
  const plotW = xExtent * scale;
  const plotH = yExtent * scale;
  const left = plotLeftMin + (availW - plotW) / 2;
  const px = (v) => left + (v - colEdges[0]) * scale;
  const py = (v) => plotTop + (v - rowEdges[0]) * scale;

  nodes.push(text(left + plotW / 2, yXTitle, spec.xTitle, size, theme.text, { anchor: 'middle', weight: 'bold' }));
  nodes.push(text(left - tickW - 6 - size * 0.4, plotTop + plotH / 2, spec.yTitle, size, theme.text,
    { anchor: 'middle', weight: 'bold', rotate: -90 }));

  // Tick labels: numbers at the edges, or a label per row / column at its centre; thinned so
  // that they never touch.
  const colText = spec.colLabels ?? colEdges.map(fmtEdge);
  const widest = Math.max(...colText.map((s) => textWidth(s, size)));
  if (spec.colLabels) {
    for (const k of tickIndices(cols - 1, Math.floor(plotW / (widest + 8)) + 1)) {
      const [a, b] = span(colEdges, k);
      nodes.push(text(px((a + b) / 2), yXTicks, colText[k], size, theme.muted, { anchor: 'middle' }));
    }
  } else {
    for (const k of tickIndices(cols, Math.floor(plotW / (widest + 8)) + 1)) {
      nodes.push(text(px(colEdges[k]), yXTicks, colText[k], size, theme.muted, { anchor: 'middle' }));
    }
  }
  const maxRowTicks = Math.floor(plotH / (size * 1.6)) + 1;
  if (spec.rowLabels) {
    for (const k of tickIndices(rows - 1, maxRowTicks)) {
      const [a, b] = span(rowEdges, k);
      nodes.push(text(left - 5, py((a + b) / 2) + size * 0.35, rowText[k], size, theme.muted, { anchor: 'end' }));
    }
  } else {
    for (const k of tickIndices(rows, maxRowTicks)) {
      nodes.push(text(left - 5, py(rowEdges[k]) + size * 0.35, rowText[k], size, theme.muted, { anchor: 'end' }));
    }
  }

  // The tiles, a hair apart where they are big enough to show a gap.
  const minCell = Math.min(...tiles.map((t) => Math.min(
    (rowEdges[t.row + 1] - rowEdges[t.row]) * scale, (colEdges[t.col + 1] - colEdges[t.col]) * scale)));
  const gap = minCell >= 8 ? 1 : 0;
  nodes.push({ kind: 'rect', x: left, y: plotTop, w: plotW, h: plotH, fill: 'none', stroke: theme.grid, strokeWidth: 1 });
  for (const t of tiles) {
    if (!(t.row >= 0 && t.row < rows && t.col >= 0 && t.col < cols)) throw new Error(`tile grid: tile (${t.row}, ${t.col}) is outside ${rows} × ${cols}`);
    const look = t.state !== undefined ? states[t.state] : t;
    if (!look) throw new Error(`tile grid: no look for state "${t.state}"`);
    const [y0, y1] = span(rowEdges, t.row);
    const [x0, x1] = span(colEdges, t.col);
    nodes.push({
      kind: 'rect', x: px(x0) + gap / 2, y: py(y0) + gap / 2, w: Math.max(0.5, (x1 - x0) * scale - gap), h: Math.max(0.5, (y1 - y0) * scale - gap),
      fill: look.fill, ...(look.stroke ? { stroke: look.stroke, strokeWidth: look.strokeWidth ?? 1 } : {}),
      ...(look.opacity !== undefined ? { opacity: t.opacity ?? look.opacity } : t.opacity !== undefined ? { opacity: t.opacity } : {}),
      ...(look.dash ? { dash: look.dash } : {}), tip: t.tip, cell: [t.row, t.col],
    });
  }
  for (const l of lines) {
    nodes.push({ kind: 'line', x1: px(l.from[0]), y1: py(l.from[1]), x2: px(l.to[0]), y2: py(l.to[1]),
      stroke: l.stroke, strokeWidth: l.strokeWidth ?? 1.5, ...(l.dash ? { dash: l.dash } : {}) });
  }
  return scene({
    width, height, label: spec.label, nodes, legend,
    axes: { x: { title: spec.xTitle }, y: { title: spec.yTitle } },
    grid: { label: spec.label, rows, cols, stroke: theme.text, color: theme.grid },
  });
}
