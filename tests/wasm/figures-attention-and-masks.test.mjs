// The attention-and-masks lesson's three figures on the built WASM engine: what their data
// says, checked against the lesson's closed forms and published model configurations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { THEME, engine, run, close, isEngineError, assertChartSubset } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import maskWeights from '../../web/src/figures/attention-mask-weights.js';
import scoreMemory from '../../web/src/figures/score-matrix-memory.js';
import variants from '../../web/src/figures/attention-variants.js';

const drawnText = (cfg) => JSON.stringify(cfg.data.datasets.map((d) => (typeof d.pointLabels === 'function' ? d.data.map((raw, i) => d.pointLabels(raw, i))
  : d.pointLabels ? d.data.map((raw) => raw.label) : [])));
const sceneText = (s) => s.nodes.filter((n) => n.kind === 'text').map((n) => n.text).join(' | ');

// --- attention-mask-weights -------------------------------------------------------------

test('attention-mask-weights: causal mask at the defaults allows n(n + 1)/2 = 36 of 64 pairs, rows sum to 1', () => {
  const d = run(maskWeights);
  assert.equal(d.mask, 'causal');
  assert.equal(d.seq, 8);
  assert.equal(d.allowed_count, 8 * 9 / 2);
  assert.equal(d.total_pairs, 64);
  d.weights.forEach((row, i) => {
    close(row.reduce((a, b) => a + b, 0), 1, 1e-12);
    row.forEach((w, j) => {
      assert.equal(d.allowed[i][j], j <= i, `causal: (${i}, ${j})`);
      if (j > i) assert.equal(w, 0);
      else assert.ok(w > 0);
    });
  });
  // The first query sees only itself: weight 1.
  assert.equal(d.weights[0][0], 1);
  // The weights are the softmax of the seeded scores over the allowed keys.
  const i = 5;
  const e = d.scores[i].slice(0, i + 1).map(Math.exp);
  const z = e.reduce((a, b) => a + b, 0);
  e.forEach((v, j) => close(d.weights[i][j], v / z, 1e-12));
  const s = maskWeights.draw(d, THEME);
  assert.match(sceneText(s), /36 of 64 pairs allowed = n\(n \+ 1\)\/2/);
});

test('attention-mask-weights: masked cells are drawn distinct from small weights (no fill, dashed)', () => {
  const d = run(maskWeights, { seq: 16 });
  const s = maskWeights.draw(d, THEME);
  const cells = s.nodes.filter((n) => n.kind === 'rect' && n.cell);
  assert.equal(cells.length, 256);
  for (const c of cells) {
    const [i, j] = c.cell;
    if (j > i) {
      assert.equal(c.fill, 'none');
      assert.ok(c.dash && c.stroke === THEME.muted);
      assert.match(c.tip, /masked/);
    } else {
      assert.equal(c.fill, THEME.palette[0]);
      assert.ok(c.opacity > 0);
    }
  }
  assert.ok(s.legend.some((l) => /Masked/.test(l.label)));
});

test('attention-mask-weights: window and padding counts follow their closed forms', () => {
  const n = 12;
  // Bidirectional window w: n² − (n − w)(n − w + 1).
  for (const w of [1, 3, 5, 12]) {
    const d = run(maskWeights, { seq: n, mask: 'sliding-window', window: w });
    assert.equal(d.allowed_count, w >= n ? n * n : n * n - (n - w) * (n - w + 1), `window ${w}`);
    d.allowed.forEach((row, i) => row.forEach((a, j) => assert.equal(a, Math.abs(i - j) < w)));
  }
  // Causal window w (Mistral's W: the token itself and w − 1 before it): w·n − w(w − 1)/2.
  for (const w of [1, 3, 5]) {
    const d = run(maskWeights, { seq: n, mask: 'causal-sliding-window', window: w });
    assert.equal(d.allowed_count, w * n - (w * (w - 1)) / 2);
    d.allowed.forEach((row, i) => row.forEach((a, j) => assert.equal(a, j <= i && i - j < w)));
  }
  // Padding masks keys only: every query row, a padded one too, keeps the n − pad real keys.
  const d = run(maskWeights, { seq: n, mask: 'padding', pad: 3 });
  assert.equal(d.allowed_count, n * (n - 3));
  d.allowed.forEach((row) => row.forEach((a, j) => assert.equal(a, j < n - 3)));
  d.weights.forEach((row) => close(row.reduce((a, b) => a + b, 0), 1, 1e-12));
  // No mask: n².
  assert.equal(run(maskWeights, { seq: n, mask: 'none' }).allowed_count, n * n);
});

