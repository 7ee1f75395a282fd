// Distinct colours. Every figure, at its defaults and at each option of each select control,
// draws its series in colours a reader can tell apart, and the site's palette has them.
//
// The rule, per drawn config (THEME of the harness, whose colours are all different):
// - a series is a dataset shown in the legend (a label, not removed by the legend's filter,
//   the legend not hidden); its colour is its fill on bars (on a hollow bar, one filled with
//   the theme's background, its outline, which a hollow bar of another colour does not share),
//   its border otherwise;
// - two series never share a colour, unless both name the same `group`: one quantity drawn
//   twice (a curve and its own limit, a dashed copy) or one meaning the colour stands for
//   (memory-bound, compute-bound). A dash pattern on the same colour is thus not a second
//   series; a second series needs a second colour;
// - categorical bars (a bar chart over data.labels) coloured one by one (an array of colours)
//   use a different colour for each bar, unless the dataset says `colourBy` (the colour then
//   means that property of the bar, e.g. its bound, and the legend says which). Bars placed
//   by coordinates (timelines, tiles) colour a state, named by legend-only datasets;
// - an SVG scene's legend entries each have their own key (fill, stroke, dash and opacity
//   together): two entries drawn alike would name two things with one look.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { engine, THEME } from './figure-harness.mjs';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { figureLoaders } from '../../web/src/figures/index.js';

// Each setting to draw: the defaults, then each select option moved alone.
function settings(specs) {
  const start = defaults(specs);
  const out = [{ where: 'defaults', p: start }];
  for (const s of specs) {
    if (s.type !== 'select') continue;
    for (const o of s.options) if (o.value !== start[s.key]) out.push({ where: `${s.key} = ${o.value}`, p: { ...start, [s.key]: o.value } });
  }
  return out;
}

// The legend's series of a config: [{ label, colour, group }] (colour an array for per-bar).
export function legendSeries(cfg) {
  const legend = cfg.options?.plugins?.legend;
  if (legend?.display === false) return [];
  const filter = legend?.labels?.filter;
  return cfg.data.datasets.flatMap((ds, i) => {
    if (!ds.label) return [];
    if (filter && !filter({ text: ds.label, datasetIndex: i }, cfg.data)) return [];
    const bar = (ds.type ?? cfg.type) === 'bar';
    const hollow = bar && ds.backgroundColor === THEME.background && typeof ds.borderColor === 'string';
    const colour = hollow ? `hollow ${ds.borderColor}`
      : bar ? ds.backgroundColor ?? ds.borderColor : ds.borderColor ?? ds.backgroundColor;
    return [{ label: ds.label, colour, group: ds.group }];
  });
}

// Problems of one config under the rule above (empty when it keeps to it).
export function colourClashes(cfg) {
  const problems = [];
  const series = legendSeries(cfg).filter((s) => typeof s.colour === 'string');
  series.forEach((a, i) => series.slice(i + 1).forEach((b) => {
    if (a.colour === b.colour && (a.group === undefined || a.group !== b.group)) {
      problems.push(`"${a.label}" and "${b.label}" share ${a.colour}`);
    }
  }));
  for (const ds of cfg.data.datasets) {
    if ((ds.type ?? cfg.type) !== 'bar' || !cfg.data.labels || !Array.isArray(ds.backgroundColor) || ds.colourBy) continue;
    const seen = new Map();
    ds.backgroundColor.forEach((c, i) => {
      if (seen.has(c)) problems.push(`bars ${seen.get(c)} and ${i} of "${ds.label ?? 'unlabelled'}" share ${c}`);
      else seen.set(c, i);
    });
  }
  return problems;
}

// Legend entries of an SVG scene that look the same.
export function sceneClashes(scene) {
  const seen = new Map();
  const problems = [];
  for (const { label, ...look } of scene.legend ?? []) {
    const key = JSON.stringify(look, Object.keys(look).sort());
    if (seen.has(key)) problems.push(`"${seen.get(key)}" and "${label}" are drawn alike (${key})`);
    else seen.set(key, label);
  }
  return problems;
}

