// The sequence-context-expert lesson's five figures on the built WASM engine: data() is
// finite and complete, draw() keeps to the Chart.js subset and the theme's colours, the first
// control changes the data, closed forms hold (Korthikanti's per-layer bytes, zig-zag's equal
// work and the contiguous imbalance near 2 − 1/p, Ulysses' (P−1)/P·4·N·h/P, the (EP−1)/EP
// all-to-all), and bad parameters are EngineErrors on the right field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, run, close, isEngineError, colours } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import spMemory from '../../web/src/figures/sp-activation-memory.js';
import ring from '../../web/src/figures/ring-attention-balance.js';
import ulysses from '../../web/src/figures/ulysses-vs-ring.js';
import router from '../../web/src/figures/moe-router.js';
import balance from '../../web/src/figures/moe-balance-a2a.js';
import { sequence } from '../../web/src/figures/lists/sequence.js';

const FIGURES = [spMemory, ring, ulysses, router, balance];

test('every figure is listed', () => {
  assert.deepEqual(Object.keys(sequence).sort(), FIGURES.map((f) => f.id).sort());
});

// Each figure with each value of its first select (views draw different charts).
const VARIANTS = FIGURES.flatMap((fig) => {
  const first = resolveParams(fig, engine)[0];
  const values = first.type === 'select' ? first.options.map((o) => o.value) : [first.default];
  return values.map((v) => ({ fig, over: { [first.key]: v }, name: `${fig.id} (${first.key}=${v})` }));
});

for (const { fig, over, name } of VARIANTS) {
  test(`${name}: data is finite, the table is rectangular`, () => {
    const { columns, rows } = run(fig, over).table;
    assert.ok(columns.length > 1 && rows.length > 0);
    for (const row of rows) {
      assert.equal(row.length, columns.length);
      for (const cell of row) assert.ok(typeof cell === 'string' || Number.isFinite(cell), `cell ${cell}`);
    }
  });

  test(`${name}: draw keeps to the allowed Chart.js subset and theme colours`, () => {
    const cfg = fig.draw(run(fig, over), THEME);
    assert.ok(['line', 'scatter', 'bar'].includes(cfg.type));
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
    assert.equal(cfg.options.animation, false);
    assert.equal(cfg.options.maintainAspectRatio, false);
    assert.equal(cfg.options.responsive, true);
    for (const [axis, s] of Object.entries(cfg.options.scales)) {
      assert.ok(['linear', 'logarithmic', 'category'].includes(s.type), `scale ${axis}: ${s.type}`);
      if (s.type !== 'category') assert.ok(s.title?.display && /\(.+\)/.test(s.title.text), `scale ${axis} has units`);
    }
    for (const c of colours(cfg)) assert.ok(THEME_COLOURS.has(c), `${fig.id} uses a non-theme colour ${c}`);
  });
}

for (const fig of FIGURES) {
  test(`${fig.id}: module shape and first control changes the data`, () => {
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    for (const s of specs) assert.notEqual(s.default, undefined, `${fig.id}.${s.key} has a default`);
    const first = specs[0];
    const other = first.type === 'select' ? first.options.map((o) => o.value).find((v) => v !== first.default) : first.default * 2;
    assert.notDeepEqual(run(fig).table, run(fig, { [first.key]: other }).table);
  });
}

test('sp-activation-memory: Korthikanti per-layer bytes with and without sequence parallelism', () => {
  const d = run(spMemory, { model: 'gpt3-175b', seq: '2048' });
  const s = 2048, h = 12288, a = 96;
  for (const q of d.points) {
    close(q.tp_only, s * h * (10 + 24 / q.tp + (5 * a * s) / (h * q.tp)));
    close(q.tp_sp, s * h * (34 / q.tp + (5 * a * s) / (h * q.tp)));
    close(q.tp_sp_selective, (s * h * 34) / q.tp);
  }
  assert.throws(() => run(spMemory, { micro_batch: 0 }), isEngineError('micro_batch'));
});

