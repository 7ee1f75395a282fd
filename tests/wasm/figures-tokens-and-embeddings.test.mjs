// The tokens-and-embeddings lesson's three figures on the built WASM engine: what their data
// says, checked against the paper's merges, the closed forms T_k = T_{k-1} − c_k and
// V = base + merges, bytes = V·h·b, and the published vocabularies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, assertChartSubset, isEngineError } from './figure-harness.mjs';
import bpeMerges from '../../web/src/figures/bpe-merges.js';
import vocabMemory, { MEASURED } from '../../web/src/figures/vocab-tokens-memory.js';
import share from '../../web/src/figures/embedding-share.js';

const drawnText = (cfg) => JSON.stringify(cfg.data.datasets.map((d) => (d.pointLabels ? d.data.map((raw) => raw.label) : [])));

// --- bpe-merges ----------------------------------------------------------------------------

test('bpe-merges: the default is Sennrich et al. (2016)\'s toy vocabulary and reproduces its merges', () => {
  // Sennrich, Haddow, Birch, arXiv:1508.07909, Algorithm 1: vocab {'l o w </w>': 5,
  // 'l o w e r </w>': 2, 'n e w e s t </w>': 6, 'w i d e s t </w>': 3}, num_merges = 10. Run in
  // Python 3.7+ (insertion-ordered dicts, max keeps the first of equal counts) it prints these ten.
  const d = run(bpeMerges);
  assert.deepEqual(d.steps.map((s) => s.pair), [['e', 's'], ['es', 't'], ['est', '</w>'], ['l', 'o'], ['lo', 'w'],
    ['n', 'e'], ['ne', 'w'], ['new', 'est</w>'], ['low', '</w>'], ['w', 'i']]);
  assert.deepEqual(d.steps.map((s) => s.count), [9, 9, 9, 7, 7, 6, 6, 6, 5, 3]);
  // 16 words of 3, 5, 6, 6 letters plus one </w> each: 5·4 + 2·6 + 6·7 + 3·7 = 95 tokens.
  assert.equal(d.base_token_count, 95);
  assert.equal(d.word_count, 16);
  assert.deepEqual(d.base_symbols, ['l', 'o', 'w', '</w>', 'e', 'r', 'n', 's', 't', 'i', 'd']);
  // T_k = T_{k-1} − c_k: no pair here joins a symbol with itself.
  let t = 95;
  for (const s of d.steps) { t -= s.count; assert.equal(s.token_count, t); }
  assert.equal(d.token_count, 28);
  assert.equal(d.vocab_size, 11 + 10);
  assert.deepEqual(d.words.map((w) => w.tokens.join(' ')), ['low</w>', 'low e r </w>', 'newest</w>', 'wi d est</w>']);
});

test('bpe-merges: the chart starts at the base count, one labelled point per merge, on fixed axes', () => {
  const d = run(bpeMerges);
  assert.equal(d.points.length, 11);
  assert.deepEqual(d.points[0], { x: 0, y: 95, label: '95 tokens' });
  assert.equal(d.points[1].label, 'es (9)');
  assert.equal(d.points[8].label, 'newest</w> (6)');
  const cfg = bpeMerges.draw(d, THEME);
  assertChartSubset('bpe-merges', cfg);
  assert.match(drawnText(cfg), /newest<\/w> \(6\)/);
  // The words as cut now are written under the x axis.
  assert.match(cfg.options.scales.x.title.text.join('\n'), /low\|e\|r\|<\/w> ×2/);
  const axes = (c) => [c.options.scales.x.min, c.options.scales.x.max, c.options.scales.y.min, c.options.scales.y.max];
  assert.deepEqual(axes(cfg), axes(bpeMerges.draw(run(bpeMerges, { merges: 2 }), THEME)));
  assert.deepEqual(axes(cfg), axes(bpeMerges.draw(run(bpeMerges, { merges: 40 }), THEME)));
  assert.equal(d.table.rows.length, 11);
  // The y axis tops out at a round tick (120 for the 95 base tokens, steps of 20), not at 106.
  assert.equal(cfg.options.scales.y.max, 120);
  const top = (text) => bpeMerges.draw(run(bpeMerges, { text }), THEME).options.scales.y.max;
  assert.equal(top('café café naïve naïve über über 🙂🙂 🙂🙂 日本語 日本語'), 60); // 46 base tokens
});

