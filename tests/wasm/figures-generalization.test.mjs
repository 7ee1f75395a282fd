// The generalization lesson's three figures on the built WASM engine: what their data says
// against closed forms of least squares, ridge regression and gradient descent (ESL = Hastie,
// Tibshirani, Friedman, The Elements of Statistical Learning, 2nd ed.).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, engine, run, close, isEngineError, assertChartSubset } from './figure-harness.mjs';
import capacityCurve from '../../web/src/figures/capacity-curve.js';
import errorVsSamples from '../../web/src/figures/error-vs-samples.js';
import regularization from '../../web/src/figures/regularization-effect.js';

const FIGURES = [capacityCurve, errorVsSamples, regularization];

for (const fig of FIGURES) {
  test(`${fig.id}: draws in the Chart.js subset; a bad sample count is the engine's message on that field`, () => {
    for (const view of fig.id === 'regularization-effect' ? ['ridge', 'early', 'fit'] : [undefined]) {
      assertChartSubset(fig.id, fig.draw(run(fig, view ? { view } : {}), THEME));
    }
    const field = fig.id === 'error-vs-samples' ? 'max_samples' : 'samples';
    assert.throws(() => run(fig, { [field]: 0 }), isEngineError(field));
  });
}

// --- capacity-curve ---------------------------------------------------------------------

test('capacity-curve: nested least squares never raises the train error; n points are fitted exactly by degree n − 1', () => {
  const d = run(capacityCurve);
  assert.equal(d.threshold, 19);
  // Adding a basis function can only lower the residual of the least-squares fit (the old fit
  // is still available), up to the threshold.
  for (let k = 1; k <= d.threshold; k++) assert.ok(d.rows[k].train <= d.rows[k - 1].train * (1 + 1e-12), `degree ${k}`);
  // Interpolation: a square, invertible (distinct x) system is solved exactly, residual ~ rounding.
  // Householder QR is backward stable, so the residual's RMS is a few ε·‖c‖: tiny against the
  // data, though the ill-conditioned threshold fit of a draw with close samples has a large ‖c‖.
  // The same holds past the threshold for the minimum-norm interpolants.
  for (const q of d.rows.filter((r) => r.degree >= d.threshold)) {
    const exact = engine.calc('polyfit', { samples: d.samples, noise: d.noise, degree: q.degree });
    close(exact.train_mse, q.train, 1e-12);
    assert.ok(Math.sqrt(q.train) <= 16 * Number.EPSILON * exact.coefficient_norm,
      `train MSE at degree ${q.degree}: ${q.train}, ‖c‖ = ${exact.coefficient_norm}`);
    assert.ok(q.train < 1e-9 * d.rows[0].train, `train MSE at degree ${q.degree}: ${q.train}`);
  }
  // The lesson's reading of the default chart: best degree 5, a peak at the threshold, a second descent.
  assert.equal(d.best.degree, 5);
  assert.equal(d.peak.degree, d.threshold);
  assert.ok(d.secondDescent && d.secondDescent.validation < d.peak.validation / 1e6 && d.secondDescent.validation > d.best.validation);
  assert.equal(d.noiseVariance, 0.1 ** 2);
});

test('capacity-curve: a noise-free cubic is fitted exactly from degree 3 on (the model contains the truth)', () => {
  const d = run(capacityCurve, { function: 'cubic', noise: 0, max_degree: 12 });
  for (const q of d.rows.filter((r) => r.degree >= 3)) {
    assert.ok(q.train < 1e-20 && q.validation < 1e-20, `degree ${q.degree}: ${q.train}, ${q.validation}`);
  }
  assert.ok(d.rows[2].validation > 0.01); // a parabola cannot represent a cubic
  assert.equal(d.secondDescent, null);
});