test('ring-attention-balance: zig-zag equal work, contiguous ranks grow linearly', () => {
  const d = run(ring, { view: 'work', ranks: '8', seq: '65536' });
  const z = d.zigzag.flops;
  for (const f of z) close(f, z[0]);
  assert.equal(d.zigzag.imbalance, 1);
  // Contiguous: rank i computes i full blocks and one diagonal block of n(n+1)/2 tiles.
  const n = 65536 / 8 / 128, perTile = 4 * 128 * 128 * 128 * 32;
  d.contiguous.flops.forEach((f, i) => close(f, (i * n * n + (n * (n + 1)) / 2) * perTile));
  assert.ok(d.zigzag.time_s < 0.6 * d.contiguous.time_s);
  const o = run(ring, { view: 'overlap', hardware: 'h100-sxm' });
  const hw = engine.calc('hardware', { id: 'h100-sxm' });
  close(o.min_block_bandwidth, hw.peak_flops.bf16 / (hw.scaleup_bandwidth_Bps / 2));
  const gqa = run(ring, { view: 'overlap', hardware: 'h100-sxm', kv_heads: '8' });
  close(gqa.min_block_bandwidth, o.min_block_bandwidth / 4);
  assert.throws(() => run(ring, { hardware: 'h900' }), isEngineError('hardware'));
});

test('ulysses-vs-ring: (P−1)/P·4·N·h/P bytes, missing where heads do not divide', () => {
  const d = run(ulysses, { x: 'gpus', model: 'mha-32', seq: '131072' });
  assert.deepEqual(d.blocked, [64]); // 32 heads cannot split over 64 GPUs
  for (const q of d.points.filter((x) => x.ranks < 64)) close(q.ulysses_bytes, (4 * (q.ranks - 1) / q.ranks) * (131072 / q.ranks) * 32 * 128 * 2);
  for (const q of d.points) close(q.ring_bytes, (q.ranks - 1) * (131072 / q.ranks) * 2 * 32 * 128 * 2);
  const forty = run(ulysses, { x: 'gpus', model: 'heads-40' });
  assert.deepEqual(forty.blocked, [16, 32, 64]);
  assert.ok(fig40Drawn(forty).includes('impossible'));
  assert.throws(() => run(ulysses, { hardware: 'nope' }), isEngineError('hardware'));
});

function fig40Drawn(data) {
  return ulysses.draw(data, THEME).data.datasets[0].label;
}

test('moe-router: kept + dropped = tokens·k, kept ≤ capacity, capacity factor cuts drops', () => {
  const d = run(router, { tokens: '4096', top_k: '2', experts: '8', capacity_factor: 1.0, skew: 1 });
  let kept = 0, dropped = 0;
  for (const e of d.experts) {
    assert.ok(e.kept <= d.capacity);
    kept += e.kept;
    dropped += e.dropped;
  }
  assert.equal(kept + dropped, 4096 * 2);
  assert.equal(d.capacity, Math.floor((1.0 * 4096 * 2) / 8));
  const roomy = run(router, { tokens: '4096', top_k: '2', experts: '8', capacity_factor: 2.0, skew: 1 });
  assert.ok(roomy.dropped < d.dropped);
  assert.throws(() => run(router, { capacity_factor: -1 }), isEngineError('capacity_factor'));
});

test('moe-balance-a2a: balancing lowers peak load; bytes follow (EP−1)/EP; one tick per degree', () => {
  const b = run(balance, { view: 'balance', skew: 1.5 });
  assert.ok(b.points.at(-1).max_over_mean < b.points[0].max_over_mean);
  assert.ok(b.points.at(-1).balance_score < b.points[0].balance_score);
  const title = balance.draw(run(balance, { view: 'balance', experts: '64', router_tokens: '8192', top_k: '4' }), THEME).options.scales.x.title.text.join(' ');
  assert.match(title, /E = 64 experts, T = 8,192 tokens, k = 4/);
  const a = run(balance, { view: 'a2a', tokens: '8192', top_k: '2' });
  for (const q of a.points) {
    if (q.ep === 1) assert.equal(q.bytes, 0);
    else close(q.bytes, (2 * 8192 * 2 * 4096 * 2 * (q.ep - 1)) / q.ep);
  }
  const ib = run(balance, { view: 'a2a', link: 'ib' });
  assert.ok(ib.points.at(-1).comm_s > a.points.at(-1).comm_s);
  const x = balance.draw(a, THEME).options.scales.x;
  const axis = {};
  x.afterBuildTicks(axis);
  assert.deepEqual(axis.ticks.map((t) => t.value), [1, 2, 4, 8, 16, 32, 64]);
  assert.throws(() => run(balance, { skew: -1 }), isEngineError('skew'));
});

