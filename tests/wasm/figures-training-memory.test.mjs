// The training-memory lesson's five figures on the built WASM engine: data() is finite and
// complete, draw() keeps to the Chart.js subset and the theme's colours, the first control
// changes the data, closed forms (16 bytes per parameter, ZeRO sharding, Korthikanti's
// per-layer formula) hold, and bad parameters are EngineErrors on the right field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours } from './figure-harness.mjs';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import modelStateBytes from '../../web/src/figures/model-state-bytes.js';
import activationVsSeq from '../../web/src/figures/activation-memory-vs-seq.js';
import checkpointing from '../../web/src/figures/checkpointing-tradeoff.js';
import timeline from '../../web/src/figures/step-memory-timeline.js';
import fit from '../../web/src/figures/training-fit.js';
import { memory } from '../../web/src/figures/lists/memory.js';

const FIGURES = [modelStateBytes, activationVsSeq, checkpointing, timeline, fit];

test('every figure is listed', () => {
  assert.deepEqual(Object.keys(memory).sort(), FIGURES.map((f) => f.id).sort());
});

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.ok(specs.some((s) => s.type === 'select' || s.type === 'integer' || s.type === 'number'));
    for (const s of specs) assert.notEqual(s.default, undefined, `${fig.id}.${s.key} has a default`);
  });

  test(`${fig.id}: data at defaults is finite, the table is rectangular`, () => {
    const { columns, rows } = run(fig).table;
    assert.ok(columns.length > 1 && rows.length > 0);
    for (const row of rows) {
      assert.equal(row.length, columns.length);
      for (const cell of row) assert.ok(typeof cell === 'string' || Number.isFinite(cell), `cell ${cell}`);
    }
  });

  test(`${fig.id}: draw keeps to the allowed Chart.js subset and theme colours`, () => {
    const cfg = fig.draw(run(fig), THEME);
    assert.ok(['line', 'scatter', 'bar'].includes(cfg.type));
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
    assert.equal(cfg.options.animation, false);
    assert.equal(cfg.options.maintainAspectRatio, false);
    assert.equal(cfg.options.responsive, true);
    for (const [name, s] of Object.entries(cfg.options.scales)) {
      assert.ok(['linear', 'logarithmic', 'category'].includes(s.type), `scale ${name}: ${s.type}`);
      if (s.type !== 'category') assert.ok(s.title?.display && /\(.+\)/.test(s.title.text), `scale ${name} has units`);
    }
    for (const c of colours(cfg)) assert.ok(THEME_COLOURS.has(c), `${fig.id} uses a non-theme colour ${c}`);
  });

  test(`${fig.id}: changing the first control changes the data`, () => {
    const first = resolveParams(fig, engine)[0];
    const other = first.type === 'select' ? first.options.map((o) => o.value).find((v) => v !== first.default) : first.default * 2;
    assert.notDeepEqual(run(fig).table, run(fig, { [first.key]: other }).table);
  });
}

test('model-state-bytes: 16 bytes per parameter at stage 0; ZeRO stages shard 12, then 2, then 2', () => {
  const perParam = (stage, dp = 64) => run(modelStateBytes, { zero_stage: String(stage), dp }).bars.map((b) => b.total / b.params);
  for (const x of perParam(0)) close(x, 16);
  for (const x of perParam(1)) close(x, 4 + 12 / 64);
  for (const x of perParam(2)) close(x, 2 + 14 / 64);
  for (const x of perParam(3)) close(x, 16 / 64);
  for (const x of run(modelStateBytes, { optimizer: 'sgd' }).bars.map((b) => b.total / b.params)) close(x, 12);
  assert.throws(() => run(modelStateBytes, { dp: 0 }), isEngineError('dp'));
});

test('activation-memory-vs-seq: Korthikanti per layer, s² term gone with FlashAttention', () => {
  const d = run(activationVsSeq); // GPT-3 175B, b = 1, t = 1
  const [none, flash, full] = d.series;
  for (let i = 0; i < none.points.length; i++) {
    const s = none.points[i].seq, sbh = s * 12288;
    close(none.points[i].bytes, sbh * (34 + (5 * 96 * s) / 12288));
    close(flash.points[i].bytes, sbh * 34);
    close(full.points[i].bytes, 2 * sbh);
  }
  const sp = run(activationVsSeq, { tp: '8', sequence_parallel: true }).series[1];
  close(sp.points[0].bytes, (256 * 12288 * 34) / 8);
  // Llama 2 7B's SwiGLU MLP: 18 + 6·11008/4096 in place of 34.
  const llama = run(activationVsSeq, { model: 'llama2-7b' }).series[1];
  close(llama.points[0].bytes, 256 * 4096 * (18 + (6 * 11008) / 4096));
  assert.throws(() => run(activationVsSeq, { micro_batch: -1 }), isEngineError('micro_batch'));
  assert.throws(() => run(activationVsSeq, { model: 'gpt-9' }), isEngineError('model'));
});

