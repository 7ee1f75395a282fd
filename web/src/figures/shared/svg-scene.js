// SVG scenes: what a figure's draw(data, theme) returns when the picture is not a chart (a
// tile map, a heat map, a graph, a block diagram). A scene is plain data (no functions, no
// DOM), so Node tests inspect it as they inspect Chart.js configs; runtime/svg-render.js
// draws it as inline SVG in the figure's chart box.
//
//   { type: 'svg',
//     width, height,            the viewBox, in px at the size it was laid out for
//     label,                    the picture's accessible name
//     nodes: [node...],         drawn in order (later on top)
//     legend: [{label, fill | stroke, dash?}],   the key, also drawn among the nodes
//     axes?: {x: {title}, y: {title}},           axis titles, with units in parentheses
//     grid?: {label, rows, cols, stroke, color}, keyboard-navigable cells (see below); stroke
//                               and color: the focused cell's outer and inner outline
//     minFont }                 smallest font size used, px
//
// Nodes (every number finite; colours only under fill, stroke or color; 'none' for no fill):
//   {kind: 'rect', x, y, w, h, fill, stroke?, strokeWidth?, opacity?, rx?, dash?, tip?, cell?}
//   {kind: 'line', x1, y1, x2, y2, stroke, strokeWidth?, dash?}
//   {kind: 'polyline', points: [[x, y]...], stroke, strokeWidth?, dash?}
//   {kind: 'polygon', points: [[x, y]...], fill}            (arrowheads)
//   {kind: 'text', x, y, text, size, color, anchor?: start|middle|end, weight?, rotate?}
// `tip` is a node's tooltip text (hover, touch); `cell: [row, col]` puts it in the scene's
// grid, which the reader walks with the arrow keys (one tab stop for the whole grid).
//
// Sizes: a drawer lays out for theme.width × theme.height (the figure's chart box, which
// figure.js passes), DEFAULT_SIZE in tests, so text is drawn at its own px size on a phone.

export const DEFAULT_SIZE = { width: 640, height: 352 };
export const FONT = 12;
export const SMALL_FONT = 11;
export const MIN_FONT = 10;
const CHAR_W = 0.56; // average glyph width of the UI font, in ems (for layout estimates)

export const sizeOf = (theme) => ({
  width: Math.max(240, Math.round(theme.width ?? DEFAULT_SIZE.width)),
  height: Math.max(200, Math.round(theme.height ?? DEFAULT_SIZE.height)),
});

// A phone-sized box gets the smaller type.
export const fontFor = (width) => (width < 500 ? SMALL_FONT : FONT);

export const textWidth = (text, size) => String(text).length * CHAR_W * size;

export const text = (x, y, value, size, color, extra = {}) => ({ kind: 'text', x, y, text: String(value), size, color, ...extra });

// The object without its undefined keys (scenes are JSON-like).
export const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

// The legend laid out from (x, y) within `width`, wrapping to new rows, its text in `color`.
// Returns {nodes, height}.
export function legendNodes(legend, x, y, width, size, color) {
  const nodes = [];
  const sw = size * 1.1;
  const rowH = size * 1.6;
  let cx = x;
  let cy = y;
  for (const item of legend) {
    const w = sw + 5 + textWidth(item.label, size) + 14;
    if (cx > x && cx + w > x + width) {
      cx = x;
      cy += rowH;
    }
    const mid = cy + rowH / 2;
    if (item.fill) {
      nodes.push(defined({ kind: 'rect', x: cx, y: mid - sw / 2, w: sw, h: sw, fill: item.fill, stroke: item.stroke,
        strokeWidth: item.stroke ? item.strokeWidth ?? 1 : undefined, opacity: item.opacity, dash: item.dash }));
    } else {
      nodes.push(defined({ kind: 'line', x1: cx, y1: mid, x2: cx + sw, y2: mid, stroke: item.stroke, strokeWidth: 2, dash: item.dash }));
    }
    nodes.push(text(cx + sw + 5, mid + size * 0.35, item.label, size, color));
    cx += w;
  }
  return { nodes, height: legend.length ? cy - y + rowH : 0 };
}

// The legend as the scene keeps it: label and swatch colours only.
export const legendEntries = (legend) => legend.map(({ label, fill, stroke, dash }) =>
  ({ label, ...(fill ? { fill } : {}), ...(stroke ? { stroke } : {}), ...(dash ? { dash } : {}) }));

// Evenly spaced indices 0..n (inclusive) at most `max` of them, always keeping both ends. The
// step is the closest two labels may sit, so a last regular tick less than a step before n
// gives way to n (22 and 23 side by side would touch).
export function tickIndices(n, max) {
  const step = Math.max(1, Math.ceil(n / Math.max(1, max - 1)));
  const out = [];
  for (let i = 0; i < n; i += step) out.push(i);
  if (out.at(-1) !== n) {
    if (n - out.at(-1) < step && out.length > 1) out.pop();
    out.push(n);
  }
  return out;
}

// The smallest font size among a scene's text nodes.
export const minFontOf = (nodes) => Math.min(...nodes.filter((n) => n.kind === 'text').map((n) => n.size));

export function scene({ width, height, label, nodes, legend = [], axes, grid }) {
  return { type: 'svg', width, height, label, nodes, legend: legendEntries(legend),
    ...(axes ? { axes } : {}), ...(grid ? { grid } : {}), minFont: minFontOf(nodes) };
}
