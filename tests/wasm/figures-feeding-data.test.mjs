// The feeding-data lesson's three figures on the built WASM engine: what their data says,
// checked against the closed forms of the models (the data-loader ceiling W·step/load, the
// fixed-length packing saw-tooth ⌊M/L⌋·L/M, the global batch product and the learning-rate
// rules) and published numbers (Llama 3 405B's first 4M-token batch, arXiv:2407.21783).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, engine, assertChartSubset } from './figure-harness.mjs';
import pipeline from '../../web/src/figures/input-pipeline-workers.js';
import packing from '../../web/src/figures/packing-efficiency.js';
import batch from '../../web/src/figures/global-batch-lr.js';

const axes = (cfg) => [cfg.options.scales.x.min, cfg.options.scales.x.max, cfg.options.scales.y.min, cfg.options.scales.y.max];
const labels = (cfg) => JSON.stringify(cfg.data.datasets.map((d) => d.data.map((r) => r.label ?? '')));

// --- input-pipeline-workers -----------------------------------------------------------------

test('input-pipeline-workers: no curve beats the mean-supply ceiling, and constant loads reach it', () => {
  const d = run(pipeline);
  assert.equal(d.needed, Math.ceil(1.0 / 0.3));
  for (const c of d.curves) {
    c.points.forEach((q, i) => assert.ok(q.busy <= d.ceiling[i].busy + 1e-9, `prefetch ${c.prefetch}, ${q.workers} workers`));
  }
  // Constant loads: once W·step ≥ load every prefetch depth stalls only for the first batch:
  // busy = 200·step / (load + 200·step).
  const k = run(pipeline, { load_cv: 0, load_time_s: 0.9, step_time_s: 0.3 });
  for (const c of k.curves) for (const q of c.points.filter((p) => p.workers >= 3)) close(q.busy, 60 / (0.9 + 60), 1e-12);
  // One worker at twice the step time: busy 200 / 401, about half (the required test of the model).
  const half = run(pipeline, { load_cv: 0, load_time_s: 0.6, step_time_s: 0.3 });
  for (const c of half.curves) close(c.points[0].busy, 200 / 401, 1e-12);
});

test('input-pipeline-workers: at the defaults a deeper prefetch queue helps near the knee, and the caption\'s label is drawn', () => {
  const d = run(pipeline);
  const at = (prefetch, w) => d.curves.find((c) => c.prefetch === prefetch).points[w - 1].busy;
  assert.ok(at(1, 4) < at(2, 4) && at(2, 4) < at(4, 4), `${at(1, 4)} ${at(2, 4)} ${at(4, 4)}`);
  assert.ok(at(8, 3) < 0.9, 'three workers stay under the ceiling 3·0.3/1.0');
  const cfg = pipeline.draw(d, THEME);
  assertChartSubset('input-pipeline-workers', cfg);
  assert.match(labels(cfg), /% at 4 workers/);
  const base = axes(cfg);
  for (const over of [{ load_time_s: 0.05 }, { load_time_s: 5 }, { load_cv: 2 }, { step_time_s: 2 }]) {
    assert.deepEqual(axes(pipeline.draw(run(pipeline, over), THEME)), base);
  }
});

test('input-pipeline-workers: seeded runs are reproducible', () => {
  assert.deepEqual(run(pipeline, { seed: 5 }), run(pipeline, { seed: 5 }));
  assert.notDeepEqual(run(pipeline, { seed: 5 }).table, run(pipeline, { seed: 6 }).table);
});

// --- packing-efficiency -----------------------------------------------------------------------

test('packing-efficiency: fixed lengths follow L/M padded and ⌊M/L⌋·L/M packed', () => {
  const d = run(packing, { length_distribution: 'fixed', max_len: 2048 });
  const pad = d.curves.find((c) => c.method === 'pad');
  const pack = d.curves.find((c) => c.method === 'pack');
  for (const q of pad.points) close(q.efficiency, Math.min(q.mean, 2048) / 2048, 1e-12);
  for (const q of pack.points.filter((p) => p.mean <= 2048)) {
    const k = Math.floor(2048 / q.mean);
    const seqs = Math.ceil(1000 / k);
    close(q.efficiency, (1000 * q.mean) / (seqs * 2048), 1e-12);
  }
  // 768-token documents: two per 2,048-token sequence, 75%.
  close(pack.points.find((q) => q.mean === 768).efficiency, 0.75, 1e-12);
});

test('packing-efficiency: at the defaults padding wastes about three quarters, packing almost nothing, and half the causal attention crosses documents', () => {
  const d = run(packing);
  const m = Object.fromEntries(d.marked.map((q) => [q.method, q]));
  assert.ok(m.pad.efficiency > 0.2 && m.pad.efficiency < 0.3, `${m.pad.efficiency}`);
  assert.ok(m.pack.efficiency > 0.99 && m.concat.efficiency > 0.99);
  assert.equal(m.pad.cross, 0);
  assert.ok(m.pack.cross > 0.45 && m.pack.cross < 0.65, `${m.pack.cross}`);
  const r = engine.calc('packing', { max_len: 2048, mean_len: 600, method: 'pack' });
  close(r.cross_document_share, (r.causal_pairs - r.document_pairs) / r.causal_pairs, 1e-12);
  const cfg = packing.draw(d, THEME);
  assertChartSubset('packing-efficiency', cfg);
  const base = axes(cfg);
  for (const over of [{ max_len: 512 }, { max_len: 8192 }, { length_distribution: 'fixed' }, { mean_len: 16 }, { view: 'attention' }]) {
    assert.deepEqual(axes(packing.draw(run(packing, over), THEME)), base);
  }
});

// --- global-batch-lr --------------------------------------------------------------------------

test('global-batch-lr: micro-batch × devices × accumulation, and Llama 3 405B\'s first batch of 4M tokens', () => {
  const d = run(batch);
  // Llama Team 2024, section 3.4.1: an initial batch of 4M tokens in sequences of 4,096.
  assert.equal(d.sequences, 2 * 512 * 1);
  assert.equal(d.tokens, 1024 * 4096);
  assert.equal(d.tokens, engine.calc('global-batch', { per_device_batch: 2, devices: 512, accumulation: 1, seq: 4096 }).tokens);
  assert.equal(run(batch, { devices: 256, accumulation: 2 }).tokens, d.tokens);
  // Rules anchored at lr₀ = 3e-4, B₀ = 2^20; B = 4·B₀, B_crit = 8·B₀.
  close(d.batch.lr_linear, 1.2e-3);
  close(d.batch.lr_sqrt, 6e-4);
  close(d.batch.lr_noise_scale, (3e-4 * 9) / 3);
  for (const q of d.batch.curve) close((q.steps_factor - 1) * (q.tokens_factor - 1), 1, 1e-12);
  const cfg = batch.draw(d, THEME);
  assertChartSubset('global-batch-lr', cfg);
  assert.match(cfg.options.scales.x.title.text, /4\.19M tokens \(1024 sequences\)/);
  const base = axes(cfg);
  for (const over of [{ devices: 16384 }, { per_device_batch: 64 }, { critical_batch_tokens: 262144 }, { base_batch_tokens: 4194304 }, { seq: 8192 }]) {
    assert.deepEqual(axes(batch.draw(run(batch, over), THEME)), base);
  }
  const cost = run(batch, { view: 'cost' });
  close(cost.batch.steps_factor, 3);
  close(cost.batch.tokens_factor, 1.5);
});
