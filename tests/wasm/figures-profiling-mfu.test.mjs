// The profiling-mfu lesson's four figures on the built WASM engine: data() is finite and
// complete, draw() keeps to the Chart.js subset and the theme's colours, the first control
// changes the data, and the numbers match the lesson's closed forms (PaLM's 46.2% MFU, 6ND
// days, the waterfall adding up, each toggle never slowing the step).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, run, close, isEngineError, colours, assertChartSubset } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import mfuCounter from '../../web/src/figures/mfu-flops-counter.js';
import trainingTime from '../../web/src/figures/training-time-6nd.js';
import stepTimeline from '../../web/src/figures/step-timeline.js';
import waterfall from '../../web/src/figures/mfu-waterfall.js';

const FIGURES = [mfuCounter, trainingTime, stepTimeline, waterfall];

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.equal(typeof fig.title, 'string');
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.ok(specs.length > 0);
    assert.ok(['select', 'number', 'integer'].includes(specs[0].type), 'the first control is a select or a slider');
    for (const s of specs) assert.notEqual(s.default, undefined, `${fig.id}.${s.key} has a default`);
  });

  test(`${fig.id}: data at defaults is finite, the table is rectangular`, () => {
    const data = run(fig);
    const { columns, rows } = data.table;
    assert.ok(columns.length > 1 && rows.length > 0);
    for (const row of rows) {
      assert.equal(row.length, columns.length);
      for (const cell of row) assert.ok(typeof cell === 'string' || Number.isFinite(cell), `cell ${cell}`);
    }
    assert.doesNotThrow(() => JSON.stringify(data));
  });

  test(`${fig.id}: draw keeps to the allowed Chart.js subset and theme colours`, () => {
    const cfg = fig.draw(run(fig), THEME);
    assertChartSubset(fig.id, cfg);
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
  });

  test(`${fig.id}: changing the first control changes the data`, () => {
    const specs = resolveParams(fig, engine);
    const first = specs[0];
    const other = first.type === 'select' ? first.options.find((o) => o.value !== first.default).value : first.default * 2;
    assert.notDeepEqual(run(fig, { [first.key]: other }).table, run(fig).table);
  });
}

test('mfu-flops-counter: PaLM 540B at its published throughput is 46.2% MFU, 57.8% HFU', () => {
  const d = run(mfuCounter);
  close(d.mfu, 0.462, 0.002);
  close(d.hfu, 0.578, 0.004);
  close(d.weights + d.attention, d.achieved_flops_per_device, 1e-12);
  close(d.peak_flops_per_device, 275e12);
});

test('mfu-flops-counter: MFU is linear in throughput; a longer sequence raises the attention share', () => {
  close(run(mfuCounter, { tokens_per_s: 476600 }).mfu, 2 * run(mfuCounter).mfu, 1e-12);
  const long = run(mfuCounter, { model: 'llama-2-7b', seq: 32768 });
  const att = 12 * 32 * 32 * 128 * 32768;
  // Llama 2 7B's published total (Touvron et al. 2023; content/data/models.json) less its untied
  // 32000 × 4096 input embedding: N counts the output head, not the lookup table.
  const n = 6738415616 - 32000 * 4096;
  close(long.attention_share, att / (6 * n + att), 1e-12);
  assert.ok(long.attention_share > 0.35);
});

test('mfu-flops-counter: unknown hardware is an EngineError on hardware', () => {
  assert.throws(() => run(mfuCounter, { hardware: 'nope' }), isEngineError('hardware'));
});

test('training-time-6nd: days = 6ND / (devices · peak · MFU), halving with twice the chips', () => {
  const d = run(trainingTime);
  const h100 = d.series.find((s) => s.hardware === 'h100-sxm');
  const peak = engine.calc('hardware', { id: 'h100-sxm' }).peak_flops.bf16;
  for (const q of h100.points) close(q.y, (6 * 70e9 * 2e12) / (q.x * peak * 0.4) / 86400, 1e-12);
  close(d.totalFlops, 8.4e23);
  assert.ok(d.series.find((s) => s.hardware === 'b200').points[0].y < h100.points[0].y);
  close(run(trainingTime, { mfu: 0.2 }).highlighted.points[3].y, 2 * d.highlighted.points[3].y, 1e-12);
});

test('training-time-6nd: an MFU out of range is an EngineError on mfu', () => {
  assert.throws(() => run(trainingTime, { mfu: 0 }), isEngineError('mfu'));
});

