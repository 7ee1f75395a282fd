// Iso-FLOP curves of the Chinchilla law L(N, D) = E + A/N^α + B/D^β: for each budget C, the
// loss of every model size N trained on D = C / (6N) tokens (one `scaling-law` call per budget),
// with the closed-form minimum the engine returns as `optimal`. The constants are Hoffmann et
// al.'s printed approach-3 fit or Besiroglu et al.'s 2024 refit (the calculators' `fit`); the
// close-up view shows Gopher's budget alone, with Gopher and Chinchilla on it.
import { formatSI } from '../runtime/format.js';
import { chart, log, linear, colours, series } from './shared/chart-config.js';

export const BUDGETS = [1e19, 1e20, 1e21, 1e22, 5.76e23, 1e25];
export const GOPHER_BUDGET = 5.76e23;
const LABEL = (c) => (c === GOPHER_BUDGET ? '5.76e23 (Gopher, Chinchilla)' : c.toExponential(0).replace('+', ''));
export const FITS = {
  'hoffmann-2022': 'Hoffmann et al. 2022, as printed',
  'besiroglu-2024': 'Besiroglu et al. 2024 refit',
};
// Fixed per view, whichever fit is shown: every budget, or Gopher's budget close up.
export const RANGES = {
  all: { x: [1e7, 1e13], y: [1.6, 4.5] },
  gopher: { x: [1e10, 1e12], y: [1.92, 2.08] },
};

export default {
  id: 'isoflop-curves',
  title: 'Iso-FLOP curves: loss against model size at a fixed budget',
  caption:
    'Each curve spends one training budget C = 6·N·D: a model of N parameters gets D = C / (6N) tokens, and the law L(N, D) = E + A/N^α + B/D^β gives its loss. Too small a model (left) is starved of parameters, too large a one (right) of tokens; the star marks the minimum, and the minima move right by the same factor per decade of compute. Switch the view to Gopher\'s budget close up: with the printed constants the minimum sits at about 32B parameters, well left of Chinchilla (70B) and far left of Gopher (280B). Then switch the constants to Besiroglu et al.\'s refit: the minimum moves onto Chinchilla, about 20 tokens per parameter, as approaches 1 and 2 of the paper found.',
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'all',
      options: [{ value: 'all', label: 'Six budgets, 1e19 to 1e25 FLOP' }, { value: 'gopher', label: "Gopher's budget close up" }] },
    { key: 'fit', label: 'Constants of the law', type: 'select', default: 'hoffmann-2022',
      options: Object.entries(FITS).map(([value, label]) => ({ value, label })) },
  ],

  data(engine, p) {
    const fit = p.fit;
    const budgets = p.view === 'gopher' ? [GOPHER_BUDGET] : BUDGETS;
    const [lo, hi] = RANGES.gopher.x;
    // Close up, 81 sizes across the view evenly in log N; otherwise the engine's 41 from
    // N_opt / 100 to 100·N_opt.
    const closeUp = p.view === 'gopher' ? { params: Array.from({ length: 81 }, (_, i) => lo * (hi / lo) ** (i / 80)) } : {};
    const curves = budgets.map((c) => {
      const r = engine.calc('scaling-law', { compute_flops: c, fit, ...closeUp });
      return { compute: c, label: LABEL(c), curve: r.curve, optimal: r.optimal };
    });
    // Gopher and Chinchilla at their shared budget: N trained on C / (6N) tokens.
    const gopherBudget = engine.calc('scaling-law', { compute_flops: GOPHER_BUDGET, params: [280e9, 70e9], fit }).curve;
    const table = {
      columns: ['Budget C (FLOP)', 'N_opt (params)', 'D_opt (tokens)', 'Tokens per parameter', 'Minimum loss (nats/token)'],
      rows: curves.map((c) => [c.compute, c.optimal.params, c.optimal.tokens, c.optimal.tokens / c.optimal.params, c.optimal.loss]),
    };
    return { view: p.view, fit, fitLabel: FITS[fit], curves, gopherBudget, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const closeUp = data.view === 'gopher';
    const datasets = data.curves.map((c) => series(pick(), {
      label: `C = ${c.label}: N_opt ${formatSI(c.optimal.params, '')}`,
      data: c.curve.map((q) => ({ x: q.params, y: q.loss, D: q.tokens })), showLine: true, pointRadius: 0,
      borderWidth: c.compute === GOPHER_BUDGET ? 4 : 1.5,
    }));
    const ratio = (c) => Math.round(c.optimal.tokens / c.optimal.params);
    datasets.push(series(pick('text'), { label: `Minimum of each curve (${data.fitLabel})`,
      data: data.curves.map((c) => ({ x: c.optimal.params, y: c.optimal.loss, D: c.optimal.tokens,
        label: closeUp ? `min ${formatSI(c.optimal.params, '')}, ${ratio(c)} tokens/param, L ${c.optimal.loss.toFixed(3)}` : formatSI(c.optimal.params, '') })),
      pointStyle: 'star', pointRadius: 9, borderWidth: 2, pointLabels: true }));
    // Named in the close-up only: in the full view they share a few pixels with the minimum.
    const [gopher, chin] = data.gopherBudget;
    datasets.push(series(pick('compute'), { label: 'Gopher (280B) and Chinchilla (70B) at 5.76e23 FLOP',
      data: [{ x: gopher.params, y: gopher.loss, D: gopher.tokens, label: closeUp ? `Gopher 280B, L ${gopher.loss.toFixed(3)}` : '' },
        { x: chin.params, y: chin.loss, D: chin.tokens, label: closeUp ? `Chinchilla 70B, L ${chin.loss.toFixed(3)}` : '' }],
      pointStyle: 'triangle', pointRadius: 8, pointLabels: true }));
    const r = RANGES[closeUp ? 'gopher' : 'all'];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Parameters N (log)', { unit: '', range: r.x }),
        y: linear('Predicted loss L(N, C/6N) (nats per token)', { range: r.y }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: N ${formatSI(ctx.raw.x, '')}, D ${formatSI(ctx.raw.D, '')} tokens, loss ${ctx.raw.y.toFixed(3)}`,
    });
  },
};
