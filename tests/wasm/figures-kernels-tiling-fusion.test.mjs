// The kernels lesson's four figures on the built WASM engine: data() is finite and complete,
// draw() keeps to the Chart.js subset and the theme's colours, controls change the data, the
// numbers match the lesson's closed forms, and rejected input is an EngineError on the right
// control.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours, assertChartSubset } from './figure-harness.mjs';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import coalescing from '../../web/src/figures/coalescing-sectors.js';
import tiled from '../../web/src/figures/tiled-matmul-traffic.js';
import fusion from '../../web/src/figures/fusion-chain.js';
import launch from '../../web/src/figures/launch-overhead-size.js';
import { kernels as list } from '../../web/src/figures/lists/kernels.js';

const FIGURES = [coalescing, tiled, fusion, launch];

test('the list registers the four figures by id', async () => {
  assert.deepEqual(Object.keys(list).sort(), FIGURES.map((f) => f.id).sort());
  for (const [id, load] of Object.entries(list)) assert.equal((await load()).default.id, id);
});

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.equal(typeof fig.title, 'string');
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
    assert.doesNotThrow(() => JSON.stringify(data));
  });

  test(`${fig.id}: draw keeps to the allowed Chart.js subset and theme colours`, () => {
    const cfg = fig.draw(run(fig), THEME);
    assertChartSubset(fig.id, cfg);
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
    for (const d of cfg.data.datasets) if (d.type) assert.ok(['line', 'scatter', 'bar'].includes(d.type));
  });

  test(`${fig.id}: the first control changes the data`, () => {
    const specs = resolveParams(fig, engine);
    const first = specs[0];
    const other = first.type === 'select' ? first.options.find((o) => o.value !== first.default).value : first.default + 1;
    assert.notDeepEqual(run(fig, { [first.key]: other }).table, run(fig).table);
  });

  test(`${fig.id}: unknown hardware is an EngineError on the hardware field`, () => {
    assert.throws(() => run(fig, { hardware: 'nope' }), isEngineError('hardware'));
  });
}

// --- coalescing-sectors ----------------------------------------------------------------

test('coalescing-sectors: hand counts for fp32 and fp16 (CUDA Best Practices Guide)', () => {
  const at = (data, s) => data.points.find((q) => q.stride === s);
  const fp32 = run(coalescing);
  assert.equal(at(fp32, 1).sectors, 4);
  assert.equal(at(fp32, 2).sectors, 8);
  for (let s = 8; s <= 32; s++) assert.equal(at(fp32, s).sectors, 32);
  close(at(fp32, 8).effective, fp32.peak / 8);
  assert.equal(at(run(coalescing, { element_bytes: 2 }), 1).sectors, 2);
  assert.equal(at(run(coalescing, { offset: 1 }), 1).sectors, 5); // misaligned: a fifth sector
  for (const q of fp32.points) close(q.effective, fp32.peak * q.used / q.moved);
});

test('coalescing-sectors: the highlighted stride is its own dataset', () => {
  const data = run(coalescing, { stride: 3 });
  assert.equal(data.chosen.sectors, 12);
  const cfg = coalescing.draw(data, THEME);
  assert.match(cfg.data.datasets[1].label, /Stride 3: 12 sectors/);
  assert.deepEqual(cfg.data.datasets[1].data.filter((v) => v !== null), [12]);
});

test('coalescing-sectors: the stride axis ticks 1 and every multiple of 4, so stride 8 of the caption is labelled', () => {
  const data = run(coalescing);
  const x = coalescing.draw(data, THEME).options.scales.x;
  assert.equal(x.ticks.autoSkip, false);
  const shown = data.points.map((q, i) => x.ticks.callback(i, i)).filter((t) => t !== '');
  assert.deepEqual(shown, ['1', '4', '8', '12', '16', '20', '24', '28', '32']);
});

test('coalescing-sectors: bad offsets are EngineErrors on the offset control', () => {
  assert.throws(() => run(coalescing, { offset: -1 }), isEngineError('offset'));
});

// --- tiled-matmul-traffic --------------------------------------------------------------

test('tiled-matmul-traffic: counted bytes equal the closed form at every executed tile', () => {
  for (const size of [48, 100, 128]) {
    const data = run(tiled, { size });
    const s = data.element_bytes;
    const executed = data.points.filter((q) => q.executed);
    assert.ok(executed.length >= 6, `${size}: ${executed.length} executed tiles`);
    for (const q of data.points) {
      const c = Math.ceil(size / q.t);
      assert.equal(q.formula, s * (size * size * c * 2 + size * size)); // A ⌈N/T⌉ times, B ⌈M/T⌉ times, C once
      if (q.executed) assert.equal(q.counted, q.formula);
    }
    assert.ok(data.all_counts_match);
    assert.ok(data.reference.matches);
    assert.equal(data.naive, s * (2 * size ** 3 + size ** 2));
    assert.equal(data.compulsory, s * 3 * size ** 2);
  }
});

