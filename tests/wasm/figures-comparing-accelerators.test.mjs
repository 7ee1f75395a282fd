// The comparing-accelerators lesson's three figures on the built WASM engine: ridge points as
// peak / bandwidth from the datasheets, the decode step memory-bound and the training step
// compute-bound on every chip with times by hand from the step's FLOPs and bytes, and tokens
// per joule and per dollar as tokens/s over watts or price (none where no power is published).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, engine, run, close, assertChartSubset, isEngineError } from './figure-harness.mjs';
import { resolveParams, coerce } from '../../web/src/runtime/params.js';
import ridge, { CHIPS } from '../../web/src/figures/accelerator-ridge-points.js';
import time from '../../web/src/figures/accelerator-workload-time.js';
import cost, { ASSUMED_PRICES, roundUp } from '../../web/src/figures/accelerator-cost-efficiency.js';

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
  const t = run(time, { workload: 'training-step', train_chips: 8 });
  for (const c of t.chips) {
    assert.equal(c.bound, 'compute');
    close(c.time_s, t.flops / 8 / c.peak_flops);
  }
  const p = run(time, { workload: 'prefill', batch: 1 });
  assert.ok(p.chips.every((c) => c.bound === 'compute'));
  assertChartSubset('accelerator-workload-time', time.draw(d, THEME));
});

test('accelerator-workload-time: a training step defaults to 8 chips, where it fits on every GPU; misfits are hollow bars', () => {
  // Switching the workload alone (as the caption says) gives a training step on 8 chips of each kind.
  const t = run(time, { workload: 'training-step' });
  assert.equal(t.chipsPer, 8);
  const misfit = t.chips.filter((c) => !c.fits).map((c) => c.short).sort();
  assert.deepEqual(misfit, ['TPU v4', 'TPU v5e']);
  for (const c of t.chips) assert.ok(c.time_s > 0 && c.bound === 'compute');
  // Prefill and decode keep their own chip count (1), untouched by the training one.
  assert.equal(run(time, { workload: 'decode-step', train_chips: 32 }).chipsPer, 1);
  // The caption gives each workload's default chip count: a prefill on one chip, training on 8.
  assert.equal(run(time, { workload: 'prefill' }).chipsPer, 1);
  assert.match(time.caption, /prefill \(one chip\) or a training step \(8 chips of each kind\)/);
  const cfg = time.draw(t, THEME);
  assertChartSubset('accelerator-workload-time', cfg);
  const [computeFit, memoryFit, computeMisfit, memoryMisfit] = cfg.data.datasets;
  for (const [i, c] of t.chips.entries()) {
    assert.equal(computeFit.data[i], c.fits ? c.compute_time_s : null, c.short);
    assert.equal(memoryFit.data[i], c.fits ? c.memory_time_s : null, c.short);
    assert.equal(computeMisfit.data[i], c.fits ? null : c.compute_time_s, c.short);
    assert.equal(memoryMisfit.data[i], c.fits ? null : c.memory_time_s, c.short);
  }
  // Misfits: hollow (the background inside the chip's colour), named in the legend.
  for (const [fit, misfit] of [[computeFit, computeMisfit], [memoryFit, memoryMisfit]]) {
    assert.equal(fit.backgroundColor, fit.borderColor);
    assert.equal(misfit.borderColor, fit.borderColor);
    assert.equal(misfit.backgroundColor, THEME.background);
    assert.match(misfit.label, /does not fit/);
    assert.ok(fit.skipNull && misfit.skipNull);
  }
  // All fit (32 chips: 9.3 GB each): no legend entry for misfits.
  assert.equal(time.draw(run(time, { workload: 'training-step', train_chips: 32 }), THEME).data.datasets.length, 2);
  assert.equal(cfg.options.scales.y.min, 10 ** Math.round(Math.log10(cfg.options.scales.y.min)));
  assert.equal(cfg.options.scales.y.max, 10 ** Math.round(Math.log10(cfg.options.scales.y.max)));
});

test('accelerator-workload-time: raising the decode batch approaches the KV-cache ceiling on the axis, never a ridge', () => {
  let last = 0;
  for (const batch of [8, 64, 256, 1024]) {
    const d = run(time, { batch });
    assert.ok(d.intensity > last && d.intensity < d.limit, `batch ${batch}`);
    last = d.intensity;
    close(d.limit, run(time).limit);  // the ceiling does not depend on the batch
    assert.ok(d.chips.every((c) => c.bound === 'memory' && c.compute_bound_batch == null), `batch ${batch}`);
    assert.ok(d.chips.every((c) => c.ridge_intensity > d.limit));
  }
  close(last, 31.1, 2e-3);
  const title = time.draw(run(time, { batch: 1024 }), THEME).options.scales.x.title.text;
  assert.match(title, /31\.1 FLOP\/B for this step, at most 32\.0 at any batch with 4,096 cached/);
  // Fewer cached tokens lift the ceiling above some ridges: those chips get a compute-bound batch.
  const short = run(time, { seq: 512, batch: 1024 });
  assert.ok(short.limit > 200);
  const a100 = short.chips.find((c) => c.id === 'a100-sxm-80gb');
  assert.equal(a100.bound, 'compute');
  assert.ok(a100.compute_bound_batch <= 1024);
  assert.doesNotMatch(time.draw(run(time, { workload: 'prefill' }), THEME).options.scales.x.title.text, /at most/);
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

test('accelerator-cost-efficiency: a typed price replaces only its chip\'s; the axis top is a round number', () => {
  // The caption's example: {"h100-sxm": 2.5} changes the H100's bar and keeps every other price.
  const m = run(cost, { metric: 'dollar' });
  const typed = run(cost, { metric: 'dollar', price_per_hour: { 'h100-sxm': 2.5 } });
  for (const c of typed.chips) {
    const want = c.id === 'h100-sxm' ? 2.5 : ASSUMED_PRICES[c.id];
    assert.equal(c.price_per_hour, want, c.id);
    close(c.value, c.tokens_per_s * 3600 / want);
  }
  close(typed.chips.find((c) => c.id === 'h100-sxm').value, m.chips.find((c) => c.id === 'h100-sxm').value * 3 / 2.5);
  assert.throws(() => run(cost, { metric: 'dollar', price_per_hour: { z9000: 1 } }), isEngineError('price_per_hour'));
  for (const [x, want] of [[3030953.4 * 1.1, 4e6], [2.3, 2.5], [50.3, 60], [1, 1], [0.0123, 0.015]]) assert.equal(roundUp(x), want);
  for (const over of [{}, { metric: 'dollar' }, { workload: 'training-step' }, { metric: 'dollar', workload: 'prefill' }]) {
    const top = run(cost, over).range[1];
    assert.equal(top, roundUp(top), JSON.stringify(over));
  }
  assert.match(cost.draw(run(cost), THEME).options.scales.y.title.text, /lower bound/);
  // Only a memory-bound decode is understated at full power; a compute-bound step's roofline assumes
  // the full peak, so its per-joule bars are optimistic, not lower bounds.
  for (const workload of ['training-step', 'prefill']) {
    const d = run(cost, { workload });
    assert.ok(d.chips.every((c) => !c.fits || c.bound === 'compute'), workload);
    const title = cost.draw(d, THEME).options.scales.y.title.text;
    assert.doesNotMatch(title, /lower bound/, workload);
    assert.match(title, /optimistic/, workload);
    // No longer than the decode title, which shows whole beside the axis.
    assert.ok(title.length <= cost.draw(run(cost), THEME).options.scales.y.title.text.length, title);
  }
  assert.match(cost.caption, /on decode the bars are lower bounds/);
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
