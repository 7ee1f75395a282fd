// The roofline lesson's four figures on the built WASM engine: data() is finite and
// complete, draw() keeps to the Chart.js subset and the theme's colours, controls change
// the data, and the numbers match the lesson's closed forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours, assertChartSubset } from './figure-harness.mjs';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import rooflinePlot from '../../web/src/figures/roofline-plot.js';
import matmulIntensity from '../../web/src/figures/matmul-intensity.js';
import batchCrossover from '../../web/src/figures/batch-crossover.js';
import transformerOps from '../../web/src/figures/transformer-ops-roofline.js';

const FIGURES = [rooflinePlot, matmulIntensity, batchCrossover, transformerOps];

// Defaults of a figure with some controls overridden.

// Every colour-valued property of a Chart.js config, recursively.

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.equal(typeof fig.title, 'string');
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.ok(specs.length > 0);
    for (const s of specs) assert.notEqual(s.default, undefined, `${fig.id}.${s.key} has a default`);
  });

  test(`${fig.id}: data at defaults is finite, the table is rectangular`, () => {
    const data = run(fig);
    const { columns, rows } = data.table;
    assert.ok(columns.length > 1 && rows.length > 0);
    for (const row of rows) {
      assert.equal(row.length, columns.length);
      for (const cell of row) {
        assert.ok(typeof cell === 'string' || Number.isFinite(cell), `cell ${cell} is a string or a finite number`);
      }
    }
    assert.doesNotThrow(() => JSON.stringify(data));
  });

  test(`${fig.id}: draw keeps to the allowed Chart.js subset and theme colours`, () => {
    const cfg = fig.draw(run(fig), THEME);
    assertChartSubset(fig.id, cfg);
    assert.ok(cfg.data.datasets.length > 0);
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
    for (const d of cfg.data.datasets) if (d.type) assert.ok(['line', 'scatter', 'bar'].includes(d.type));
  });

  test(`${fig.id}: unknown hardware is an EngineError on the hardware field`, () => {
    assert.throws(() => run(fig, { hardware: 'nope' }), isEngineError('hardware'));
  });
}

// --- roofline-plot -------------------------------------------------------------------

test('roofline-plot: fp32 lowers the compute roof, the memory roof stays', () => {
  const bf16 = run(rooflinePlot);
  const fp32 = run(rooflinePlot, { dtype: 'fp32' });
  assert.ok(fp32.peak < bf16.peak / 5);
  close(fp32.bandwidth, bf16.bandwidth);
  close(bf16.ridge, bf16.peak / bf16.bandwidth);
  // The roof is min(P, I·B) at every sampled intensity.
  for (const q of [...bf16.memoryRoof, ...bf16.computeRoof]) close(q.y, Math.min(bf16.peak, q.x * bf16.bandwidth));
});

test('roofline-plot: vector add intensity is 1/(3·size)', () => {
  for (const [dtype, size] of [['bf16', 2], ['fp32', 4], ['fp8-e4m3', 1]]) {
    const add = run(rooflinePlot, { dtype }).kernels.find((k) => k.name.startsWith('Vector add'));
    close(add.intensity, 1 / (3 * size));
    assert.equal(add.bound, 'memory');
  }
});

test('roofline-plot: standard kernels sit where the lesson says (H100, bf16)', () => {
  const k = Object.fromEntries(run(rooflinePlot).kernels.map((x) => [x.name.split(' (')[0], x]));
  close(k['Decode GEMV'].intensity, 1, 1e-3);
  close(k['Square GEMM'].intensity, 8192 / 3);
  assert.equal(k['Square GEMM'].bound, 'compute');
  for (const n of ['Vector add', 'Softmax', 'Layer norm', 'Decode GEMV']) assert.equal(k[n].bound, 'memory');
});

test('roofline-plot: the custom kernel changes bound across the ridge', () => {
  const custom = (flops) => run(rooflinePlot, { flops, bytes: 1e9 }).kernels.find((k) => k.custom);
  assert.equal(custom(1e10).bound, 'memory'); // I = 10
  assert.equal(custom(1e13).bound, 'compute'); // I = 10^4
  assert.match(rooflinePlot.draw(run(rooflinePlot, { flops: 1e13, bytes: 1e9 }), THEME).data.datasets.at(-1).label, /compute-bound/);
});