test('tiled-matmul-traffic: large sizes use the closed form only', () => {
  const data = run(tiled, { size: 4096 });
  assert.ok(data.points.every((q) => !q.executed && q.counted === null));
  assert.equal(data.reference, null);
  const cfg = tiled.draw(data, THEME);
  assert.equal(cfg.data.datasets[1].data.length, 0);
  // Doubling T halves the traffic while T divides the size (reads dominate).
  const at = (t) => data.points.find((q) => q.t === t).formula;
  assert.ok(Math.abs(at(64) / at(128) - 2) < 0.02);
});

test('tiled-matmul-traffic: the shared-memory limit is stages·2·T·BK·s <= smem per block', () => {
  const h100 = run(tiled); // fp32, BK 32, 1 stage: 232,448 / 256 = 908
  assert.equal(h100.t_max_smem, 908);
  assert.deepEqual(h100.points.filter((q) => !q.fits_smem).map((q) => q.t), [1024]);
  const a100 = run(tiled, { hardware: 'a100-sxm-80gb', stages: 3 }); // 166,912 / 768 = 217.3
  assert.equal(a100.t_max_smem, 217);
  assert.deepEqual(a100.points.filter((q) => !q.fits_smem).map((q) => q.t), [256, 512, 1024]);
  const cfg = tiled.draw(a100, THEME);
  assert.ok(cfg.data.datasets.some((d) => /shared memory: T ≤ 217 fits/.test(d.label)));
});

// Regression: the figure said "every tile fits (T ≤ 1816)" for bf16 and drew a 1024×1024 tile at
// 455 FLOP/B; its fp32 accumulator is 4 MiB against a 256 KiB register file. 256 threads with 32
// registers of overhead hold T² <= 256 · 223 accumulators: T <= 238 (CUDA C++ Programming Guide,
// 255 registers per thread, 64 K per block; CUTLASS's Hopper tiles are 128×128 and 128×256).
test('tiled-matmul-traffic: accumulators in registers bound the tile before shared memory', () => {
  const data = run(tiled, { size: 4096, dtype: 'bf16' });
  assert.equal(data.t_max_smem, 1816);
  assert.equal(data.t_max_registers, 238);
  assert.equal(data.t_max, 238);
  assert.equal(data.limiter, 'registers');
  assert.deepEqual(data.points.filter((q) => !q.fits).map((q) => q.t), [256, 512, 1024]);
  assert.equal(data.points.find((q) => q.t === 1024).accumulator, 4 * 1024 ** 2);
  assert.ok(data.best.intensity < data.points.find((q) => q.t === 1024).intensity / 3);
  const cfg = tiled.draw(data, THEME);
  const labels = cfg.data.datasets.map((d) => d.label);
  assert.ok(labels.some((l) => /exceed the registers: T ≤ 238 fits/.test(l)), labels.join(' | '));
  assert.ok(labels.some((l) => /Largest tile that fits: T = 238, .*\(registers bind\)/.test(l)));
  assert.ok(!labels.some((l) => /Every tile/.test(l)));
  // Four stages of fp32 BK-32 tiles: 232,448 / 1,024 = 227 < 238, shared memory binds.
  const staged = run(tiled, { stages: 4 });
  assert.equal(staged.t_max, 227);
  assert.equal(staged.limiter, 'smem');
  // 1,024 threads: 64 registers each, 32 accumulators, T <= 181.
  assert.equal(run(tiled, { threads: 1024 }).t_max_registers, 181);
});

test('tiled-matmul-traffic: the line is flat once T reaches the matrix size', () => {
  const data = run(tiled, { size: 128 });
  for (const q of data.points.filter((p) => p.t >= 128)) assert.equal(q.formula, data.compulsory);
  assert.ok(data.points.find((q) => q.t === 64).formula > data.compulsory);
});

test('tiled-matmul-traffic: a TPU has no shared memory in the table', () => {
  assert.throws(() => run(tiled, { hardware: 'tpu-v4' }), isEngineError('hardware'));
});

// --- fusion-chain ------------------------------------------------------------------------

test('fusion-chain: unfused 2·L·n·s against fused 2·n·s; memory-bound times follow the bytes', () => {
  const data = run(fusion);
  const n = 16e6, s = 2;
  for (const q of data.points) {
    assert.equal(q.unfused_bytes, 2 * q.ops * n * s);
    assert.equal(q.fused_bytes, 2 * n * s);
    close(q.speedup, q.ops);
  }
});

test('fusion-chain: binary ops add one read each, unfused and fused alike', () => {
  const data = run(fusion, { binary: 'half' });
  const n = 16e6, s = 2;
  for (const q of data.points) {
    assert.equal(q.binary_ops, Math.floor(q.ops / 2));
    assert.equal(q.unfused_bytes, (2 * q.ops + q.binary_ops) * n * s);
    assert.equal(q.fused_bytes, (2 + q.binary_ops) * n * s);
  }
});

