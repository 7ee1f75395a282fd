// The gpu-architecture lesson's four figures on the built WASM engine: data() is finite and
// complete in every view, draw() keeps to the Chart.js subset and the theme's colours, controls
// change the data, the numbers match the closed forms (waves, Little's law, occupancy rules),
// and bad settings are EngineErrors on the right field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours, assertChartSubset } from './figure-harness.mjs';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import waveQuantization from '../../web/src/figures/wave-quantization.js';
import littlesLaw from '../../web/src/figures/littles-law.js';
import occupancyCalculator from '../../web/src/figures/occupancy-calculator.js';
import memoryHierarchy from '../../web/src/figures/memory-hierarchy.js';
import { gpu } from '../../web/src/figures/lists/gpu.js';

const FIGURES = [waveQuantization, littlesLaw, occupancyCalculator, memoryHierarchy];

const views = (fig) => resolveParams(fig, engine).find((s) => s.key === 'view')?.options.map((o) => o.value) ?? [null];

test('the gpu list registers the four figures', async () => {
  assert.deepEqual(Object.keys(gpu).sort(), FIGURES.map((f) => f.id).sort());
  for (const [id, load] of Object.entries(gpu)) assert.equal((await load()).default.id, id);
});

for (const fig of FIGURES) {
  test(`${fig.id}: module shape, a select first`, () => {
    assert.equal(typeof fig.title, 'string');
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.equal(specs[0].type, 'select');
    for (const s of specs) assert.notEqual(s.default, undefined, `${fig.id}.${s.key} has a default`);
  });

  for (const view of views(fig)) {
    const over = view ? { view } : {};
    test(`${fig.id} (${view ?? 'default'}): finite data, rectangular table, allowed chart config`, () => {
      const data = run(fig, over);
      const { columns, rows } = data.table;
      assert.ok(columns.length > 1 && rows.length > 0);
      for (const row of rows) {
        assert.equal(row.length, columns.length);
        for (const cell of row) assert.ok(typeof cell === 'string' || Number.isFinite(cell), `cell ${cell}`);
      }
      const cfg = fig.draw(data, THEME);
      assertChartSubset(fig.id, cfg);
      assert.ok(cfg.data.datasets.some((d) => d.data.some((v) => v !== null)));
      assert.doesNotThrow(() => JSON.stringify(data));
    });
  }

  test(`${fig.id}: the first control changes the data`, () => {
    const spec = resolveParams(fig, engine)[0];
    const other = spec.options.find((o) => o.value !== spec.default).value;
    assert.notDeepEqual(run(fig, { [spec.key]: other }).table, run(fig).table);
  });

  test(`${fig.id}: unknown hardware is an EngineError on the hardware field`, () => {
    assert.throws(() => run(fig, { hardware: 'nope' }), isEngineError('hardware'));
    assert.throws(() => run(fig, { hardware: 'tpu-v4' }), isEngineError('hardware'));
  });
}

// --- wave-quantization ------------------------------------------------------------------

test('wave-quantization: one block past a full wave halves utilization (H100, 132 SMs)', () => {
  const at = (blocks) => run(waveQuantization, { blocks });
  assert.equal(at(132).waves, 1);
  assert.equal(at(132).utilization, 1);
  const d = at(133);
  assert.equal(d.waves, 2);
  close(d.utilization, 133 / 264);
  // The curve's breakpoints follow blocks / (ceil(blocks / slots) · slots).
  for (const q of d.curve) close(q.y, (100 * q.x) / (Math.ceil(q.x / 132) * 132));
  assert.equal(d.curve.at(-1).x, 4 * 132);
});

