// The data-parallel-zero-fsdp lesson's four figures on the built WASM engine: data() is
// finite and complete, draw() keeps to the Chart.js subset and the theme's colours, controls
// change the data, and the numbers match the lesson's closed forms (the hierarchical
// all-reduce across nodes, ZeRO's 2Ψ/2Ψ/3Ψ and Figure 1 memory, FSDP's two-level token
// threshold).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, run, close, isEngineError, colours, assertChartSubset } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import dpStep from '../../web/src/figures/dp-step-scaling.js';
import zeroMemory from '../../web/src/figures/zero-memory-per-gpu.js';
import zeroComm from '../../web/src/figures/zero-communication.js';
import fsdpTokens from '../../web/src/figures/fsdp-tokens-to-hide.js';
import { dataParallel } from '../../web/src/figures/lists/data-parallel.js';

const FIGURES = [dpStep, zeroMemory, zeroComm, fsdpTokens];

test('the list registers the four figures', async () => {
  assert.deepEqual(Object.keys(dataParallel).sort(), FIGURES.map((f) => f.id).sort());
  for (const [id, load] of Object.entries(dataParallel)) assert.equal((await load()).default.id, id);
});

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.ok(specs.some((s) => s.type === 'select' || ['number', 'integer'].includes(s.type)));
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
  });

  test(`${fig.id}: draw keeps to the allowed Chart.js subset and theme colours`, () => {
    const cfg = fig.draw(run(fig), THEME);
    assertChartSubset(fig.id, cfg);
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
    for (const d of cfg.data.datasets) if (d.type) assert.ok(['line', 'scatter', 'bar'].includes(d.type));
  });

  test(`${fig.id}: the first control changes the data`, () => {
    const first = resolveParams(fig, engine)[0];
    const other = first.type === 'select' ? first.options.find((o) => o.value !== first.default).value : first.default * 10;
    assert.notDeepEqual(run(fig, { [first.key]: other }).table, run(fig).table);
  });

  test(`${fig.id}: unknown hardware is an EngineError on the hardware field`, () => {
    assert.throws(() => run(fig, { hardware: 'nope' }), isEngineError('hardware'));
  });
}

test('dp-step-scaling: efficiency is 1 at one GPU and never rises; compute is flat (weak scaling)', () => {
  for (const overlap of [true, false]) {
    const d = run(dpStep, { overlap });
    assert.equal(d.points[0].gpus, 1);
    close(d.points[0].efficiency, 1);
    for (let i = 1; i < d.points.length; i++) {
      assert.ok(d.points[i].efficiency <= d.points[i - 1].efficiency + 1e-12);
      close(d.points[i].compute_s, d.points[0].compute_s);
      assert.ok(d.points[i].step_s >= d.points[i].compute_s);
    }
  }
  // Without overlap the exposed time is the whole hierarchical all-reduce over 8 nodes of 8:
  // 2·7 NVLink steps of S/8 and 2·7 network steps of S/64, S = 2Ψ bytes, α = 1 µs; one phase
  // after the other, or pipelined: every step's latency and the slower phase's bandwidth term.
  const S = 2 * 7e9;
  const seq = run(dpStep, { overlap: false, phases: 'sequential' }).points.find((x) => x.gpus === 64);
  close(seq.exposed_s, 14 * (1e-6 + S / 8 / 450e9) + 14 * (1e-6 + S / 64 / 50e9));
  const q = run(dpStep, { overlap: false }).points.find((x) => x.gpus === 64);
  close(q.exposed_s, 28e-6 + Math.max((14 * S) / 8 / 450e9, (14 * S) / 64 / 50e9));
  close(q.compute_s, (6 * 7e9 * 1024) / (989.4e12 * 0.4));
});

