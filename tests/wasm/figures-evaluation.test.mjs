// The evaluation lesson's figures on the built WASM engine: the accuracy intervals against
// Wald's and Wilson's closed forms, and the paired minimum detectable difference against
// (z_{0.975} + z_{0.8})·√(2p(1 − p)(1 − ρ)/n) (Miller 2024, arXiv:2411.00640).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, isEngineError, assertChartSubset } from './figure-harness.mjs';
import width from '../../web/src/figures/accuracy-ci-width.js';
import mdd from '../../web/src/figures/paired-mdd.js';

const Z = 1.959963984540054, ZP = 0.8416212335729143;
const axes = (cfg) => [cfg.options.scales.x.min, cfg.options.scales.x.max, cfg.options.scales.y.min, cfg.options.scales.y.max];

test('accuracy-ci-width: Wald and Wilson by hand, the caption\'s numbers, fixed axes', () => {
  const d = run(width);
  const [wald, wilson, exact] = d.curves;
  for (const q of wald.points) {
    const p = Math.round(0.9 * q.n) / q.n, h = Z * Math.sqrt(p * (1 - p) / q.n);
    close(q.low, Math.max(0, p - h), 1e-9);
    close(q.high, Math.min(1, p + h), 1e-9);
  }
  for (const q of wilson.points) {
    const n = q.n, p = Math.round(0.9 * n) / n, z2 = Z * Z;
    const c = (p + z2 / (2 * n)) / (1 + z2 / n), h = (Z / (1 + z2 / n)) * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    close(q.low, c - h, 1e-9);
  }
  // Caption: about 1.9 points at 1,000 questions for all three; at 10 questions Wald the narrowest, exact the widest.
  const k = wald.points.findIndex((q) => q.n === 1000);
  for (const c of d.curves) assert.ok(Math.abs(100 * c.points[k].half_width - 1.9) < 0.1, c.method);
  assert.ok(wald.points[0].half_width < wilson.points[0].half_width && wilson.points[0].half_width < exact.points[0].half_width);
  exact.points.forEach((q, i) => assert.ok(q.low <= wilson.points[i].low + 1e-12));
  // 99%: Wald's half-width is zero at 10 questions (all right).
  assert.equal(run(width, { accuracy: 99 }).curves[0].points[0].half_width, 0);
  for (const v of [{ accuracy: 1 }, { accuracy: 50 }, { accuracy: 99 }, { accuracy: 50, confidence: 99.9 }]) for (const c of run(width, v).curves) {
    for (const q of c.points) assert.ok(100 * q.half_width <= 50, `${v.accuracy} ${c.method} ${q.n}`);
  }
  const a = width.draw(d, THEME), b = width.draw(run(width, { accuracy: 99 }), THEME);
  assertChartSubset('accuracy-ci-width', a);
  assert.deepEqual(axes(a), axes(b));
  // Both axes logarithmic, so the 1/√n law reads as a straight line; at the default every count
  // is hit exactly (90% of a multiple of 10), so no curve zig-zags: each falls with n.
  assert.equal(a.options.scales.y.type, 'logarithmic');
  for (const c of d.curves) c.points.slice(1).forEach((q, i) => assert.ok(q.half_width < c.points[i].half_width, `${c.method} at ${q.n}`));
  for (const c of d.curves) assert.ok(c.points.every((q) => q.correct === 0.9 * q.n), c.method);
  // The slope between 1,000 and 4,000 questions is −½ on the log axes (within 2%).
  for (const c of d.curves) {
    const h = (n) => c.points.find((q) => q.n === n).half_width;
    assert.ok(Math.abs(Math.log(h(4000) / h(1000)) / Math.log(4) + 0.5) < 0.01, c.method);
  }
  // Every nonzero half-width over the settings lies inside the y range; 99%: Wald's zero widths
  // (10 to 50 questions, all right) are triangles on the floor, not dropped.
  for (const v of [{ accuracy: 1, confidence: 50 }, { accuracy: 99, confidence: 50 }, { accuracy: 50, confidence: 99.9 }]) {
    for (const c of run(width, v).curves) for (const q of c.points) {
      if (q.half_width > 0) assert.ok(100 * q.half_width >= a.options.scales.y.min && 100 * q.half_width <= a.options.scales.y.max, `${c.method} ${q.n}`);
    }
  }
  const zero = b.data.datasets.filter((ds) => ds.label.endsWith('zero width'));
  assert.equal(zero.length, 1);
  assert.deepEqual(zero[0].data.map((q) => [q.x, q.y]), [10, 20, 30, 40, 50].map((n) => [n, a.options.scales.y.min]));
});

