// The vocabulary trade-off at real vocabulary sizes, in two views on one log axis of
// vocabulary size. Tokens: what two published tokenizers measured on the same English sample
// (the Llama 3 paper, §3.2: Llama 2's 32,000-entry SentencePiece BPE packs 3.17 characters
// into a token, Llama 3's 128,256-entry tiktoken-based BPE 3.94), as tokens per 1,000
// characters. Table: the bytes of the embedding table (and the output head when untied),
// vocab × width × bytes (calc 'embedding-table'), as a line for a model of the chosen width,
// format and tying, with the published models placed at their own width and tying.
import { formatSI, formatDecimal } from '../runtime/format.js';
import { chart, log, linear, colours, series, line } from './shared/chart-config.js';
import { publishedModel } from './shared/published-models.js';

// Measured on one English sample by the Llama 3 paper (Llama Team 2024, §3.2).
export const MEASURED = [
  { name: 'Llama 2 tokenizer', vocab: 32000, chars_per_token: 3.17 },
  { name: 'Llama 3 tokenizer', vocab: 128256, chars_per_token: 3.94 },
];
const PUBLISHED = ['gpt-2-124m', 'llama-2-7b', 'llama-3-8b', 'gemma-7b', 'llama-3-405b'];
// GPT-2's row is counted without its position table and biases: name it by its size class.
const NAMES = { 'gpt-2-124m': 'GPT-2 small' };
const VOCAB_RANGE = [1e4, 1e6];
const WIDTHS = [768, 2048, 4096, 8192, 16384];
const FORMATS = ['fp32', 'bf16', 'fp8-e4m3', 'int4']; // storage formats of weights
const CHARS = 1000;

const tableBytes = (engine, vocab, hidden, dtype, tied) => engine.calc('embedding-table',
  { vocab, hidden, heads: hidden / 64, dtype, tied_embeddings: tied }).table_bytes;

export default {
  id: 'vocab-tokens-memory',
  title: 'A bigger vocabulary: fewer tokens per text, a bigger table',
  caption:
    'Two views on one axis of vocabulary size. Tokens per 1,000 characters: what two published tokenizers need for the same English sample, as the Llama 3 paper measured them; quadrupling the vocabulary from 32,000 to 128,256 entries saves about a fifth of the tokens. Embedding table: the bytes of vocab × width numbers, doubled when the output head is a separate matrix; the line is a model of the width, format and tying chosen, the diamonds are published models at their own width and tying, in that format. Switch to the table, set the width to 16,384, untied, fp32, and see a 128K vocabulary pass 16 GB.',
  params: [
    { key: 'show', label: 'Show', type: 'select', default: 'tokens',
      options: [{ value: 'tokens', label: 'Tokens per 1,000 characters (measured)' }, { value: 'bytes', label: 'Embedding table and head (bytes)' }] },
    { key: 'hidden', label: 'Model width h (line)', type: 'select', default: 4096, when: { show: ['bytes'] },
      options: WIDTHS.map((v) => ({ value: v, label: formatDecimal(v) })) },
    { key: 'tied', label: 'Output head (line)', type: 'select', default: 'untied', when: { show: ['bytes'] },
      options: [{ value: 'tied', label: 'tied: one matrix' }, { value: 'untied', label: 'untied: a second matrix' }] },
    { key: 'dtype', label: 'Number format', type: 'select', default: 'bf16', when: { show: ['bytes'] },
      options: FORMATS.map((v) => ({ value: v, label: v })) },
  ],

  data(engine, p) {
    const hidden = Number(p.hidden);
    const tied = p.tied === 'tied';
    const measured = MEASURED.map((t) => ({ ...t, per_1000: CHARS / t.chars_per_token }));
    const published = PUBLISHED.map((id) => {
      const m = publishedModel(engine, id);
      const r = engine.calc('embedding-table', { model: id, dtype: p.dtype });
      return { id, name: NAMES[id] ?? m.name, vocab: m.vocab, hidden: m.hidden, tied: m.tied_embeddings, bytes: r.table_bytes };
    });
    const curve = [1e4, 3e4, 1e5, 3e5, 1e6].map((v) => ({ x: v, y: tableBytes(engine, v, hidden, p.dtype, tied) }));
    // The bytes axis: fixed over every width, format and tying of the controls and every published model.
    const bytesRange = [1e6, 1e12];
    const table = p.show === 'tokens'
      ? {
        columns: ['Tokenizer', 'Vocabulary (tokens)', 'Characters per token', `Tokens per ${formatDecimal(CHARS)} characters`],
        rows: measured.map((t) => [t.name, t.vocab, t.chars_per_token, t.per_1000]),
      }
      : {
        columns: ['Model', 'Vocabulary (tokens)', 'Width h', 'Head', `Table and head, ${p.dtype} (B)`],
        rows: [...published.map((m) => [m.name, m.vocab, m.hidden, m.tied ? 'tied' : 'untied', m.bytes]),
          ...curve.map((c) => [`Any model, h = ${formatDecimal(hidden)}, ${p.tied}`, c.x, hidden, p.tied, c.y])],
      };
    return { show: p.show, hidden, tied, dtype: p.dtype, measured, published, curve, bytesRange, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const x = log('Vocabulary size (entries)', { unit: '', range: VOCAB_RANGE });
    if (data.show === 'tokens') {
      const [a, b] = data.measured;
      const saving = 1 - b.per_1000 / a.per_1000;
      return chart(theme, {
        datasets: [
          line(pick('muted'), { label: `${(100 * saving).toFixed(1)}% fewer tokens for ${formatDecimal(b.vocab / a.vocab, 1)}× the vocabulary`,
            data: data.measured.map((t) => ({ x: t.vocab, y: t.per_1000 })), borderDash: [4, 4] }),
          series(pick(), { label: 'Measured on one English sample (Llama 3 paper)', pointStyle: 'circle', pointRadius: 6,
            data: data.measured.map((t) => ({ x: t.vocab, y: t.per_1000, label: `${t.name}: ${t.per_1000.toFixed(0)} tokens`,
              tip: `${t.name}, ${formatDecimal(t.vocab)} entries: ${t.per_1000.toFixed(0)} tokens (${t.chars_per_token} characters each)` })),
            pointLabels: true }),
        ],
        scales: { x, y: linear(`${formatDecimal(CHARS)} characters of English (tokens)`, { range: [0, 400] }) },
        tooltip: (ctx) => (ctx.raw.tip ?? `${formatDecimal(ctx.raw.x)} entries: ${ctx.raw.y.toFixed(0)} tokens`),
      });
    }
    return chart(theme, {
      datasets: [
        line(pick('memory'), { label: `Any model of width ${formatDecimal(data.hidden)}, ${data.tied ? 'tied' : 'untied'}, ${data.dtype}`, data: data.curve }),
        series(pick(), { label: `Published models at their own width, ${data.dtype}`, pointStyle: 'rectRot', pointRadius: 6,
          data: data.published.map((m) => ({ x: m.vocab, y: m.bytes,
            label: `${m.name} (h = ${formatDecimal(m.hidden)}, ${m.tied ? 'tied' : 'untied'}): ${formatSI(m.bytes, 'B')}` })),
          pointLabels: true }),
      ],
      scales: { x, y: log('Embedding table and head (bytes)', { unit: 'B', range: data.bytesRange }) },
      tooltip: (ctx) => (ctx.raw.label ?? `${formatDecimal(ctx.raw.x)} entries: ${formatSI(ctx.raw.y, 'B')}`),
    });
  },
};
