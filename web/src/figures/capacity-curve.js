// Train and validation error against model capacity: polynomials of degree 0 … max_degree
// fitted to the same seeded noisy samples by the engine's executed least squares (Householder
// QR; past degree n − 1, where there are more coefficients than samples, the minimum-norm
// interpolant). One calc('polyfit') with max_degree returns the whole sweep (by_degree); the
// figure only arranges it: the interpolation threshold (degree n − 1, n coefficients for n
// samples, train error 0 up to rounding), the best validation degree, and the validation peak
// with the error after it (double descent, Belkin et al. 2019) when the sweep has one.
import { formatShort, formatPlain } from '../runtime/format.js';
import { chart, linear, log, colours, series, line, lineLabel, offLine } from './shared/chart-config.js';

// The error axis of the capacity and sample-size figures: fixed, so that the controls move the
// curves and not the axis. An exact fit's train error (about 1e-30, rounding) and the
// interpolation peaks (about 1e20 at the defaults, more with more noise) lie beyond it: such values are drawn on
// the edge, with a marker, and the tooltip and table keep the engine's value. The capacity
// figure's axis can also start at 1e-20 (FLOORS), where noise-free fits are drawn.
export const ERROR_RANGE = [1e-4, 1e12];
const FLOORS = [
  { value: 1e-4, label: '10⁻⁴ (noisy labels)' },
  { value: 1e-20, label: '10⁻²⁰ (noise-free fits)' },
];

// A value as drawn on a log axis of range [lo, hi]: on the axis, or pinned to its edge.
export function onAxis(v, [lo, hi] = ERROR_RANGE) {
  if (!(v > lo)) return { y: lo, clipped: 'below' };
  if (v > hi) return { y: hi, clipped: 'above' };
  return { y: v, clipped: null };
}

// Labels: three significant digits, but whole thousands to millions as the prose writes
// them ("1,284", not "1.28e+3").
export const fmt = (v) => (Math.abs(v) >= 1000 && Math.abs(v) < 1e9 ? formatPlain(v) : formatShort(v));

// Tick labels of an error axis spanning many decades: powers of ten only ("0.01", "1",
// "1000", "1e6"), every other one when the axis spans more than eight decades, every fourth
// beyond sixteen.
export const decadeTicks = ([lo, hi]) => ({
  maxRotation: 0,
  callback: (v) => {
    const k = Math.round(Math.log10(v));
    if (Math.abs(v / 10 ** k - 1) > 1e-9) return '';
    const decades = Math.log10(hi / lo);
    if (k % (decades > 16 ? 4 : decades > 8 ? 2 : 1) !== 0) return '';
    return k >= -2 && k <= 3 ? String(Number(v.toPrecision(1))) : `1e${k}`;
  },
});

// Weight decay for every degree of the sweep: none (plain least squares and, past the
// threshold, the minimum-norm interpolant) or a ridge penalty.
const DECAYS = [
  { value: 0, label: '0 (least squares)' },
  { value: 1e-6, label: '10⁻⁶' },
  { value: 1e-4, label: '10⁻⁴' },
  { value: 1e-3, label: '10⁻³' },
  { value: 1e-2, label: '0.01' },
  { value: 0.1, label: '0.1' },
];

