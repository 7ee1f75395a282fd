// Shared by the figure tests: the WASM engine, a test theme with recognisable colours, the
// figure's default parameters with overrides, and small assertions.
import assert from 'node:assert/strict';
import { loadNodeEngine } from '../../web/src/runtime/engine-node.js';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';

export const { engine } = await loadNodeEngine();

export const THEME = {
  dark: false, text: '#101010', muted: '#606060', grid: '#e0e0e0', background: '#fefefe',
  palette: ['#aa0001', '#aa0002', '#aa0003', '#aa0004', '#aa0005', '#aa0006', '#aa0007', '#aa0008'], memory: '#0000aa', compute: '#aa5500',
};
export const THEME_COLOURS = new Set([THEME.text, THEME.muted, THEME.grid, THEME.background, THEME.memory, THEME.compute, ...THEME.palette]);

// The figure's defaults (resolved against the engine's schemas) with `over` applied.
export const params = (fig, over = {}) => ({ ...defaults(resolveParams(fig, engine)), ...over });
export const run = (fig, over) => fig.data(engine, params(fig, over));
export const close = (a, b, rel = 1e-9) => assert.ok(Math.abs(a - b) <= rel * Math.abs(b), `${a} != ${b} (rel ${rel})`);
export const isEngineError = (field) => (e) => e instanceof EngineError && e.field === field && e.message.length > 0;

// A Chart.js dataset's `fill` names what to fill to, not a colour.
const CHART_FILL_TARGET = /^(origin|start|end|stack|shape|[-+]?\d+)$/;

// Every colour value in a Chart.js config (keys ending in colour/color) or an SVG scene (also
// fill and stroke), for theme checks.
export function colours(obj, out = []) {
  if (Array.isArray(obj)) obj.forEach((v) => colours(v, out));
  else if (obj && typeof obj === 'object') {
    for (const [k, v] of Object.entries(obj)) {
      if (/colou?r$/i.test(k) && typeof v !== 'function') [v].flat().forEach((c) => out.push(c));
      else if ((k === 'fill' || k === 'stroke') && typeof v === 'string' && !CHART_FILL_TARGET.test(v)) out.push(v);
      else colours(v, out);
    }
  }
  return out;
}

// The Chart.js subset every figure keeps to: chart type, no animation, responsive sizing,
// linear/log/category scales with unit-bearing titles, and only theme colours.
export function assertChartSubset(id, cfg) {
  assert.ok(['line', 'scatter', 'bar'].includes(cfg.type));
  assert.equal(cfg.options.animation, false);
  assert.equal(cfg.options.maintainAspectRatio, false);
  assert.equal(cfg.options.responsive, true);
  for (const [name, s] of Object.entries(cfg.options.scales)) {
    assert.ok(['linear', 'logarithmic', 'category'].includes(s.type), `scale ${name}: ${s.type}`);
    if (s.type !== 'category') assert.ok(s.title?.display && /\(.+\)/.test(s.title.text), `scale ${name} has a title with units`);
  }
  for (const c of colours(cfg)) assert.ok(THEME_COLOURS.has(c), `${id} uses a non-theme colour ${c}`);
}

// Every number in a scene (recursively), with its path, for the finiteness check.
function numbers(obj, where, out = []) {
  if (typeof obj === 'number') out.push([where, obj]);
  else if (Array.isArray(obj)) obj.forEach((v, k) => numbers(v, `${where}[${k}]`, out));
  else if (obj && typeof obj === 'object') for (const [k, v] of Object.entries(obj)) numbers(v, `${where}.${k}`, out);
  return out;
}

const NODE_KINDS = new Set(['rect', 'line', 'polyline', 'polygon', 'text']);

