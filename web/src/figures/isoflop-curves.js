// Iso-FLOP curves of Hoffmann et al.'s approach-3 fit: for each budget C, the loss of every
// model size N trained on D = C / (6N) tokens (one `scaling-law` call per budget), with the
// closed-form minimum the engine returns as `optimal`.
import { formatSI } from '../runtime/format.js';
import { chart, log, linear, colours, series, line } from './shared/chart-config.js';

export const BUDGETS = [1e19, 1e20, 1e21, 1e22, 5.76e23, 1e25];
const LABEL = (c) => (c === 5.76e23 ? '5.76e23 (Gopher, Chinchilla)' : c.toExponential(0).replace('+', ''));
export const X_RANGE = [1e7, 1e13];
export const Y_RANGE = [1.6, 4.5];

export default {
  id: 'isoflop-curves',
  title: 'Iso-FLOP curves: loss against model size at a fixed budget',
  caption:
    'Each curve spends one training budget C = 6·N·D: a model of N parameters gets D = C / (6N) tokens, and the approach-3 fit L(N, D) = 1.69 + 406.4/N^0.34 + 410.7/D^0.28 gives its loss. Too small a model (left) is starved of parameters, too large a one (right) of tokens; the star marks the minimum. Highlight the Gopher budget, 5.76e23 FLOP: its minimum sits well left of Gopher (280B) and left of Chinchilla (70B) too. Compare the minima across budgets: they move right by about 10^0.45 per decade of compute.',
  params: [
    { key: 'highlight', label: 'Highlighted budget (FLOP)', type: 'select', default: 5.76e23,
      options: BUDGETS.map((c) => ({ value: c, label: LABEL(c) })) },
    { key: 'points', label: 'Points per curve', type: 'select', default: 41,
      options: [11, 21, 41, 81].map((v) => ({ value: v, label: String(v) })) },
  ],

  data(engine, p) {
    const n = Number(p.points);
    const curves = BUDGETS.map((c) => {
      const opt = engine.calc('chinchilla', { compute_flops: c });
      const params = Array.from({ length: n }, (_, i) => opt.params * 10 ** (-2 + (4 * i) / (n - 1)));
      const r = engine.calc('scaling-law', { compute_flops: c, params });
      return { compute: c, label: LABEL(c), curve: r.curve, optimal: r.optimal };
    });
    const hi = curves.find((c) => c.compute === Number(p.highlight)) ?? curves[4];
    // Gopher and Chinchilla at their shared budget: N trained on C / (6N) tokens.
    const gopherBudget = engine.calc('scaling-law', { compute_flops: 5.76e23, params: [280e9, 70e9] }).curve;
    const table = {
      columns: ['Budget C (FLOP)', 'N_opt (params)', 'D_opt (tokens)', 'Tokens per parameter', 'Minimum loss (nats/token)'],
      rows: curves.map((c) => [c.compute, c.optimal.params, c.optimal.tokens, c.optimal.tokens / c.optimal.params, c.optimal.loss]),
    };
    return { curves, highlight: hi.compute, gopherBudget, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const datasets = data.curves.map((c) => series(pick(), {
      label: `C = ${c.label}: N_opt ${formatSI(c.optimal.params, '')}`,
      data: c.curve.map((q) => ({ x: q.params, y: q.loss, D: q.tokens })), showLine: true, pointRadius: 0,
      borderWidth: c.compute === data.highlight ? 4 : 1.5,
    }));
    datasets.push(series(pick('text'), { label: 'Minimum of each curve (closed form)',
      data: data.curves.map((c) => ({ x: c.optimal.params, y: c.optimal.loss, D: c.optimal.tokens,
        label: c.compute === data.highlight ? `min: ${formatSI(c.optimal.params, '')} params, L ${c.optimal.loss.toFixed(3)}` : `${formatSI(c.optimal.params, '')}` })),
      pointStyle: 'star', pointRadius: 9, borderWidth: 2, pointLabels: true }));
    const [gopher, chin] = data.gopherBudget;
    datasets.push(series(pick('compute'), { label: 'Gopher and Chinchilla at 5.76e23 FLOP',
      data: [{ x: gopher.params, y: gopher.loss, D: gopher.tokens, label: `Gopher 280B (L ${gopher.loss.toFixed(3)})` },
        { x: chin.params, y: chin.loss, D: chin.tokens, label: `Chinchilla 70B (L ${chin.loss.toFixed(3)})` }],
      pointStyle: 'triangle', pointRadius: 8, pointLabels: true }));
    return chart(theme, {
      datasets,
      scales: {
        x: log('Parameters N (log)', { unit: '', range: X_RANGE }),
        y: linear('Predicted loss L(N, C/6N) (nats per token)', { range: Y_RANGE }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: N ${formatSI(ctx.raw.x, '')}, D ${formatSI(ctx.raw.D, '')} tokens, loss ${ctx.raw.y.toFixed(3)}`,
    });
  },
};