test('attention-mask-weights: one colour scale, 0 to 1, for every mask (masks compare entry by entry)', () => {
  const scale = (over) => {
    const s = maskWeights.draw(run(maskWeights, over), THEME);
    // The colour bar's tick labels: each text drawn right after a tick mark (a 3 px vertical line).
    return s.nodes.filter((n, k) => n.kind === 'text' && s.nodes[k - 1]?.kind === 'line'
      && s.nodes[k - 1].y2 - s.nodes[k - 1].y1 === 3).map((n) => n.text);
  };
  const causal = scale({});
  assert.deepEqual(causal, ['0', '0.25', '0.5', '0.75', '1']);
  for (const over of [{ mask: 'padding', pad: 3 }, { mask: 'none', seq: 24 }, { mask: 'sliding-window', seed: 9 }, { mask: 'document' }]) {
    assert.deepEqual(scale(over), causal, JSON.stringify(over));
  }
  // The padding mask's largest weight is well below 1 at the defaults, yet the scale still ends at 1.
  const d = run(maskWeights, { mask: 'padding', pad: 3 });
  assert.ok(Math.max(...d.weights.flat()) < 0.9);
});

test('attention-mask-weights: packed documents, prefix-LM and sinks follow their rules and closed forms', () => {
  const n = 12;
  for (const doc of [1, 3, 5, 12]) {
    const d = run(maskWeights, { seq: n, mask: 'document', doc });
    const q = Math.floor(n / doc), r = n % doc;
    assert.equal(d.allowed_count, q * doc * (doc + 1) / 2 + r * (r + 1) / 2, `doc ${doc}`);
    d.allowed.forEach((row, i) => row.forEach((a, j) => assert.equal(a, j <= i && Math.floor(j / doc) === Math.floor(i / doc))));
  }
  for (const prefix of [0, 1, 4, 12]) {
    const d = run(maskWeights, { seq: n, mask: 'prefix-lm', prefix });
    assert.equal(d.allowed_count, n * (n + 1) / 2 + prefix * (prefix - 1) / 2, `prefix ${prefix}`);
    d.allowed.forEach((row, i) => row.forEach((a, j) => assert.equal(a, j <= i || j < prefix)));
  }
  for (const [window, sinks] of [[3, 1], [3, 4], [1, 2], [12, 3]]) {
    const d = run(maskWeights, { seq: n, mask: 'sink-window', window, sinks });
    d.allowed.forEach((row, i) => row.forEach((a, j) => assert.equal(a, j <= i && (i - j < window || j < sinks))));
    const s = maskWeights.draw(d, THEME);
    assert.match(sceneText(s), new RegExp(`${d.allowed_count} of 144 pairs allowed`));
    // The closed form's numbers add up to the count.
    const [, numbers] = d.formula;
    const value = numbers.split(' + ').reduce((acc, term, k) => {
      const [a, b] = term.split(' − ');
      const ev = (t) => t.split('·').map((x) => x.split('/')).reduce((p, [v, div]) => p * Number(v) / (div ? Number(div) : 1), 1);
      return acc + (k === 0 ? ev(a) - ev(b) : ev(term));
    }, 0);
    assert.equal(value, d.allowed_count, numbers);
  }
  assert.throws(() => run(maskWeights, { seq: 4, mask: 'prefix-lm', prefix: 5 }), isEngineError('prefix'));
});

test('attention-mask-weights: padding of the whole sequence is refused on the pad control', () => {
  assert.throws(() => run(maskWeights, { seq: 4, mask: 'padding', pad: 4 }), isEngineError('pad'));
});

