// Confidence interval of a benchmark accuracy against the number of questions, by the three
// methods of `accuracy-ci`: Wald's normal approximation, Wilson's score interval and
// Clopper-Pearson's exact interval. One `accuracy-ci` call per method and question count.
import { formatFixed } from '../runtime/format.js';
import { chart, log, linear, colours, line } from './shared/chart-config.js';

export const X_RANGE = [10, 10000];  // questions in the benchmark
const COUNTS = [10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000];
const METHODS = [
  ['wald', 'Wald (normal approximation)'],
  ['wilson', 'Wilson score'],
  ['clopper-pearson', 'Clopper-Pearson (exact)'],
];

export default {
  id: 'accuracy-ci-width',
  title: 'How wide is the error bar of a benchmark score?',
  caption:
    'The half-width of the 95% confidence interval of a measured accuracy, (high \u2212 low)/2 in percentage points, against the number of questions (log axis), by three methods. At the default 90% accuracy all three give about 1.9 points at 1,000 questions, and four times the questions halve it. Watch the left edge: on small benchmarks the methods part, Wald\u2019s normal approximation (clipped at 100%) the narrowest and Clopper-Pearson\u2019s exact interval the widest. Raise the accuracy to 99% and Wald\u2019s half-width drops to zero where every question is right, a certainty the data cannot give; Wilson and Clopper-Pearson stay honest.',
  params: [
    { key: 'accuracy', label: 'Measured accuracy (%)', type: 'number', min: 1, max: 99, default: 90 },
    { key: 'confidence', label: 'Confidence level (%)', type: 'number', min: 50, max: 99.9, default: 95 },
  ],

  data(engine, p) {
    const acc = Number(p.accuracy) / 100;
    const confidence = Number(p.confidence) / 100;
    const curves = METHODS.map(([method, label]) => ({
      method, label,
      points: COUNTS.map((n) => {
        const correct = Math.round(acc * n);
        const r = engine.calc('accuracy-ci', { correct, total: n, confidence, method });
        return { n, ...r };
      }),
    }));
    const table = {
      columns: ['Questions', 'Correct', 'Wald low (%)', 'Wald high (%)', 'Wilson low (%)', 'Wilson high (%)', 'Exact low (%)', 'Exact high (%)'],
      rows: COUNTS.map((n, i) => [n, Math.round(acc * n), ...curves.flatMap((c) => [100 * c.points[i].low, 100 * c.points[i].high])]),
    };
    return { curves, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const datasets = [];
    const dashes = [[], [6, 4], [2, 3]];
    data.curves.forEach((c, i) => {
      datasets.push(line(pick(), { label: c.label, data: c.points.map((q) => ({ x: q.n, y: 100 * q.half_width })), borderDash: dashes[i], borderWidth: 2 }));
    });
    return chart(theme, {
      datasets,
      scales: {
        x: log('Questions in the benchmark (log)', { unit: '', range: X_RANGE }),
        y: linear('Half-width of the interval (percentage points)', { range: [0, 50] }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.raw.x} questions, ${formatFixed(ctx.raw.y, 2)} points`,
    });
  },
};
