// The fine-tuning-lora lesson's three figures on the built WASM engine: what their data says,
// checked against closed forms (r·(d_in + d_out) per adapted matrix; 2 bytes per frozen weight,
// 16 per trained one; NF4 with double quantization at 4 + 8/64 + 32/(64·256) bits; Eckart–Young's
// √(Σ dropped σ²); 6N against 4N FLOPs per token) and what their captions say at the defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, assertChartSubset } from './figure-harness.mjs';
import memory, { METHODS, PARTS } from '../../web/src/figures/lora-memory-methods.js';
import lowRank from '../../web/src/figures/low-rank-error.js';
import step from '../../web/src/figures/lora-step-time.js';

test('lora-memory-methods: the breakdowns add up, and the caption\'s numbers hold at the defaults', () => {
  const d = run(memory);
  const n = d.params, a = d.trainable_params;
  // Llama 2 7B, r = 16 on q, k, v, o, gate, up, down of 32 layers.
  close(a, 16 * 32 * (4 * 8192 + 3 * (4096 + 11008)));
  close(d.full_finetune_breakdown.trainable_weights_bytes + d.full_finetune_breakdown.grads_bytes + d.full_finetune_breakdown.optimizer_bytes, 16 * n);
  close(d.lora_breakdown.frozen_weights_bytes, 2 * n);
  close(d.lora_breakdown.trainable_weights_bytes + d.lora_breakdown.grads_bytes + d.lora_breakdown.optimizer_bytes, 16 * a);
  close(d.bits_per_base_param, 4 + 8 / 64 + 32 / (64 * 256));
  d.bars.forEach((b, i) => close(PARTS.reduce((s, [k]) => s + b[k], 0), d[`${METHODS[i][0]}_bytes`] / 1e9, 1e-12));
  assert.equal(Math.round(d.full_finetune_bytes / 1e9), 117);
  assert.equal(Math.round(d.lora_bytes / 1e9), 24);
  assert.equal(Math.round(d.qlora_bytes / 1e9), 14);
  assert.equal((100 * d.trainable_fraction).toFixed(1), '0.6');
  // The trained part grows 16 bytes per adapter parameter: "small beside the base at r = 64, three
  // quarters of it at r = 256" (it was once captioned as staying small at r = 256, at 76% of the base).
  const trained = (x) => (x.lora_breakdown.trainable_weights_bytes + x.lora_breakdown.grads_bytes + x.lora_breakdown.optimizer_bytes) / x.lora_breakdown.frozen_weights_bytes;
  const mid = trained(run(memory, { rank: 64 })), big = trained(run(memory, { rank: 256 }));
  assert.ok(mid < 0.2, `r = 64: trained part ${mid} of the base`);
  assert.ok(big > 0.7 && big < 0.8, `r = 256: trained part ${big} of the base`);
  assert.match(memory.caption, /small beside the base at r = 64, three quarters of it at r = 256/);
  // The lesson: at r = 256 the Adam states alone are more than half the frozen base.
  const b256 = run(memory, { rank: 256 }).lora_breakdown;
  assert.ok(b256.optimizer_bytes > 0.5 * b256.frozen_weights_bytes);
  // On Llama 2 70B only QLoRA's weights fit in 80 GB.
  const l70 = run(memory, { model: 'llama-2-70b' });
  assert.ok(l70.qlora_breakdown.quantized_weights_bytes + l70.qlora_breakdown.frozen_weights_bytes < 80e9);
  assert.ok(l70.lora_breakdown.frozen_weights_bytes > 80e9);
  // Hu et al.'s GPT-3 budget: r = 4 on W_Q and W_V is 18.9M parameters.
  close(run(memory, { model: 'gpt-3-175b', rank: 4, targets: 'qv' }).trainable_params, 4 * 2 * 24576 * 96);
  assertChartSubset('lora-memory-methods', memory.draw(d, THEME));
});

