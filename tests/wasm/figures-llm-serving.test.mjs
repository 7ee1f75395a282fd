// The llm-serving lesson's six figures on the built WASM engine: data() is finite and
// complete, draw() keeps to the Chart.js subset and the theme's colours, the first control
// changes the data, the numbers match the closed forms, and bad inputs are EngineErrors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours, assertChartSubset } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import kvCapacity, { MODEL_IDS, modelConfig } from '../../web/src/figures/kv-cache-capacity.js';
import decodeRoofline from '../../web/src/figures/decode-roofline.js';
import ttftTpot from '../../web/src/figures/ttft-tpot.js';
import continuousBatching from '../../web/src/figures/continuous-batching.js';
import pagedKvWaste from '../../web/src/figures/paged-kv-waste.js';
import speculative from '../../web/src/figures/speculative-decoding.js';
import { serving } from '../../web/src/figures/lists/serving.js';

const FIGURES = [kvCapacity, decodeRoofline, ttftTpot, continuousBatching, pagedKvWaste, speculative];

test('serving list registers all six figures', async () => {
  assert.deepEqual(Object.keys(serving).sort(), FIGURES.map((f) => f.id).sort());
  for (const [id, load] of Object.entries(serving)) assert.equal((await load()).default.id, id);
});

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.equal(typeof fig.title, 'string');
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.ok(specs.length > 0);
    assert.ok(['select', 'number', 'integer'].includes(specs[0].type));
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
    const specs = resolveParams(fig, engine);
    const variants = [params(fig)];
    if (specs[0].type === 'select') for (const o of specs[0].options) variants.push(params(fig, { [specs[0].key]: o.value }));
    for (const p of variants) {
      const data = fig.data(engine, p);
      const cfg = fig.draw(data, THEME);
      assertChartSubset(fig.id, cfg);
      // Something is drawn, unless the weights alone overflow the GPUs (kv-cache-capacity),
      // which the legend then says.
      if (data.free_bytes <= 0) assert.ok(cfg.data.datasets.some((d) => /add GPUs/.test(d.label)));
      else assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
    }
  });

  test(`${fig.id}: changing the first control changes the data`, () => {
    const spec = resolveParams(fig, engine)[0];
    const other = spec.type === 'select' ? spec.options.find((o) => o.value !== spec.default).value : spec.max;
    assert.notDeepEqual(run(fig, { [spec.key]: other }).table, run(fig).table);
  });
}

test('kv-cache-capacity: GQA fits heads/kv_heads times the MHA sequences; KV bytes follow 2·L·kv·d·s', () => {
  const d = run(kvCapacity, { model: 'llama-2-7b' });
  const [mha, gqa, mqa] = d.variants;
  assert.equal(mha.kv_bytes_per_token, 2 * 32 * 32 * 128 * 2);
  assert.equal(gqa.kv_bytes_per_token, 2 * 32 * 8 * 128 * 2);
  assert.equal(mqa.kv_bytes_per_token, 2 * 32 * 1 * 128 * 2);
  const i = mha.series.findIndex((s) => s.context === 4096);
  // GQA also shrinks W_K and W_V, so it frees a little more memory than MHA as well.
  for (const v of [mha, gqa, mqa]) assert.equal(v.series[i].max_sequences, Math.floor(v.free_bytes / (4096 * v.kv_bytes_per_token)));
  assert.ok(gqa.series[i].max_sequences >= 4 * mha.series[i].max_sequences);
  close(mha.series[i].max_sequences, Math.floor(d.free_bytes / (4096 * mha.kv_bytes_per_token)));
  // fp8 KV halves the bytes, about doubling the sequences.
  const f8 = run(kvCapacity, { model: 'llama-2-7b', kv_dtype: 'fp8-e4m3' });
  assert.equal(f8.variants[0].kv_bytes_per_token, mha.kv_bytes_per_token / 2);
  // Llama 3 70B in bf16 does not fit on one H100 but does on two.
  assert.ok(run(kvCapacity, { model: 'llama-3-70b' }).free_bytes < 0);
  assert.ok(run(kvCapacity, { model: 'llama-3-70b', gpus: 2 }).free_bytes > 0);
  for (const id of MODEL_IDS) assert.equal(modelConfig(engine, id).heads % 8, 0);
});