test('ulysses-vs-ring: a tick per swept value on x; a fixed y range holds every setting', () => {
  for (const view of ['gpus', 'seq']) {
    const d = run(ulysses, { x: view });
    const scales = ulysses.draw(d, THEME).options.scales;
    const axis = {};
    scales.x.afterBuildTicks(axis);
    assert.equal(axis.ticks.length, d.points.length, view);
    assert.ok(axis.ticks.every((t) => scales.x.ticks.callback(t.value) !== ''), view);
  }
  for (const model of ['llama3-8b', 'mha-32', 'llama3-70b', 'heads-40']) {
    for (const over of [{ x: 'gpus', seq: '16384' }, { x: 'gpus', seq: '1048576' }, { x: 'seq', gpus: '4' }, { x: 'seq', gpus: '32' }]) {
      const d = run(ulysses, { model, ...over });
      const { min, max } = ulysses.draw(d, THEME).options.scales.y;
      for (const q of d.points) {
        for (const v of [q.ring_bytes, q.ulysses_bytes].filter((y) => y !== null)) assert.ok(v >= min && v <= max, `${model} ${JSON.stringify(over)} ${v}`);
      }
    }
  }
});

test('sp-activation-memory: the fixed y range holds every setting; the axis names the model shape', () => {
  const spec = (key) => resolveParams(spMemory, engine).find((s) => s.key === key);
  for (const model of ['gpt3-175b', 'llama-70b', 'llama-7b']) {
    for (const [seq, micro_batch] of [['2048', 1], ['32768', spec('micro_batch').max]]) {
      const d = run(spMemory, { model, seq, micro_batch });
      const { min, max } = spMemory.draw(d, THEME).options.scales.y;
      for (const q of d.points) {
        for (const v of [q.tp_only, q.tp_sp, q.tp_sp_selective]) assert.ok(v >= min && v <= max, `${model} ${seq} ${micro_batch}: ${v}`);
      }
    }
  }
  const title = spMemory.draw(run(spMemory, { model: 'llama-7b' }), THEME).options.scales.x.title.text.join(' ');
  assert.match(title, /h 4,096, 32 heads, 32 layers, SwiGLU MLP 11,008/);
});

test('ulysses-vs-ring: with 40 heads and 160K tokens the sweep adds 5, 10, 20 and 40 GPUs', () => {
  const d = run(ulysses, { x: 'gpus', model: 'heads-40', seq: '163840' });
  const drawn = d.points.filter((q) => q.ulysses_bytes !== null).map((q) => q.ranks);
  // 5, 10 and 20 divide the query heads but not the 8 KV heads (nor can 8 be repeated onto them).
  assert.deepEqual(d.points.map((q) => q.ranks), [2, 4, 5, 8, 10, 16, 20, 32, 40, 64]);
  assert.deepEqual(drawn, [2, 4, 8, 40]);
  assert.deepEqual(d.blocked, [5, 10, 16, 20, 32, 64]);
  assert.match(ulysses.caption, /p > 1 \+ H\/H_kv/);
  // Ring over Ulysses is p·H_kv/(H + H_kv): above 1 once p > 1 + H/H_kv (5 for 32 and 8 heads).
  const gqa = run(ulysses, { x: 'gpus', model: 'llama3-8b', seq: '131072' }).points;
  for (const q of gqa) assert.equal(q.ring_bytes > q.ulysses_bytes, q.ranks > 5, `p = ${q.ranks}`);
});

test('moe-router: the capacity line has a dashed line key, the bars box keys', () => {
  const chart = router.draw(run(router, {}), THEME);
  assert.equal(chart.options.plugins.legend.labels.usePointStyle, true);
  const [kept, dropped, capacity] = chart.data.datasets;
  assert.equal(kept.pointStyle, 'rect');
  assert.equal(dropped.pointStyle, 'rect');
  assert.equal(capacity.pointStyle, 'line');
  assert.deepEqual(capacity.borderDash, [6, 4]);
});

test('sp-activation-memory: the default sequence is the lesson text\'s 2,048 tokens (579 and 359 MB at t = 8)', () => {
  const seq = resolveParams(spMemory, engine).find((s) => s.key === 'seq');
  assert.equal(seq.default, '2048');
  const at8 = run(spMemory, {}).points.find((q) => q.tp === 8);
  close(at8.tp_only, 2048 * 12288 * (10 + 24 / 8 + (5 * 96 * 2048) / (12288 * 8)));
  close(at8.tp_sp, 2048 * 12288 * (34 + (5 * 96 * 2048) / 12288) / 8);
});