test('low-rank-error: the executed SVD meets Eckart–Young, and the caption\'s defaults', () => {
  const d = run(lowRank);
  close(d.error_frobenius, d.eckart_young_error, 1e-9);
  const s2 = d.singular_values.map((s) => s * s), total = s2.reduce((x, y) => x + y, 0);
  d.by_rank.forEach((q, r) => close(q.relative_error, Math.sqrt(s2.slice(r).reduce((x, y) => x + y, 0) / total), 1e-9));
  for (let i = 1; i < d.singular_values.length; i++) assert.ok(d.singular_values[i] <= d.singular_values[i - 1]);
  assert.equal((100 * d.energy_kept).toFixed(0), '93');
  assert.equal((100 * d.relative_error).toFixed(0), '26');
  assert.equal(d.factor_params, 640);
  assert.equal(d.full_params, 6144);
  // The planted spectrum 1, 0.7, 0.49, … shows through the noise.
  close(d.singular_values[1] / d.singular_values[0], 0.7, 0.01);
  // A flat spectrum leaves far more error at the same rank; more noise raises the floor.
  const flat = run(lowRank, { decay: 0.95 });
  assert.ok(flat.relative_error > 2 * d.relative_error);
  // The caption gives the flat spectrum's numbers at r = 4, as the engine computes them.
  assert.equal((100 * flat.relative_error).toFixed(0), '63');
  assert.equal((100 * flat.energy_kept).toFixed(0), '60');
  assert.match(lowRank.caption, /leaves a 63% error and keeps only 60% of the energy/);
  assert.ok(run(lowRank, { noise: 0.3 }).by_rank[12].relative_error > d.by_rank[12].relative_error);
  assertChartSubset('low-rank-error', lowRank.draw(d, THEME));
});

test('low-rank-error: the error curve is drawn over the bars and the readout sits in the legend, at the caption\'s flat spectrum too', () => {
  for (const p of [{}, { decay: 0.95 }, { decay: 0.95, rank: 2 }, { true_rank: 32, decay: 0.95, noise: 0.5 }]) {
    const d = run(lowRank, p);
    const cfg = lowRank.draw(d, THEME);
    const [bars, curve, marker] = cfg.data.datasets;
    assert.equal(bars.type, 'bar');
    // Chart.js draws a dataset with a lower order later, that is on top.
    assert.ok(curve.order < bars.order && marker.order < bars.order, JSON.stringify(p));
    assert.ok(bars.barPercentage < 1, 'the bars leave gaps for the curve');
    // No text label beside the marker (at decay 0.95 every place near it lies on a bar): the
    // readout is the marker's legend entry and carries the numbers.
    assert.ok(cfg.data.datasets.every((ds) => !ds.pointLabels), JSON.stringify(p));
    assert.match(marker.label, new RegExp(`r = ${d.rank}: ${(100 * d.relative_error).toFixed(1)}% error`));
    // Headroom: σ_1's bar (100%) stays inside the frame.
    assert.ok(cfg.options.scales.y.max > 100);
  }
});

test('lora-step-time: 6N against 4N, and the caption\'s defaults', () => {
  const d = run(step);
  const [full, lora, qlora] = d.rows;
  close(full.flops_per_token, 6 * d.params_flops + d.attention_flops_per_token);
  close(lora.flops_per_token, 4 * d.params_flops + d.attention_flops_per_token + 6 * d.adapter_params);
  close(qlora.flops_per_token, lora.flops_per_token);
  assert.equal(full.time_s.toFixed(2), '1.77');
  assert.equal(lora.time_s.toFixed(2), '1.24');
  assert.equal((100 * d.lora_flops_ratio).toFixed(0), '70');
  assert.ok(d.qlora_slowdown > 1 && d.qlora_slowdown < 1.02);
  // Dequantization does not depend on the batch: at batch 1 its share grows.
  const one = run(step, { batch: 1 });
  close(one.rows[2].dequant_s, qlora.dequant_s);
  assert.ok(one.qlora_slowdown > d.qlora_slowdown);
  // An A100 stretches the matmuls by the peaks' ratio (989.4 / 312 TFLOP/s) and the dequantization
  // only by the bandwidths' (3.35 / 2.04 TB/s): not every part of every bar by the same factor.
  const a100 = run(step, { hardware: 'a100-sxm-80gb' });
  close(a100.rows[0].compute_s / full.compute_s, 989.4 / 312, 1e-9);
  const dq = a100.rows[2].dequant_s / qlora.dequant_s;
  assert.ok(dq > 1.2 && dq < 2, `dequantization stretched ${dq}×`);
  assert.match(step.caption, /the matmuls stretch by the peaks’ ratio, the dequantization only by the bandwidths’/);
  assertChartSubset('lora-step-time', step.draw(d, THEME));
});
