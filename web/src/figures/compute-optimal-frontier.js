// The compute-optimal frontier: N_opt and D_opt against the budget C from the approach-3 fit
// (`chinchilla` with compute_flops), beside the 20-tokens-per-parameter rule the same call
// returns, with the published models of the engine's `models` table that have training_tokens
// placed at C = 6·N·D.
import { formatSI, exponentTick } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';

export const BUDGETS = Array.from({ length: 19 }, (_, i) => 10 ** (18 + i / 2)); // 1e18 … 1e27
export const X_RANGE = [1e18, 1e27];
export const Y_RANGE = [1e8, 1e15];

export default {
  id: 'compute-optimal-frontier',
  title: 'Compute-optimal model size and data against the budget',
  caption:
    'For each training budget C, the model size N and token count D that minimise the approach-3 loss fit under C = 6·N·D (solid), beside the rule of thumb of 20 tokens per parameter (dashed). Published models sit at their own C = 6·N·D: a model point above the N line (and its data point below the D line) was made bigger than the fit would choose and trained on less data, one below it the reverse; each model\'s data square sits straight above its labelled triangle, at the same C (hover over or tap a square for its name). Switch the view to tokens per parameter: GPT-3 and PaLM sit below 2, Llama 3 8B near 1,900. The printed constants put the optimum at about 25 tokens per parameter at 1e18 FLOP and over 150 at 1e27, instead of near 20; Besiroglu et al.\'s refit of the same law (dotted) stays between about 15 and 30 across the whole range.',
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'sizes',
      options: [{ value: 'sizes', label: 'N and D against C' }, { value: 'ratio', label: 'Tokens per parameter against C' }] },
  ],

  data(engine, p) {
    const frontier = BUDGETS.map((c) => {
      const r = engine.calc('chinchilla', { compute_flops: c });
      const refit = engine.calc('chinchilla', { compute_flops: c, fit: 'besiroglu-2024' });
      return { compute: c, params: r.params, tokens: r.tokens, params20: r.params_20_tokens_per_param, tokens20: r.tokens_20_tokens_per_param, ratio: r.tokens / r.params,
        refitRatio: refit.tokens / refit.params };
    });
    const models = engine.calc('models', {}).models.filter((m) => m.training_tokens > 0).map((m) => {
      const r = engine.calc('chinchilla', { params: m.params, tokens: m.training_tokens });
      const opt = engine.calc('chinchilla', { compute_flops: r.compute_flops });
      return { id: m.id, name: m.name, params: m.params, tokens: m.training_tokens, compute: r.compute_flops, ratio: r.tokens_per_param,
        optimalParams: opt.params, sizeVsOptimal: m.params / opt.params };
    });
    const table = {
      columns: ['Model', 'N (params)', 'D (tokens)', 'C = 6ND (FLOP)', 'Tokens per parameter', 'N / N_opt (approach 3)'],
      rows: models.map((m) => [m.name, m.params, m.tokens, m.compute, m.ratio, m.sizeVsOptimal]),
    };
    return { view: p.view, frontier, models, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const datasets = [];
    const tip = (ctx) => `${ctx.dataset.label}${ctx.raw.name ? ` (${ctx.raw.name})` : ''}: C ${ctx.raw.x.toExponential(2)} FLOP, ${formatSI(ctx.raw.y, '')}`;
    if (data.view === 'ratio') {
      datasets.push(line(pick(), { label: 'Approach 3: D_opt / N_opt', data: data.frontier.map((f) => ({ x: f.compute, y: f.ratio })) }));
      datasets.push(line(pick(), { label: 'Besiroglu et al. 2024 refit: D_opt / N_opt', data: data.frontier.map((f) => ({ x: f.compute, y: f.refitRatio })), borderDash: [2, 3] }));
      datasets.push(line(pick(), { label: '20 tokens per parameter', data: data.frontier.map((f) => ({ x: f.compute, y: 20 })), borderDash: [6, 4] }));
      datasets.push(series(pick(), { label: 'Published models (D / N)', pointStyle: 'triangle', pointRadius: 7, pointLabels: true,
        data: data.models.map((m) => ({ x: m.compute, y: m.ratio, label: `${m.name}: ${m.ratio < 10 ? m.ratio.toFixed(1) : Math.round(m.ratio)}` })) }));
      return chart(theme, { datasets, tooltip: tip,
        scales: { x: log('Training compute C (FLOP)', { range: X_RANGE, ticks: { callback: exponentTick } }), y: log('Tokens per parameter D / N (ratio)', { unit: '', range: [0.5, 5e3] }) } });
    }
    datasets.push(line(pick(), { label: 'Approach 3: N_opt (parameters)', data: data.frontier.map((f) => ({ x: f.compute, y: f.params })) }));
    datasets.push(line(pick(), { label: 'Approach 3: D_opt (tokens)', data: data.frontier.map((f) => ({ x: f.compute, y: f.tokens })) }));
    datasets.push(line(pick(), { label: '20 tokens/param: N', data: data.frontier.map((f) => ({ x: f.compute, y: f.params20 })), borderDash: [6, 4] }));
    datasets.push(line(pick(), { label: '20 tokens/param: D', data: data.frontier.map((f) => ({ x: f.compute, y: f.tokens20 })), borderDash: [6, 4] }));
    datasets.push(series(pick(), { label: 'Published models: N', pointStyle: 'triangle', pointRadius: 7, pointLabels: true,
      data: data.models.map((m) => ({ x: m.compute, y: m.params, label: m.name })) }));
    datasets.push(series(pick(), { label: 'Published models: D', pointStyle: 'rect', pointRadius: 6,
      data: data.models.map((m) => ({ x: m.compute, y: m.tokens, name: m.name })) }));
    return chart(theme, { datasets, tooltip: tip,
      scales: { x: log('Training compute C (FLOP)', { range: X_RANGE, ticks: { callback: exponentTick } }), y: log('Parameters N (count) or tokens D (tokens)', { unit: '', range: Y_RANGE }) } });
  },
};
