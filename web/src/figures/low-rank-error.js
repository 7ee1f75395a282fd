// Low-rank approximation of a weight update by an executed SVD (one-sided Jacobi): the relative
// Frobenius error of the best rank-r approximation at every r (Eckart–Young: the root of the
// sum of the dropped σ²) and the singular values that set it. One `low-rank` call.
import { formatFixed } from '../runtime/format.js';
import { chart, linear, colours, series, line } from './shared/chart-config.js';

export default {
  id: 'low-rank-error',
  title: 'How much of a weight update a rank-r factorisation keeps',
  caption:
    'A 96 \u00d7 64 stand-in for a weight update \u0394W: eight directions with singular values 1, 0.7, 0.49, \u2026 (each 0.7 of the one before) plus a little noise, factored by an SVD the engine runs. The bars are the singular values (as % of the largest); the line is the relative error of the best rank-r approximation, which keeps the r largest. At the defaults r = 4 keeps 93% of the energy and leaves a 26% error with 640 numbers instead of 6,144. Past the eighth value the line flattens on the noise floor: extra rank buys almost nothing. Set the decay to 0.95 and the spectrum is flat: the same r now leaves a 63% error and keeps only 60% of the energy. Raise the noise and the floor rises.',
  simulation: true,
  params: [
    { key: 'true_rank', label: 'Planted directions', from: ['low-rank', 'true_rank'], min: 1, max: 32 },
    { key: 'decay', label: 'Decay of the planted σ', from: ['low-rank', 'decay'], min: 0.3, max: 1 },
    { key: 'noise', label: 'Noise', from: ['low-rank', 'noise'], min: 0, max: 0.5 },
    { key: 'rank', label: 'Rank r of the approximation', from: ['low-rank', 'rank'], min: 0, max: 64 },
  ],

  data(engine, p) {
    const r = engine.calc('low-rank', {
      rows: 96, cols: 64, true_rank: Number(p.true_rank), decay: Number(p.decay), noise: Number(p.noise), rank: Number(p.rank),
    });
    const s1 = r.singular_values[0] || 1;
    const table = {
      columns: ['Rank r', 'σ_r (% of σ_1)', 'Relative error of the best rank-r approximation (%)'],
      rows: r.by_rank.map((q, i) => [q.rank, i > 0 ? (100 * r.singular_values[i - 1]) / s1 : null, 100 * q.relative_error]),
    };
    return { ...r, rank: Number(p.rank), s1, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const readout = `Your r = ${data.rank}: ${formatFixed(100 * data.relative_error, 1)}% error, ${formatFixed(100 * data.energy_kept, 1)}% of energy kept`;
    // The error line and the rank's marker are drawn over the bars (Chart.js draws a lower
    // `order` later), and the bars take 60% of each slot, so the curve shows between and over
    // them at every rank. The readout is the marker's legend entry, not a label beside it: at a
    // flat spectrum (decay 0.95) every place near the marker lies on a bar.
    const datasets = [
      series(pick(), { type: 'bar', label: 'Singular value σ_i (% of σ_1)', order: 3, barPercentage: 0.6, categoryPercentage: 1,
        data: data.singular_values.map((s, i) => ({ x: i + 1, y: (100 * s) / data.s1 })) }),
      line(pick(), { label: 'Relative error of the best rank-r approximation (%)', order: 2, borderWidth: 3,
        data: data.by_rank.map((q) => ({ x: q.rank, y: 100 * q.relative_error })) }),
      series(pick('text'), { label: readout, order: 1, pointStyle: 'rectRot', pointRadius: 8,
        data: [{ x: data.rank, y: 100 * data.relative_error }] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Rank r of the approximation, or index i of σ_i (count)', { range: [0, 64], ticks: { stepSize: 8, includeBounds: false } }),
        // A little headroom above 100% so that σ_1's bar and the r = 0 point clear the frame.
        y: linear('σ_i as a share of σ_1, or relative error (%)', { range: [0, 105], ticks: { stepSize: 20, includeBounds: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatFixed(ctx.raw.y, 2)}% at ${ctx.raw.x}`,
    });
  },
};