test('capacity-curve: weight decay cannot interpolate, and it flattens the peak at the threshold', () => {
  const plain = run(capacityCurve);
  const ridge = run(capacityCurve, { weight_decay: 1e-3 });
  // Ridge residual: Ac − y = −nλ(AAᵀ + nλI)⁻¹y, never 0 for λ > 0 and y ≠ 0.
  assert.ok(ridge.atThreshold.train > 1e-4, `ridge train MSE at degree n − 1: ${ridge.atThreshold.train}`);
  assert.ok(ridge.atThreshold.validation < 1e-9 * plain.atThreshold.validation);
  assert.equal(ridge.best.degree, plain.best.degree);
  assert.equal(ridge.secondDescent, null); // what is left past the threshold is no bump
});

// Noise-free samples of sin(πx): the validation error falls by many decades up to the
// threshold, then rises past it (the minimum-norm interpolant is biased towards small
// functions, not towards the truth). The 1e-20 floor shows both; the 1e-4 one would pin the
// falling part to its edge.
test('capacity-curve: without noise the error axis from 1e-20 shows the fall to the threshold and the rise past it', () => {
  const d = run(capacityCurve, { noise: 0, floor: 1e-20 });
  assert.deepEqual(d.range, [1e-20, 1e12]);
  const v = (k) => d.rows[k].validation;
  assert.ok(v(17) < 1e-12 && v(17) > 1e-20, `degree 17: ${v(17)}`);
  assert.ok(v(25) > 1e-4 && v(40) > v(25), `degrees 25, 40: ${v(25)}, ${v(40)}`);
  const cfg = capacityCurve.draw(d, THEME);
  assertChartSubset('capacity-curve', cfg);
  assert.equal(cfg.options.scales.y.min, 1e-20);
  const validation = cfg.data.datasets[1].data;
  assert.ok(!validation[17].clipped, 'degree 17 is drawn on the axis, not on its edge');
  assert.ok(run(capacityCurve, { noise: 0 }).rows.length && capacityCurve.draw(run(capacityCurve, { noise: 0 }), THEME).data.datasets[1].data[17].clipped);
});

// A reference line's name is its own unmarked point beside the line, not a point on it, and
// stays out of the legend (the line has its entry there).
test('generalization figures: reference-line labels sit off their lines', () => {
  const cfgs = [capacityCurve.draw(run(capacityCurve), THEME), errorVsSamples.draw(run(errorVsSamples), THEME),
    regularization.draw(run(regularization), THEME)];
  for (const cfg of cfgs) {
    const labels = cfg.data.datasets.filter((ds) => ds.labelOnly);
    assert.ok(labels.length >= 1);
    for (const lab of labels) {
      const line = cfg.data.datasets.find((ds) => !ds.labelOnly && ds.group === lab.group);
      assert.ok(line, `a line for ${lab.label}`);
      const [p] = lab.data;
      // A horizontal line: the label is off its y; a vertical one: the label is not at its ends.
      const horizontal = line.data[0].y === line.data[line.data.length - 1].y;
      if (horizontal) assert.notEqual(p.y, line.data[0].y, lab.label);
      else assert.ok(line.data.every((q) => q.y !== p.y), lab.label);
      assert.ok(line.data.every((q) => !q.label), `${lab.label}: the line itself carries no label`);
    }
    const legend = cfg.options.plugins.legend.labels.filter;
    assert.equal(typeof legend, 'function');
    cfg.data.datasets.forEach((ds, i) => assert.equal(legend({ datasetIndex: i }, cfg.data), !ds.labelOnly));
  }
});

// --- error-vs-samples -------------------------------------------------------------------

