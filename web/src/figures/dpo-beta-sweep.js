// DPO executed on the engine's seeded toy preference set at several β: the final loss (from ln 2
// at the reference policy), the implicit reward margin β·Δlog-ratio and the KL divergence from
// the reference, beside the exact optimum of the loss (the same loss and margin at every β,
// reached 1/β as far from the reference). One `dpo-beta` call (a calculator beyond API.md).
import { formatFixed } from '../runtime/format.js';
import { chart, log, linear, colours, series, line } from './shared/chart-config.js';

export const BETAS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1];
export const X_RANGE = [0.008, 1.25];

export default {
  id: 'dpo-beta-sweep',
  title: 'DPO on a toy preference set: loss, implicit reward and drift against β',
  simulation: true,
  caption:
    'DPO on 64 seeded preference pairs, some mislabelled, from the reference (loss ln 2, dotted). β only rescales w − w\u2080, so the loss has one optimum for every β: the same loss (dashed line) and margin, reached 1/β as far away, so its KL from the reference (hollow triangles) falls as β grows. The filled points are 200 full-batch Adam steps. Adam\u2019s step is set by the learning rate, not by the gradient\u2019s scale, so a small-β run falls short of its distant optimum (higher loss, smaller margin) while drifting as far. Cut the steps to 20: at β = 0.01 the policy has drifted 0.88 nats of KL for a margin of 0.02.',
  params: [
    { key: 'steps', label: 'Training steps', type: 'integer', min: 10, max: 500, default: 200 },
    { key: 'pairs', label: 'Preference pairs', type: 'integer', min: 8, max: 256, default: 64 },
    { key: 'seed', label: 'Seed of the toy set', type: 'integer', min: 1, max: 1000, default: 1 },
  ],

  data(engine, p) {
    const r = engine.calc('dpo-beta', { betas: BETAS, steps: Number(p.steps), pairs: Number(p.pairs), seed: Number(p.seed) });
    const table = {
      columns: ['β', 'Final loss', 'Implicit reward margin', 'Accuracy', 'KL from reference (nats)',
        'Loss at the optimum', 'Margin at the optimum', 'KL at the optimum (nats)'],
      rows: r.points.map((q) => [q.beta, q.loss, q.reward_margin, q.accuracy, q.kl,
        r.optimum_finite ? r.optimum_loss : 'none (separable)', r.optimum_finite ? r.optimum_reward_margin : 'none',
        r.optimum_finite ? q.optimum_kl : 'unbounded']),
    };
    return { ...r, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const pts = (k) => data.points.map((q) => ({ x: q.beta, y: q[k] }));
    const datasets = [
      series(pick(), { label: 'Final DPO loss', data: pts('loss'), showLine: true, borderWidth: 3, pointRadius: 4, yAxisID: 'y' }),
      series(pick(), { label: 'Implicit reward margin', data: pts('reward_margin'), showLine: true, borderWidth: 2, pointStyle: 'rect', pointRadius: 4, yAxisID: 'y' }),
      series(pick(), { label: 'KL from the reference (right axis)', data: pts('kl'), showLine: true, borderWidth: 2, borderDash: [6, 4], pointStyle: 'triangle', pointRadius: 5, yAxisID: 'y1' }),
      line(pick('muted'), { label: 'ln 2: the loss at the reference', data: X_RANGE.map((x) => ({ x, y: data.ln2 })), borderDash: [2, 3], yAxisID: 'y' }),
    ];
    if (data.optimum_finite) {
      datasets.push(
        line(pick(), { label: 'Loss at the optimum (every β)', data: X_RANGE.map((x) => ({ x, y: data.optimum_loss })), borderDash: [8, 3], yAxisID: 'y' }),
        series(pick(), { label: 'KL at the optimum (right axis)', data: pts('optimum_kl'), showLine: true, borderWidth: 2, borderDash: [2, 2], pointStyle: 'triangle', pointRadius: 6, backgroundColor: theme.background, yAxisID: 'y1' }),
      );
    }
    const top = Math.max(3, ...data.points.map((q) => q.reward_margin));
    const klTop = Math.max(2, ...data.points.map((q) => Math.max(q.kl, data.optimum_finite ? q.optimum_kl : 0)));
    return chart(theme, {
      datasets,
      scales: {
        x: log('β (log)', { unit: '', range: X_RANGE }),
        y: linear('Loss and reward margin (nats)', { min: 0, suggestedMax: top, position: 'left' }),
        y1: linear('KL(π ‖ π_ref) (nats)', { min: 0, suggestedMax: klTop, position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: β ${ctx.raw.x}, ${formatFixed(ctx.raw.y, 3)}`,
    });
  },
};