test('step-timeline: bars on one stream never overlap, and each toggle never slows the step', () => {
  for (const view of ['step', 'layer', 'tail']) {
    const d = run(stepTimeline, { view });
    const byStream = {};
    for (const k of d.kernels) {
      assert.ok(k.end >= k.start && k.start >= d.window[0] - 1e-15 && k.end <= d.window[1] + 1e-15);
      if (byStream[k.stream] !== undefined) assert.ok(k.start >= byStream[k.stream] - 1e-15, `${k.name} overlaps`);
      byStream[k.stream] = k.end;
    }
  }
  const t = (over) => run(stepTimeline, over).step.step_time_s;
  assert.ok(t({ cuda_graphs: true }) < t({}));
  assert.ok(t({ fusion: true }) < t({}));
  assert.ok(t({ overlap: false }) > t({}));
  const d = run(stepTimeline, { cuda_graphs: true });
  assert.ok(d.step.launch_gap_s < run(stepTimeline).step.launch_gap_s / 5);
});

test('step-timeline: the draw puts kernels on three rows as floating bars', () => {
  const cfg = stepTimeline.draw(run(stepTimeline, { view: 'step' }), THEME);
  assert.equal(cfg.options.indexAxis, 'y');
  assert.deepEqual(cfg.data.labels, ['CPU thread', 'Compute stream', 'Comm stream (NCCL)']);
  for (const ds of cfg.data.datasets) for (const q of ds.data) assert.ok(Array.isArray(q.x) && q.x[1] >= q.x[0]);
});

test('mfu-waterfall: the bars add up from peak to achieved = MFU × peak', () => {
  for (const over of [{}, { fusion: true, cuda_graphs: true, overlap: true }, { micro_batch: 16 }]) {
    const d = run(waterfall, over);
    const deductions = d.bars.filter((b) => !['peak', 'achieved'].includes(b.kind));
    const lost = deductions.reduce((a, b) => a + (b.to - b.from), 0);
    close(d.peak_flops - lost, d.achieved_flops, 1e-9);
    close(d.achieved_flops, d.mfu * d.peak_flops, 1e-12);
    for (const b of deductions) assert.ok(b.to >= b.from);
  }
  assert.ok(run(waterfall, { fusion: true, cuda_graphs: true, overlap: true }).mfu > run(waterfall).mfu);
});

test('mfu-waterfall: a chip without bf16 in the table is an EngineError on dtype or hardware', () => {
  assert.throws(() => run(waterfall, { hardware: 'nope' }), isEngineError('hardware'));
});

test('step-timeline: the output head and loss are in the trace, and the end-of-step view starts at layer 1', () => {
  const d = run(stepTimeline, { view: 'tail' });
  const backward = d.step.kernels.filter((k) => k.stream === 'compute' && k.phase === 'backward');
  // The head's kernels (layer −1) run first in the backward pass; the view must not start there.
  assert.ok(backward.some((k) => k.name.startsWith('Output head')), 'the logits matmul is in the trace');
  close(d.window[0], backward.find((k) => k.layer === 1).start_s, 1e-12);
  // N counts the head: the step's MFU is the mfu calculator's at the step's tokens/s.
  const m = engine.calc('mfu', { layers: 24, hidden: 1024, heads: 16, vocab: 50257, seq: 2048,
    tokens_per_s: d.step.tokens_per_s, hardware: 'h100-sxm' });
  close(m.mfu, d.step.mfu, 1e-12);
});

// Hue in degrees of a #rrggbb colour.
function hue(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
  if (d === 0) return 0;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (60 * h + 360) % 360;
}

test('step-timeline: matmuls and the all-reduce are far apart in hue, in light and dark', () => {
  // web/src/styles/site.css's light and dark colours (the harness theme is synthetic).
  const light = { ...THEME, compute: '#b35900', memory: '#0b5cad',
    palette: ['#8250df', '#1a7f37', '#bf3989', '#0a7480', '#b42318', '#7a6400', '#6f4e37', '#3b4cc0'] };
  const dark = { ...THEME, compute: '#ffa657', memory: '#6cb6ff',
    palette: ['#d2a8ff', '#56d364', '#ff9bce', '#39c5cf', '#ff7b72', '#e3b341', '#c8a27a', '#8c9eff'] };
  for (const theme of [light, dark]) {
    const cfg = stepTimeline.draw(run(stepTimeline, { view: 'step' }), theme);
    const colour = (label) => cfg.data.datasets.find((ds) => ds.label === label).backgroundColor;
    const gap = Math.abs(hue(colour('Matmuls (GEMMs)')) - hue(colour('Gradient all-reduce')));
    assert.ok(Math.min(gap, 360 - gap) > 90, `hues ${colour('Matmuls (GEMMs)')} and ${colour('Gradient all-reduce')}`);
  }
});

