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

// Every colour value in a Chart.js config (keys ending in colour/color), for theme checks.
export function colours(obj, out = []) {
  if (Array.isArray(obj)) obj.forEach((v) => colours(v, out));
  else if (obj && typeof obj === 'object') {
    for (const [k, v] of Object.entries(obj)) {
      if (/colou?r$/i.test(k) && typeof v !== 'function') [v].flat().forEach((c) => out.push(c));
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
