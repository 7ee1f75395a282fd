// The transformer-block lesson's three figures on the built WASM engine: what each figure's
// data says, against the matrix-by-matrix count, PaLM's FLOPs accounting and published
// numbers. Sources: published parameter counts of released checkpoints (Llama 2 7B
// 6,738,415,616 and 70B 68,976,648,192; Llama 3 8B 8,030,261,248 and 70B 70,553,706,496:
// the safetensors totals of meta-llama's Hugging Face repositories); GPT-3 175B (Brown et al.
// 2020, arXiv:2005.14165, Table 2.1; 300B training tokens, section 2.2; 3.14e23 training FLOPs,
// Table D.1); PaLM's 6N + 12·L·H·Q·T (Chowdhery et al. 2022, arXiv:2204.02311, appendix B);
// Llama 2's GPU-hours (Touvron et al. 2023, arXiv:2307.09288, Table 2); Llama 3's (the Meta
// Llama 3 model card) and 405B's 3.8e25 FLOPs (Llama Team 2024, arXiv:2407.21783, section 3.2.1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, run, close, isEngineError, assertChartSubset } from './figure-harness.mjs';
import breakdown, { PARTS, MODEL_IDS } from '../../web/src/figures/param-breakdown.js';
import context, { CONTEXTS } from '../../web/src/figures/flops-per-token-context.js';
import cost, { REPORTED, RUN_IDS } from '../../web/src/figures/training-cost-6nd.js';

const row = (table, name) => table.rows.find((r) => r[0] === name)?.[1];
const labelsOf = (cfg) => JSON.stringify([cfg.data.labels, cfg.data.datasets.map((d) => (typeof d.pointLabels === 'function'
  ? d.data.map((raw, i) => d.pointLabels(raw, i)) : d.pointLabels ? d.data.map((raw) => raw.label) : []))]);

// --- param-breakdown -------------------------------------------------------------------

test('param-breakdown: published counts within 0.5% (GPT-3 175B, Llama 2 7B/70B, Llama 3 8B/70B)', () => {
  const published = { 'gpt-3-175b': 175e9, 'llama-2-7b': 6738415616, 'llama-2-70b': 68976648192, 'llama-3-8b': 8030261248, 'llama-3-70b': 70553706496 };
  for (const [model, n] of Object.entries(published)) {
    const d = run(breakdown, { model });
    assert.equal(d.published, n, `${model}: the published count comes from the engine's table`);
    assert.ok(Math.abs(d.params / n - 1) < 0.005, `${model}: ${d.params} against ${n}`);
    // The components add up to the total.
    close(PARTS.reduce((s, [k]) => s + d.params_breakdown[k], 0), d.params, 1e-15);
  }
  // The Llama checkpoints (no biases, no learned positions) are counted exactly; GPT-3 0.25% under.
  for (const model of ['llama-2-7b', 'llama-2-70b', 'llama-3-8b', 'llama-3-70b']) assert.equal(run(breakdown, { model }).params, run(breakdown, { model }).published);
  close(run(breakdown, { model: 'gpt-3-175b' }).params, 174566105088, 0);
});

test('param-breakdown: GPT-3 175B matrix by matrix, and the 12·L·h² rule equal to its layers', () => {
  const d = run(breakdown); // default: GPT-3 175B, L = 96, h = 12,288, f = 4h, V = 50,257, tied
  const L = 96, h = 12288, V = 50257;
  assert.equal(d.params_breakdown.attention, L * 4 * h * h);
  assert.equal(d.params_breakdown.mlp, L * 2 * h * 4 * h);
  assert.equal(d.params_breakdown.norms, 2 * L * h + h);
  assert.equal(d.params_breakdown.embedding, V * h);
  assert.equal(d.params_breakdown.head, 0);
  assert.equal(d.rule, 12 * L * h * h);
  assert.equal(d.layers_params - d.rule, 2 * L * h + h); // only the norm gains separate them
  assert.equal(row(d.table, 'Published total'), 175e9);
  const cfg = breakdown.draw(d, THEME);
  assertChartSubset('param-breakdown', cfg);
  assert.match(labelsOf(cfg), /174\.6B \(-0\.25% against published\)/);
});

