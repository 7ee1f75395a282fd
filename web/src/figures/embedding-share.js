// Share of a model's parameters in its embedding tables (the input table, plus the output head
// when it is untied) against the model's size, for every published configuration of the
// engine's `models` table (calc 'embedding-table' with `model`; the `transformer`
// calculator's count); dense models only (the mixture-of-experts row has no embedding-table preset). Tied and untied models are separate series. The vocabulary control
// replaces every model's vocabulary, to show how much of the share is the vocabulary's.
import { formatSI } from '../runtime/format.js';
import { chart, log, colours, series } from './shared/chart-config.js';

const VOCABS = [0, 32000, 50257, 128256, 256000];
// GPT-2's row is counted without its learned position table and biases (123.6M of the
// checkpoint's 124.4M): name it by its size class rather than by the checkpoint's count.
const NAMES = { 'gpt-2-124m': 'GPT-2 small' };

export default {
  id: 'embedding-share',
  title: 'How much of a model is its embedding table?',
  caption:
    'Each point is a published dense model (Mixtral, a mixture of experts, is left out): its parameters as the engine counts them (log axis) and the percentage of them in the embedding table and, for untied models, the output head. Circles are tied (one matrix serves as input table and output head), squares untied (two). The table grows with vocab × h while the layers grow with about 12·L·h², so the share is large for GPT-2 small and about 1% for Llama 3.1 405B. Parameters are the engine’s count: matrices, norm gains and tables, without GPT-2’s learned position table and biases. Give every model a 256,000-token vocabulary and see GPT-2 small become mostly embedding; give Llama 3 a 32,000-token one and see its share fall.',
  params: [
    { key: 'vocab', label: 'Vocabulary', type: 'select', default: 0,
      options: VOCABS.map((v) => ({ value: v, label: v === 0 ? 'as published' : `${v.toLocaleString('en-US')} for every model` })) },
  ],

  data(engine, p) {
    const vocab = Number(p.vocab);
    const ids = engine.calc('models', {}).models.filter((m) => !m.experts).map((m) => ({ id: m.id, name: NAMES[m.id] ?? m.name, tied: m.tied_embeddings, published_vocab: m.vocab }));
    const points = ids.map((m) => {
      const r = engine.calc('embedding-table', vocab ? { model: m.id, vocab } : { model: m.id });
      return { ...m, vocab: r.vocab, hidden: r.hidden, params: r.params, table_params: r.table_params, share: r.share };
    });
    const table = {
      columns: ['Model', 'Tied', 'Vocabulary (tokens)', 'Width h', 'Parameters (engine count)', 'Embedding + head (parameters)', 'Share (%)'],
      rows: points.map((m) => [m.name, m.tied ? 'yes' : 'no', m.vocab, m.hidden, m.params, m.table_params, 100 * m.share]),
    };
    return { vocab, points, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const pts = (tied) => data.points.filter((m) => m.tied === tied).map((m) => ({ x: m.params, y: 100 * m.share, label: `${m.name} ${(100 * m.share).toFixed(1)}%` }));
    return chart(theme, {
      datasets: [
        series(pick(), { label: 'Tied: one vocab × h matrix', data: pts(true), pointStyle: 'circle', pointRadius: 5, pointLabels: true }),
        series(pick(), { label: 'Untied: embedding and output head', data: pts(false), pointStyle: 'rect', pointRadius: 5, pointLabels: true }),
      ],
      scales: {
        x: log('Parameters (count)', { unit: '', range: [5e7, 2e12] }),
        // Log: the shares run from under 1% (the largest models) to over 30% (GPT-2 small).
        y: log('Parameters in embedding tables (%)', { unit: '', range: [0.1, 100] }),
      },
      tooltip: (ctx) => `${ctx.raw.label}, ${formatSI(ctx.raw.x, '')} parameters`,
    });
  },
};
