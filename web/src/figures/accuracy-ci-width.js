// Confidence interval of a benchmark accuracy against the number of questions, by the three
// methods of `accuracy-ci`: Wald's normal approximation, Wilson's score interval and
// Clopper-Pearson's exact interval. One `accuracy-ci` call per method and question count.
// Both axes are logarithmic, so the 1/√n law is a straight line of slope −½. The counts are
// multiples of 10, so a whole-percent accuracy that is a multiple of 10 is hit exactly; others
// round the count right (Math.round(accuracy·n)), which the table shows.
import { formatFixed } from '../runtime/format.js';
import { chart, log, colours, line, series } from './shared/chart-config.js';

export const X_RANGE = [10, 10000];  // questions in the benchmark
// Half-width, points. The floor sits below the narrowest interval over every setting (1% or
// 99% at 50% confidence on 10,000 questions: about 0.07 points); a zero-width Wald interval
// (every answer alike) has no place on a log axis and is marked on that floor instead.
export const Y_RANGE = [0.05, 50];
const COUNTS = [10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 400, 500, 600, 800, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 8000, 10000];
const METHODS = [
  ['wald', 'Wald (normal approximation)'],
  ['wilson', 'Wilson score'],
  ['clopper-pearson', 'Clopper-Pearson (exact)'],
];

export default {
  id: 'accuracy-ci-width',
  title: 'How wide is the error bar of a benchmark score?',
  caption:
    'The half-width of the 95% confidence interval of a measured accuracy, (high \u2212 low)/2 in percentage points, against the number of questions, both axes logarithmic, by three methods. At the default 90% all three give about 1.9 points at 1,000 questions and fall on a straight line: four times the questions halve the width. On small benchmarks the methods part, Clopper-Pearson\u2019s exact interval the widest; Wald\u2019s flattens below about 35 questions, where its upper end is clipped at 100%. Raise the accuracy to 99%: the count right is rounded (99% of 50 is all 50), Wald\u2019s width drops to zero (triangles on the floor), a certainty the data cannot give; Wilson and Clopper-Pearson stay honest.',
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
        return { n, correct, ...r };
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
    const at = (q) => ({ x: q.n, y: 100 * q.half_width, correct: q.correct });
    data.curves.forEach((c, i) => {
      const colour = pick();
      // A zero width (every answer alike) breaks the line; it is marked on the floor.
      const pts = c.points.map((q) => (q.half_width > 0 ? at(q) : { x: q.n, y: null, correct: q.correct }));
      datasets.push(line(colour, { label: c.label, data: pts, borderDash: dashes[i], borderWidth: 2, group: c.method }));
      const zero = c.points.filter((q) => !(q.half_width > 0));
      if (zero.length) {
        datasets.push(series(colour, { label: `${c.label}: zero width`, group: c.method, pointStyle: 'triangle', pointRadius: 6,
          data: zero.map((q) => ({ x: q.n, y: Y_RANGE[0], correct: q.correct, zero: true })) }));
      }
    });
    return chart(theme, {
      datasets,
      scales: {
        x: log('Questions in the benchmark (log)', { unit: '', range: X_RANGE }),
        y: log('Half-width of the interval (percentage points, log)', { unit: '', range: Y_RANGE }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.raw.correct} of ${ctx.raw.x} right, ${ctx.raw.zero ? '0' : formatFixed(ctx.raw.y, 2)} points`,
    });
  },
};
