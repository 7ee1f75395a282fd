// The figures' chart helpers (web/src/figures/shared/chart-config.js), the point-label
// placement (web/src/runtime/point-labels.js), and the axes figures fix across settings so
// that their captions' "watch it shrink / drop / flatten" can be seen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, assertChartSubset } from './figure-harness.mjs';
import { chart, linear, log, category, span, colours, series, line } from '../../web/src/figures/shared/chart-config.js';
import { placeLabel, labelText, closerMarker, segmentMeetsBox } from '../../web/src/runtime/point-labels.js';
import rooflinePlot from '../../web/src/figures/roofline-plot.js';
import matmulIntensity from '../../web/src/figures/matmul-intensity.js';
import modelStateBytes from '../../web/src/figures/model-state-bytes.js';
import flashHbm from '../../web/src/figures/flash-hbm-traffic.js';

test('chart: the shared options and theme colours on every axis, the figure keeps its own', () => {
  const cfg = chart(THEME, {
    datasets: [line(THEME.memory, { label: 'a (B)', data: [{ x: 1, y: 1 }] })],
    scales: { x: log('Size (B)', { unit: 'B' }), y: linear('Time (s)', { range: [0, 5], ticks: { stepSize: 1 } }), c: category() },
    tooltip: () => 'hi',
  });
  assertChartSubset('helper', cfg);
  const { x, y, c } = cfg.options.scales;
  assert.deepEqual([x.title.color, x.ticks.color, x.grid.color], [THEME.text, THEME.muted, THEME.grid]);
  assert.equal(typeof x.ticks.callback, 'function');
  assert.deepEqual([y.min, y.max, y.ticks.stepSize], [0, 5, 1]);
  assert.equal(c.ticks.color, THEME.text, 'category ticks are names, in the text colour');
  assert.equal(cfg.options.plugins.legend.labels.usePointStyle, true);
  assert.equal(cfg.options.plugins.tooltip.callbacks.label(), 'hi');
  assert.equal(chart(THEME, { datasets: [], legend: false }).options.plugins.legend.display, false);
  assert.equal(chart(THEME, { datasets: [], scales: { x: category({ ticks: { color: THEME.muted } }) } }).options.scales.x.ticks.color, THEME.muted);
});

test('axes: a range must increase; span bounds finite values', () => {
  assert.throws(() => linear('t (s)', { range: [1, 1] }), /not increasing/);
  assert.throws(() => linear('t (s)', { range: [0, NaN] }), /not increasing/);
  assert.deepEqual(span([1, 3, NaN, Infinity]), [1, 3]);
  assert.deepEqual(span([0, 10], { pad: 0.1 }), [-1, 11]);
  assert.deepEqual(span([0, 1, 100], { log: true, pad: 2 }), [0.5, 200]);
  assert.throws(() => span([NaN]), /no finite values/);
  // A title Chart.js cannot draw fails here, not in the reader's browser.
  assert.throws(() => category({ title: { text: 'op' } }), /is not text/);
  assert.throws(() => linear(['line one', 2]), /is not text/);
  assert.deepEqual(linear(['line one', 'line two']).title.text, ['line one', 'line two']);
});

test('colours: each palette colour once, named colours once, a clear error past the end', () => {
  const pick = colours(THEME);
  const got = THEME.palette.map(() => pick());
  assert.deepEqual(got, THEME.palette);
  assert.throws(() => pick(), /only 8 palette colours/);
  assert.equal(pick('memory'), THEME.memory);
  assert.throws(() => pick('memory'), /already handed out/);
  assert.throws(() => pick('nope'), /no colour "nope"/);
  assert.deepEqual(series('#1', { label: 'x' }), { borderColor: '#1', backgroundColor: '#1', label: 'x' });
});