test('paired-mdd: the closed form, the caption\'s numbers, fixed axes', () => {
  const d = run(mdd);
  for (const q of d.points) {
    const se = Math.sqrt((2 * 0.75 * 0.25 * (1 - q.rho)) / 1000);
    close(q.paired, (Z + ZP) * se, 1e-6);
    close(q.paired4, (Z + ZP) * se / 2, 1e-6);
  }
  const at = (rho) => d.points.find((q) => Math.abs(q.rho - rho) < 1e-9);
  assert.ok(Math.abs(100 * at(0).unpaired - 5.4) < 0.05);
  assert.ok(Math.abs(100 * at(0.5).paired - 3.8) < 0.05);
  assert.ok(Math.abs(100 * at(0.8).paired - 2.4) < 0.05);
  const a = mdd.draw(d, THEME);
  assertChartSubset('paired-mdd', a);
  // The x axis ends on a tick (1, every 0.1) past the last point (0.95), so no tick is dropped
  // and the last point is not labelled as if it were at ρ = 1.
  const x = a.options.scales.x;
  assert.equal(x.ticks.stepSize, 0.1);
  assert.ok(Math.abs(x.max / x.ticks.stepSize - Math.round(x.max / x.ticks.stepSize)) < 1e-9 && x.min === 0);
  const lastRho = d.points.at(-1).rho;
  assert.ok(lastRho === 0.95 && lastRho < x.max);
  for (const v of [{ total: 50, accuracy: 50 }, { total: 20000, accuracy: 5 }]) {
    const e = run(mdd, v);
    assert.deepEqual(axes(a), axes(mdd.draw(e, THEME)));
    for (const q of e.points) for (const y of [q.paired, q.paired4, q.unpaired]) {
      assert.ok(100 * y >= a.options.scales.y.min && 100 * y <= a.options.scales.y.max, `${y}`);
    }
  }
});

test('seed-spread-contamination: the law of total variance, the simulated spread, the caption\'s numbers, fixed axes', async () => {
  const { default: seeds } = await import('../../web/src/figures/seed-spread-contamination.js');
  const d = run(seeds);
  for (const q of d.points) {
    close(q.sampling, Math.sqrt(0.75 * 0.25 / q.n), 1e-12);
    close(q.total, Math.sqrt((0.75 * 0.25 - 1e-4) / q.n + 1e-4), 1e-12);
    assert.equal(q.seed, 0.01);
  }
  // The simulated spread over 20 seeds scatters around the total (sample SD of 20 values: ±35% is > 2 SD).
  d.simulated.forEach((s) => {
    const want = Math.sqrt((0.75 * 0.25 - 1e-4) / s.n + 1e-4);
    assert.ok(Math.abs(s.std / want - 1) < 0.5, `${s.n}: ${s.std} vs ${want}`);
  });
  const at = (n) => d.points.find((q) => q.n === n);
  // Caption: 4.3 points at 100 questions, 0.14 at 100,000, total 1.7 at 1,000, bias 2.5 points above the total beyond about 360 questions.
  assert.ok(Math.abs(100 * at(100).sampling - 4.3) < 0.05 && Math.abs(100 * at(100000).sampling - 0.14) < 0.005);
  assert.ok(Math.abs(100 * at(1000).total - 1.7) < 0.05);
  close(d.bias, 0.025, 1e-12);
  for (const q of d.points) assert.equal(q.total < d.bias, q.n >= 500, `${q.n}`);
  // The total falls below the bias where (p(1 − p) − σ²)/n + σ² = bias²: n ≈ 357, 'about 360'.
  assert.ok(Math.abs((0.75 * 0.25 - 1e-4) / (d.bias ** 2 - 1e-4) - 360) < 5);
  // No seed noise: the total is the sampling line.
  for (const q of run(seeds, { seed_std: 0 }).points) close(q.total, q.sampling, 1e-12);
  const a = seeds.draw(d, THEME);
  assertChartSubset('seed-spread-contamination', a);
  for (const v of [{ accuracy: 5, seed_std: 0, share: 0 }, { accuracy: 50, seed_std: 5, seeds: 3, share: 50 }]) {
    const e = run(seeds, v);
    assert.deepEqual(axes(a), axes(seeds.draw(e, THEME)));
    for (const q of e.points) assert.ok(100 * q.total <= a.options.scales.y.max);
    assert.ok(100 * e.bias <= a.options.scales.y.max);
  }
  // A spread that pushes seeds past 0% (5% ± 5 points clips a sixth of them) is refused in place;
  // a third of the way to the end (5% ± 1.67 points) is drawn.
  assert.throws(() => run(seeds, { accuracy: 5, seed_std: 5 }), isEngineError('seed_std'));
  assert.ok(run(seeds, { accuracy: 5, seed_std: 1.6 }).points.length > 0);
});
