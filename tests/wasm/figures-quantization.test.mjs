// The quantization lesson's five figures on the built WASM engine: data() is finite and
// complete, draw() keeps to the Chart.js subset and the theme's colours, the first control
// changes the data, the numbers match the closed forms (Δ/2, Δ²/12, bits + 16/g, roofline
// bytes), and invalid parameters are EngineErrors on the right field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours, assertChartSubset } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import staircase from '../../web/src/figures/quantizer-staircase.js';
import mseBits from '../../web/src/figures/quantization-mse-vs-bits.js';
import clip from '../../web/src/figures/clip-tradeoff.js';
import granularity from '../../web/src/figures/quantization-granularity.js';
import smooth from '../../web/src/figures/smoothquant-migration.js';
import { quantization } from '../../web/src/figures/lists/quantization.js';

const FIGURES = [staircase, mseBits, clip, granularity, smooth];

test('the list registers the five figures', async () => {
  assert.deepEqual(Object.keys(quantization).sort(), FIGURES.map((f) => f.id).sort());
  for (const [id, load] of Object.entries(quantization)) assert.equal((await load()).default.id, id);
});

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.equal(typeof fig.title, 'string');
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.ok(specs.length > 0);
    assert.ok(specs.some((s) => ['select', 'integer', 'number'].includes(s.type)), 'has a select or slider');
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
    for (const over of fig === smooth ? [{}, { view: 'phases' }] : [{}]) {
      const cfg = fig.draw(run(fig, over), THEME);
      assertChartSubset(fig.id, cfg);
      assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
      for (const d of cfg.data.datasets) if (d.type) assert.ok(['line', 'scatter', 'bar'].includes(d.type));
    }
  });

  test(`${fig.id}: changing the first control changes the data`, () => {
    const [first] = resolveParams(fig, engine);
    const base = params(fig);
    let other;
    if (first.type === 'select') other = first.options.map((o) => o.value).find((v) => v !== base[first.key]);
    else if (first.type === 'boolean') other = !base[first.key];
    else other = base[first.key] === first.max ? first.min : Math.min(first.max, base[first.key] + 1);
    const a = JSON.stringify(run(fig).table), b = JSON.stringify(run(fig, { [first.key]: other }).table);
    assert.notEqual(a, b);
  });
}

// --- quantizer-staircase ----------------------------------------------------------------

test('quantizer-staircase: step is range/(2^b − 1), errors inside the range ≤ Δ/2', () => {
  for (const bits of [2, 3, 5, 8]) {
    const d = run(staircase, { bits, range_min: -0.4, range_max: 1.3 });
    close(d.scale, 1.7 / (2 ** bits - 1), 1e-12);
    close(d.max_error, d.scale / 2, 1e-12);
    for (const q of d.points) if (q.x >= -0.4 && q.x <= 1.3) assert.ok(Math.abs(q.error) <= d.scale / 2 * (1 + 1e-9));
    // Codes clamp outside the range.
    assert.equal(d.points[0].q, 0);
    assert.equal(d.points.at(-1).q, 2 ** bits - 1);
  }
  const sym = run(staircase, { symmetric: true, range_min: -0.2, range_max: 1 });
  assert.equal(sym.zero_point, 0);
  close(sym.scale, 1 / 3, 1e-12); // 3 bits: codes −3 … 3 over [−1, 1]
});

test('quantizer-staircase: a reversed range is an EngineError on range_max', () => {
  assert.throws(() => run(staircase, { range_min: 1, range_max: 0 }), isEngineError('range_max'));
});

test('quantizer-staircase: the error axis labels no bound beside its ticks', () => {
  for (const bits of [2, 3, 5]) assert.equal(staircase.draw(run(staircase, { bits }), THEME).options.scales.y1.ticks.includeBounds, false);
});

// --- quantization-mse-vs-bits --------------------------------------------------------------

test('quantization-mse-vs-bits: uniform data follows Δ²/12 and falls 4× per bit', () => {
  const d = run(mseBits);
  assert.equal(d.points.length, 15);
  for (const q of d.points.filter((x) => x.bits >= 4)) close(q.mse, q.model, 0.03);
  // Symmetric steps: Δ ∝ 1/(2^(b−1) − 1), so the ratio per bit tends to 1/4 (0.242 at 6 → 7 bits).
  for (let i = 5; i < d.points.length; i++) close(d.points[i].mse / d.points[i - 1].mse, 0.25, 0.06);
  const laplace = run(mseBits, { distribution: 'laplace' });
  assert.ok(laplace.points[6].mse > 2 * d.points[6].mse); // wider range for the same variance
});