test('param-breakdown: Llama 2 70B with GQA and SwiGLU, and Llama 3 8B where the rule fails', () => {
  // Llama 2 70B: 64 query heads, 8 KV heads of 128; three 8192 × 28672 matrices; untied 32,000 × 8192.
  const d = run(breakdown, { model: 'llama-2-70b' });
  const L = 80, h = 8192, f = 28672, V = 32000;
  assert.equal(d.params_breakdown.attention, L * (h * (64 + 2 * 8) * 128 + 64 * 128 * h));
  assert.equal(d.params_breakdown.mlp, L * 3 * h * f);
  assert.equal(d.params_breakdown.embedding, V * h);
  assert.equal(d.params_breakdown.head, V * h);
  // Llama 3 8B: the layers are 8.3% above 12·L·h² (f = 3.5h gated), and a 128,256-token
  // vocabulary, untied, is 13% of the model.
  const e = run(breakdown, { model: 'llama-3-8b' });
  const w = 4096; // Q and O are w × w, K and V w × 8·128; three w × 14,336 MLP matrices
  assert.equal(e.layers_params, 32 * (2 * w * w + 2 * w * 1024 + 3 * w * 14336 + 2 * w) + w);
  assert.equal(e.rule, 12 * 32 * w * w);
  assert.ok(e.layers_params / e.rule > 1.08 && e.layers_params / e.rule < 1.09);
  close(e.embedding_share, 2 * 128256 * 4096 / 8030261248, 1e-12);
});

test('param-breakdown: a configuration of one’s own, untied and tied, and the engine’s message for a bad one', () => {
  const base = { model: 'custom', layers: 12, hidden: 768, heads: 12, kv_heads: 12, ffn_hidden: 3072, vocab: 50257, gated_mlp: false };
  const untied = run(breakdown, { ...base, tied_embeddings: false });
  const tied = run(breakdown, { ...base, tied_embeddings: true });
  assert.equal(untied.params - tied.params, 50257 * 768);
  assert.equal(tied.params, 12 * (12 * 768 ** 2 + 2 * 768) + 768 + 50257 * 768); // GPT-2 small without biases or positions
  assert.equal(tied.published, null);
  const gated = run(breakdown, { ...base, gated_mlp: true, tied_embeddings: true });
  assert.equal(gated.params - tied.params, 12 * 768 * 3072);
  assert.throws(() => run(breakdown, { ...base, kv_heads: 5 }), isEngineError('kv_heads'));
  // The figure has no head-size control, so its message names none.
  assert.throws(() => run(breakdown, { ...base, hidden: 100, heads: 3, kv_heads: 1 }),
    (e) => isEngineError('heads')(e) && !e.message.includes('head_dim') && /h\/H wide/.test(e.message));
});

test('param-breakdown: every model as shares summing to 100%, on a fixed 0–100% axis', () => {
  const d = run(breakdown, { view: 'all' });
  assert.equal(d.bars.length, MODEL_IDS.length);
  for (const b of d.bars) close(PARTS.reduce((s, [k]) => s + b.parts[k], 0), b.params, 1e-15);
  // The embedding share falls with scale: GPT-2 124M's tied table is 31%, GPT-3's 0.35%.
  const share = (id) => d.bars.find((b) => b.id === id).parts.embedding / d.bars.find((b) => b.id === id).params;
  assert.ok(share('gpt-2-124m') > 0.3 && share('gpt-3-175b') < 0.004);
  const cfg = breakdown.draw(d, THEME);
  assertChartSubset('param-breakdown', cfg);
  assert.deepEqual([cfg.options.scales.x.min, cfg.options.scales.x.max], [0, 100]);
  assert.match(cfg.data.labels[1], /GPT-3 175B: 174\.6B \(published 175B\)/);
});

// --- flops-per-token-context -----------------------------------------------------------

