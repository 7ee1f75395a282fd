// The numerical-stability lesson's three figures on the built WASM engine: what their data says,
// checked against closed forms (ln of each format's max: IEEE 754-2019 binary16 65504, binary32
// FLT_MAX, bf16 (2 − 2⁻⁷)·2¹²⁷) and the behaviour the captions describe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, assertChartSubset } from './figure-harness.mjs';
import softmax from '../../web/src/figures/softmax-overflow.js';
import spikes, { LOSS_RANGE, NORM_RANGE } from '../../web/src/figures/loss-spike-clipping.js';
import growth from '../../web/src/figures/logit-growth-range.js';

const axes = (cfg) => [cfg.options.scales.x.min, cfg.options.scales.x.max, cfg.options.scales.y.min, cfg.options.scales.y.max];
const labels = (cfg) => JSON.stringify(cfg.data.datasets.map((d) => d.label));

// --- softmax-overflow ---------------------------------------------------------------------

test('softmax-overflow: thresholds are ln(max) per format, the naive kernel fails exactly above them', () => {
  const d = run(softmax);
  const max = { fp16: 65504, bf16: (2 - 2 ** -7) * 2 ** 127, fp32: (2 - 2 ** -23) * 2 ** 127 };
  for (const r of d.runs) {
    close(r.threshold, Math.log(max[r.format]), 1e-12);
    for (const q of r.sweep) {
      assert.equal(q.exp_overflow, q.max_logit > r.threshold, `${r.format} at ${q.max_logit}`);
      assert.equal(q.naive_top === null, q.exp_overflow);
      // The max-subtracted kernel never fails and matches the exact softmax to 16-bit precision.
      assert.ok(Math.abs(q.stable_top - q.exact_top) < 1e-3, `${r.format} stable ${q.stable_top} vs ${q.exact_top}`);
    }
  }
  // 8 logits 1 apart: Σ e^(−i) = 1.5815, so fp16's sum overflows above 11.09 − 0.458 = 10.63, and the
  // naive kernel returns 0 at 11.0 (the sweep's point between 10.63 and 11.09).
  const fp16 = d.runs.find((r) => r.format === 'fp16');
  close(fp16.sumThreshold, Math.log(65504) - Math.log((1 - Math.exp(-8)) / (1 - Math.exp(-1))), 1e-9);
  const at11 = fp16.sweep.find((q) => q.max_logit === 11);
  assert.equal(at11.sum_overflow, true);
  assert.equal(at11.naive_top, 0);
  assert.ok(fp16.sweep.find((q) => q.max_logit === 10.5).naive_top > 0.6);
  const cfg = softmax.draw(run(softmax, { view: 'result' }), THEME);
  assertChartSubset('softmax-overflow', cfg);
  assert.match(labels(cfg), /fp16: e\^x overflows above 11\.09/);
  assert.match(labels(cfg), /fp32: e\^x overflows above 88\.72/);
});

test('softmax-overflow (sum view): the naive stored sum follows log Z until ln(max); the stable sum stays in [0, ln n]', () => {
  const d = run(softmax, { view: 'sum' });
  for (const r of d.runs) {
    for (const q of r.sweep) {
      if (q.naive_log_sum !== null) {
        assert.ok(Math.abs(q.naive_log_sum - q.log_z) < 0.01, `${r.format} at ${q.max_logit}: ${q.naive_log_sum} vs ${q.log_z}`);
        assert.ok(q.log_z <= r.threshold + 0.01);
      } else {
        assert.ok(q.log_z > r.threshold - 0.01, `${r.format} at ${q.max_logit}: sum lost below ln(max)`);
      }
      assert.ok(q.stable_log_sum >= 0 && q.stable_log_sum <= Math.log(8) + 1e-6);
      close(q.stable_log_sum, q.log_z - q.max_logit, 1e-6);
    }
  }
  const cfg = softmax.draw(d, THEME);
  assertChartSubset('softmax-overflow', cfg);
  assert.match(labels(cfg), /fp16: ln\(max\) = 11\.09/);
});

test('softmax-overflow: exact top probability follows the pattern; axes fixed', () => {
  for (const view of ['sum', 'result']) {
    const base = axes(softmax.draw(run(softmax, { view }), THEME));
    for (const over of [{ count: 1 }, { count: 64 }, { spacing: 0.1 }, { spacing: 2 }]) {
      const d = run(softmax, { view, ...over });
      const n = Number(over.count ?? 8);
      const dx = Number(over.spacing ?? 1);
      let s = 0;
      for (let i = 0; i < n; i += 1) s += Math.exp(-i * dx);
      close(d.runs[2].sweep[0].exact_top, 1 / s, 1e-6);
      assert.deepEqual(axes(softmax.draw(d, THEME)), base);
    }
  }
});