test('bpe-merges: the toy text runs out of pairs after 15 merges, one token per word', () => {
  const d = run(bpeMerges, { merges: 40 });
  assert.equal(d.stopped_early, true);
  assert.equal(d.steps.length, 15);
  assert.equal(d.token_count, d.word_count);
  assert.equal(d.vocab_size, 26);
});

test('bpe-merges: the paper\'s Figure 1 words tie five ways; the engine takes the pair seen first', () => {
  // Sennrich et al. Figure 1 learns on {low, lowest, newer, wider}: (l,o), (o,w), (w,e), (e,r),
  // (r,</w>) all occur twice. The paper lists r </w> first; the engine, reading left to right,
  // merges l o first. Both are greedy choices of a most frequent pair.
  const d = run(bpeMerges, { text: 'low lowest newer wider', merges: 4 });
  assert.deepEqual(d.steps.map((s) => s.token), ['lo', 'low', 'er', 'er</w>']);
  assert.ok(d.steps.every((s) => s.count === 2));
});

test('bpe-merges: code points, not bytes: é, 🙂 and 日 are one base symbol each', () => {
  const d = run(bpeMerges, { text: 'café café naïve naïve über über 🙂🙂 🙂🙂 日本語 日本語', merges: 0 });
  for (const c of ['é', 'ï', 'ü', '🙂', '日', '本', '語']) assert.ok(d.base_symbols.includes(c), c);
  // Code points plus one </w> per word: 2·(4 + 5 + 4 + 2 + 3) + 10 = 46 (UTF-8 bytes would give more).
  assert.equal(d.base_token_count, 46);
  // A self-pair: "aaa" holds (a, a) twice but the merge makes "aa a", one token fewer.
  const a = run(bpeMerges, { text: 'aaa aaa', merges: 1 });
  assert.deepEqual(a.steps[0].pair, ['a', 'a']);
  assert.equal(a.steps[0].count, 4);
  assert.equal(a.steps[0].token_count, 8 - 2);
  assert.throws(() => run(bpeMerges, { text: '   ' }), (e) => e instanceof Error && e.message.length > 0);
});

// --- vocab-tokens-memory -------------------------------------------------------------------

test('vocab-tokens-memory: tokens per 1,000 characters of the two tokenizers the Llama 3 paper measured', () => {
  // Llama Team, The Llama 3 Herd of Models, arXiv:2407.21783, §3.2: on a sample of English data
  // Llama 3's tokenizer (128K entries: 100K from tiktoken, 28K more) packs 3.94 characters into
  // a token where Llama 2's (32,000) packed 3.17.
  assert.deepEqual(MEASURED.map((t) => [t.vocab, t.chars_per_token]), [[32000, 3.17], [128256, 3.94]]);
  const d = run(vocabMemory);
  assert.equal(d.show, 'tokens');
  close(d.measured[0].per_1000, 1000 / 3.17);
  close(d.measured[1].per_1000, 1000 / 3.94);
  const cfg = vocabMemory.draw(d, THEME);
  assertChartSubset('vocab-tokens-memory', cfg);
  // One linear axis of tokens, one log axis of vocabulary: no second y axis to cross.
  assert.deepEqual(Object.keys(cfg.options.scales).sort(), ['x', 'y']);
  assert.equal(cfg.options.scales.x.type, 'logarithmic');
  assert.match(drawnText(cfg), /Llama 2 tokenizer: 315 tokens/);
  assert.match(drawnText(cfg), /Llama 3 tokenizer: 254 tokens/);
  assert.match(JSON.stringify(cfg.data.datasets.map((x) => x.label)), /19\.5% fewer tokens for 4\.0× the vocabulary/);
});