test('flops-per-token-context: Llama 2 7B, 6N flat, 12·L·H·Q·T linear, equal at N/(2·L·H·Q)', () => {
  const d = run(context);
  const N = 6607343616; // all of 6,738,415,616 but the 32,000 × 4096 input embedding
  for (const q of d.points) {
    close(q.matmul, 6 * N, 1e-12);
    close(q.attention, 12 * 32 * 32 * 128 * q.seq, 1e-12);
  }
  close(d.equal, N / (2 * 32 * 32 * 128), 1e-12);
  assert.ok(d.equal > 25000 && d.equal < 25300);
  // At the trained 4096 tokens attention is 14.0% of the training FLOPs.
  assert.equal(d.trained.seq, 4096);
  close(d.trained.share, (12 * 32 * 4096 * 4096) / (6 * N + 12 * 32 * 4096 * 4096), 1e-12);
  const cfg = context.draw(d, THEME);
  assertChartSubset('flops-per-token-context', cfg);
  // Contexts named as the lesson names them (4K = 4,096), the crossing written out.
  assert.match(labelsOf(cfg), /equal at T = 25,205/);
  assert.match(labelsOf(cfg), /trained at 4K: attention 14\.0%/);
  const big = run(context, { model: 'llama-3-405b' });
  assert.match(labelsOf(context.draw(big, THEME)), /trained at 128K: attention 57\.\d%/);
  // The trained context is one of the drawn ones: the data table lists it once.
  const seqs = big.table.rows.map((r) => r[0]);
  assert.equal(new Set(seqs).size, seqs.length);
});

test('flops-per-token-context: forward is a third, with the same crossing; axes fixed over models', () => {
  const t = run(context, { model: 'gpt-3-175b' }), f = run(context, { model: 'gpt-3-175b', pass: 'forward' });
  t.points.forEach((q, i) => { close(f.points[i].matmul, q.matmul / 3, 1e-12); close(f.points[i].attention, q.attention / 3, 1e-12); });
  assert.equal(f.equal, t.equal);
  // GPT-3 (h = 12,288, tied): 2N = 2·174.57B forward; the crossing near 6·h·(N/12·L·h²) ≈ 74K.
  close(f.points[0].matmul, 2 * 174566105088, 1e-12);
  assert.ok(t.equal > 70000 && t.equal < 80000);
  const axes = (d) => { const c = context.draw(d, THEME).options.scales; return [c.x.min, c.x.max, c.y.min, c.y.max]; };
  const ref = axes(run(context));
  for (const model of ['gpt-2-124m', 'palm-540b', 'llama-3-405b']) for (const pass of ['training', 'forward']) assert.deepEqual(axes(run(context, { model, pass })), ref);
  assert.deepEqual([CONTEXTS[0], CONTEXTS.at(-1)], [128, 1048576]);
});

// --- training-cost-6nd -----------------------------------------------------------------

test('training-cost-6nd: GPT-3’s 6ND is 3.15e23 FLOP against the paper’s 3.14e23', () => {
  const d = run(cost);
  const gpt3 = d.runs.find((r) => r.id === 'gpt-3-175b');
  close(gpt3.six, 6 * 175e9 * 300e9, 1e-12);
  close(gpt3.six, 3.15e23, 1e-12);
  assert.equal(gpt3.reported_flops, 3.14e23);
  // PaLM's count: 6·N_matmul + 12·L·H·Q·T at T = 2048, times D: 2.5% more than 6ND.
  close(gpt3.palm, (6 * 174566105088 + 12 * 96 * 12288 * 2048) * 300e9, 1e-12);
  assert.ok(gpt3.palm / gpt3.six > 1.02 && gpt3.palm / gpt3.six < 1.03);
  // Llama 3 405B: 6 × 405.85B × 15.6T = 3.80e25 against the paper's 3.8e25.
  const big = d.runs.find((r) => r.id === 'llama-3-405b');
  close(big.six, 6 * 405853388800 * 15.6e12, 1e-12);
  assert.ok(Math.abs(big.six / big.reported_flops - 1) < 0.005);
  assert.equal(big.seq, 8192); // attention at the 8K pre-training context, not the final 128K
  const cfg = cost.draw(d, THEME);
  assertChartSubset('training-cost-6nd', cfg);
  assert.match(labelsOf(cfg), /3\.15e23/);
  assert.match(labelsOf(cfg), /reported 3\.14e23/);
  assert.equal(d.runs.length, RUN_IDS.length);
});