test('roofline-plot: a format the chip lacks is an EngineError on dtype', () => {
  assert.throws(() => run(rooflinePlot, { hardware: 'tpu-v4', dtype: 'fp32' }), isEngineError('dtype'));
});

// --- matmul-intensity ----------------------------------------------------------------

test('matmul-intensity: square intensity is 2n/(3s): n/6, n/3, 2n/3', () => {
  const data = run(matmulIntensity);
  const per = { fp32: 1 / 6, bf16: 1 / 3, 'fp8-e4m3': 2 / 3 };
  for (const s of data.series) for (const q of s.points) close(q.y, q.x * per[s.dtype]);
  assert.equal(data.series.find((s) => s.dtype === 'bf16').points.at(-1).x, 65536);
});

test('matmul-intensity: fixed m flattens at 2m/s', () => {
  for (const m of [1, 16, 128]) {
    const data = run(matmulIntensity, { shape: 'weight', m });
    const bf16 = data.series.find((s) => s.dtype === 'bf16').points;
    close(bf16.at(-1).y, m, 0.01); // 1/(1/m + 2/65536) ≈ m
    assert.ok(bf16.every((q) => q.y < m));
  }
});

test('matmul-intensity: ridge lines and crossings (H100)', () => {
  const data = run(matmulIntensity);
  for (const s of data.series) {
    const ridge = engine.calc('roofline', { hardware: 'h100-sxm', dtype: s.dtype, flops: 1, bytes: 1 }).ridge_intensity;
    close(s.ridge, ridge);
    const size = { fp32: 4, bf16: 2, 'fp8-e4m3': 1 }[s.dtype];
    assert.equal(s.crossing.n, Math.ceil(1.5 * size * ridge)); // 2n/(3s) >= I*
  }
  const bf16 = data.series.find((s) => s.dtype === 'bf16');
  const fp8 = data.series.find((s) => s.dtype === 'fp8-e4m3');
  assert.equal(bf16.crossing.n, fp8.crossing.n); // the lesson's point: fp8 crosses at the same size
});

test('matmul-intensity: a chip without fp8 skips that ridge only', () => {
  const data = run(matmulIntensity, { hardware: 'a100-sxm-80gb' });
  const fp8 = data.series.find((s) => s.dtype === 'fp8-e4m3');
  assert.equal(fp8.ridge, null);
  assert.equal(fp8.crossing, null);
  assert.ok(fp8.points.length > 0);
  assert.ok(data.series.find((s) => s.dtype === 'bf16').ridge > 100);
});

// --- batch-crossover -----------------------------------------------------------------

test('batch-crossover: crossover matches 1/b* = 2/(s·I*) − 1/d − 1/d_out (H100, bf16, d = 8192)', () => {
  const data = run(batchCrossover);
  const ridge = run(rooflinePlot).ridge;
  const d = 8192;
  const exact = (ridge * d) / (d - 2 * ridge); // s = 2, d = d_out: ≈ 318.3
  assert.equal(data.crossover_batch, Math.ceil(exact));
  assert.ok(data.crossover_batch >= 300 && data.crossover_batch <= 330);
  // It is the first compute-bound sample and its predecessor is memory-bound.
  const at = (b) => data.points.find((q) => q.b === b);
  assert.equal(at(data.crossover_batch).bound, 'compute');
  assert.equal(at(data.crossover_batch - 1).bound, 'memory');
});

test('batch-crossover: time per token falls as 1/b, then levels at 2·d·d_out/P', () => {
  const data = run(batchCrossover);
  const pts = data.points;
  assert.ok(pts.length >= 50 && pts.length <= 80);
  for (let i = 1; i < pts.length; i++) assert.ok(pts[i].per_token_s <= pts[i - 1].per_token_s);
  for (const q of pts.filter((x) => x.bound === 'compute')) {
    close(q.per_token_s, (2 * 8192 * 8192) / data.peak);
    close(q.achieved_flops, data.peak);
  }
  assert.ok(pts[0].per_token_s / pts.at(-1).per_token_s > 100);
});

test('batch-crossover: the A100 crosses over at a smaller batch than the H100', () => {
  const a100 = run(batchCrossover, { hardware: 'a100-sxm-80gb' }).crossover_batch;
  const h100 = run(batchCrossover).crossover_batch;
  assert.ok(a100 < h100 && a100 > 100);
});

