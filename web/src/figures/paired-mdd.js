// The smallest difference in accuracy two models can reliably show on the same questions,
// against the correlation of their per-question correctness: paired (the standard error of
// the per-question differences) against unpaired (the two accuracies' errors added as if
// independent). One `paired-comparison` call per correlation and question count.
import { formatFixed, formatDecimal } from '../runtime/format.js';
import { chart, linear, log, colours, line } from './shared/chart-config.js';

// Correlation of the two models' per-question correctness: the axis runs to 1 with a tick every
// 0.1, the curves stop at 0.95 (at ρ = 1 two equally accurate models agree on every question, the
// paired error is zero and has no place on the log axis).
export const X_RANGE = [0, 1];
export const X_STEP = 0.1;
const RHOS = Array.from({ length: 20 }, (_, i) => Math.round(i * 5) / 100);

export default {
  id: 'paired-mdd',
  title: 'The smallest difference a benchmark can show: paired or not',
  caption:
    'The minimum detectable difference (two-sided 5% test, 80% power) between two models that both score about 75%, against the correlation of their per-question correctness. With 1,000 questions, ignoring the pairing (flat line) needs a gap of about 5.4 points; the paired analysis needs about 3.8 points at correlation 0.5 and 2.4 points at 0.8, because questions both models find easy or hard cancel in the difference. The dashed curve is the paired analysis on four times the questions: halving the error by more data costs 4×, raising the correlation from 0 to 0.75 does it for free. The curves stop at 0.95: at 1 the paired error is zero. Move the questions and the accuracy and watch both curves scale by 1/√n and √(p(1 − p)).',
  params: [
    { key: 'total', label: 'Questions n', type: 'number', min: 50, max: 20000, default: 1000, scale: 'log' },
    { key: 'accuracy', label: 'Accuracy of both models (%)', type: 'number', min: 5, max: 95, default: 75 },
  ],

  data(engine, p) {
    const total = Math.round(Number(p.total));
    const acc = Number(p.accuracy) / 100;
    const at = (n, rho) => engine.calc('paired-comparison', { total: n, accuracy_a: acc, accuracy_b: acc, correlation: rho });
    const points = RHOS.map((rho) => {
      const r = at(total, rho);
      const r4 = at(4 * total, rho);
      return { rho, paired: r.min_detectable_difference, paired4: r4.min_detectable_difference, se: r.std_error, unpaired_se: r.unpaired_std_error };
    });
    // The unpaired MDD does not depend on ρ: (z + z_power)·unpaired SE, read at ρ = 0 where both agree.
    const unpaired = at(total, 0).min_detectable_difference;
    points.forEach((q) => { q.unpaired = unpaired; });
    const table = {
      columns: ['Correlation ρ', 'Paired MDD (points)', 'Unpaired MDD (points)', 'Paired MDD, 4n (points)'],
      rows: points.map((q) => [q.rho, 100 * q.paired, 100 * q.unpaired, 100 * q.paired4]),
    };
    return { points, total, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const pts = (k) => data.points.map((q) => ({ x: q.rho, y: 100 * q[k] }));
    const datasets = [
      line(pick(), { label: `Unpaired, ${formatDecimal(data.total)} questions`, data: pts('unpaired'), borderWidth: 3 }),
      line(pick(), { label: `Paired, ${formatDecimal(data.total)} questions`, data: pts('paired'), borderWidth: 3 }),
      line(pick(), { label: `Paired, ${formatDecimal(4 * data.total)} questions`, data: pts('paired4'), borderDash: [6, 4] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Correlation of per-question correctness ρ (0 to 1)', { range: X_RANGE, ticks: { stepSize: X_STEP } }),
        y: log('Minimum detectable difference (points, log)', { unit: '', range: [0.05, 50] }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ρ ${formatFixed(ctx.raw.x, 2)}, ${formatFixed(ctx.raw.y, 2)} points`,
    });
  },
};