test('checkpointing-tradeoff: a curve over k = 1 … L, every k costs a third, the best k beats both ends', () => {
  const d = run(checkpointing); // Llama 2 13B, 40 layers, s = 4096, b = 1
  assert.deepEqual(d.ks.map((q) => q.k), Array.from({ length: 40 }, (_, i) => i + 1));
  for (const q of d.ks) close(q.recompute_pct, 100 / 3);
  assert.equal(d.none.recompute_pct, 0);
  assert.ok(d.selective.peak < d.none.peak && d.selective.recompute_pct < 5);
  assert.ok(d.best.peak <= d.ks[0].peak && d.best.peak < d.ks.at(-1).peak);
  // Chen et al.'s peak ceil(L/k)·2sbh + k·A_layer, with Llama 2 13B's SwiGLU in A_layer:
  // sbh·(18 + 6·13824/5120 + 5·40·4096/5120) bytes.
  const sbh = 4096 * 5120, layer = sbh * (18 + (6 * 13824) / 5120 + (5 * 40 * 4096) / 5120);
  for (const q of d.ks) close(q.peak, Math.ceil(40 / q.k) * 2 * sbh + q.k * layer);
  // The curve is drawn over k, not stacked at one x value.
  const cfg = checkpointing.draw(d, THEME);
  assert.equal(new Set(cfg.data.datasets[0].data.map((pt) => pt.x)).size, 40);
  assert.throws(() => run(checkpointing, { seq: 0 }), isEngineError('seq'));
});

test('step-memory-timeline: the peak is the end of the forward pass, gradients end freed', () => {
  const d = run(timeline);
  const fwdEnd = d.points.filter((q) => q.phase === 'forward').at(-1);
  close(d.peak, fwdEnd.total_bytes);
  assert.equal(d.points.at(-1).grads_bytes, 0);
  // On-demand gradients: the forward peak is one gradient copy below the training-memory total;
  // kept buffers meet it.
  close(d.peak, d.total - 2 * 1310986240); // GPT-3 XL: 1,310,986,240 parameters, bf16 gradients
  const kept = run(timeline, { persistent_grads: true });
  close(kept.peak, kept.total);
  // FlashAttention is a control (on by default), not forced.
  assert.ok(run(timeline, { flash_attention: false }).peak > d.peak);
  const full = run(timeline, { recompute: 'full' });
  assert.ok(full.points.some((q) => q.phase === 'recompute'));
  assert.ok(full.peak < d.peak);
  assert.throws(() => run(timeline, { dp: 1e9 }), isEngineError('dp'));
});

test('training-fit: one H100 fits Llama 2 7B with 8-bit Adam and full recompute, or with CPU offload', () => {
  const eight = run(fit, { gpus: 1, optimizer: 'adam-8bit' });
  close(eight.segments.slice(0, 3).reduce((s, x) => s + x.bytes, 0), 10 * 6738415616);
  assert.equal(eight.fits, false); // FlashAttention alone leaves it just over
  assert.equal(run(fit, { gpus: 1, optimizer: 'adam-8bit', recompute: 'full' }).fits, true);
  const off = run(fit, { gpus: 1, cpu_offload: true });
  assert.equal(off.fits, true);
  close(off.offloaded, 14 * 6738415616);
  close(run(fit, { gpus: 1, fp32_grads: true }).segments[1].bytes, 4 * 6738415616);
});

test('training-fit: Llama 2 7B with Adam overflows one H100; ZeRO-3 on 8 GPUs with full recompute fits', () => {
  const one = run(fit, { gpus: 1 });
  assert.equal(one.fits, false);
  close(one.segments.slice(0, 3).reduce((s, x) => s + x.bytes, 0), 16 * 6738415616);
  const sharded = run(fit, { gpus: 8, zero_stage: '3', recompute: 'full' });
  assert.equal(sharded.fits, true);
  close(sharded.segments.at(-1).end, sharded.total);
  assert.throws(() => run(fit, { hardware: 'nope' }), isEngineError('hardware'));
  assert.throws(() => run(fit, { seq: 1.5 }), isEngineError('seq'));
});