// --- loss-spike-clipping ------------------------------------------------------------------

test('loss-spike-clipping: the same bad batches; clipping shrinks the spikes by orders of magnitude', () => {
  const d = run(spikes);
  assert.deepEqual(d.off.bad_steps, d.on.bad_steps);
  assert.ok(d.off.bad_steps.length >= 2);
  // After the first 100 steps (the loss is near its floor ½σ² = 0.005 by then).
  const peak = (r) => Math.max(...r.loss.slice(100));
  assert.ok(peak(d.off) > 1e4 * r0(d.off), `unclipped peak ${peak(d.off)}`);
  assert.ok(peak(d.on) < 0.05, `clipped peak ${peak(d.on)}`);
  assert.ok(d.on.clipped_fraction > 0 && d.on.clipped_fraction < 0.05);
  // Every clipped step had a gradient norm above max_norm (torch.nn.utils.clip_grad_norm_).
  for (const t of d.on.clipped_steps) assert.ok(d.on.grad_norm[t] > 1 - 1e-6);
  for (const view of ['loss', 'norm']) {
    const cfg = spikes.draw(run(spikes, { view }), THEME);
    assertChartSubset('loss-spike-clipping', cfg);
  }
  function r0(r) { return r.loss_floor; }
});

test('loss-spike-clipping: every run at the controls\' extremes stays inside the fixed axes', () => {
  for (const over of [{ lr: 0.2 }, { lr: 0.2, spike_scale: 50 }, { lr: 0.1, spike_scale: 50, spike_rate: 0.03 },
    { lr: 0.2, spike_scale: 50, spike_rate: 0.03, seed: 7 }]) {
    const d = run(spikes, over);
    for (const r of [d.off, d.on]) {
      for (const y of r.loss) assert.ok(y <= LOSS_RANGE[1], `loss ${y} above the axis at ${JSON.stringify(over)}`);
      for (const y of r.grad_norm) assert.ok(y <= NORM_RANGE[1], `norm ${y} above the axis at ${JSON.stringify(over)}`);
    }
  }
});

test('loss-spike-clipping: axes stay fixed across controls', () => {
  for (const view of ['loss', 'norm']) {
    const base = axes(spikes.draw(run(spikes, { view }), THEME));
    for (const over of [{ max_norm: 0.25 }, { spike_scale: 50 }, { lr: 0.2 }, { seed: 7 }]) {
      assert.deepEqual(axes(spikes.draw(run(spikes, { view, ...over }), THEME)), base);
    }
  }
});

// --- logit-growth-range -------------------------------------------------------------------

test('logit-growth-range: without z-loss the largest logit passes ln 65504; with 1e-4 log Z ends near 0', () => {
  const d = run(growth);
  close(d.off.fp16_exp_overflow_threshold, Math.log(65504), 1e-12);
  // The caption's "on to several times that": seed 1's run peaks above three times fp16's limit
  // and ends above two and a half times it.
  assert.ok(d.off.peak_max_logit > 3 * Math.log(65504), `peak ${d.off.peak_max_logit}`);
  assert.ok(d.off.final_max_logit > 2.5 * Math.log(65504), `final ${d.off.final_max_logit}`);
  assert.ok(d.off.first_fp16_exp_overflow_step !== null && d.off.first_fp16_exp_overflow_step < 300);
  assert.ok(Math.abs(d.on.final_mean_log_z) < 1);
  assert.equal(d.on.first_fp16_exp_overflow_step, null);
  // bf16 spacing at the largest logit: 2^(⌊log2 z⌋ − 7) for z ≥ 1.
  const last = d.off.series.at(-1);
  assert.equal(last.bf16_spacing, 2 ** (Math.floor(Math.log2(last.max_logit)) - 7));
  for (const view of ['range', 'precision']) {
    const cfg = growth.draw(run(growth, { view }), THEME);
    assertChartSubset('logit-growth-range', cfg);
    const base = axes(cfg);
    for (const over of [{ lr: 0.1 }, { z_loss: 1e-3 }, { weight_decay: 1 }]) {
      assert.deepEqual(axes(growth.draw(run(growth, { view, ...over }), THEME)), base);
    }
  }
});