// --- score-matrix-memory ----------------------------------------------------------------

test('score-matrix-memory: S = n²·heads·batch·bytes; S and P pass 80 GiB at n = 25,906 for 32 heads in bf16', () => {
  const d = run(scoreMemory);
  assert.equal(d.heads, 32);
  assert.equal(d.batch, 1);
  assert.equal(d.dtype, 'bf16');
  for (const q of d.points) {
    assert.equal(q.s, q.seq ** 2 * 32 * 2);
    assert.equal(q.sp, 2 * q.s);
    assert.equal(q.lse, q.seq * 32 * 4); // the logsumexp: n fp32 numbers per head
  }
  // n = 4,096 (Llama 2's context): S is 2^30 B = 1.07 GB per layer.
  assert.equal(d.points.find((q) => q.seq === 4096).s, 2 ** 30);
  // H100 SXM: 80 GiB. 128·n² ≤ 80·2^30 ⇔ n ≤ 25,905.
  assert.equal(d.hbm, 80 * 2 ** 30);
  assert.equal(d.fit, Math.floor(Math.sqrt(80 * 2 ** 30 / 128)));
  assert.equal(d.fit, 25905);
  assert.ok(128 * d.fit ** 2 <= d.hbm && 128 * (d.fit + 1) ** 2 > d.hbm);
  const cfg = scoreMemory.draw(d, THEME);
  assertChartSubset('score-matrix-memory', cfg);
  assert.match(drawnText(cfg), /S and P fit up to n = 25,905/);
});

test('score-matrix-memory: fixed log axes; more heads move the crossing left by √(heads ratio)', () => {
  const axes = (c) => [c.options.scales.x.min, c.options.scales.x.max, c.options.scales.y.min, c.options.scales.y.max];
  const base = scoreMemory.draw(run(scoreMemory), THEME);
  for (const over of [{ heads: 128 }, { batch: 64, dtype: 'fp32' }, { heads: 1, dtype: 'fp8-e4m3' }, { hardware: 'b200' }]) {
    const d = run(scoreMemory, over);
    const cfg = scoreMemory.draw(d, THEME);
    assert.deepEqual(axes(cfg), axes(base), JSON.stringify(over));
    for (const q of d.points) assert.ok(q.sp <= cfg.options.scales.y.max && q.lse >= cfg.options.scales.y.min);
  }
  assert.equal(base.options.scales.x.type, 'logarithmic');
  assert.equal(base.options.scales.y.type, 'logarithmic');
  const four = run(scoreMemory, { heads: 128 });
  assert.ok(Math.abs(four.fit - 25905 / 2) <= 1);
});

test('score-matrix-memory: the accelerator select names each accelerator; one sequence is singular on the axis', () => {
  const hw = resolveParams(scoreMemory, engine).find((s) => s.key === 'hardware');
  const h100 = hw.options.find((o) => o.value === 'h100-sxm');
  assert.ok(h100, 'h100-sxm is a choice');
  assert.equal(h100.label, engine.calc('hardware', { id: 'h100-sxm' }).name);
  assert.ok(hw.options.every((o) => o.label !== o.value), 'every choice shows a name, not its id');
  // The calculator that lists the choices is one the page's engine part holds (the page loads
  // only its part, and a calculator outside it leaves the figure unable to load).
  const plan = JSON.parse(fs.readFileSync(new URL('../../build/wasm/engine/parts-plan.json', import.meta.url), 'utf8'));
  const part = Object.values(plan.parts).find((x) => x.lessons.includes('attention-and-masks'));
  assert.ok(part.calculators.includes(hw.from[0]), `${hw.from[0]} is in the attention part`);
  const title = (over) => [scoreMemory.draw(run(scoreMemory, over), THEME).options.scales.y.title.text].flat().join(' ');
  assert.match(title({}), /32 heads × 1 sequence, bf16/);
  assert.match(title({ batch: 4 }), /× 4 sequences,/);
});

// --- attention-variants -----------------------------------------------------------------