test('step-timeline: on a phone the summary under the time axis is short lines, not one squeezed title', () => {
  const data = run(stepTimeline);
  const phone = stepTimeline.draw(data, { ...THEME, width: 360 }).options.scales.x.title.text;
  assert.ok(Array.isArray(phone) && phone.length >= 3, JSON.stringify(phone));
  for (const line of phone) assert.ok(line.length <= 45, `"${line}" is too long for a phone`);
  assert.match(phone.join(' '), /MFU \d+\.\d%/);
  const wide = stepTimeline.draw(data, { ...THEME, width: 900 }).options.scales.x.title.text;
  assert.equal(typeof wide, 'string');
});

// The caption's comparison: a deadline line, the highlighted chip's 40% line kept as a dashed
// copy when MFU moves, and the chips each MFU needs to finish in time (70B on 2T tokens in 24
// days: 1,024 H100s at 40%, 1,638 at 25%).
test('training-time-6nd: the deadline line says how many chips each MFU needs; a dashed 40% copy stays', () => {
  const at40 = run(trainingTime);
  assert.equal(at40.deadline.needed, 1024);
  const cfg40 = trainingTime.draw(at40, THEME);
  assert.ok(!cfg40.data.datasets.some((d) => !d.label.startsWith('Deadline') && /at 40% MFU$/.test(d.label)), 'no copy when MFU is the reference');
  const at25 = run(trainingTime, { mfu: 0.25 });
  assert.equal(at25.deadline.needed, 1638);
  assert.equal(at25.deadline.needed_reference, 1024);
  const cfg = trainingTime.draw(at25, THEME);
  const line = cfg.data.datasets.find((d) => d.label.startsWith('Deadline 24 days'));
  assert.equal(line.label, 'Deadline 24 days: 1,638 chips at 25% MFU, 1,024 at 40%');
  assert.ok(line.data.every((q) => q.y === 24));
  const copy = cfg.data.datasets.find((d) => /H100.* at 40% MFU$/.test(d.label));
  assert.ok(copy && copy.borderDash.length > 0);
  assert.deepEqual(copy.data.map((q) => q.y), at40.highlighted.points.map((q) => q.y));
  // Moving the deadline moves its line and the count.
  const d12 = run(trainingTime, { deadline_days: 12 });
  assert.equal(d12.deadline.needed, 2048);
});

// The waterfall's caption describes what the defaults show: fusion grows the exposed-comm bar
// (the same wait in a shorter step), CUDA graphs barely move the MFU there, and they do on the
// 350M model at one sequence per GPU.
test('mfu-waterfall: the caption settings show what it says', () => {
  const share = (d, id) => d.steps.find((s) => s.id === id).share_of_peak;
  const eager = run(waterfall), fused = run(waterfall, { fusion: true }), both = run(waterfall, { fusion: true, cuda_graphs: true });
  assert.ok(share(fused, 'exposed_comm') > share(eager, 'exposed_comm'));
  assert.ok(share(fused, 'memory_bound') < share(eager, 'memory_bound'));
  assert.ok(share(fused, 'launch_gaps') < 0.01 && Math.abs(both.mfu - fused.mfu) < 0.001);
  const small = run(waterfall, { stack: '350m', micro_batch: 1 }), smallGraphs = run(waterfall, { stack: '350m', micro_batch: 1, cuda_graphs: true });
  assert.ok(share(small, 'launch_gaps') > 0.15 && share(smallGraphs, 'launch_gaps') < 0.05);
  assert.match(waterfall.caption, /CUDA graphs then change almost nothing/);
});

test('mfu-flops-counter: model names fit the select (no truncation at 1280 px or on a phone); the shape is in Show data', () => {
  const opts = resolveParams(mfuCounter, engine).find((s) => s.key === 'model').options;
  for (const o of opts) assert.ok(o.label.length <= 34, o.label);
  assert.ok(opts.some((o) => o.label === 'PaLM 540B (118 layers, T = 2048)'), opts.map((o) => o.label).join(' | '));
  const d = run(mfuCounter);
  assert.ok(d.table.rows.some((r) => r[0].startsWith('H × Q') && r[1] === '48 × 256'));
});