test('fusion-chain: enough FLOPs per element make the fused kernel compute-bound', () => {
  const data = run(fusion, { flops_per_element: 40 });
  const long = data.points.at(-1);
  assert.equal(long.fused_bound, 'compute');
  assert.ok(long.speedup < long.unfused_bytes / long.fused_bytes);
  const cfg = fusion.draw(data, THEME);
  assert.ok(cfg.data.datasets[4].data.some((v) => v !== null));
});

test('fusion-chain: bad n is an EngineError on n', () => {
  assert.throws(() => run(fusion, { n: 0 }), isEngineError('n'));
});

// --- launch-overhead-size ---------------------------------------------------------------

test('launch-overhead-size: half the serial time is overhead at the break-even size', () => {
  const data = run(launch); // 5 µs launch + 1 µs gap on the H100: 6e-6 × 3.35e12 = 20.1 MB
  close(data.breakeven_bytes, 6e-6 * 3.35e12);
  for (const q of data.points) {
    const work = q.bytes / 3.35e12;
    close(q.serial, 100 * 6e-6 / (6e-6 + work), 1e-9);
    assert.ok(q.graph < q.serial);
    assert.ok(q.pipelined <= q.serial + 1e-9);
  }
  assert.ok(data.points[0].serial > 99);
  assert.ok(data.points.at(-1).serial < 1);
});

// Regression: the graph line lay above the pipelined one from about 10 MB per kernel (702 against
// 602 µs for 100 × 20 MB) while the gap was charged to graphs only.
test('launch-overhead-size: a CUDA graph is never slower than eager launches', () => {
  for (const kernels of [1, 10, 100, 10000]) {
    for (const launch_us of [0.5, 5, 50]) {
      for (const graph_us of [0.1, 1, 10]) {
        for (const q of run(launch, { kernels, launch_us, graph_us }).points) {
          assert.ok(q.graph_s <= q.pipelined_s * (1 + 1e-12), `${kernels} × ${q.bytes} B, ${launch_us}/${graph_us} µs`);
          assert.ok(q.graph <= q.pipelined + 1e-9);
        }
      }
    }
  }
});

test('launch-overhead-size: a larger overhead moves the break-even right', () => {
  close(run(launch, { launch_us: 20 }).breakeven_bytes, (20e-6 + 1e-6) * 3.35e12); // (o + g)·B, 21 against 6 µs
  assert.ok(run(launch, { launch_us: 20 }).breakeven_bytes > run(launch).breakeven_bytes * 3.4);
});

test('launch-overhead-size: a negative overhead is an EngineError on its control', () => {
  assert.throws(() => run(launch, { launch_us: -1 }), isEngineError('launch_us'));
});

// Blackwell's tcgen05 MMAs accumulate in Tensor Memory, 256 KiB per SM (PTX ISA, "Tensor
// Memory"): on the B200 the figure drew the register limit (181 at 1,024 threads); now the
// tensor memory binds at T <= 256 whatever the threads.
test('tiled-matmul-traffic: the B200 accumulates in tensor memory, whatever the threads', () => {
  for (const threads of [128, 256, 1024]) {
    const data = run(tiled, { hardware: 'b200', size: 4096, dtype: 'bf16', threads });
    assert.equal(data.storage, 'tensor_memory');
    assert.equal(data.t_max_acc, 256);
    assert.equal(data.t_max, 256);
    assert.deepEqual(data.points.filter((q) => !q.fits).map((q) => q.t), [512, 1024]);
    const labels = tiled.draw(data, THEME).data.datasets.map((d) => d.label);
    assert.ok(labels.some((l) => /exceed the tensor memory: T ≤ 256 fits/.test(l)), labels.join(' | '));
    assert.ok(labels.some((l) => /\(tensor memory binds\)/.test(l)), labels.join(' | '));
  }
});

// The caption's setting: 4 stages with BK = 64 puts the shared-memory limit an octave left of the
// register limit (113 against 238), not 5 % apart as 4 stages at BK = 32 did (227 against 238).
test('tiled-matmul-traffic: the caption\'s staged setting separates the two limits', () => {
  assert.match(tiled.caption, /4 stages and a K-step of 64 and shared memory binds at T ≤ 113/);
  const data = run(tiled, { size: 4096, stages: 4, bk: 64 });
  assert.equal(data.t_max_smem, 113);
  assert.equal(data.t_max_acc, 238);
  assert.equal(data.limiter, 'smem');
  assert.match(tiled.caption, /1,024 threads and the register limit moves left to 181/);
});

// The legend keeps to the series (at most five entries); the reference lines are named on the chart,
// and the counted rings leave the legend where nothing was run.
test('tiled-matmul-traffic: a short legend', () => {
  for (const size of [128, 4096]) {
    const cfg = tiled.draw(run(tiled, { size }), THEME);
    const filter = cfg.options.plugins.legend.labels.filter;
    const shown = cfg.data.datasets.filter((d, i) => filter({ datasetIndex: i }, cfg.data));
    assert.ok(shown.length <= 5, shown.map((d) => d.label).join(' | '));
    assert.equal(shown.some((d) => /Counted/.test(d.label)), size === 128);
  }
});