test('decode-roofline: memory-bound throughput grows almost linearly with the batch', () => {
  const d = run(decodeRoofline);
  const b1 = d.points.find((q) => q.batch === 1);
  close(b1.tpot_s, (d.weight_bytes + 256 * d.kv_bytes_per_token) / 3.35e12);
  assert.ok(d.crossover_batch > 1 && d.crossover_batch <= 1024);
  // At 4,096 tokens the KV cache keeps the step memory-bound at any batch.
  assert.equal(run(decodeRoofline, { context: 4096 }).crossover_batch, 0);
  for (const q of d.points) assert.equal(q.bound, q.batch >= d.crossover_batch && d.crossover_batch > 0 ? 'compute' : 'memory');
  const longer = run(decodeRoofline, { context: 131072 });
  assert.ok(longer.max_batch_fits < d.max_batch_fits);
});

// Prefill of p tokens is compute-bound from the engine's crossover prompt on (about the ridge
// point, 989.4 TFLOP/s / 3.35 TB/s = 295 tokens, for one bf16 prompt on an H100 SXM) and
// memory-bound below it, where it moves a decode step's bytes: TTFT = TPOT there.
test('ttft-tpot: prefill is memory-bound below the crossover and compute-bound above it; TTFT scales with the batch', () => {
  const d = run(ttftTpot);
  assert.ok(Math.abs(d.crossover - 295) <= 10, `crossover ${d.crossover}`);
  assert.ok(d.points.some((q) => q.prompt < d.crossover) && d.points.some((q) => q.prompt >= d.crossover));
  for (const q of d.points) {
    assert.equal(q.decode_bound, 'memory');
    close(q.prefill_memory_s, q.tpot_s, 1e-12);
    if (q.prompt < d.crossover) {
      assert.equal(q.prefill_bound, 'memory', `prompt ${q.prompt}`);
      close(q.ttft_s, q.tpot_s, 1e-12);
    } else {
      assert.equal(q.prefill_bound, 'compute', `prompt ${q.prompt}`);
      assert.ok(q.ttft_s >= q.tpot_s);
    }
  }
  const b8 = run(ttftTpot, { batch: 8 });
  assert.ok(b8.crossover < d.crossover);
  close(b8.points.at(-1).ttft_s, 8 * d.points.at(-1).ttft_s, 1e-6);
  // The crossover is drawn where the data puts it, inside the fixed prompt axis.
  const cfg = ttftTpot.draw(d, THEME);
  const marker = cfg.data.datasets.find((ds) => /turns compute-bound/.test(ds.label));
  assert.ok(marker && marker.data.length === 2 && marker.data[0].x === d.crossover);
  const roof = cfg.data.datasets.find((ds) => /compute roof/.test(ds.label) && ds.group === 'prefill');
  assert.ok(roof, 'the prefill compute roof is drawn');
});

test('continuous-batching: continuous keeps up where static saturates; latency metric switches', () => {
  const d = run(continuousBatching);
  const last = d.points.at(-1);
  assert.ok(last.continuous.tokens_per_s > last.static.tokens_per_s);
  for (const q of d.points) assert.ok(q.continuous.tokens_per_s >= 0.99 * q.static.tokens_per_s, `rate ${q.rate}`);
  const ttft = run(continuousBatching, { metric: 'ttft_p99_s' });
  assert.deepEqual(ttft.table.rows.map((r) => r[4]), ttft.points.map((q) => q.static.ttft_p99_s));
});

// A policy's capacity is its throughput on a backlog (calc batching-sim's capacity_rps): past it
// the policy falls behind the offered load; the figure marks both capacities.
test('continuous-batching: each policy keeps up below its capacity and not above it; both are marked', () => {
  const d = run(continuousBatching);
  assert.ok(d.capacities.static < d.capacities.continuous);
  // Every rate replays one seeded draw of 300 exponential gaps divided by the rate, so the stream
  // arrives at the nominal rate times a factor of the draw (1 ± about 1/√300); the lowest load,
  // far below both capacities, measures it.
  const drawn = d.points[0].continuous.requests_per_s / d.points[0].rate;
  assert.ok(Math.abs(drawn - 1) < 4 / Math.sqrt(300), `the stream's rate factor ${drawn}`);
  for (const q of d.points) {
    for (const policy of ['static', 'continuous']) {
      const served = q[policy].requests_per_s;
      if (q.rate < 0.8 * d.capacities[policy]) assert.ok(served > 0.9 * drawn * q.rate, `${policy} at ${q.rate}`);
      if (q.rate > 1.2 * d.capacities[policy]) assert.ok(served < 1.05 * d.capacities[policy], `${policy} at ${q.rate}`);
    }
  }
  const cfg = continuousBatching.draw(d, THEME);
  for (const [policy, name] of [['static', 'Static'], ['continuous', 'Continuous']]) {
    const marker = cfg.data.datasets.find((ds) => ds.label.startsWith(`${name}: capacity`));
    assert.equal(marker.data[0].x, d.capacities[policy]);
  }
});