test('wave-quantization: the timeline places the last wave breadth first', () => {
  const d = run(waveQuantization, { view: 'timeline', blocks: 300, blocks_per_sm: 2 });
  // 300 blocks, 264 slots: one full wave and 36 blocks on 36 SMs in the second; the SMs are
  // grouped by schedule (SMs 0-35 run one block of the last wave, 36-131 none).
  assert.equal(d.waves, 2);
  assert.equal(d.fullWaves, 1);
  assert.deepEqual(d.groups.map((g) => [g.from, g.to, g.n]), [[0, 35, 1], [36, 131, 0]]);
  const cfg = waveQuantization.draw(d, THEME);
  assert.equal(cfg.options.indexAxis, 'y');
  assert.deepEqual(cfg.data.labels, ['SMs 0–35 (36 SMs)', 'SMs 36–131 (96 SMs)', 'Stream-K, all 132 SMs']);
  const idle = cfg.data.datasets.find((x) => /SM idle/.test(x.label));
  assert.deepEqual(idle.data, [null, [1, 2], null]);
  // Every legend entry has its own colour (no two entries look alike).
  const fills = cfg.data.datasets.map((x) => x.backgroundColor);
  assert.equal(new Set(fills).size, fills.length);
});

test('wave-quantization: one block past a whole wave gets its own row and colour', () => {
  // 133 blocks on 132 SMs: SM 0 runs the lone block of the second wave, in a colour that no
  // full-wave bar has; Stream-K finishes in (33 + 1) / 32 tile-times instead of 2.
  const d = run(waveQuantization, { view: 'timeline', blocks: 133, blocks_per_sm: 1, hardware: 'h100-sxm' });
  assert.deepEqual(d.groups.map((g) => [g.label, g.n]), [['SM 0 (1 SM)', 1], ['SMs 1–131 (131 SMs)', 0]]);
  const cfg = waveQuantization.draw(d, THEME);
  const full = cfg.data.datasets[0], tail = cfg.data.datasets.find((x) => /Last wave: every slot/.test(x.label));
  assert.deepEqual(tail.data, [[1, 2], null, null]);
  assert.notEqual(tail.backgroundColor, full.backgroundColor);
  assert.equal(d.streamK.stream_k_tiles, 34 / 32);
  const sk = run(waveQuantization, { view: 'streamk', blocks: 133 });
  const star = waveQuantization.draw(sk, THEME).data.datasets.filter((x) => /Your grid/.test(x.label)).map((x) => x.data[0].y);
  assert.deepEqual(star, [2, 34 / 32]);
});

test('wave-quantization: more blocks per SM than the GPU holds is an error on blocks_per_sm', () => {
  assert.throws(() => run(waveQuantization, { hardware: 'l4', blocks_per_sm: 30 }), isEngineError('blocks_per_sm'));
});

// --- littles-law -------------------------------------------------------------------------

test("littles-law: bandwidth = min(peak, SMs × warps × bytes per warp / latency)", () => {
  const d = run(littlesLaw);
  const hw = engine.calc('hardware', { id: 'h100-sxm' });
  assert.equal(d.peak, hw.hbm_bandwidth_Bps);
  close(d.latency, hw.hbm_latency_s);
  for (const s of d.series) {
    assert.equal(s.points.length, 64);
    for (const q of s.points) close(q.y, Math.min(d.peak, (hw.sms * q.x * s.bytes) / d.latency));
    assert.equal(s.needed, Math.ceil((d.peak * d.latency) / hw.sms / s.bytes - 1e-9));
  }
  // Narrow loads cannot reach the peak on an SM that holds 64 warps; float4 loads can.
  assert.equal(d.series.find((s) => s.bytes === 128).feasible, false);
  assert.equal(d.series.find((s) => s.bytes === 512).feasible, true);
});

test('littles-law: the warps control moves the marker, not the curves', () => {
  const few = run(littlesLaw, { warps_per_sm: 4 });
  const many = run(littlesLaw, { warps_per_sm: 40 });
  assert.ok(few.achieved < many.achieved);
  assert.deepEqual(few.series.map((s) => s.points), many.series.map((s) => s.points));
  assert.throws(() => run(littlesLaw, { warps_per_sm: 65 }), isEngineError('warps_per_sm'));
});

// --- occupancy-calculator ---------------------------------------------------------------