test('quantization-mse-vs-bits: MSE ticks in one notation, end points drawn whole', () => {
  const cfg = mseBits.draw(run(mseBits), THEME);
  const { x, y } = cfg.options.scales;
  // Every decade of the fixed 1e-10 … 1e3 axis reads 1eN (1 at 1): no 0.000001 beside 1e-7.
  const decades = Array.from({ length: 14 }, (_, i) => 10 ** (i - 10));
  const ticks = decades.map((value) => ({ value }));
  const labels = decades.map((v, i) => y.ticks.callback(v, i, ticks));
  assert.deepEqual(labels, decades.map((v, i) => (i === 10 ? '1' : `1e${i - 10}`)));
  // The bit axis leaves half a bit beyond 2 and 16, and ticks only whole bits.
  assert.ok(x.min < 2 && x.max > 16);
  const axis = { min: x.min, max: x.max };
  x.afterBuildTicks(axis);
  assert.deepEqual(axis.ticks.map((t) => t.value), Array.from({ length: 15 }, (_, i) => i + 2));
});

// --- clip-tradeoff ------------------------------------------------------------------------

test('clip-tradeoff: the best clip is below max|x| at 4 bits and beats no clipping', () => {
  const d = run(clip);
  assert.ok(d.best_clip < 0.7 && d.best_clip > 0.1, `best clip ${d.best_clip}`);
  assert.ok(d.gain > 2);
  for (const q of d.points) close(q.mse, q.rounding + q.clipping, 1e-9);
  assert.equal(d.points.at(-1).clipping, 0);
  assert.ok(run(clip, { bits: 8 }).best_clip > d.best_clip);
});

test('clip-tradeoff: the marked best clip is named on the chart with its value', () => {
  const d = run(clip);
  const star = clip.draw(d, THEME).data.datasets.find((ds) => ds.pointStyle === 'star');
  assert.ok(star.pointLabels);
  assert.deepEqual(star.data.map((q) => [q.x, q.label]), [[d.best_clip, `best clip ${Number(d.best_clip.toPrecision(3))}`]]);
});

test('clip-tradeoff: the clipping part ends where nothing is clipped, not at the axis floor', () => {
  const d = run(clip);
  const ds = clip.draw(d, THEME).data.datasets.find((x) => x.label === 'Clipping part');
  d.points.forEach((q, i) => assert.equal(ds.data[i].y, q.clipping > 0 ? q.clipping : null));
  assert.equal(ds.data.at(-1).y, null); // no clipping at max|x|
  assert.equal(ds.spanGaps, false);
});

test('clip-tradeoff: an unknown distribution is an EngineError on distribution', () => {
  assert.throws(() => run(clip, { distribution: 'cauchy' }), isEngineError('distribution'));
});

// --- quantization-granularity --------------------------------------------------------------

test('quantization-granularity: finer scales cut the error and cost 16/g bits', () => {
  const d = run(granularity);
  const [tensor, channel, g256, g128, g64, g32] = d.bars;
  assert.ok(channel.mse < tensor.mse / 3);
  assert.ok(g32.mse <= g128.mse && g128.mse <= channel.mse * 1.05);
  close(channel.bits_per_value, 4 + 16 / 512, 1e-12);
  close(g128.bits_per_value, 4 + 16 / 128, 1e-12);
  close(g32.bits_per_value, 4.5, 1e-12);
  assert.equal(tensor.overhead_bytes, 2);
  close(run(granularity, { symmetric: false }).bars[5].bits_per_value, 5, 1e-12); // + 16-bit zero points
  assert.ok(g256.blocks === 256 && g64.blocks === 1024);
});

test('quantization-granularity: at outlier scale 100 the ordinary rows show what the tensor MSE hides', () => {
  const [tensor, channel] = run(granularity, { outlier_scale: 100 }).bars;
  assert.ok(channel.mse > tensor.mse / 2, 'the whole-tensor MSE barely moves: the outlier rows own it');
  assert.ok(channel.mse_ordinary < tensor.mse_ordinary / 30, 'the ordinary rows gain more than thirtyfold');
  assert.ok(tensor.mse_ordinary > 0.9 && tensor.mse_ordinary < 1.1, 'per tensor, they round to zero: error ≈ their power 1');
});

test('quantization-granularity: the bill is in each label and the MSE axis stays fixed', () => {
  const cfg = granularity.draw(run(granularity), THEME);
  assert.deepEqual(cfg.data.labels[0], ['Per tensor', '4 bit/value']);
  assert.match(cfg.data.labels[5][1], /^4\.5 bit\/value$/);
  const at = (o) => granularity.draw(run(granularity, { outlier_scale: o }), THEME).options.scales.y;
  for (const o of [1, 100]) assert.deepEqual([at(o).min, at(o).max], [1e-5, 1e3]);
  for (const o of [1, 20, 100]) for (const b of run(granularity, { outlier_scale: o, bits: 2 }).bars.concat(run(granularity, { outlier_scale: o, bits: 8 }).bars))
    assert.ok(b.mse_ordinary > 1e-5 && b.mse < 1e3, `${b.label} at ${o}: inside the fixed axis`);
});

