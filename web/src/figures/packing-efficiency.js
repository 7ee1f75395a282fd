// Padding against packing on random document lengths (calc 'packing', 1,000 seeded documents
// per point): the share of a batch's token slots that hold real tokens, for padding one
// document per sequence to max_len, to the longest of its batch (dynamic), the same after
// sorting by length (bucket), best-fit-decreasing packing of whole documents and concatenate-and-
// split, as the mean document length grows against a fixed sequence length. The attention
// view shows the price of packing under a plain causal mask: the share of attention pairs that
// cross document boundaries, which a per-document mask removes.
import { formatSI, formatShort } from '../runtime/format.js';
import { chart, log, linear, colours, series } from './shared/chart-config.js';

const FRACTIONS = [1 / 64, 1 / 32, 1 / 16, 1 / 8, 3 / 16, 1 / 4, 3 / 8, 1 / 2, 5 / 8, 3 / 4, 1, 3 / 2, 2];
const METHODS = [
  ['pad', 'pad to max_len: one document per row'],
  ['dynamic', 'dynamic: pad to the batch\'s longest'],
  ['bucket', 'bucket: sort by length, then dynamic'],
  ['pack', 'pack: whole documents, best-fit decreasing'],
  ['concat', 'concatenate and split'],
];
// The attention view draws only the methods that put several documents in a row: padding,
// dynamic padding and bucketing keep one document per row, so nothing crosses documents.
const MULTI = new Set(['pack', 'concat']);
const BATCH_ROWS = 16;
const VIEWS = [{ value: 'efficiency', label: 'Slot efficiency' }, { value: 'attention', label: 'Attention across documents' }];

export default {
  id: 'packing-efficiency',
  title: 'Padding against packing: useful tokens per slot, and attention across documents',
  caption:
    'Each point draws 1,000 documents with the chosen mean length and fills sequences of max_len tokens five ways; the diamonds mark the "Marked mean length" setting. Padding every row to max_len wastes the rest of each row: with lognormal lengths of nominal mean 600 tokens in 2,048-token sequences about three quarters of the slots are padding. Padding each batch of 16 rows only to its longest document (dynamic) helps little with these heavy-tailed lengths, since most batches hold one long document; sorting by length first (bucket) fills most slots. Packing whole documents (longest first, each into the fullest sequence it still fits) and concatenate-and-split fill nearly every slot at every mean length; past max_len, padding and packing truncate long documents (the lost tokens are in "Show data") while concatenate-and-split keeps them. Choose fixed lengths to see packing\'s saw-tooth, ⌊M/L⌋·L/M. Then switch to the attention view, which draws the two methods that share rows between documents: under a plain causal mask, about half the attention pairs of a packed sequence of documents of mean length 600 connect different documents; a per-document mask removes them.',
  simulation: true,
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'efficiency', options: VIEWS },
    { key: 'max_len', label: 'Sequence length max_len', type: 'select', default: 2048, options: [512, 1024, 2048, 4096, 8192].map((v) => ({ value: v, label: `${v} tokens` })) },
    { key: 'length_distribution', label: 'Document lengths', from: ['packing', 'length_distribution'] },
    { key: 'mean_len', label: 'Marked mean length', from: ['packing', 'mean_len'], min: 16, max: 16384, scale: 'log' },
    { key: 'seed', label: 'Seed', from: ['packing', 'seed'], max: 1000 },
  ],

  data(engine, p) {
    const M = Number(p.max_len);
    const base = { max_len: M, length_distribution: p.length_distribution, samples: 1000, seed: p.seed, batch_rows: BATCH_ROWS };
    const lens = FRACTIONS.map((f) => Math.max(1, Math.round(f * M)));
    const curves = METHODS.map(([method, name]) => ({
      method, name,
      points: lens.map((mean) => {
        const r = engine.calc('packing', { ...base, method, mean_len: mean });
        return { mean, efficiency: r.efficiency, cross: r.cross_document_share, sequences: r.sequences, useful: r.useful_tokens, truncated: r.truncated_tokens };
      }),
    }));
    const marked = METHODS.map(([method]) => {
      const r = engine.calc('packing', { ...base, method, mean_len: p.mean_len });
      return { method, mean: p.mean_len, efficiency: r.efficiency, cross: r.cross_document_share, sequences: r.sequences };
    });
    const table = {
      columns: ['Method', 'Mean length (tokens)', 'Efficiency', 'Sequences', 'Useful tokens', 'Truncated tokens', 'Cross-document attention (causal mask)'],
      rows: [...curves.flatMap((c) => c.points.map((q) => [c.method, q.mean, q.efficiency, q.sequences, q.useful, q.truncated, q.cross])),
        ...marked.map((m) => [`${m.method} (marked)`, m.mean, m.efficiency, m.sequences, '', '', m.cross])],
    };
    return { view: p.view, max_len: M, distribution: p.length_distribution, curves, marked, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const key = data.view === 'attention' ? 'cross' : 'efficiency';
    const datasets = [];
    for (const c of data.curves) {
      const colour = pick();
      if (data.view === 'attention' && !MULTI.has(c.method)) continue;
      // concat and pack both fill nearly every slot: concat is drawn wide and underneath, so
      // the pack curve on top leaves it visible on both sides.
      const under = c.method === 'concat';
      const m = data.marked.find((q) => q.method === c.method);
      datasets.push(series(colour, {
        label: c.name, showLine: true, pointRadius: 3, pointBorderWidth: 1, borderWidth: under ? 6 : 2, group: c.method,
        order: under ? 2 : 1, borderDash: under ? [8, 4] : [],
        data: c.points.map((q) => ({ x: q.mean, y: 100 * q[key], n: q.sequences })),
      }));
      datasets.push(series(colour, {
        label: `${c.method} at the marked length`, pointStyle: 'rectRot', pointRadius: 8, group: c.method, pointLabels: true,
        data: [{ x: m.mean, y: 100 * m[key], n: m.sequences, label: `${c.method}: ${formatShort(100 * m[key])}%` }],
      }));
    }
    const M = data.max_len;
    return chart(theme, {
      datasets,
      legend: { filter: (item) => !item.text.endsWith('at the marked length') },
      scales: {
        x: log(`Mean document length (tokens; sequences of ${M})`, { unit: '', range: [8, 32768] }),
        y: linear(data.view === 'attention' ? 'Causal-mask pairs across documents (%)' : 'Slots holding document tokens (%)', { range: [0, 100], ticks: { stepSize: 20 } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: mean ${formatSI(ctx.raw.x, '')} tokens, ${formatShort(ctx.raw.y)}% (${ctx.raw.n} sequences)`,
    });
  },
};