test('occupancy-calculator: defaults are register-limited on the H100 and smem-limited on the A100', () => {
  // 256 threads, 48 registers, 36 KiB: registers 1536/warp → 10 warps per sub-partition → 40 → 5 blocks;
  // shared memory 36864 + 1024 = 37888 B → 6 blocks (H100, 233472 B) or 4 (A100, 167936 B).
  const h = run(occupancyCalculator);
  assert.equal(h.blocks, 5);
  assert.equal(h.limiter, 'registers');
  assert.equal(h.occupancy, 0.625);
  const a = run(occupancyCalculator, { hardware: 'a100-sxm-80gb' });
  assert.equal(a.blocks, 4);
  assert.equal(a.limiter, 'smem');
  assert.deepEqual(a.limits.map((l) => l.blocks), [8, 5, 4, 32]);
});

test('occupancy-calculator: occupancy never rises with registers and marks the current point', () => {
  const d = run(occupancyCalculator, { view: 'registers_per_thread', smem_per_block_bytes: 0 });
  assert.equal(d.points.length, 255);
  for (let i = 1; i < d.points.length; i++) assert.ok(d.points[i].y <= d.points[i - 1].y);
  assert.equal(d.points[31].y, 100);  // 32 registers: full occupancy at 256 threads
  assert.equal(d.points[32].y, 75);   // 33 registers: 1280 per warp → 48 warps
  assert.deepEqual(d.current, { x: 48, y: 62.5 });
  const s = run(occupancyCalculator, { view: 'smem_per_block_bytes' });
  assert.ok(s.points.every((q) => Number.isInteger(q.x)));  // KiB on the axis
  assert.equal(s.current.x, 36);
});

test('occupancy-calculator: impossible launches are EngineErrors on the responsible control', () => {
  assert.throws(() => run(occupancyCalculator, { threads_per_block: 1024, registers_per_thread: 100 }), isEngineError('registers_per_thread'));
  assert.throws(() => run(occupancyCalculator, { hardware: 'a100-sxm-80gb', smem_per_block_bytes: 200000 }), isEngineError('smem_per_block_bytes'));
  assert.throws(() => run(occupancyCalculator, { threads_per_block: 0 }), isEngineError('threads_per_block'));
});

// --- memory-hierarchy ---------------------------------------------------------------------

test('memory-hierarchy: each level is slower and further than the one above it', () => {
  const d = run(memoryHierarchy);
  assert.deepEqual(d.levels.map((l) => l.id), ['registers', 'l1', 'l2', 'hbm']);
  for (let i = 1; i < d.levels.length; i++) assert.ok(d.levels[i].bandwidth_Bps < d.levels[i - 1].bandwidth_Bps);
  const lat = run(memoryHierarchy, { view: 'latency' });
  const cfg = memoryHierarchy.draw(lat, THEME);
  assert.equal(cfg.data.datasets[0].data.length, 3);  // registers have no load latency
  const t = cfg.data.datasets[0].data;
  assert.ok(t[0] < t[1] && t[1] < t[2]);
  // HBM bandwidth is the datasheet's.
  assert.equal(d.levels[3].bandwidth_Bps, engine.calc('hardware', { id: 'h100-sxm' }).hbm_bandwidth_Bps);
});

test('memory-hierarchy: tensor cores against CUDA cores (A100 whitepaper ratios)', () => {
  const d = run(memoryHierarchy, { hardware: 'a100-sxm-80gb', view: 'compute' });
  const f = Object.fromEntries(d.formats.map((x) => [x.format, x]));
  assert.equal(f.bf16.tensor_speedup, 8);
  assert.equal(f.fp16.tensor_speedup, 4);
  assert.equal(f.fp32.tensor_format, 'tf32');
  assert.equal(f.int8.cuda_core_flops, null);
  assert.ok(!('fp8' in f));
  const cfg = memoryHierarchy.draw(d, THEME);
  assert.equal(cfg.data.datasets.length, 2);
  assert.match(cfg.data.labels.find((l) => l.startsWith('int8')), /tensor cores only/);
});

// --- sources and the probe ----------------------------------------------------