test('the rule catches a shared colour, and accepts a declared group', () => {
  assert.equal(sceneClashes({ legend: [{ label: 'a', fill: '#1' }, { label: 'b', fill: '#1' }] }).length, 1);
  assert.equal(sceneClashes({ legend: [{ label: 'a', fill: '#1' }, { label: 'b', fill: '#1', dash: [2, 2] }] }).length, 0);
  const cfg = (a, b) => ({ type: 'scatter', options: {}, data: { datasets: [{ label: 'a', borderColor: '#1', ...a }, { label: 'b', borderColor: '#1', ...b }] } });
  assert.equal(colourClashes(cfg({}, {})).length, 1);
  assert.equal(colourClashes(cfg({ group: 'g' }, { group: 'g' })).length, 0);
  assert.equal(colourClashes(cfg({ group: 'g' }, { group: 'h' })).length, 1);
  assert.equal(colourClashes(cfg({}, { borderColor: '#2' })).length, 0);
  const hollow = (a, b) => ({ type: 'bar', options: {}, data: { datasets: [{ label: 'a', backgroundColor: THEME.background, ...a }, { label: 'b', backgroundColor: THEME.background, ...b }] } });
  assert.equal(colourClashes(hollow({ borderColor: '#1' }, { borderColor: '#1' })).length, 1);
  assert.equal(colourClashes(hollow({ borderColor: '#1' }, { borderColor: '#2' })).length, 0);
  const bars = { type: 'bar', options: {}, data: { labels: ['p', 'q', 'r'], datasets: [{ label: 'x', backgroundColor: ['#1', '#2', '#1'] }] } };
  assert.equal(colourClashes(bars).length, 1);
  bars.data.datasets[0].colourBy = 'bound';
  assert.equal(colourClashes(bars).length, 0);
});

// Every figure, at each of its settings (settings() above).
for (const id of Object.keys(figureLoaders)) {
  test(`${id}: the series it draws have distinct colours`, async () => {
    const fig = (await figureLoaders[id]()).default;
    const specs = resolveParams(fig, engine);
    for (const { where, p } of settings(specs)) {
      const cfg = fig.draw(fig.data(engine, p), THEME);
      const clashes = cfg.type === 'svg' ? sceneClashes(cfg) : colourClashes(cfg);
      assert.deepEqual(clashes, [], `${id} at ${where}`);
    }
  });
}

// --- the CSS palette --------------------------------------------------------------------

const css = readFileSync(new URL('../../web/src/styles/site.css', import.meta.url), 'utf8');
// The custom properties of the light (:root, also the script embed's shadow :host) and dark
// (media query) blocks.
function scheme(block) {
  return Object.fromEntries([...block.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})/g)].map((m) => [m[1], m[2].toLowerCase()]));
}
const ROOT = ':root, :host {';
const light = scheme(css.slice(css.indexOf(ROOT), css.indexOf('}', css.indexOf(ROOT))));
const darkAt = css.indexOf(ROOT, css.indexOf('prefers-color-scheme: dark'));
const dark = scheme(css.slice(darkAt, css.indexOf('}', darkAt)));

// WCAG relative luminance and contrast ratio.
const luminance = (hex) => {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
export const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const SERIES = ['fig-c1', 'fig-c2', 'fig-c3', 'fig-c4', 'fig-c5', 'fig-c6', 'fig-c7', 'fig-c8', 'fig-memory', 'fig-compute', 'fig-text', 'fig-muted'];

test('contrast follows WCAG', () => {
  assert.equal(contrast('#000000', '#ffffff').toFixed(0), '21');
  assert.equal(contrast('#777777', '#ffffff').toFixed(2), '4.48');
});

for (const [name, vars] of [['light', light], ['dark', dark]]) {
  test(`${name} scheme: series colours are pairwise distinct and >= 3:1 against the figure background`, () => {
    for (const v of SERIES) assert.match(vars[v] ?? '', /^#[0-9a-f]{6}$/, `--${v} is set in the ${name} scheme`);
    const seen = new Map();
    for (const v of SERIES) {
      assert.ok(!seen.has(vars[v]), `--${v} and --${seen.get(vars[v])} are both ${vars[v]}`);
      seen.set(vars[v], v);
      const ratio = contrast(vars[v], vars.bg);
      assert.ok(ratio >= 3, `--${v} ${vars[v]} has ${ratio.toFixed(2)}:1 against --bg ${vars.bg}`);
    }
  });
}

test('the theme reads every palette colour the CSS defines', () => {
  const count = Object.keys(light).filter((k) => /^fig-c\d+$/.test(k)).length;
  const theme = readFileSync(new URL('../../web/src/runtime/theme.js', import.meta.url), 'utf8');
  const fallbacks = theme.match(/const PALETTE = \[([^\]]*)\]/)[1].split(',').length;
  assert.equal(fallbacks, count);
  assert.equal(THEME.palette.length, count, 'the harness THEME has as many palette colours as the CSS');
});
