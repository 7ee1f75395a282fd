// Train and validation error against the number of training samples, for one polynomial
// degree: the engine's by_samples sweep (calc('polyfit') with max_samples), which refits on the
// first n points of one seeded draw for n = 1 … max_samples and scores every fit on the same
// validation set. Up to n = p = degree + 1 the fit interpolates (train error 0); beyond, the
// train error rises and the validation error falls towards the noise variance σ², the
// irreducible error (ESL §7.3: expected test error = σ² + bias² + variance).
import { chart, log, colours, series, line, lineLabel, offLine } from './shared/chart-config.js';
import { onAxis, fmt, decadeTicks } from './capacity-curve.js';

// Fixed: the controls move the curves and the floor, not the axis (values beyond: on the edge).
const RANGE = [1e-3, 1e3];

export default {
  id: 'error-vs-samples',
  title: 'Train and validation error against the number of samples',
  caption:
    'One polynomial degree, fitted by least squares to the first n samples of one draw for every n, each fit scored on its own n samples and on 200 fresh ones. While n ≤ p (p = degree + 1 coefficients) the fit passes through every sample: zero train error (drawn on the bottom edge) and a large validation error that spikes at n = p. Past it the two curves close in on the noise floor, train error from below and validation error from above: from above the dotted line, the error of the true function itself on these 200 samples, which sits near the dashed σ². More data shrinks the gap, never the floor. Raise the degree and the threshold moves right, so a larger model needs more samples before it generalizes; raise the noise and the floor rises with σ².',
  simulation: true,
  params: [
    { key: 'degree', label: 'Polynomial degree', from: ['polyfit', 'degree'], max: 20, default: 5 },
    { key: 'noise', label: 'Label noise σ', from: ['polyfit', 'noise'], max: 1, default: 0.2 },
    { key: 'function', label: 'True function', from: ['polyfit', 'function'] },
    { key: 'seed', label: 'Seed', from: ['polyfit', 'seed'], max: 99 },
    { key: 'max_samples', label: 'Largest training set', from: ['polyfit', 'max_samples'], min: 10, default: 200, scale: 'log' },
  ],

  data(engine, p) {
    const r = engine.calc('polyfit', { degree: p.degree, noise: p.noise, function: p.function, seed: p.seed,
      samples: 1, max_samples: p.max_samples });
    const rows = r.by_samples.map((q) => ({ n: q.samples, train: q.train_mse, validation: q.validation_mse }));
    const parameters = p.degree + 1;
    const last = rows[rows.length - 1];
    const atThreshold = rows.find((q) => q.n === parameters) ?? null;
    const table = {
      columns: ['Training samples n', 'Train MSE', 'Validation MSE', 'Gap (validation − train)'],
      rows: rows.map((q) => [q.n, q.train, q.validation, q.validation - q.train]),
    };
    return { degree: p.degree, parameters, maxSamples: p.max_samples, noiseVariance: r.noise_variance,
      truthValidation: r.truth_validation_mse, rows, last, atThreshold, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const pts = (key) => data.rows.map((q) => ({ x: q.n, ...onAxis(q[key], RANGE), q }));
    const trainPts = pts('train');
    const valPts = pts('validation');
    const clipped = [...trainPts, ...valPts].filter((q) => q.clipped);
    const [lo, hi] = RANGE;
    const end = data.last;
    const datasets = [
      series(pick(), { label: `Train MSE (degree ${data.degree})`, data: trainPts, showLine: true, pointRadius: 2, borderWidth: 2, pointStyle: 'circle',
        pointLabels: (raw) => (raw.q === end ? `train ${fmt(end.train)}` : '') }),
      series(pick(), { label: `Validation MSE (degree ${data.degree})`, data: valPts, showLine: true, pointRadius: 2, borderWidth: 2, pointStyle: 'rect',
        pointLabels: (raw) => (raw.q === end ? `validation ${fmt(end.validation)}` : '') }),
    ];
    if (data.noiseVariance > 0) {
      const muted = pick('muted');
      datasets.push(line(muted, { label: `Irreducible error σ² = ${fmt(data.noiseVariance)}`,
        data: [{ x: 1, y: data.noiseVariance }, { x: data.maxSamples, y: data.noiseVariance }], borderDash: [6, 4], group: 'floor' }),
      lineLabel(muted, 'floor', 1, offLine(data.noiseVariance, RANGE), `irreducible error σ² = ${fmt(data.noiseVariance)}`));
    }
    if (data.noiseVariance > 0) {
      datasets.push(line(pick(), { label: `True function on these validation samples: ${fmt(data.truthValidation)}`,
        data: [{ x: 1, y: data.truthValidation }, { x: data.maxSamples, y: data.truthValidation }], borderDash: [1, 3] }));
    }
    if (data.atThreshold) {
      const ink = pick('text');
      datasets.push(line(ink, { label: `Interpolation threshold: n = p = ${data.parameters} samples`,
        data: [{ x: data.parameters, y: lo }, { x: data.parameters, y: hi }], borderDash: [2, 3], borderWidth: 1, group: 'threshold' }),
      lineLabel(ink, 'threshold', data.parameters, lo * 10, `n = p = ${data.parameters}`));
    }
    if (clipped.length) {
      datasets.push(series(pick(), { label: 'Off the axis: drawn on its edge',
        data: clipped, pointStyle: 'crossRot', pointRadius: 5, borderWidth: 2 }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: log('Training samples n (count)', { unit: '', range: [1, data.maxSamples] }),
        y: log('Mean squared error (label units²)', { range: RANGE, ticks: decadeTicks(RANGE) }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        return q ? `n = ${q.n}: train MSE ${fmt(q.train)}, validation MSE ${fmt(q.validation)}, gap ${fmt(q.validation - q.train)}` : ctx.dataset.label;
      },
    });
  },
};