test('memory-hierarchy: every value shows its source, and the H100 SXM names the GPUs it borrows from', () => {
  const d = run(memoryHierarchy, { hardware: 'h100-sxm', view: 'pyramid' });
  const at = (col) => d.table.columns.indexOf(col);
  for (const col of ['Capacity source', 'Bandwidth source', 'Latency source']) assert.ok(at(col) > 0, col);
  for (const row of d.table.rows) for (const col of ['Capacity source', 'Bandwidth source', 'Latency source']) assert.notEqual(row[at(col)], '—', `${row[0]} ${col}`);
  const l2 = d.table.rows.find((r) => r[0] === 'L2 cache');
  assert.match(l2[at('Bandwidth source')], /measured on an H200/);
  assert.match(l2[at('Latency source')], /measured on an H100 PCIe/);
  const lat = memoryHierarchy.draw(run(memoryHierarchy, { hardware: 'h100-sxm', view: 'latency' }), THEME);
  for (const label of lat.data.labels) assert.match(label.slice(2).join(' '), /measured on/);
});

test("littles-law: the H200 shows the probe's measurements below the model; other GPUs do not", () => {
  const d = run(littlesLaw, { hardware: 'h200-sxm', bytes_per_warp: 512 });
  const probe = engine.calc('latency-hiding', { hardware: 'h200-sxm' }).probe;
  assert.deepEqual(d.probe.points.map((p) => p.y), probe.points.map((q) => q.measured_bandwidth_Bps));
  for (const p of d.probe.points) {
    const model = d.series.find((s) => s.bytes === 512).points.find((q) => q.x === p.x).y;
    assert.ok(p.y < model, `${p.x} warps: measured ${p.y} below the model ${model}`);
  }
  assert.ok(d.probe.one.extra_latency > 0.3, 'one warp per SM already sees ~40 % more latency');
  const cfg = littlesLaw.draw(d, THEME);
  assert.ok(cfg.data.datasets.some((x) => /Measured on an H200/.test(x.label)));
  assert.equal(run(littlesLaw, { hardware: 'h100-sxm' }).probe, null);
});

test("littles-law: every load width's line carries the marker its legend shows", () => {
  const cfg = littlesLaw.draw(run(littlesLaw), THEME);
  const lines = cfg.data.datasets.filter((x) => x.showLine && x.group?.startsWith('load-'));
  assert.equal(lines.length, 5);
  for (const l of lines) {
    // Its markers: a legend-less dataset of the same colour and point style, on the line's points.
    const m = cfg.data.datasets.find((x) => x.markersOnly && x.group === l.group);
    assert.ok(m && m.pointRadius > 0 && m.pointStyle === l.pointStyle && m.borderColor === l.borderColor, l.label);
    assert.ok(m.data.length >= 4 && m.data.every((q) => l.data.some((p) => p.x === q.x && p.y === q.y)), l.label);
  }
  const shown = cfg.data.datasets.filter((x, i) => cfg.options.plugins.legend.labels.filter({ datasetIndex: i }, cfg.data));
  assert.equal(shown.filter((x) => x.markersOnly).length, 0);
});

// The Stream-K bar says what it counts (MAC iterations per SM, and how many make one tile),
// not "33 of 32 iterations".
test('wave-quantization: the Stream-K bar counts MAC iterations per SM against one tile', () => {
  const cfg = waveQuantization.draw(run(waveQuantization, { hardware: 'h100-sxm', blocks: 133, view: 'timeline' }), THEME);
  const labels = cfg.data.datasets.map((d) => d.label);
  assert.ok(labels.includes('Stream-K: 33 MAC iterations per SM (one tile has 32)'), labels.join(' | '));
});

// Capacities are binary in the legend (33 MiB, 80 GiB), so the capacity axis ticks at powers of
// 8 bytes with binary prefixes too.
test('memory-hierarchy: the capacity axis ticks in binary prefixes, as the legend', () => {
  const cfg = memoryHierarchy.draw(run(memoryHierarchy, { hardware: 'h100-sxm', view: 'pyramid' }), THEME);
  const x = cfg.options.scales.x;
  const axis = { min: x.min, max: x.max, ticks: [] };
  x.afterBuildTicks(axis);
  const values = axis.ticks.map((t) => t.value);
  assert.ok(values.length >= 4);
  for (const v of values) assert.equal(Math.log2(v) % 3, 0, `tick ${v} is a power of 8`);
  const text = values.map((v) => x.ticks.callback(v));
  assert.ok(text.includes('128 MiB') && text.includes('1 GiB'), text.join(', '));
  assert.ok(text.every((t) => /iB$/.test(t)), text.join(', '));
});