test('vocab-tokens-memory: published tables at their own width (GPT-2 small 77 MB), the line at the chosen one', () => {
  const d = run(vocabMemory, { show: 'bytes' });
  const by = Object.fromEntries(d.published.map((m) => [m.id, m]));
  // GPT-2: 50,257 × 768, tied, bf16 = 77,194,752 B; not its vocabulary at the line's width.
  assert.equal(by['gpt-2-124m'].bytes, 50257 * 768 * 2);
  assert.equal(by['gpt-2-124m'].name, 'GPT-2 small');
  assert.equal(by['llama-2-7b'].bytes, 2 * 32000 * 4096 * 2);
  assert.equal(by['llama-3-8b'].bytes, 2 * 128256 * 4096 * 2);
  assert.equal(by['gemma-7b'].bytes, 256000 * 3072 * 2);
  assert.equal(by['llama-3-405b'].name, 'Llama 3.1 405B');
  for (const c of d.curve) assert.equal(c.y, 2 * c.x * 4096 * 2); // untied bf16 at h = 4,096
  const cfg = vocabMemory.draw(d, THEME);
  assertChartSubset('vocab-tokens-memory', cfg);
  assert.match(drawnText(cfg), /GPT-2 small \(h = 768, tied\): 77\.2 MB/);
  assert.doesNotMatch(drawnText(cfg), /412 MB/);
  // Storage formats only: no tf32 (a compute mode) and no fp64.
  const formats = vocabMemory.params.find((q) => q.key === 'dtype').options.map((o) => o.value);
  assert.deepEqual(formats, ['fp32', 'bf16', 'fp8-e4m3', 'int4']);
});

test('vocab-tokens-memory: width, tying and format scale the table; the bytes axis stays fixed', () => {
  const a = run(vocabMemory, { show: 'bytes', hidden: 16384, tied: 'untied', dtype: 'fp32' });
  const at128k = 2 * 128256 * 16384 * 4;
  assert.ok(at128k > 16e9);
  close(a.curve.find((c) => c.x === 1e5).y, 2 * 1e5 * 16384 * 4);
  const axis = (d) => { const c = vocabMemory.draw(d, THEME).options.scales.y; return [c.min, c.max]; };
  const base = axis(run(vocabMemory, { show: 'bytes' }));
  assert.deepEqual(axis(a), base);
  const small = run(vocabMemory, { show: 'bytes', hidden: 768, tied: 'tied', dtype: 'int4' });
  assert.deepEqual(axis(small), base);
  for (const d of [a, small]) {
    for (const v of [...d.curve.map((c) => c.y), ...d.published.map((m) => m.bytes)]) assert.ok(v > base[0] && v < base[1], String(v));
  }
  close(run(vocabMemory, { show: 'bytes', tied: 'tied' }).curve[0].y, 1e4 * 4096 * 2);
});

// --- embedding-share -----------------------------------------------------------------------

test('embedding-share: GPT-2 small a third, Llama 3 405B about 1%, tied and untied apart', () => {
  const d = run(share);
  const by = Object.fromEntries(d.points.map((m) => [m.id, m]));
  // GPT-2 124M: 50,257 × 768 = 38,597,376 of 12·12·768² + norms 19,200 + the table.
  assert.equal(by['gpt-2-124m'].table_params, 50257 * 768);
  close(by['gpt-2-124m'].share, (50257 * 768) / (12 * 12 * 768 ** 2 + 2 * 12 * 768 + 768 + 50257 * 768));
  assert.ok(by['gpt-2-124m'].share > 0.3);
  // Llama 3 405B, untied: 2 × 128,256 × 16,384 of 405,853,388,800 (the published count).
  assert.equal(by['llama-3-405b'].table_params, 2 * 128256 * 16384);
  close(by['llama-3-405b'].share, (2 * 128256 * 16384) / 405853388800);
  assert.ok(by['llama-3-8b'].share > 3 * by['llama-2-7b'].share);
  assert.equal(by['gpt-2-124m'].tied, true);
  assert.equal(by['llama-3-8b'].tied, false);
  assert.equal(by['mixtral-8x7b'], undefined);
  const cfg = share.draw(d, THEME);
  assertChartSubset('embedding-share', cfg);
  assert.equal(cfg.options.scales.x.type, 'logarithmic');
  assert.match(drawnText(cfg), /GPT-2 small 31\.2%/);
  assert.notEqual(cfg.data.datasets[0].borderColor, cfg.data.datasets[1].borderColor);
});

test('embedding-share: a 256,000-token vocabulary makes GPT-2 small mostly embedding', () => {
  const d = run(share, { vocab: 256000 });
  const gpt2 = d.points.find((m) => m.id === 'gpt-2-124m');
  assert.equal(gpt2.vocab, 256000);
  close(gpt2.share, (256000 * 768) / (84953856 + 256000 * 768));
  assert.ok(gpt2.share > 0.69);
  const l3 = run(share, { vocab: 32000 }).points.find((m) => m.id === 'llama-3-70b');
  // The lesson's exercise embedding-params-share at its default: 0.76%.
  close(l3.share, (2 * 32000 * 8192) / (70553706496 - 2 * (128256 - 32000) * 8192));
});
