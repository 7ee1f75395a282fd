// Heat map: a matrix of values drawn as a tile grid whose tiles are one theme colour at an
// opacity that grows with the value (so the map keeps to the theme's colours in light and dark
// mode), with a colour bar above it: its steps, ticks and unit. Tooltips (hover and keyboard)
// name the row, the column and the value. Pure: returns a scene (svg-scene.js).
import { text } from './svg-scene.js';
import { tileGrid } from './tile-grid.js';
import { formatFixed } from '../../runtime/format.js';

const LOW = 0.06; // opacity of the smallest value: still visible against the background
const STEPS = 24; // steps in the colour bar

// Opacity for t in [0, 1].
export const opacityAt = (t) => LOW + (1 - LOW) * Math.min(1, Math.max(0, t));

// A value's text: at most 4 significant digits, thousands separated.
export function valueText(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) return v.toExponential(2);
  const s = formatFixed(v, Math.max(0, 3 - Math.floor(Math.log10(a))));
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

// The colour bar: its title (the quantity and unit), STEPS swatches, 5 ticks below.
function colourBar(theme, fill, min, max, title) {
  return (x, y, width, size) => {
    const barW = Math.min(260, width * 0.6);
    const nodes = [text(x, y + size, title, size, theme.text, { weight: 'bold' })];
    const barY = y + size * 1.5;
    const stepW = barW / STEPS;
    for (let k = 0; k < STEPS; k++) {
      nodes.push({ kind: 'rect', x: x + k * stepW, y: barY, w: stepW + 0.3, h: 10, fill, opacity: opacityAt((k + 0.5) / STEPS) });
    }
    nodes.push({ kind: 'rect', x, y: barY, w: barW, h: 10, fill: 'none', stroke: theme.grid, strokeWidth: 1 });
    for (let k = 0; k <= 4; k++) {
      const tx = x + (k / 4) * barW;
      nodes.push({ kind: 'line', x1: tx, y1: barY + 10, x2: tx, y2: barY + 13, stroke: theme.muted, strokeWidth: 1 });
      nodes.push(text(tx, barY + 14 + size, valueText(min + (k / 4) * (max - min)), size, theme.muted,
        { anchor: k === 0 ? 'start' : k === 4 ? 'end' : 'middle' }));
    }
    return { nodes, height: size * 1.5 + 14 + size * 1.3 };
  };
}

// spec: {label, values: number[rows][cols], unit (e.g. 'probability'), quantity (e.g.
//   'Attention weight'), rowLabels, colLabels, xTitle, yTitle, min?, max?, color? (a theme
//   colour; palette[0] by default), tip?: (row, col, value) => string}
export function heatMap(theme, spec) {
  const { values } = spec;
  const rows = values.length;
  const cols = values[0]?.length ?? 0;
  if (!rows || !cols || values.some((r) => r.length !== cols)) throw new Error('heat map: values must be a non-empty rectangular matrix');
  const flat = values.flat();
  if (!flat.every(Number.isFinite)) throw new Error('heat map: every value must be a finite number');
  const min = spec.min ?? Math.min(...flat);
  const max = spec.max ?? Math.max(...flat);
  const fill = spec.color ?? theme.palette[0];
  const unit = spec.unit ? ` (${spec.unit})` : '';
  const tip = spec.tip ?? ((r, c, v) => `${spec.yTitle.replace(/ \(.*\)$/, '')} ${spec.rowLabels?.[r] ?? r}, ` +
    `${spec.xTitle.replace(/ \(.*\)$/, '')} ${spec.colLabels?.[c] ?? c}: ${valueText(v)}${spec.unit ? ` ${spec.unit}` : ''}`);
  const tiles = [];
  values.forEach((row, r) => row.forEach((v, c) => {
    tiles.push({ row: r, col: c, fill, opacity: opacityAt(max > min ? (v - min) / (max - min) : 1), tip: tip(r, c, v) });
  }));
  const s = tileGrid(theme, {
    label: spec.label, rows, cols, tiles, rowLabels: spec.rowLabels, colLabels: spec.colLabels,
    xTitle: spec.xTitle, yTitle: spec.yTitle, top: colourBar(theme, fill, min, max, `${spec.quantity}${unit}`),
  });
  return { ...s, scale: { min, max, fill, title: `${spec.quantity}${unit}` } };
}