test('paged-kv-waste: paging wastes less and runs more sequences than contiguous reservation', () => {
  const d = run(pagedKvWaste);
  for (const s of d.series) assert.ok(s.waste_fraction < d.contiguous.waste_fraction, `block ${s.block_size}`);
  assert.ok(d.paged.mean_batch > d.contiguous.mean_batch);
  assert.equal(d.series[0].internal_fraction, 0);
  const b = run(pagedKvWaste, { view: 'breakdown' });
  assert.equal(b.table.rows.length, 2);
  for (const row of b.table.rows) close(row.slice(1, 6).reduce((a, x) => a + x, 0), 1, 1e-9);
});

test('speculative-decoding: speedup curves follow Leviathan et al.; the sampler reproduces p', () => {
  const d = run(speculative);
  const g4 = d.curves.find((c) => c.gamma === 4);
  const at = g4.points.find((q) => q.alpha === 0.81);
  close(at.expected_tokens, (1 - 0.81 ** 5) / (1 - 0.81));
  close(at.speedup, at.expected_tokens / (4 * d.draft_cost + 1));
  assert.ok(d.sampler.tv_empirical < 0.015);
  assert.ok(d.sampler.tv_p_q > 0.1);
  assert.ok(Math.abs(d.sampler.acceptance_measured - d.sampler.acceptance_formula) < 0.01);
  const s = run(speculative, { mode: 'sampler' });
  assert.equal(s.table.rows.length, 12);
});

test('serving figures: bad inputs are EngineErrors on the right field', () => {
  assert.throws(() => run(kvCapacity, { hardware: 'nope' }), isEngineError('hardware'));
  assert.throws(() => run(kvCapacity, { model: 'gpt-9' }), isEngineError('model'));
  assert.throws(() => run(decodeRoofline, { hardware: 'nope' }), isEngineError('hardware'));
  assert.throws(() => run(decodeRoofline, { weight_dtype: 'fp8-e4m3', hardware: 'a100-sxm-80gb' }), isEngineError('weight_dtype'));
  assert.throws(() => run(ttftTpot, { batch: 0 }), isEngineError('batch'));
  assert.throws(() => run(continuousBatching, { output_mean: 0 }), isEngineError('output_mean'));
  assert.throws(() => run(pagedKvWaste, { output_mean: 0 }), isEngineError('output_mean'));
  assert.throws(() => run(speculative, { draft_cost: -1 }), isEngineError('draft_cost'));
  assert.throws(() => run(speculative, { mismatch: Number.NaN }), isEngineError('mismatch'));
});

// Every category of the pool breakdown and every distribution of the sampler has its own fill
// (the legend's swatch is the bar's fill), in the harness theme and the site's light and dark
// palettes (web/src/styles/site.css).
test('paged-kv-waste and the sampler: one fill per category, in light and dark', () => {
  const LIGHT = { ...THEME, palette: ['#8250df', '#1a7f37', '#bf3989', '#0a7480', '#b42318', '#7a6400', '#6f4e37', '#3b4cc0'], grid: '#d8dee4' };
  const DARK = { ...THEME, dark: true, palette: ['#d2a8ff', '#56d364', '#ff9bce', '#39c5cf', '#ff7b72', '#e3b341', '#c8a27a', '#8c9eff'], grid: '#30363d' };
  for (const theme of [THEME, LIGHT, DARK]) {
    const pool = pagedKvWaste.draw(run(pagedKvWaste, { view: 'breakdown' }), theme).data.datasets;
    assert.equal(pool.length, 5);
    assert.equal(new Set(pool.map((d) => d.backgroundColor)).size, 5);
    assert.equal(new Set(pool.map((d) => d.pointStyle)).size, 5);
    const sampler = speculative.draw(run(speculative, { mode: 'sampler' }), theme).data.datasets;
    assert.equal(new Set(sampler.map((d) => d.backgroundColor)).size, sampler.length);
    assert.ok(/Target/.test(sampler[0].label) && /Emitted/.test(sampler[1].label));
  }
});

