// The comparing-accelerators lesson's three figures on the built WASM engine: ridge points as
// peak / bandwidth from the datasheets, the decode step memory-bound and the training step
// compute-bound on every chip with times by hand from the step's FLOPs and bytes, and tokens
// per joule and per dollar as tokens/s over watts or price (none where no power is published).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, engine, run, close, assertChartSubset } from './figure-harness.mjs';
import { resolveParams, coerce } from '../../web/src/runtime/params.js';
import ridge, { CHIPS } from '../../web/src/figures/accelerator-ridge-points.js';
import time from '../../web/src/figures/accelerator-workload-time.js';
import cost, { ASSUMED_PRICES } from '../../web/src/figures/accelerator-cost-efficiency.js';

const axes = (cfg) => [cfg.options.scales.x.min, cfg.options.scales.x.max, cfg.options.scales.y.min, cfg.options.scales.y.max];

test('accelerator-ridge-points: ridge = dense peak / bandwidth, the bound at the intensity as the caption says', () => {
  const d = run(ridge);
  assert.equal(d.chips.length, 8);
  const by = Object.fromEntries(d.chips.map((c) => [c.id, c]));
  close(by['h100-sxm'].ridge, 989.4e12 / 3.35e12);
  close(by['a100-sxm-80gb'].ridge, 312e12 / 2.039e12);
  close(by['tpu-v5e'].ridge, 197e12 / 0.819e12);
  for (const c of d.chips) close(c.ridge, c.peak / c.bandwidth);
  // At 200 FLOP/B: A100 and TPU v5p compute-bound, H100 and B200 memory-bound.
  for (const id of ['a100-sxm-80gb', 'tpu-v5p']) assert.equal(by[id].bound, 'compute');
  for (const id of ['h100-sxm', 'b200']) assert.equal(by[id].bound, 'memory');
  // A decode-like intensity: all memory-bound.
  assert.ok(run(ridge, { intensity: 8 }).chips.every((c) => c.bound === 'memory'));
  // fp8: GPUs double, v5p stays, A100 / v4 / v5e drop out.
  const f = run(ridge, { dtype: 'fp8-e4m3' });
  assert.deepEqual(f.excluded.sort(), ['A100', 'TPU v4', 'TPU v5e']);
  const fb = Object.fromEntries(f.chips.map((c) => [c.id, c]));
  close(fb['h100-sxm'].ridge, 2 * by['h100-sxm'].ridge, 1e-3);
  close(fb['tpu-v5p'].ridge, by['tpu-v5p'].ridge);
  // Power: v5e and v5p have none; v4 uses the measured maximum.
  assert.equal(by['tpu-v5e'].power, null);
  assert.equal(by['tpu-v4'].power, 192);
  const a = ridge.draw(d, THEME), b = ridge.draw(f, THEME);
  assertChartSubset('accelerator-ridge-points', a);
  assert.deepEqual(axes(a), axes(b));
  for (const c of [...d.chips, ...f.chips]) assert.ok(c.peak >= a.options.scales.y.min && c.peak <= a.options.scales.y.max && c.bandwidth >= a.options.scales.x.min && c.bandwidth <= a.options.scales.x.max);
});

test('accelerator-workload-time: decode memory-bound everywhere in bandwidth order, training compute-bound in peak order', () => {
  const d = run(time);
  assert.ok(d.intensity > 5 && d.intensity < 10);
  for (const c of d.chips) {
    assert.equal(c.bound, 'memory');
    close(c.time_s, d.bytes / c.bandwidth_Bps);
  }
  const order = [...d.chips].sort((x, y) => x.time_s - y.time_s).map((c) => c.short);
  assert.deepEqual(order, ['B200', 'MI300X', 'H200', 'H100', 'TPU v5p', 'A100', 'TPU v4', 'TPU v5e']);
  assert.equal(d.chips.find((c) => c.id === 'tpu-v5e').fits, false);
  assert.ok(d.chips.filter((c) => c.id !== 'tpu-v5e').every((c) => c.fits));
  const t = run(time, { workload: 'training-step', chips: 8 });
  for (const c of t.chips) {
    assert.equal(c.bound, 'compute');
    close(c.time_s, t.flops / 8 / c.peak_flops);
  }
  const p = run(time, { workload: 'prefill', batch: 1 });
  assert.ok(p.chips.every((c) => c.bound === 'compute'));
  assertChartSubset('accelerator-workload-time', time.draw(d, THEME));
});

test('accelerator-cost-efficiency: tokens per joule = tokens/s / watts, none without a power figure; per dollar at the prices', () => {
  const d = run(cost);
  const by = Object.fromEntries(d.chips.map((c) => [c.id, c]));
  for (const id of ['tpu-v5e', 'tpu-v5p']) assert.equal(by[id].value, null);
  close(by['h100-sxm'].value, by['h100-sxm'].tokens_per_s / 700);
  close(by['tpu-v4'].value, by['tpu-v4'].tokens_per_s / 192);
  const ranked = d.chips.filter((c) => c.value != null).sort((a, b) => b.value - a.value).map((c) => c.short);
  assert.equal(ranked[0], 'B200');  // as the caption says
  const m = run(cost, { metric: 'dollar' });
  for (const c of m.chips) close(c.value, c.tokens_per_s * 3600 / ASSUMED_PRICES[c.id]);
  // A chip at half the price and half the speed ties: halve the H100's price, its tokens per dollar double.
  const half = run(cost, { metric: 'dollar', price_per_hour: { ...ASSUMED_PRICES, 'h100-sxm': ASSUMED_PRICES['h100-sxm'] / 2 } });
  close(half.chips.find((c) => c.id === 'h100-sxm').value, 2 * m.chips.find((c) => c.id === 'h100-sxm').value);
  assert.deepEqual(CHIPS.slice().sort(), Object.keys(ASSUMED_PRICES).sort());
  assertChartSubset('accelerator-cost-efficiency', cost.draw(d, THEME));
  assertChartSubset('accelerator-cost-efficiency', cost.draw(m, THEME));
});

test('ids, a list of names, is read from text as the calculators page gives it, each id checked', () => {
  const [spec] = resolveParams({ id: 'ids', params: [{ key: 'ids', from: ['accelerator-compare', 'ids'] }] }, engine);
  assert.equal(spec.items, 'string');
  assert.deepEqual(coerce(spec, 'h100-sxm, b200').value, ['h100-sxm', 'b200']);
  assert.deepEqual(coerce(spec, ['tpu-v5p']).value, ['tpu-v5p']);
  assert.match(coerce(spec, 'h100-sxm, z9000').error, /item 2, "z9000", is not one of/);
  assert.match(coerce(spec, 'h100-sxm,,b200').error, /item 2, "", is not a name/);
  assert.equal(engine.calc('accelerator-compare', { ids: coerce(spec, 'h100-sxm, b200').value }).rows.length, 2);
});