test('model-state-bytes: per parameter the x axis is the ZeRO stage; sizes are labelled in billions', () => {
  const d = run(modelStateBytes, { view: 'param', dp: 64, zero_stage: '2' });
  const totals = d.stages.map((q) => q.total);
  [16, 4 + 12 / 64, 2 + 14 / 64, 16 / 64].forEach((x, i) => close(totals[i], x));
  assert.equal(new Set(totals.map((x) => x.toFixed(6))).size, 4); // four different bars, not six equal ones
  const cfg = modelStateBytes.draw(d, THEME);
  assert.deepEqual(cfg.data.labels, ['stage 0', 'stage 1', 'stage 2 ◀', 'stage 3']);
  assert.deepEqual(d.table.rows.map((r) => r[0]), [0, 1, 2, 3]);
  // Moving the GPUs changes the sharded stages in this view.
  assert.notDeepEqual(run(modelStateBytes, { view: 'param', dp: 8 }).stages, run(modelStateBytes, { view: 'param', dp: 64 }).stages);
  const gb = modelStateBytes.draw(run(modelStateBytes), THEME);
  assert.deepEqual(gb.data.labels, ['1.3B', '7B', '13B', '30B', '70B', '175B']);
});

test('step-memory-timeline: the axis fits the step shown and stays put under ZeRO, GPUs and buffers', () => {
  // Llama 2 7B, b = 16, no FlashAttention, full recomputation, ZeRO-3 over 8: the axis is the
  // ZeRO-0 total of the same step, not the 1.8 TB of storing every activation.
  const set = { model: 'llama2-7b', micro_batch: 16, seq: 4096, flash_attention: false, recompute: 'full', dp: 8 };
  const d = run(timeline, { ...set, zero_stage: '3', persistent_grads: true });
  close(d.peak, d.total); // kept buffers: the peak is the training-memory total, re-made layer included
  assert.equal(d.peak_phase, 'recompute');
  assert.ok(d.top < 3 * d.peak, `axis ${d.top} against a peak of ${d.peak}`);
  const zero0 = run(timeline, { ...set, zero_stage: '0', persistent_grads: true });
  close(zero0.peak, d.top);
  for (const other of [{ zero_stage: '1' }, { dp: 64 }, { persistent_grads: false }])
    close(run(timeline, { ...set, zero_stage: '3', persistent_grads: true, ...other }).top, d.top);
  // The end of the forward pass is marked.
  const cfg = timeline.draw(d, THEME);
  const marker = cfg.data.datasets.find((ds) => ds.label === 'end of the forward pass');
  assert.ok(marker && marker.data.every((pt) => pt.x === d.forwardEnd));
  assert.equal(d.points[d.forwardEnd].phase, 'forward');
  assert.equal(d.points[d.forwardEnd + 1].phase, 'backward');
});

test('training-fit: with full recomputation the verdict is the timeline peak against HBM', () => {
  // Llama 2 7B, b = 16, ZeRO-3 over 8, no FlashAttention: the step peaks at about 83 GB while
  // its stored activations alone would say 40 GB; both figures must agree.
  const set = { model: 'llama2-7b', micro_batch: 16, flash_attention: false, recompute: 'full', zero_stage: '3' };
  const f = run(fit, { ...set, gpus: 8 });
  const t = run(timeline, { ...set, seq: 4096, dp: 8, persistent_grads: true });
  close(f.total, t.peak);
  assert.ok(f.total > 80e9);
  assert.match(f.segments.at(-1).label, /re-made/);
});

test('training-fit: three equal tick steps are round numbers', async () => {
  const { niceTop } = await import('../../web/src/figures/training-fit.js');
  for (const top of [85.9e9, 101e9, 212e9, 33e9, 1.7e12, 9.99e9, 1e10]) {
    const end = niceTop(top), step = end / 3;
    assert.ok(end >= top * (1 - 1e-12));
    const mant = step / 10 ** Math.floor(Math.log10(step));
    assert.ok([1, 1.5, 2, 2.5, 3, 4, 5, 6, 8].some((m) => Math.abs(m - mant) < 1e-9), `step ${step}`);
  }
});