test('error-vs-samples: zero train error up to n = p, and E[train MSE] = σ²(n − p)/n for a model that contains the truth', () => {
  const d = run(errorVsSamples);
  assert.equal(d.parameters, 6);
  for (const q of d.rows.filter((r) => r.n <= d.parameters)) assert.ok(q.train < 1e-20, `n = ${q.n}: ${q.train}`);
  assert.ok(d.atThreshold.validation > 100 * d.last.validation); // the spike at n = p
  // ESL §3.2: the residual sum of squares of least squares has expectation σ²(n − p) when the
  // model contains the truth. A cubic fitted by degree 3 (p = 4), averaged over 400 draws, at
  // n = 8, 12 and 20, where σ²(n − p)/n is far from σ² and from σ²(n − p − 1)/n.
  // Independent draws: the engine hashes seed and salt into each stream's starting state, so
  // distinct seeds (here 1000 apart) draw unrelated samples.
  const sigma = 0.2, p = 4, draws = 400, ns = [8, 12, 20];
  const sums = ns.map(() => 0);
  for (let k = 0; k < draws; k++) {
    const rows = run(errorVsSamples, { function: 'cubic', degree: 3, noise: sigma, seed: 1000 * k, max_samples: 20 }).rows;
    ns.forEach((n, i) => { sums[i] += rows[n - 1].train; });
  }
  ns.forEach((n, i) => {
    const expected = (sigma ** 2 * (n - p)) / n;
    // One draw's train MSE is σ²·χ²(n − p)/n, of standard deviation σ²·√(2(n − p))/n.
    const tolerance = (3 * sigma ** 2 * Math.sqrt(2 * (n - p))) / n / Math.sqrt(draws);
    const mean = sums[i] / draws;
    assert.ok(Math.abs(mean - expected) < tolerance, `n = ${n}: mean train MSE ${mean}, expected ${expected} ± ${tolerance}`);
  });
});

// --- regularization-effect --------------------------------------------------------------

test('regularization-effect: ridge shrinks the coefficients and raises the train error as λ grows; best λ = 0.1', () => {
  const d = run(regularization);
  for (let i = 1; i < d.rows.length; i++) {
    assert.ok(d.rows[i].norm <= d.rows[i - 1].norm * (1 + 1e-9), `‖c‖ at λ = ${d.rows[i].lambda}`);
    assert.ok(d.rows[i].train >= d.rows[i - 1].train * (1 - 1e-9), `train MSE at λ = ${d.rows[i].lambda}`);
  }
  close(d.best.lambda, 0.1);
  assert.ok(d.best.validation < d.reference.validation / 1000);
});

test('regularization-effect: one coefficient, ridge is the least-squares fit divided by 1 + λ (w = Σxy / (Σx² + nλ), x = φ₀ = 1)', () => {
  for (const lambda of [0.01, 0.5, 3]) {
    const d = run(regularization, { view: 'fit', degree: 0, weight_decay: lambda });
    for (const q of d.rows) close(q.ridge, q.plain / (1 + lambda), 1e-12);
  }
});

test('regularization-effect: gradient descent at lr = 1/λ_max, 2/λ_max the stability limit; one coefficient converges in one step', () => {
  const d = run(regularization, { view: 'early' });
  close(d.lrMax, 2 * d.lr, 1e-12);
  // The lesson's reading of the default draw: lowest after 9 steps, then rising and still
  // climbing at step 1,000.
  assert.equal(d.best.step, 9);
  const [before, last] = d.rows.slice(-2);
  assert.ok(last.validation > 4 * d.best.validation && last.validation > before.validation);
  // Degree 0: the loss (1/n)Σ(c − y)² has Hessian 2, lr = 1/2, and c₁ = c₀ − ½·2·(c₀ − ȳ) = ȳ,
  // the least-squares solution, after one step (and stays there).
  const one = run(regularization, { view: 'early', degree: 0, gd_steps: 10 });
  close(one.lr, 0.5, 1e-12);
  for (const q of one.rows.slice(1)) close(q.train, one.reference.train, 1e-12);
});

// The least-squares line of the two error views is drawn on the axis edge when its value lies
// beyond it (2.6 million at the defaults, above an axis ending at 1e5): its label says so, and
// it does not when the line is on the axis (degree 5, a few hundredths).
test('regularization-effect: a least-squares line beyond the axis is labelled as off the axis', () => {
  for (const view of ['ridge', 'early']) {
    const label = (p) => regularization.draw(run(regularization, { view, ...p }), THEME).data.datasets
      .find((ds) => ds.labelOnly && ds.group === 'reference').label;
    assert.match(label({}), /off the axis/, view);
    assert.doesNotMatch(label({ degree: 5 }), /off the axis/, view);
  }
});