test('batch-crossover: a narrow square layer never turns compute-bound', () => {
  const data = run(batchCrossover, { d: 512, d_out: 512 }); // d <= s·I*: no crossover
  assert.equal(data.crossover_batch, null);
  assert.ok(data.points.every((q) => q.bound === 'memory'));
  assert.match(batchCrossover.draw(data, THEME).data.datasets.at(-1).label, /No crossover/);
});

test('batch-crossover: an engine error on the matmul points at the d control', () => {
  assert.throws(() => run(batchCrossover, { d: 0 }), isEngineError('d'));
});

// --- transformer-ops-roofline --------------------------------------------------------

const MATMULS = ['qkv', 'out_proj', 'mlp_up', 'mlp_down'];
const byId = (data) => Object.fromEntries(data.ops.map((o) => [o.id, o]));

test('transformer-ops-roofline: shares add up to 100%', () => {
  for (const phase of ['prefill', 'decode']) {
    const data = run(transformerOps, { phase });
    close(data.ops.reduce((a, o) => a + o.time_pct, 0), 100, 1e-9);
    close(data.ops.reduce((a, o) => a + o.flops_pct, 0), 100, 1e-9);
  }
});

test('transformer-ops-roofline: prefill weight matmuls are compute-bound, decode makes every op memory-bound', () => {
  const prefill = byId(run(transformerOps));
  for (const id of MATMULS) assert.equal(prefill[id].bound, 'compute');
  for (const id of ['ln1', 'softmax', 'residual1', 'activation']) assert.equal(prefill[id].bound, 'memory');
  // Elementwise ops take a larger share of time than of FLOPs (the lesson's opening puzzle).
  assert.ok(prefill.softmax.time_pct > 10 * prefill.softmax.flops_pct);
  const decode = run(transformerOps, { phase: 'decode' });
  assert.ok(decode.ops.every((o) => o.bound === 'memory'));
  assert.ok(decode.total_time_s < prefill.qkv.time_s * 10);
});

test('transformer-ops-roofline: a large decode batch brings weight matmuls back, not attention', () => {
  const ops = byId(run(transformerOps, { phase: 'decode', batch: 4096 }));
  for (const id of MATMULS) assert.equal(ops[id].bound, 'compute');
  for (const id of ['scores', 'attn_v']) {
    assert.equal(ops[id].bound, 'memory');
    close(ops[id].intensity, 1, 0.02);
  }
});

test('transformer-ops-roofline: a longer sequence raises attention’s share', () => {
  const share = (seq) => { const o = byId(run(transformerOps, { seq })); return o.scores.time_pct + o.attn_v.time_pct + o.softmax.time_pct; };
  assert.ok(share(16384) > share(2048));
});

test('transformer-ops-roofline: bar datasets split by bound, the legend explains the colours', () => {
  const cfg = transformerOps.draw(run(transformerOps), THEME);
  assert.equal(cfg.options.indexAxis, 'y');
  const [mem, comp] = cfg.data.datasets;
  assert.match(mem.label, /memory-bound/);
  assert.match(comp.label, /compute-bound/);
  assert.equal(mem.backgroundColor, THEME.memory);
  assert.equal(comp.backgroundColor, THEME.compute);
  assert.equal(cfg.data.labels.length, 12);
});

test('transformer-ops-roofline: heads must divide hidden', () => {
  assert.throws(() => run(transformerOps, { hidden: 4096, heads: 3 }), isEngineError('heads'));
});

// --- one rule for the roof an op sits under ------------------------------------

test('roofline-plot: matmuls under the tensor-core roof, elementwise ops under the fp32 vector roof, both drawn', () => {
  const d = run(rooflinePlot, { hardware: 'h100-sxm', dtype: 'bf16' });
  const hw = engine.calc('hardware', { id: 'h100-sxm' });
  close(d.peak, hw.peak_flops.bf16);
  close(d.vectorPeak, hw.peak_flops.fp32);
  for (const k of d.kernels) {
    assert.equal(k.unit, k.vector ? 'CUDA cores (vector)' : 'tensor cores', k.name);
    assert.ok(k.attainable <= (k.vector ? d.vectorPeak : d.peak) * (1 + 1e-12), k.name);
    assert.ok(k.noOverlap >= k.time && k.noOverlap <= 2 * k.time * (1 + 1e-12), `${k.name}: max <= sum <= 2 max`);
  }
  const labels = rooflinePlot.draw(d, THEME).data.datasets.map((x) => x.label);
  assert.ok(labels.some((l) => /^Tensor-core roof/.test(l)) && labels.some((l) => /^CUDA-core \(vector\) roof/.test(l)), labels.join(' | '));
  // The same rule as the transformer-ops calculator: its layer norm runs at the same peak.
  const ops = engine.calc('transformer-ops', { hardware: 'h100-sxm', dtype: 'bf16' }).ops;
  close(ops.find((o) => o.name === 'ln1').peak_flops, d.vectorPeak);
  close(ops.find((o) => o.name === 'mlp_up').peak_flops, d.peak);
  // In fp32 the matmuls run on the vector units too: one flat roof.
  const f = run(rooflinePlot, { hardware: 'h100-sxm', dtype: 'fp32' });
  assert.equal(f.vectorRoof, null);
  assert.ok(!rooflinePlot.draw(f, THEME).data.datasets.some((x) => /CUDA-core/.test(x.label)));
});

