// The vocabulary trade-off: BPE (calc 'bpe') learned on a text at several merge counts gives
// the vocabulary size and the text's token count (right axis); the embedding table of a model
// of the chosen width holds vocab × hidden × bytes (calc 'embedding-table', left axis), drawn
// over the whole range with the published vocabularies of GPT-2, Llama 2 and Llama 3 (from
// the engine's `models` table) placed on it.
import { formatSI, formatDecimal } from '../runtime/format.js';
import { chart, log, linear, colours, series, line } from './shared/chart-config.js';
import { publishedModel } from './shared/published-models.js';

const MERGES = [0, 1, 2, 3, 4, 6, 8, 10, 15, 20, 30, 40];
const PUBLISHED = ['gpt-2-124m', 'llama-2-7b', 'llama-3-8b'];
const VOCAB_RANGE = [10, 1e6];
const SENNRICH = 'low low low low low lower lower newest newest newest newest newest newest widest widest widest';

// Table bytes for `vocab` rows of width `hidden` in `dtype`, input table only (tied).
const tableBytes = (engine, vocab, hidden, dtype) => engine.calc('embedding-table',
  { vocab, hidden, heads: hidden / 64, dtype, tied_embeddings: true }).embedding_bytes;

export default {
  id: 'vocab-tokens-memory',
  title: 'More merges: a bigger vocabulary, fewer tokens, a bigger embedding table',
  caption:
    'Circles (right axis): BPE learned on the text in the box with 0 to 40 merges; each merge adds one vocabulary entry, and the text takes fewer tokens, fast at first and then slowly, until no pair occurs twice. Line (left axis, log): the bytes of one embedding table of vocab × width entries, at the width and number format chosen; the published vocabularies of GPT-2 (50,257), Llama 2 (32,000) and Llama 3 (128,256) sit on it. A toy text runs out of pairs after a few dozen merges; real tokenizers learn tens of thousands of merges on terabytes of text, and each one costs a row of the table. Set the width to 16,384 and fp32 to see the table of a 128K vocabulary pass 8 GB.',
  simulation: true,
  params: [
    { key: 'text', label: 'Text (words split at spaces)', from: ['bpe', 'text'],
      samplesLabel: 'Sample text',
      samples: [{ label: 'Sennrich et al. (2016): low, lower, newest, widest', value: SENNRICH },
        { label: 'English: the cat sat on the mat', value: 'the cat sat on the mat and the cat ate the rat that sat on the hat' }] },
    { key: 'hidden', label: 'Model width h', type: 'select', default: 4096,
      options: [768, 2048, 4096, 8192, 16384].map((v) => ({ value: v, label: formatDecimal(v) })) },
    { key: 'dtype', label: 'Number format', from: ['embedding-table', 'dtype'], default: 'bf16' },
  ],

  data(engine, p) {
    const hidden = Number(p.hidden);
    const seen = new Set();
    const runs = [];
    for (const m of MERGES) {
      const r = engine.calc('bpe', { text: p.text, merges: m, end_of_word: true });
      if (seen.has(r.vocab_size)) continue; // stopped early: the same point again
      seen.add(r.vocab_size);
      runs.push({ merges: r.steps.length, vocab: r.vocab_size, tokens: r.token_count,
        per_word: r.token_count / r.word_count, bytes: tableBytes(engine, r.vocab_size, hidden, p.dtype) });
    }
    const published = PUBLISHED.map((id) => {
      const m = publishedModel(engine, id);
      return { id, name: m.name, vocab: m.vocab, bytes: tableBytes(engine, m.vocab, hidden, p.dtype) };
    });
    const curve = [10, 100, 1e3, 1e4, 1e5, 1e6].map((v) => ({ x: v, y: tableBytes(engine, v, hidden, p.dtype) }));
    // The bytes axis: fixed over every width and format of the controls.
    const bytesRange = [tableBytes(engine, VOCAB_RANGE[0], 768, 'int4') / 2, tableBytes(engine, VOCAB_RANGE[1], 16384, 'fp64') * 2];
    const base = runs[0].tokens;
    const table = {
      columns: ['Source', 'Merges', 'Vocabulary (tokens)', 'Tokens of the text', 'Tokens per word', `Embedding table at h = ${hidden}, ${p.dtype} (B)`],
      rows: [...runs.map((r) => ['BPE on the text', r.merges, r.vocab, r.tokens, r.per_word, r.bytes]),
        ...published.map((m) => [m.name, '', m.vocab, '', '', m.bytes])],
    };
    return { hidden, dtype: p.dtype, runs, published, curve, bytesRange, base, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    return chart(theme, {
      datasets: [
        line(pick('memory'), { label: `Embedding table, h = ${formatDecimal(data.hidden)}, ${data.dtype} (left)`, data: data.curve, showLine: true }),
        series(pick(), { label: 'Published vocabularies (left)', pointStyle: 'rectRot', pointRadius: 6,
          data: data.published.map((m) => ({ x: m.vocab, y: m.bytes, label: `${m.name}: ${formatSI(m.bytes, 'B')}` })),
          pointLabels: true }),
        series(pick(), { label: 'BPE on the text: its tokens (right)', yAxisID: 'y1', showLine: true, pointRadius: 3,
          data: data.runs.map((r, i) => ({ x: r.vocab, y: r.tokens, label: i === 0 || i === data.runs.length - 1 ? `${r.merges} merges: ${r.tokens}` : '' })),
          pointLabels: true }),
      ],
      scales: {
        x: log('Vocabulary size (tokens)', { unit: '', range: VOCAB_RANGE }),
        y: log('Embedding table (bytes)', { unit: 'B', range: data.bytesRange }),
        y1: linear('Tokens of the text (count)', { range: [0, Math.ceil(1.1 * data.base) + 1], position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => (ctx.dataset.yAxisID === 'y1' ? `vocabulary ${ctx.raw.x}: ${ctx.raw.y} tokens`
        : `vocabulary ${formatDecimal(ctx.raw.x)}: ${formatSI(ctx.raw.y, 'B')}`),
    });
  },
};