// The default case (7B, 1,024 tokens per GPU, H100 nodes of 8 with 50 GB/s NICs) hides its
// all-reduce at every scale with the phases pipelined, the model that meets NCCL's measured bus
// bandwidth; the drop past the node is the sequential bound's, drawn as its own line.
test('dp-step-scaling: pipelined phases hide the default all-reduce at every scale; the sequential bound dips past the node', () => {
  const d = run(dpStep);
  for (const q of d.points) {
    assert.ok(q.efficiency > 0.998, `${q.gpus}: ${q.efficiency}`);
    assert.ok(q.efficiency_sequential <= q.efficiency + 1e-12);
    if (q.gpus >= 64) assert.ok(q.efficiency_sequential < 0.75, `${q.gpus}: ${q.efficiency_sequential}`);
  }
  const cfg = dpStep.draw(d, THEME);
  assert.ok(cfg.data.datasets.some((ds) => /one after the other/.test(ds.label)));
  // Sequential phases: the bound is the line itself, and no second copy of it is drawn.
  const s = run(dpStep, { phases: 'sequential' });
  s.points.forEach((q) => close(q.efficiency, q.efficiency_sequential));
  assert.ok(!dpStep.draw(s, THEME).data.datasets.some((ds) => /one after the other/.test(ds.label)));
  // The step axis stays put when overlap or the phases change.
  for (const over of [{ overlap: false }, { phases: 'sequential' }, { overlap: false, phases: 'sequential' }]) assert.equal(run(dpStep, over).stepTop, d.stepTop);
});

test('dp-step-scaling: Show data uses one notation per column (ms, GB/s, % with at most 4 significant digits)', () => {
  const { columns, rows } = run(dpStep).table;
  assert.ok(columns.every((c) => !/\(s\)|\(B\/s\)/.test(c)), columns.join(' | '));
  for (const row of rows) for (const cell of row) {
    assert.ok(!/e[+-]/.test(String(cell)), `exponent in ${cell}`);
    assert.ok(String(cell).replace(/[^0-9]/g, '').replace(/^0+/, '').replace(/0+$/, '').length <= 4, `digits in ${cell}`);
  }
});

// Regression: overlap used to lose to no overlap at 512 GPUs and more (each of 535 buckets paid a
// flat ring's latency). Pipelined buckets at the latency of the algorithm NCCL picks never lose.
test('dp-step-scaling: overlap is never less efficient than no overlap', () => {
  for (const over of [{}, { seq: 4096 }, { params: 1e12 }, { params: 1e8 }, { inter_bandwidth_Bps: 5e9 }, { hardware: 'b200' }]) {
    for (const q of run(dpStep, over).points) assert.ok(q.efficiency >= q.efficiency_no_overlap - 1e-12, `${JSON.stringify(over)} at ${q.gpus}`);
  }
});

test('dp-step-scaling: more sequences per GPU or a faster network raise efficiency at 1024 GPUs', () => {
  const last = (over) => run(dpStep, over).points.at(-1).efficiency;
  assert.ok(last({ micro_batch: 8 }) > last({}));
  assert.ok(last({ inter_bandwidth_Bps: 2e11 }) > last({}));
});

test('zero-memory-per-gpu: ZeRO Figure 1 (7.5B, N_d = 64): 120, 31.4, 16.6, 1.9 GB', () => {
  const d = run(zeroMemory);
  const at64 = d.series.map((s) => s.find((q) => q.x === 64).y / 1e9);
  [120, 31.4, 16.6, 1.9].forEach((gb, i) => assert.ok(Math.abs(at64[i] - gb) < 0.05, `stage ${i}: ${at64[i]}`));
  // Stage 3 is 16Ψ/N at every degree; stage 0 is flat.
  for (const q of d.series[3]) close(q.y, (16 * 7.5e9) / q.x);
  for (const q of d.series[0]) close(q.y, 16 * 7.5e9);
  assert.equal(d.fitsAt[0], null);  // 120 GB never fits in 80 GiB
  assert.equal(d.fitsAt[3], 2);
});

test('zero-memory-per-gpu: each stage is named on the chart at N = 64 only, with its bytes', () => {
  const cfg = zeroMemory.draw(run(zeroMemory), THEME);
  const named = cfg.data.datasets.filter((ds) => typeof ds.pointLabels === 'function')
    .flatMap((ds) => ds.data.map((q, i) => [q.x, ds.pointLabels(q, i)]).filter(([, text]) => text));
  assert.deepEqual(named.map(([x]) => x), [64, 64, 64, 64]);
  assert.deepEqual(named.map(([, text]) => text.replace(/\s/g, ' ')), ['120 GB', '31.4 GB', '16.6 GB', '1.88 GB']);
});