export default {
  id: 'capacity-curve',
  title: 'Train and validation error against model capacity',
  caption:
    'Polynomials of degree 0 to the maximum degree, each fitted by least squares to the same noisy samples of sin(πx), and scored on the training samples and on 200 fresh validation samples. Training error only falls as the degree grows, and reaches zero (drawn on the bottom edge) at the interpolation threshold, degree n − 1, where the n coefficients fit the n samples exactly. Validation error falls, then rises: the best degree (star) is low. At the threshold it peaks, and beyond it, where the engine returns the smallest interpolating polynomial, it falls again, a second descent that at the defaults stays well above the best degree. Set the noise to 0 and the error axis to 10⁻²⁰: with nothing to memorize the validation error falls by many orders of magnitude up to the threshold and the bump is gone, but past the threshold it rises, since the smallest interpolant is not the true function. Add weight decay and the peak sinks by orders of magnitude, while the training error at the threshold stays above zero; change the seed to see how much of it is one draw; move the samples to move the threshold.',
  simulation: true,
  params: [
    { key: 'samples', label: 'Training samples n', from: ['polyfit', 'samples'], max: 40, default: 20 },
    { key: 'noise', label: 'Label noise σ', from: ['polyfit', 'noise'], max: 1, default: 0.1 },
    { key: 'function', label: 'True function', from: ['polyfit', 'function'] },
    { key: 'seed', label: 'Seed', from: ['polyfit', 'seed'], max: 99 },
    { key: 'max_degree', label: 'Maximum degree', from: ['polyfit', 'max_degree'], min: 1, default: 40 },
    { key: 'weight_decay', label: 'Weight decay λ', type: 'select', default: 0, options: DECAYS },
    { key: 'floor', label: 'Error axis from', type: 'select', default: 1e-4, options: FLOORS },
  ],

  data(engine, p) {
    const r = engine.calc('polyfit', { samples: p.samples, noise: p.noise, function: p.function, seed: p.seed,
      degree: 0, max_degree: p.max_degree, weight_decay: Number(p.weight_decay) });
    const rows = r.by_degree.map((q) => ({ degree: q.degree, train: q.train_mse, validation: q.validation_mse }));
    const best = rows.reduce((a, b) => (b.validation < a.validation ? b : a));
    const threshold = p.samples - 1; // n coefficients for n samples: degree n − 1
    const atThreshold = rows.find((q) => q.degree === threshold) ?? null;
    // The validation peak past the best degree, and whether the error falls again after it.
    const after = rows.filter((q) => q.degree > best.degree);
    const peak = after.length ? after.reduce((a, b) => (b.validation > a.validation ? b : a)) : null;
    const last = rows[rows.length - 1];
    // A second descent: the last degree's error at most half the peak's (noise-free fits only
    // wobble is not a bump), after a peak at least a hundred times the best error.
    const secondDescent = peak && peak.degree < last.degree && last.validation <= peak.validation / 2 &&
      peak.validation >= 100 * best.validation ? last : null;
    const table = {
      columns: ['Degree', 'Coefficients', 'Train MSE', 'Validation MSE'],
      rows: rows.map((q) => [q.degree, q.degree + 1, q.train, q.validation]),
    };
    return { range: [Number(p.floor), ERROR_RANGE[1]], samples: p.samples, noise: p.noise, noiseVariance: r.noise_variance, maxDegree: p.max_degree, rows, best,
      threshold, atThreshold, peak, secondDescent, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const [train, validation] = [pick(), pick()];
    const range = data.range;
    const pts = (key) => data.rows.map((q) => ({ x: q.degree, ...onAxis(q[key], range), q }));
    const trainPts = pts('train');
    const valPts = pts('validation');
    const clipped = [...trainPts, ...valPts].filter((q) => q.clipped);
    const [lo, hi] = range;
    const datasets = [
      series(train, { label: 'Train MSE (the n samples fitted)', data: trainPts, showLine: true, pointRadius: 3, borderWidth: 2,
        pointStyle: 'circle', group: 'train' }),
      series(validation, { label: 'Validation MSE (200 fresh samples)', data: valPts, showLine: true, pointRadius: 3, borderWidth: 2,
        pointStyle: 'rect', group: 'validation' }),
    ];
    if (data.noiseVariance > 0) {
      // Its label sits right of the middle, where the train curve has already left for the floor.
      const muted = pick('muted');
      datasets.push(line(muted, { label: `Noise floor σ² = ${fmt(data.noiseVariance)} (irreducible error)`,
        data: [{ x: 0, y: data.noiseVariance }, { x: data.maxDegree, y: data.noiseVariance }], borderDash: [6, 4], group: 'floor' }),
      lineLabel(muted, 'floor', 0.62 * data.maxDegree, offLine(data.noiseVariance, range), `noise floor σ² = ${fmt(data.noiseVariance)}`));
    }
    if (data.atThreshold) {
      const ink = pick('text');
      datasets.push(line(ink, { label: `Interpolation threshold: degree n − 1 = ${data.threshold}`,
        data: [{ x: data.threshold, y: lo }, { x: data.threshold, y: hi }], borderDash: [2, 3], borderWidth: 1, group: 'threshold' }),
      lineLabel(ink, 'threshold', data.threshold, Math.sqrt(lo * hi), `threshold: degree ${data.threshold}`));
    }
    datasets.push(series(pick(), { label: `Best validation: degree ${data.best.degree} (${fmt(data.best.validation)})`,
      data: [{ x: data.best.degree, ...onAxis(data.best.validation, range), q: data.best, label: `best: degree ${data.best.degree}` }],
      pointStyle: 'star', pointRadius: 10, borderWidth: 2, pointLabels: true }));
    if (data.secondDescent) {
      const { peak, secondDescent: s } = data;
      datasets.push(series(pick(), { label: `Peak ${fmt(peak.validation)} at degree ${peak.degree}, down to ${fmt(s.validation)} at ${s.degree}`,
        data: [{ x: peak.degree, ...onAxis(peak.validation, range), q: peak, label: `peak ${fmt(peak.validation)}` },
          { x: s.degree, ...onAxis(s.validation, range), q: s, label: `second descent: ${fmt(s.validation)}` }],
        pointStyle: 'triangle', pointRadius: 8, pointLabels: true }));
    }
    if (clipped.length) {
      datasets.push(series(pick(), { label: 'Off the axis: drawn on its edge',
        data: clipped, pointStyle: 'crossRot', pointRadius: 6, borderWidth: 2 }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Polynomial degree (coefficients − 1)', { range: [0, data.maxDegree], ticks: { precision: 0 } }),
        y: log('Mean squared error (label units²)', { range, ticks: decadeTicks(range) }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        return q ? `degree ${q.degree}: train MSE ${fmt(q.train)}, validation MSE ${fmt(q.validation)}` : ctx.dataset.label;
      },
    });
  },
};