test('point labels: text from raw.label or a function; placed inside the plot, not over earlier ones', () => {
  assert.equal(labelText({ pointLabels: true }, { label: 'GEMM' }, 0), 'GEMM');
  assert.equal(labelText({ pointLabels: (r, i) => `${r.x}#${i}` }, { x: 3 }, 2), '3#2');
  assert.equal(labelText({}, { label: 'GEMM' }, 0), '');
  assert.equal(labelText({ pointLabels: true }, null, 0), '');
  const area = { left: 0, top: 0, right: 200, bottom: 100 };
  const size = { w: 50, h: 12 };
  const a = placeLabel({ x: 20, y: 50, r: 4 }, size, area, []);
  assert.ok(a.x >= 24 && a.y === 44, 'right of the point, clear of its marker');
  const edge = placeLabel({ x: 190, y: 50 }, size, area, []);
  assert.ok(edge.x + edge.w <= area.right && edge.x < 190, 'left of a point at the right edge');
  const second = placeLabel({ x: 20, y: 52 }, size, area, [a]);
  assert.ok(second.y + second.h <= a.y || second.y >= a.y + a.h || second.x + second.w <= a.x, 'does not overlap the first');
  const marker = { x: 76, y: 46, w: 8, h: 8 }; // another point's marker, right of this one
  const beside = placeLabel({ x: 60, y: 50, r: 4 }, size, area, [], [marker]);
  assert.ok(beside.x + beside.w <= marker.x || beside.y + beside.h <= marker.y || beside.y >= marker.y + marker.h,
    'clear of another point\'s marker');
  // Markers all round the near places: the label goes a ring further out, and says so (a leader).
  const crowd = [-20, 0, 20].flatMap((dx) => [-20, 0, 20].map((dy) => ({ x: 100 + dx - 3, y: 50 + dy - 3, w: 6, h: 6 })))
    .filter((m) => m.x !== 97 || m.y !== 47);
  const out = placeLabel({ x: 100, y: 50, r: 3 }, { w: 30, h: 12 }, area, [], crowd);
  assert.ok(out.far, 'placed beyond the first ring');
  assert.ok(crowd.every((m) => out.x + out.w <= m.x || m.x + m.w <= out.x || out.y + out.h <= m.y || m.y + m.h <= out.y), 'clear of every marker');
  const near = placeLabel({ x: 20, y: 50, r: 4 }, size, area, []);
  assert.equal(near.far, false, 'a label with room beside its point is not far');
  // A leader is drawn when another marker is about as near the label as its own point.
  const box = { x: 26, y: 44, w: 50, h: 12 }; // right of a point at (20, 50), radius 4
  assert.equal(closerMarker({ x: 20, y: 50, r: 4 }, box, [{ x: 150, y: 46, w: 8, h: 8 }]), false, 'the other marker is far');
  assert.equal(closerMarker({ x: 20, y: 50, r: 4 }, box, [{ x: 46, y: 58, w: 8, h: 8 }]), true, 'the other marker is just under the label');
  // A line running right of the point (another series): the label moves off it, near its point.
  const flat = [{ x1: 0, y1: 50, x2: 200, y2: 50 }];
  const offLine = placeLabel({ x: 60, y: 50, r: 4 }, size, area, [], [], flat);
  assert.ok(!segmentMeetsBox(flat[0], offLine), 'crosses no line');
  assert.equal(offLine.far, false, 'still beside its point');
  // Lines everywhere near the point: it stays near and crosses one rather than wander off.
  const grid = [20, 35, 50, 65, 80].map((y) => ({ x1: 0, y1: y, x2: 200, y2: y }));
  const dense = placeLabel({ x: 60, y: 50, r: 4 }, size, area, [], [], grid);
  assert.ok(Math.abs(dense.y + dense.h / 2 - 50) < 40, 'stays within a few rings');
  assert.equal(segmentMeetsBox({ x1: 0, y1: 0, x2: 10, y2: 10 }, { x: 4, y: 4, w: 2, h: 2 }), true, 'a diagonal through the box');
  assert.equal(segmentMeetsBox({ x1: 0, y1: 0, x2: 3, y2: 3 }, { x: 4, y: 4, w: 2, h: 2 }), false, 'ends short of it');
  assert.equal(segmentMeetsBox({ x1: 0, y1: 10, x2: 10, y2: 0 }, { x: 0, y: 0, w: 2, h: 2 }), false, 'passes its corner');
  const corner = placeLabel({ x: 199, y: 1 }, { w: 300, h: 12 }, area, []);
  assert.ok(corner.x >= area.left && corner.y >= area.top, 'clamped into the area when nothing fits');
});

// The axis a figure fixes is the same at every setting its caption asks the reader to move.
const axisOf = (fig, over, key) => {
  const s = fig.draw(run(fig, over), THEME).options.scales[key];
  return [s.min, s.max];
};

test('roofline-plot: the y axis stays put when the dtype changes, above the highest roof', () => {
  const bf16 = axisOf(rooflinePlot, {}, 'y');
  for (const dtype of ['fp32', 'fp8-e4m3', 'int8']) assert.deepEqual(axisOf(rooflinePlot, { dtype }, 'y'), bf16, dtype);
  assert.ok(bf16[1] > run(rooflinePlot, { dtype: 'fp8-e4m3' }).peak);
});

test('matmul-intensity: the y axis stays put across shape and m, and holds every line', () => {
  const start = axisOf(matmulIntensity, {}, 'y');
  for (const over of [{ shape: 'weight' }, { shape: 'weight', m: 1 }, { shape: 'weight', m: 65536 }]) {
    assert.deepEqual(axisOf(matmulIntensity, over, 'y'), start, JSON.stringify(over));
    const ys = run(matmulIntensity, over).series.flatMap((s) => s.points.map((q) => q.y));
    assert.ok(Math.min(...ys) >= start[0] && Math.max(...ys) <= start[1], `${JSON.stringify(over)}: inside the axis`);
  }
});

test('model-state-bytes: the y axis keeps stage 0 height at every ZeRO stage', () => {
  for (const view of ['gpu', 'param']) {
    const top = axisOf(modelStateBytes, { view }, 'y');
    for (const zero_stage of ['1', '2', '3']) assert.deepEqual(axisOf(modelStateBytes, { view, zero_stage }, 'y'), top);
    const bars = run(modelStateBytes, { view }).bars;
    const tallest = Math.max(...bars.map((b) => (view === 'param' ? b.total / b.params : b.total / 1e9)));
    assert.ok(tallest <= top[1] && tallest > 0.9 * top[1], `${view}: the stage-0 bars fill the axis`);
  }
});

test('flash-hbm-traffic: the y axis stays put when the SRAM size changes, and holds every line', () => {
  const start = axisOf(flashHbm, {}, 'y');
  for (const sram_bytes of [4096, 1048576]) {
    assert.deepEqual(axisOf(flashHbm, { sram_bytes }, 'y'), start, `M = ${sram_bytes}`);
    const ys = run(flashHbm, { sram_bytes }).points.flatMap((q) => [q.standard, q.flash, q.scores]);
    assert.ok(Math.min(...ys) >= start[0] && Math.max(...ys) <= start[1], `M = ${sram_bytes}: inside the axis`);
  }
});