test('quantization-granularity: the formats view puts MX and NVFP4 beside the integer schemes', () => {
  const d = run(granularity, { view: 'formats' });
  const by = Object.fromEntries(d.points.map((q) => [q.label, q]));
  close(by.MXFP4.x, 4.25, 1e-12);
  close(by.NVFP4.x, 4.5 + 32 / 65536, 1e-12); // + the fp32 tensor scale
  close(by['MXFP8'].x, 8.25, 1e-12);
  assert.ok(by.NVFP4.y > by.MXFP4.y, 'smaller blocks and a finer scale beat MXFP4');
  assert.ok(by['MXFP6 E2M3'].y > by['MXFP6 E3M2'].y + 4, 'a mantissa bit is worth about 6 dB');
  for (const q of d.points) assert.ok(q.x > 3.5 && q.x < 9 && q.y > 10 && q.y < 50, `${q.label} inside the fixed axes`);
  assert.notDeepEqual(run(granularity, { view: 'formats', outlier_scale: 1 }).table, d.table, 'the outlier scale moves it');
});

test('quantization-granularity: bits out of range is an EngineError on bits', () => {
  assert.throws(() => run(granularity, { bits: 1 }), isEngineError('bits'));
});

// --- smoothquant-migration -----------------------------------------------------------------

test('smoothquant-migration: activation error falls, weight error rises, the product is best in between', () => {
  const d = run(smooth);
  for (let i = 1; i < d.sweep.length; i++) {
    assert.ok(d.sweep[i].act < d.sweep[i - 1].act);
    assert.ok(d.sweep[i].weight > d.sweep[i - 1].weight);
  }
  assert.ok(d.best_alpha > 0.2 && d.best_alpha < 0.9);
  assert.ok(d.at.output < d.baseline.output / 5);
  close(d.at.output, d.sweep[5].output, 1e-12); // α = 0.5 is on the grid
});

test('smoothquant-migration: the error axis is fixed, so a larger outlier scale moves the curves', () => {
  const axis = (over) => smooth.draw(run(smooth, over), THEME).options.scales.y;
  const a = axis({}), b = axis({ outlier_scale: 3 });
  assert.deepEqual([a.min, a.max], [b.min, b.max]);
  assert.ok(run(smooth, { outlier_scale: 3 }).baseline.output < run(smooth).baseline.output / 2);
});

// --- the phases view of smoothquant-migration ----------------------------------------------------

test('smoothquant-migration (phases): weight-only helps decode only; W8A8 helps decode by its bytes and prefill by its peak (H100)', () => {
  const d = run(smooth, { view: 'phases' });
  const s = Object.fromEntries(d.schemes.map((x) => [x.scheme, x]));
  close(s.w4a16.decode, 16 / (4 + 16 / 128), 1e-9);
  close(s.w4a16.prefill, 1, 1e-9);
  close(s['w8a8-fp8'].prefill, 2, 1e-3);
  // The caption's point: W8A8 reads 8-bit weights too, so decode gains as much as W8A16.
  close(s['w8a8-int8'].decode, s.w8a16.decode, 1e-12);
  close(s['w8a8-int8'].decode, 2, 1e-9);
  assert.equal(s.bf16.decode_bound, 'memory');
  assert.equal(s.bf16.prefill_bound, 'compute');
  const bytes = 8e9 * 2;
  close(s.bf16.decode_time_s, bytes / engine.calc('hardware', { id: 'h100-sxm' }).hbm_bandwidth_Bps, 1e-12);
  const a100 = run(smooth, { view: 'phases', hardware: 'a100-sxm-80gb' });
  assert.equal(a100.schemes.find((x) => x.scheme === 'w8a8-fp8').available, false);
  // TPU v4: int8 at the bf16 rate (275 TFLOP/s both), so W8A8 int8 gains nothing in prefill.
  const v4 = Object.fromEntries(run(smooth, { view: 'phases', hardware: 'tpu-v4' }).schemes.map((x) => [x.scheme, x]));
  close(v4['w8a8-int8'].prefill, 1, 1e-9);
});

test('smoothquant-migration (phases): every bar is labelled with its bound; the axis is fixed', () => {
  const d = run(smooth, { view: 'phases' });
  const cfg = smooth.draw(d, THEME);
  for (const ds of cfg.data.datasets) {
    assert.ok(ds.pointLabels);
    ds.data.forEach((q, i) => {
      const s = d.schemes[i];
      const bound = ds.label.startsWith('Decode') ? s.decode_bound : s.prefill_bound;
      assert.equal(q.label, { memory: 'mem', compute: 'comp', unavailable: 'n/a' }[bound]);
    });
  }
  assert.deepEqual([cfg.options.scales.y.min, cfg.options.scales.y.max], [0, 4]);
});

test('smoothquant-migration (phases): unknown hardware is an EngineError on hardware', () => {
  assert.throws(() => run(smooth, { view: 'phases', hardware: 'nope' }), isEngineError('hardware'));
});