test('attention-variants: Llama 2 70B has 327,680 B of KV cache per token in bf16 (2 · 80 · 8 · 128 · 2)', () => {
  // Llama 2 70B: 80 layers, 64 query heads, 8 KV heads, head size 128 (Touvron et al. 2023,
  // Table 1 and the released config.json).
  const d = run(variants);
  const g = d.groups.find((x) => x.id === 'llama-2-70b');
  assert.deepEqual([g.layers, g.heads, g.kv_heads, g.head_dim], [80, 64, 8, 128]);
  assert.equal(g.own, 'gqa');
  assert.equal(g.values.gqa, 327680);
  assert.equal(g.values.gqa, 2 * 80 * 8 * 128 * 2);
  assert.equal(g.values.mha, 2 * 80 * 64 * 128 * 2);
  assert.equal(g.values.mqa, 2 * 80 * 1 * 128 * 2);
  assert.equal(g.values.mha / g.values.gqa, 8);
  // The engine's own number, straight from the calculator.
  assert.equal(engine.calc('attention-variants', { model: 'llama-2-70b' }).gqa.kv_bytes_per_token, 327680);
  const cfg = variants.draw(d, THEME);
  assertChartSubset('attention-variants', cfg);
  assert.match(JSON.stringify(cfg.data.labels), /GQA-8: 328 kB/);
});

test('attention-variants: PaLM is MQA (48 times less than MHA); GPT-3 and Llama 2 7B are MHA', () => {
  // PaLM 540B: 118 layers, 48 heads, head size 256, multi-query (Chowdhery et al. 2022, Table 1).
  const d = run(variants);
  const palm = d.groups.find((x) => x.id === 'palm-540b');
  assert.equal(palm.own, 'mqa');
  assert.equal(palm.values.mha / palm.values.mqa, 48);
  assert.equal(palm.values.mqa, 2 * 118 * 256 * 2);
  for (const id of ['gpt-3-175b', 'llama-2-7b']) assert.equal(d.groups.find((x) => x.id === id).own, 'mha');
  for (const id of ['llama-2-70b', 'llama-3-405b', 'mistral-7b']) assert.equal(d.groups.find((x) => x.id === id).own, 'gqa');
  const labels = JSON.stringify(variants.draw(d, THEME).data.labels);
  assert.match(labels, /MQA: 121 kB/);
  assert.match(labels, /MHA: 4.72 MB/);
});

test('attention-variants: the context view is bytes per token × context × batch; parameters per layer', () => {
  const d = run(variants, { show: 'context', context: 8192, batch: 4 });
  const g = d.groups.find((x) => x.id === 'llama-2-70b');
  assert.equal(g.values.gqa, 327680 * 8192 * 4);
  // W_Q and W_O: 2·h·a·d; W_K and W_V: 2·h·kv·d. Llama 2 70B: h = 8,192, a·d = 8,192, kv·d = 1,024.
  const p = run(variants, { show: 'params' }).groups.find((x) => x.id === 'llama-2-70b');
  assert.equal(p.values.gqa, 2 * 8192 * 8192 + 2 * 8192 * 1024);
  assert.equal(p.values.mha, 4 * 8192 * 8192);
  // Sharing K and V saves the cache 8×, the layer's parameters well under 2×.
  assert.ok(p.values.mha / p.values.gqa < 2);
  // The custom group: 32 layers, 32 heads, 4 KV heads, head size 128 in bf16.
  const c = run(variants).groups.at(-1);
  assert.equal(c.values.gqa, 2 * 32 * 4 * 128 * 2);
  assert.equal(c.values.mha / c.values.gqa, 8);
});