// Throughput and latency of one policy share a colour but not a marker: circle and triangle
// for tokens/s (solid lines), square and diamond for latency (dashed lines).
test('continuous-batching: the legend tells throughput from latency by marker and names the line style', () => {
  const cfg = continuousBatching.draw(run(continuousBatching), THEME);
  const policy = cfg.data.datasets.filter((d) => /tokens\/s|latency/.test(d.label) && !/capacity|Offered/.test(d.label));
  assert.equal(policy.length, 4);
  const keys = policy.map((d) => d.pointStyle);
  assert.equal(new Set(keys).size, 4, keys.join(' '));
  for (const d of policy) assert.match(d.label, d.yAxisID === 'y1' ? /dashed, right axis/ : /solid/);
});

// Llama 3 70B on 2 GPUs: its GQA weights fit, the multi-head variant's (larger K and V
// projections) do not, and its legend entry says so instead of silently drawing nothing.
test('kv-cache-capacity: a variant whose weights do not fit says why it has no curve; bytes in KiB', () => {
  const d = run(kvCapacity, { model: 'llama-3-70b', gpus: 2 });
  assert.ok(d.free_bytes > 0);
  const cfg = kvCapacity.draw(d, THEME);
  const mha = cfg.data.datasets.find((s) => s.label.startsWith('MHA'));
  assert.equal(mha.data.length, 0);
  assert.match(mha.label, /^MHA: no curve \(weights 16\d GB > 15\d GB budget\)$/);
  const gqa = cfg.data.datasets.find((s) => s.label.startsWith('GQA'));
  assert.ok(gqa.data.length > 0 && !/no curve/.test(gqa.label));
  const base = kvCapacity.draw(run(kvCapacity), THEME);
  assert.ok(base.data.datasets.some((s) => /^GQA.*: 128 KiB\/token/.test(s.label)), 'Llama 3 8B: 128 KiB per token');
  assert.match(kvCapacity.caption, /upper bound/);
});

test('speculative-decoding: each view shows only the controls it uses', () => {
  const specs = resolveParams(speculative, engine);
  for (const key of ['mismatch', 'seed']) assert.deepEqual(specs.find((s) => s.key === key).when, { mode: ['sampler'] });
  assert.deepEqual(specs.find((s) => s.key === 'draft_cost').when, { mode: ['speedup'] });
});

test('paged-kv-waste: every power-of-two block size keeps its tick label (16 on a phone too)', () => {
  const cfg = pagedKvWaste.draw(run(pagedKvWaste), THEME);
  const x = cfg.options.scales.x, axis = {};
  x.afterBuildTicks(axis);
  assert.deepEqual(axis.ticks.map((t) => t.value), [1, 2, 4, 8, 16, 32, 64, 128, 256]);
  assert.equal(x.ticks.autoSkip, false);
  assert.equal(x.ticks.callback(16), '16');
  assert.match(pagedKvWaste.caption, /no recompute or swap step/);
});

test('kv-cache-capacity: a vertical line marks the context the chosen model was trained at', () => {
  for (const [model, seq] of [['llama-3-8b', 8192], ['opt-13b', 2048], ['llama-2-7b', 4096]]) {
    const d = run(kvCapacity, { model });
    assert.equal(d.trained_context, seq);
    const marker = kvCapacity.draw(d, THEME).data.datasets.find((s) => /trained context/.test(s.label));
    assert.ok(marker, model);
    assert.deepEqual(marker.data.map((q) => q.x), [seq, seq]);
    assert.match(marker.label, new RegExp(`${seq.toLocaleString('en-US')} tokens$`));
  }
  assert.match(kvCapacity.caption, /trained at/);
});

test('ttft-tpot: time ticks stay in seconds (100 s, not 1.67 min)', () => {
  const cfg = ttftTpot.draw(run(ttftTpot), THEME);
  const cb = cfg.options.scales.y.ticks.callback;
  const ticks = [1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100].map((value) => ({ value }));
  const labels = ticks.map((t, i) => cb(t.value, i, ticks));
  assert.ok(labels.includes('100 s'), labels.join(', '));
  assert.ok(labels.includes('10 s') && labels.includes('1 ms'), labels.join(', '));
  assert.ok(!labels.some((l) => /min/.test(l)), labels.join(', '));
});

test('paged-kv-waste: the block-size control shows only in the breakdown view (the sweep draws every size)', () => {
  const specs = resolveParams(pagedKvWaste, engine);
  assert.deepEqual(specs.find((s) => s.key === 'block_size').when, { view: ['breakdown'] });
  const a = run(pagedKvWaste, { block_size: 8 }), b = run(pagedKvWaste, { block_size: 64 });
  assert.deepEqual(a.series, b.series);
});
