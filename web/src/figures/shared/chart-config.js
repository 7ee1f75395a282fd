// Chart.js configs for the figures, from what each figure states as its own: the datasets,
// the axes (titles, ranges), the tooltip text. Everything the figures share (responsive
// sizing, no animation, theme colours on titles, ticks, grid and legend) is filled in here.
// Pure (no Chart.js import): the node tests draw figures with it.
//
//   chart(theme, { type, datasets, labels, scales, indexAxis, legend, tooltip, plugins, options })
//     -> a full config. type defaults to 'scatter'. scales: { x: linear(...), y: log(...) }.
//     Theme colours fill every scale's title (text), ticks (muted; text on category axes,
//     whose ticks are names) and grid, unless the axis set its own.
//     legend: false hides it; an object is merged into legend.labels (point-style keys by
//     default: { usePointStyle: false } for boxes). tooltip: a function (ctx) => label text,
//     or Chart.js tooltip options. plugins/options: merged in last, for the rare extra.
//   linear(title, opts), log(title, opts), category(opts): one axis (title: a string, or an
//     array of lines). opts pass through to
//     Chart.js (min, max, stacked, position, ticks, grid, ...), plus
//       range: [lo, hi]  a fixed range, e.g. span() of the values over all of a figure's
//                        settings, so that changing a control moves the data, not the axis;
//       unit (log only): tick labels with logTick(unit); without it the course's default log
//                        ticks (runtime/chart.js logarithmicTick) apply.
//   span(values, { pad, log }) -> [lo, hi] around finite values (pad: a factor on log axes,
//     a fraction of the width on linear ones).
//   colours(theme) -> pick(): a picker handing out each colour once per figure: pick() the
//     next unused palette colour, pick('memory' | 'compute' | 'text' | 'muted') a named one.
//     Asking twice for the same name, or for more palette colours than there are, throws.
//   series(colour, spec) -> a dataset drawn in one colour (border and fill).
//   line(colour, spec) -> a curve with no point markers (2 px, point-style legend key).
//     Datasets meant to share a colour (a quantity and its own limit, a dashed copy) give the
//     same `group`; tests/wasm/figure-colours.test.mjs holds every other pair distinct.
//   pointLabels: a dataset's `pointLabels: true` (each point's raw.label) or
//     (raw, index) => text draws the text next to its points (runtime/point-labels.js: clear of
//     other labels and markers, further out with a thin leader line when the near places are
//     taken; tests/web/point-labels.test.mjs holds every figure to that). A bar dataset marked
//     `labelBackdrop: true` is a backdrop labels may cross.
import { logTick } from '../../runtime/format.js';

const isObject = (v) => v && typeof v === 'object' && !Array.isArray(v);

// The axis with the theme's colours wherever it did not choose one.
function themed(theme, axis) {
  const tickColour = axis.type === 'category' ? theme.text : theme.muted;
  const out = { ...axis, ticks: { color: tickColour, ...axis.ticks }, grid: { color: theme.grid, ...axis.grid } };
  if (axis.title) out.title = { color: theme.text, ...axis.title };
  return out;
}

function axis(type, title, { range, ...opts } = {}) {
  const a = { type, ...opts };
  const lines = Array.isArray(title) ? title : [title];
  if (title !== undefined && !lines.every((t) => typeof t === 'string')) {
    throw new Error(`axis title ${JSON.stringify(title)} is not text (a string, or an array of lines)`);
  }
  if (title) a.title = { display: true, text: title };
  if (range) {
    if (!(range[0] < range[1])) throw new Error(`axis "${title}": range [${range}] is not increasing`);
    [a.min, a.max] = range;
  }
  return a;
}

export const linear = (title, opts) => axis('linear', title, opts);
export function log(title, { unit, ticks, ...opts } = {}) {
  const t = { maxRotation: 0, ...(unit === undefined ? {} : { callback: logTick(unit) }), ...ticks };
  return axis('logarithmic', title, { ...opts, ticks: t });
}
export const category = ({ title, ...opts } = {}) => axis('category', title, opts);

export function span(values, { pad = 0, log: isLog = false } = {}) {
  const v = values.filter((x) => Number.isFinite(x) && (!isLog || x > 0));
  if (!v.length) throw new Error('span: no finite values to bound');
  let [lo, hi] = [Math.min(...v), Math.max(...v)];
  if (isLog) return [lo / (pad || 1), hi * (pad || 1)];
  const d = (hi - lo) * pad;
  return [lo - d, hi + d];
}

export function colours(theme) {
  const used = new Set();
  let next = 0;
  return (name) => {
    if (name !== undefined) {
      if (!(name in theme) || typeof theme[name] !== 'string') throw new Error(`colours: the theme has no colour "${name}"`);
      if (used.has(name)) throw new Error(`colours: "${name}" was already handed out in this figure`);
      used.add(name);
      return theme[name];
    }
    if (next >= theme.palette.length) throw new Error(`colours: only ${theme.palette.length} palette colours`);
    return theme.palette[next++];
  };
}

export const series = (colour, spec) => ({ borderColor: colour, backgroundColor: colour, ...spec });
export const line = (colour, spec) => series(colour, {
  showLine: true, borderWidth: 2, pointStyle: 'line', pointRadius: 0, pointHoverRadius: 0, ...spec,
});

// The name of a reference line, written beside the line rather than across it: a dataset of
// one unmarked point at (x, y), kept out of the legend (the line has its own entry). For a
// horizontal line give a y a little off the line (offLine); for a vertical one the label sits
// beside the point, clear of the line through it. `group`: the line's, so both share a colour.
export const lineLabel = (colour, group, x, y, text) => series(colour, {
  label: text, data: [{ x, y, label: text }], showLine: false, pointRadius: 0, pointHoverRadius: 0, pointHitRadius: 0,
  pointLabels: true, labelOnly: true, group,
});

// A value a twelfth of a log axis [lo, hi] above v (below, when above is off the axis): where
// the label of a horizontal line at v clears it.
export function offLine(v, [lo, hi]) {
  const step = (hi / lo) ** (1 / 12);
  const on = Math.min(Math.max(v, lo), hi);
  return on * step <= hi ? on * step : on / step;
}

export function chart(theme, { type = 'scatter', datasets, labels, scales = {}, indexAxis, legend = {}, tooltip,
  plugins = {}, options = {} }) {
  const themedScales = Object.fromEntries(Object.entries(scales).map(([k, a]) => [k, themed(theme, a)]));
  const p = {
    legend: legend === false ? { display: false } : { labels: { color: theme.text, usePointStyle: true,
      filter: (item, d) => !d.datasets[item.datasetIndex]?.labelOnly, ...legend } },
    pointLabels: { color: theme.text, haloColor: theme.background ?? theme.grid },
  };
  if (typeof tooltip === 'function') p.tooltip = { callbacks: { label: tooltip } };
  else if (isObject(tooltip)) p.tooltip = tooltip;
  const data = labels ? { labels, datasets } : { datasets };
  return {
    type,
    data,
    options: {
      responsive: true, maintainAspectRatio: false, animation: false,
      ...(indexAxis ? { indexAxis } : {}),
      scales: themedScales,
      ...options,
      plugins: { ...p, ...plugins },
    },
  };
}
