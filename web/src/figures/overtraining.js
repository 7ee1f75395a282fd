// Over-training for cheaper inference (Sardana et al. 2024, arXiv:2401.00448): every (N, D) of
// the same approach-3 loss as a published run, and its total compute 6·N·D + 2·N·I for several
// lifetime inference volumes I, with each volume's cheapest point: one `scaling-law` call per
// volume (its `same_loss` curve and `cheapest`).
import { formatSI, exponentTick } from '../runtime/format.js';
import { modelOptions, publishedModel } from './shared/published-models.js';
import { chart, log, colours, series } from './shared/chart-config.js';

export const VOLUMES = [0, 1e12, 1e13, 1e14];
const VOLUME_LABEL = (v) => (v === 0 ? 'no inference' : `${formatSI(v, '')} tokens served`);
const MODELS = ['llama-3-8b', 'llama-3-70b', 'llama-2-7b', 'llama-2-70b', 'gpt-3-175b', 'gemma-7b'];

export default {
  id: 'overtraining',
  title: 'Over-training: total compute at equal loss, training plus inference',
  caption:
    'Every point reaches the same predicted loss as the chosen published run: a smaller model needs more tokens, a larger one fewer. Each curve adds the inference the model does over its life, 2·N FLOPs per token served, to its training compute 6·N·D; the star is its cheapest model. With no inference the cheapest is the compute-optimal model; as the tokens served grow the star slides left, toward smaller models trained far past 20 tokens per parameter. For Llama 3 8B on 15T tokens (the default), highlight 100T tokens served and the star lands almost on the triangle, the published model. Choose GPT-3 175B: the triangle sits right of every star, a model larger than any volume of inference makes worthwhile for its loss.',
  params: [
    { key: 'model', label: 'Published run (sets the loss)', type: 'select', default: 'llama-3-8b', options: modelOptions(MODELS) },
    { key: 'highlight', label: 'Highlighted inference volume', type: 'select', default: 1e13,
      options: VOLUMES.map((v) => ({ value: v, label: VOLUME_LABEL(v) })) },
  ],

  data(engine, p) {
    const m = publishedModel(engine, p.model);
    const curves = VOLUMES.map((v) => {
      const r = engine.calc('scaling-law', { params: m.params, tokens: m.training_tokens, inference_tokens: v });
      return {
        volume: v, label: VOLUME_LABEL(v),
        points: r.same_loss.map((q) => ({ params: q.params, tokens: q.tokens, total: q.total_flops })),
        cheapest: r.cheapest, reference: { params: m.params, tokens: m.training_tokens, total: r.total_flops }, savings: r.savings_fraction,
        loss: r.loss,
      };
    });
    const { loss } = curves[0];
    const all = curves.flatMap((c) => [c.cheapest.total_flops, c.reference.total]);
    const range = [Math.min(...all) / 2, Math.max(...all) * 4];
    // The same_loss sizes span a decade either side of the compute-optimal one (no inference),
    // widened to a factor of two beyond the published model, so its triangle is always inside.
    const star = curves[0].cheapest.params;
    const xRange = [Math.min(star / 10, m.params / 2), Math.max(star * 10, m.params * 2)];
    const table = {
      columns: ['Tokens served', 'Cheapest N', 'Its D (tokens)', 'Its total (FLOP)', `${m.name} total (FLOP)`, 'Saving (%)'],
      rows: curves.map((c) => [c.volume, c.cheapest.params, c.cheapest.tokens, c.cheapest.total_flops, c.reference.total, Number((100 * c.savings).toPrecision(3))]),
    };
    return { name: m.name, loss, highlight: Number(p.highlight), curves, range, xRange, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const datasets = data.curves.map((c) => series(pick(), {
      label: c.label, data: c.points.map((q) => ({ x: q.params, y: q.total, D: q.tokens })), showLine: true, pointRadius: 0,
      borderWidth: c.volume === data.highlight ? 4 : 1.5,
    }));
    datasets.push(series(pick('text'), { label: 'Cheapest model of each curve', pointStyle: 'star', pointRadius: 9, borderWidth: 2, pointLabels: true,
      data: data.curves.map((c) => ({ x: c.cheapest.params, y: c.cheapest.total_flops, D: c.cheapest.tokens,
        label: c.volume === data.highlight ? `cheapest: ${formatSI(c.cheapest.params, '')} on ${formatSI(c.cheapest.tokens, '')} tokens` : '' })) }));
    const h = data.curves.find((c) => c.volume === data.highlight) ?? data.curves[0];
    datasets.push(series(pick('compute'), { label: `${data.name} as trained`, pointStyle: 'triangle', pointRadius: 8, pointLabels: true,
      data: [{ x: h.reference.params, y: h.reference.total, D: h.reference.tokens, label: `${data.name} (${formatSI(h.reference.tokens, '')} tokens)` }] }));
    return chart(theme, {
      datasets,
      scales: {
        x: log('Parameters N (log)', { unit: '', range: data.xRange }),
        y: log(`Training + inference compute (FLOP) at loss ${data.loss.toFixed(3)}`, { range: data.range, ticks: { callback: exponentTick, autoSkip: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: N ${formatSI(ctx.raw.x, '')}, D ${formatSI(ctx.raw.D, '')} tokens, ${ctx.raw.y.toExponential(2)} FLOP`,
    });
  },
};
