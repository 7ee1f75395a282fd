// Spread of a benchmark score from run to run against the number of questions: question
// sampling alone (√(p(1 − p)/n)), training-seed noise alone (flat) and both together (the law
// of total variance), with the spread measured on seeded simulations of several training seeds
// (`eval-seeds`), and the bias a contaminated share of the test adds (`contamination`), which
// no number of questions or seeds removes.
import { formatFixed, formatDecimal } from '../runtime/format.js';
import { chart, log, colours, line, series } from './shared/chart-config.js';

export const X_RANGE = [100, 100000];  // questions in the benchmark
export const Y_RANGE = [0.05, 50];     // percentage points
const COUNTS = [100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000];
const SIMULATED = [100, 300, 1000, 3000, 10000, 30000];

export default {
  id: 'seed-spread-contamination',
  title: 'What more questions cannot fix: seed noise and contamination',
  caption:
    'The standard deviation of a measured accuracy from run to run, in percentage points, against the number of questions (both axes log), for a recipe that scores 75% on average and whose true accuracy moves by 1 point from training seed to training seed. Question sampling alone falls as 1/√n, from 4.3 points at 100 questions to 0.14 at 100,000; the seed noise stays at 1 point, so the total (1.7 points at 1,000 questions) never falls below 1 point. The dots are the spread measured over 20 simulated seeds and scatter around the total. The dashed line is the bias when 10% of the test questions were in the training data and are all answered right: 2.5 points, larger than the total spread beyond about 360 questions, and neither more questions nor more seeds reduce it. Move the seed-to-seed spread to 0 and the total follows the sampling line; move the contaminated share and watch the bias line.',
  params: [
    { key: 'accuracy', label: 'Mean accuracy (%)', type: 'number', min: 5, max: 95, default: 75 },
    { key: 'seed_std', label: 'Seed-to-seed spread (points)', type: 'number', min: 0, max: 5, default: 1 },
    { key: 'seeds', label: 'Simulated seeds', type: 'number', min: 3, max: 50, default: 20 },
    { key: 'share', label: 'Contaminated share of the test (%)', type: 'number', min: 0, max: 50, default: 10 },
  ],

  data(engine, p) {
    const accuracy = Number(p.accuracy) / 100;
    const seedStd = Number(p.seed_std) / 100;
    const seeds = Math.round(Number(p.seeds));
    const share = Number(p.share) / 100;
    const at = (n) => engine.calc('eval-seeds', { total: n, accuracy, seed_std: seedStd, seeds, seed: 1 });
    const points = COUNTS.map((n) => {
      const r = at(n);
      return { n, sampling: r.sampling_std, seed: r.seed_std, total: r.expected_std };
    });
    const simulated = SIMULATED.map((n) => ({ n, std: at(n).simulated_std }));
    const c = engine.calc('contamination', {
      total: 1000, accuracy_a: accuracy, accuracy_b: accuracy, contaminated_share_a: share, contaminated_share_b: 0,
      memorized_accuracy: 1, seed: 1,
    });
    const bias = c.inflation_a;
    const table = {
      columns: ['Questions', 'Sampling SD (points)', 'Seed SD (points)', 'Total SD (points)', 'Contamination bias (points)'],
      rows: points.map((q) => [q.n, 100 * q.sampling, 100 * q.seed, 100 * q.total, 100 * bias]),
    };
    return { points, simulated, bias, seeds, share, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const clip = (y) => Math.max(Y_RANGE[0], y);
    const pts = (k) => data.points.map((q) => ({ x: q.n, y: clip(100 * q[k]) }));
    const datasets = [
      line(pick(), { label: 'Question sampling √(p(1 − p)/n)', data: pts('sampling'), borderWidth: 3 }),
      line(pick(), { label: 'Training-seed noise', data: pts('seed'), borderWidth: 3 }),
      line(pick(), { label: 'Both together', data: pts('total'), borderWidth: 3 }),
      series(pick(), {
        label: `Measured over ${formatDecimal(data.seeds)} simulated seeds`,
        data: data.simulated.map((q) => ({ x: q.n, y: clip(100 * q.std) })), pointRadius: 5, pointStyle: 'circle',
      }),
      line(pick(), {
        label: `Bias from ${formatFixed(100 * data.share, 0)}% contamination`,
        data: X_RANGE.map((x) => ({ x, y: clip(100 * data.bias) })), borderDash: [6, 4],
      }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Questions in the benchmark n (log)', { unit: '', range: X_RANGE }),
        y: log('Spread or bias of the score (points, log)', { unit: '', range: Y_RANGE }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: n ${formatDecimal(ctx.raw.x)}, ${formatFixed(ctx.raw.y, 2)} points`,
    });
  },
};