test('zero-communication: 2Ψ, 2Ψ, 2Ψ, 3Ψ elements, times 1 : 1 : 1 : 1.5', () => {
  const d = run(zeroComm, { params: 1e10, dp: 32 });
  assert.deepEqual(d.stages.map((s) => s.psi), [2, 2, 2, 3]);
  d.stages.forEach((s) => close(s.bytes, s.psi * 1e10 * 2 * (31 / 32)));
  close(d.stages[3].time_s, 1.5 * d.stages[0].time_s);
  close(d.stages[1].time_s, d.stages[0].time_s);
  // fp32 doubles the bytes; crossing from 8 to 16 GPUs adds the network phase: 2·(1/16)·S/50e9
  // on top of the NVLink phases' 2·(7/8)·S/450e9 (α = 1 µs per step).
  close(run(zeroComm, { comm_dtype: 'fp32' }).stages[0].bytes, 2 * run(zeroComm).stages[0].bytes);
  const S = 2 * 7.5e9;
  close(run(zeroComm, { dp: 8 }).stages[0].time_s, 14 * (1e-6 + S / 8 / 450e9));
  close(run(zeroComm, { dp: 16, phases: 'sequential' }).stages[0].time_s, 14 * (1e-6 + S / 8 / 450e9) + 2 * (1e-6 + S / 16 / 50e9));
  // Pipelined (the default), two nodes: the NVLink phases are the slower, so 16 GPUs cost only
  // the two extra latency steps more than 8, where the sequential sum jumps.
  close(run(zeroComm, { dp: 16 }).stages[0].time_s, 16e-6 + (14 * S) / 8 / 450e9);
  // The time axis is the same for both phase choices.
  assert.equal(run(zeroComm, { phases: 'sequential' }).top.time_s, run(zeroComm).top.time_s);
});

test('fsdp-tokens-to-hide: bandwidth term peak·mfu·[(g−1)/(g·B_NVLink) + (N−1)/(g·N·B_NIC)], independent of Ψ', () => {
  const d = run(fsdpTokens);
  for (const q of d.points) {
    close(q.tokens_min_bandwidth, 989.4e12 * 0.4 * (7 / (8 * 450e9) + 7 / (64 * q.bw)));
    close(q.tokens_min_network, (989.4e12 * 0.4 * 7) / (64 * q.bw));
    assert.ok(q.tokens_min >= q.tokens_min_bandwidth);
  }
  // Inside one node the NIC does not matter.
  for (const q of run(fsdpTokens, { gpus: 8 }).points) close(q.tokens_min_bandwidth, (989.4e12 * 0.4 * 7) / (8 * 450e9));
  const big = run(fsdpTokens, { params: 7e11 });
  d.points.forEach((q, i) => close(big.points[i].tokens_min_bandwidth, q.tokens_min_bandwidth));
  // Latency matters more for a small model: its full threshold sits further above the bandwidth line.
  const small = run(fsdpTokens, { params: 1e9 });
  assert.ok(small.points[20].tokens_min / small.points[20].tokens_min_bandwidth > d.points[20].tokens_min / d.points[20].tokens_min_bandwidth);
});

test('fsdp-tokens-to-hide: the two 50 GB/s marks the lesson compares are named on the chart', () => {
  const d = run(fsdpTokens);
  const cfg = fsdpTokens.draw(d, THEME);
  const named = cfg.data.datasets.filter((ds) => ds.pointLabels).flatMap((ds) => ds.data.map((q) => [q.label, q.x]));
  assert.deepEqual(named, [['InfiniBand', 5e10], ['network alone', 5e10]]);
  // One node: no network phase, one mark.
  assert.equal(run(fsdpTokens, { gpus: 8 }).marks.length, 1);
});

test('invalid parameters throw EngineError on the right field', () => {
  assert.throws(() => run(dpStep, { micro_batch: 0 }), isEngineError('micro_batch'));
  assert.throws(() => run(dpStep, { inter_bandwidth_Bps: -1 }), isEngineError('inter_bandwidth_Bps'));
  assert.throws(() => run(zeroMemory, { params: -5 }), isEngineError('params'));
  assert.throws(() => run(zeroComm, { dp: 0 }), isEngineError('dp'));
  assert.throws(() => run(fsdpTokens, { gpus: 0 }), isEngineError('gpus'));
  assert.throws(() => run(fsdpTokens, { mfu: 2 }), isEngineError('mfu'));
});