test('roofline-plot: every kernel is named on the chart, kernels on one spot under one label', () => {
  const cfg = rooflinePlot.draw(run(rooflinePlot), THEME);
  const points = cfg.data.datasets.filter((x) => x.pointLabels).flatMap((x) => x.data);
  assert.equal(points.length, run(rooflinePlot).kernels.length);
  const text = points.map((p) => p.label).filter(Boolean).join(' | ');
  for (const p of points) assert.ok(text.includes(p.name.split(' (')[0]), `${p.name} is named`);
  // The decode GEMV (I ≈ 1) and the softmax (I = 5/4) sit on one spot: one label names both.
  assert.ok(points.some((p) => p.label === 'Softmax, Decode GEMV'), text);
});

test('transformer-ops-roofline: the roofline view puts each op under its own roof and labels it', () => {
  const d = run(transformerOps, { view: 'roofline', hardware: 'h100-sxm', dtype: 'bf16' });
  const cfg = transformerOps.draw(d, THEME);
  assertChartSubset('transformer-ops-roofline', cfg);
  const labels = cfg.data.datasets.map((x) => x.label);
  assert.ok(labels.some((l) => /^Tensor-core roof/.test(l)) && labels.some((l) => /^CUDA-core \(vector\) roof/.test(l)));
  const points = cfg.data.datasets.filter((x) => x.pointLabels).flatMap((x) => x.data);
  assert.equal(points.length, d.ops.length);
  for (const p of points) assert.ok(p.y <= p.o.peak_flops * (1 + 1e-12));
  // Ops on one spot share one label (QKᵀ and attention × V have one intensity), so no two labels
  // compete for it; every op is still named.
  const text = points.map((p) => p.label).filter(Boolean);
  assert.ok(text.includes('Attention matmuls'), text.join(' | '));
  assert.ok(text.includes('Layer norms, Activation'), text.join(' | '));
  assert.ok(text.includes('Weight matmuls'), text.join(' | '));
  assert.ok(text.length < points.length);
});

// TPUs: the table has only the matrix unit's rate, so every op sits under one roof (an upper bound for
// elementwise ops, which a TPU runs on its vector unit), and it is not
// called a tensor-core roof; AMD's units are matrix cores and vector units.
test('both roofline figures name the units of each vendor and draw one roof for the TPUs', () => {
  for (const fig of [rooflinePlot, transformerOps]) {
    const over = fig === transformerOps ? { view: 'roofline' } : {};
    const tpu = fig.draw(run(fig, { ...over, hardware: 'tpu-v5p', dtype: 'bf16' }), THEME).data.datasets.map((x) => x.label);
    assert.ok(tpu.some((l) => /^Matrix-unit \(MXU\) roof: .*every op/.test(l)), `${fig.id}: ${tpu.join(' | ')}`);
    assert.ok(!tpu.some((l) => /Tensor-core|CUDA-core/.test(l)), `${fig.id}: ${tpu.join(' | ')}`);
    const amd = fig.draw(run(fig, { ...over, hardware: 'mi300x', dtype: 'bf16' }), THEME).data.datasets.map((x) => x.label);
    assert.ok(amd.some((l) => /^Matrix-core roof/.test(l)) && amd.some((l) => /^Vector-unit roof/.test(l)), `${fig.id}: ${amd.join(' | ')}`);
  }
  for (const fig of [rooflinePlot, transformerOps]) {
    assert.match(fig.caption, /TPUs.*every op sits under that one roof, which their vector unit may not reach/, fig.id);
    assert.doesNotMatch(fig.caption, /one roof serves every op/, fig.id);
  }
});