// The SVG scene every SVG figure keeps to (web/src/figures/shared/svg-scene.js): plain data,
// known node kinds, finite numbers, only theme colours (or 'none'), readable text, axis titles
// with units, tooltips as text, grid cells inside the grid.
export function assertSceneSubset(id, scene) {
  assert.equal(scene.type, 'svg');
  for (const [where, v] of numbers(scene, id)) assert.ok(Number.isFinite(v), `${where} is ${v}`);
  assert.deepEqual(JSON.parse(JSON.stringify(scene)), scene, `${id}: the scene is not plain data`);
  assert.ok(scene.width > 0 && scene.height > 0, `${id}: scene size`);
  assert.ok(typeof scene.label === 'string' && scene.label.length > 0, `${id}: scene label`);
  assert.ok(Array.isArray(scene.nodes) && scene.nodes.length > 0, `${id}: no nodes`);
  for (const n of scene.nodes) {
    assert.ok(NODE_KINDS.has(n.kind), `${id}: node kind ${n.kind}`);
    if (n.kind === 'text') {
      assert.ok(typeof n.text === 'string' && n.size >= 10, `${id}: text "${n.text}" at ${n.size}px`);
    }
    if (n.tip !== undefined) assert.ok(typeof n.tip === 'string' && n.tip.length > 0, `${id}: empty tooltip`);
    if (n.cell) {
      assert.ok(scene.grid, `${id}: a cell without a grid`);
      assert.ok(n.cell[0] >= 0 && n.cell[0] < scene.grid.rows && n.cell[1] >= 0 && n.cell[1] < scene.grid.cols, `${id}: cell ${n.cell}`);
    }
  }
  assert.ok(scene.minFont >= 10, `${id}: smallest font ${scene.minFont}px`);
  for (const [name, a] of Object.entries(scene.axes ?? {})) assert.ok(/\(.+\)/.test(a.title), `${id}: axis ${name} has a title with units`);
  for (const item of scene.legend) assert.ok(item.label && (item.fill || item.stroke), `${id}: legend entry ${JSON.stringify(item)}`);
  for (const c of colours(scene)) assert.ok(THEME_COLOURS.has(c) || c === 'none', `${id} uses a non-theme colour ${c}`);
}

// A figure's drawing checked by its kind: Chart.js config or SVG scene.
export function assertDrawing(id, drawing) {
  if (drawing.type === 'svg') assertSceneSubset(id, drawing);
  else assertChartSubset(id, drawing);
}

// What is wrong with a data-table cell's text for a reader ([] when nothing): 'NaN',
// 'undefined', 'Infinity', 'null'. In a number's cell: a number of 1e16 or more written out in
// full, or one of more than seven significant digits (float noise:
// "313,999,999,999,999,995,805,696", "0.30000000000000004") unless it is the cell's value, a
// whole number a double holds exactly (a count: "6,738,415,616"). A text cell may quote long
// digits (a bit pattern, "arXiv:2304.01433", a float format's exact value "0.099975586"), but
// not a double's shortest form with its noise (15 digits or more after a point).
export const MAX_SIGNIFICANT = 7;
export function cellProblems(text, value) {
  const out = [];
  for (const word of ['NaN', 'undefined', 'Infinity', 'null', '[object']) {
    if (new RegExp(`(^|[^A-Za-z])${word.replace('[', '\\[')}($|[^A-Za-z])`).test(text)) out.push(`reads "${word}"`);
  }
  if (typeof value !== 'number') {
    for (const [noise] of text.matchAll(/\d*\.\d{15,}/g)) out.push(`"${noise}" is a double's noise`);
    return out;
  }
  for (const m of text.matchAll(/\d[\d,]*(\.\d+)?(e[-+]?\d+)?/gi)) {
    const [number, fraction, exp] = m;
    const plain = number.replace(/,/g, '').replace(/e.*$/i, '');
    const digits = plain.replace('.', '').replace(/^0+/, '');
    const significant = (fraction ? digits : digits.replace(/0+$/, '')).length;
    if (!exp && Number(plain) >= 1e16) out.push(`"${number}" is 1e16 or more, written out in full`);
    else if (significant > MAX_SIGNIFICANT) {
      const count = !fraction && !exp && Number.isSafeInteger(value) && BigInt(plain) === BigInt(Math.abs(value));
      if (!count) out.push(`"${number}" has ${significant} significant digits`);
    }
  }
  return out;
}