test('training-cost-6nd: days on a cluster, and the MFU each report implies', () => {
  const d = run(cost, { view: 'time', hardware: 'a100-sxm-80gb', devices: 2048, mfu: 0.4 });
  const llama = d.runs.find((r) => r.id === 'llama-2-70b');
  // 6 × 68.98B × 2T on 2048 A100s (312 TFLOP/s dense bf16) at 40%.
  const flops = 6 * 68976648192 * 2e12;
  close(llama.days, flops / (2048 * 312e12 * 0.4) / 86400, 1e-9);
  close(llama.hours, flops / (312e12 * 0.4) / 3600, 1e-9);
  // Touvron et al.'s 1,720,320 A100-hours: 6ND at 100% of peak would need 737K, so 42.8%.
  assert.equal(llama.reported_hours, REPORTED['llama-2-70b'].gpu_hours);
  close(llama.implied_mfu, flops / 312e12 / 3600 / 1720320, 1e-9);
  close(llama.reported_days, 1720320 / 2048 / 24, 1e-12);
  // Llama 3 405B: 30.84M H100-hours for 3.80e25 FLOP is 34.6% of the 989 TFLOP/s dense peak.
  const big = d.runs.find((r) => r.id === 'llama-3-405b');
  assert.ok(big.implied_mfu > 0.34 && big.implied_mfu < 0.35);
  const cfg = cost.draw(d, THEME);
  assertChartSubset('training-cost-6nd', cfg);
  // Llama 2 70B: 1,720,320 reported GPU-hours over 2,048 GPUs are 35 days (the tooltip gives the hours).
  assert.match(labelsOf(cfg), /, reported 35 d/);
  const tip = cfg.options.plugins.tooltip.callbacks.label({ datasetIndex: 1, dataIndex: d.runs.indexOf(llama), raw: llama.reported_days, dataset: cfg.data.datasets[1] });
  assert.match(tip, /35 days \(1\.72M GPU-h reported\)/);
  // The days axis holds still while the cluster changes.
  const axis = (over) => { const s = cost.draw(run(cost, { view: 'time', ...over }), THEME).options.scales.x; return [s.min, s.max]; };
  const ref = axis({});
  for (const over of [{ hardware: 'b200' }, { hardware: 'tpu-v4' }, { devices: 16384 }, { mfu: 0.2 }, { mfu: 0.7 }]) assert.deepEqual(axis(over), ref);
  // The table: the accelerator by name, device-hours in one format (whole hours, four digits).
  assert.match(d.table.columns[2], /A100/);
  const hoursCol = d.table.rows.map((r) => r[3]);
  assert.ok(hoursCol.every((h) => Number.isSafeInteger(h) && String(h).replace(/0+$/, '').length <= 4), hoursCol.join(' '));
});

test('training-cost-6nd: on a phone the axis ends near the longest bar (the numbers are in the names)', () => {
  for (const view of ['compute', 'time']) {
    const d = run(cost, { view });
    const wide = cost.draw(d, THEME).options.scales.x;
    const phone = cost.draw(d, { ...THEME, width: 390 }).options.scales.x;
    const longest = Math.max(...d.runs.flatMap((r) => (view === 'time' ? [r.days, r.reported_days ?? 0] : [r.six, r.palm, r.reported_flops ?? 0])));
    assert.equal(phone.min, wide.min, view);
    assert.ok(phone.max < wide.max / 10, `${view}: fewer decades on a phone`);
    assert.ok(phone.max > longest, `${view}: every bar inside the axis`);
  }
});