test('attention-variants: the cache view draws one and two H100s; 16 × 4,096 MHA tokens of Llama 2 70B are exactly two', () => {
  const d = run(variants, { show: 'context', context: 4096, batch: 16 });
  const hbm = engine.calc('hardware', { id: 'h100-sxm' }).hbm_bytes;
  assert.equal(hbm, 80 * 2 ** 30);
  assert.deepEqual(d.refs.map(([v]) => v), [hbm, 2 * hbm]);
  const g = d.groups.find((x) => x.id === 'llama-2-70b');
  assert.equal(g.values.mha, 2 * hbm);  // 171,798,691,840 B: equal, not more
  assert.ok(g.values.gqa < hbm);
  const cfg = variants.draw(d, THEME);
  const lines = cfg.data.datasets.filter((x) => x.type === 'line');
  assert.deepEqual(lines.map((x) => x.label), ['80 GiB: one H100’s HBM', '160 GiB: two H100s']);
  assert.ok(lines.every((x) => x.data.every((v) => v <= cfg.options.scales.y.max)));
  // Per token and per layer there is no HBM line.
  assert.equal(variants.draw(run(variants), THEME).data.datasets.filter((x) => x.type === 'line').length, 0);
});

test('attention-variants: decode FLOPs per byte are 2 · group size / bytes, all under the H100 ridge point', () => {
  const d = run(variants, { show: 'intensity' });
  const g = d.groups.find((x) => x.id === 'llama-2-70b');
  assert.deepEqual([g.values.mha, g.values.gqa, g.values.mqa], [1, 8, 64]);
  const palm = d.groups.find((x) => x.id === 'palm-540b');
  assert.equal(palm.values.mqa, 48);
  const [[ridge]] = d.refs;
  const h = engine.calc('hardware', { id: 'h100-sxm' });
  close(ridge, h.peak_flops.bf16 / h.hbm_bandwidth_Bps, 1e-9);
  for (const x of d.groups) assert.ok(x.values.mqa < ridge, x.name);
  // Labels carry the digits the bars have (8, not 8.00); the ticks leave the unit to the axis title.
  const cfg = variants.draw(d, THEME);
  const labels = JSON.stringify(cfg.data.labels);
  assert.match(labels, /GQA-8: 8 FLOP\/B/);
  assert.match(labels, /MQA: 48 FLOP\/B/);
  assert.doesNotMatch(labels, /\.00 FLOP/);
  assert.equal(cfg.options.scales.y.ticks.callback(100, 0, [{ value: 0.1 }, { value: 1000 }]), '100');
  // fp8 doubles every bar; the axis stays.
  const f = run(variants, { show: 'intensity', dtype: 'fp8-e4m3' });
  assert.equal(f.groups.find((x) => x.id === 'llama-2-70b').values.gqa, 16);
  assert.deepEqual(variants.draw(f, THEME).options.scales.y.min, variants.draw(d, THEME).options.scales.y.min);
  assert.deepEqual(variants.draw(f, THEME).options.scales.y.max, variants.draw(d, THEME).options.scales.y.max);
});

test('attention-variants: fixed axis per view; a K/V head count that does not divide the heads is refused', () => {
  const axis = (over) => {
    const c = variants.draw(run(variants, over), THEME);
    return [c.options.scales.y.min, c.options.scales.y.max];
  };
  assert.deepEqual(axis({ dtype: 'fp32' }), axis({}));
  assert.deepEqual(axis({ show: 'context', context: 131072, batch: 64 }), axis({ show: 'context' }));
  assert.deepEqual(axis({ layers: 128, heads: 128, kv_heads: 128, head_dim: 256 }), axis({}));
  assert.throws(() => run(variants, { heads: 32, kv_heads: 5 }), isEngineError('kv_heads'));
});

test('attention-mask-weights: the key axis title fits a phone (the closed form stays on a wide figure)', () => {
  const d = run(maskWeights, { mask: 'sink-window', seq: 16, window: 3, sinks: 1 });
  const title = (width) => {
    const s = maskWeights.draw(d, { ...THEME, width, height: 360 });
    return s.nodes.find((n) => n.kind === 'text' && n.text.startsWith('Key j')).text;
  };
  assert.match(title(720), /58 of 256 pairs allowed = m·n − m\(m − 1\)\/2 \+ Σ min\(s, t\)/);
  const phone = title(360);
  assert.equal(phone, 'Key j (token; 58 of 256 pairs allowed)');
  // Estimated at the drawer's glyph width: within the phone's figure, with the margins.
  assert.ok(phone.length * 0.56 * 11 < 360 - 8);
});
