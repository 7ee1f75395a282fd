// The backpropagation lesson's three figures on the built WASM engine, against closed forms:
// derivatives by hand (the chain rule, and the sum over uses at a fan-out), Taylor's truncation
// errors of forward and central differences with the rounding floor ε/h (Baydin et al. 2018,
// arXiv:1502.05767, section 2; Higham 2002, section 1.14), and the activation count of
// Chen et al. 2016 (arXiv:1604.06174): ceil(L/k) checkpoints of b·w values plus one segment
// re-run from its checkpoint, 2k − 1 more b·w values, one extra forward pass of 2·b·w²·L FLOPs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, run, close, isEngineError, assertSceneSubset, assertChartSubset } from './figure-harness.mjs';
import autogradGraph, { sig4, sumText } from '../../web/src/figures/autograd-graph.js';
import gradientCheck from '../../web/src/figures/gradient-check-error.js';
import memoryDepth, { everyK } from '../../web/src/figures/backprop-memory-depth.js';

const texts = (scene) => scene.nodes.filter((n) => n.kind === 'text').map((n) => n.text);

test('autograd-graph: f = x²y + sin x at (2, 3), its gradient by hand, and the reverse visits', () => {
  const d = run(autogradGraph);
  close(d.value, 4 * 3 + Math.sin(2), 1e-12);
  const grad = Object.fromEntries(d.gradients.map((g) => [g.name, g.grad]));
  close(grad.x, 2 * 2 * 3 + Math.cos(2), 1e-12); // ∂/∂x: 2xy from the square, cos x from the sine
  close(grad.y, 4, 1e-12); // ∂/∂y = x²
  assert.equal(d.nodes.length, 7); // x, 2, x^2, y, x^2*y, sin x, sum
  assert.equal(d.reverse_visits, 6); // all but the constant 2
  assert.equal(d.nodes.filter((n) => n.visited).length, d.reverse_visits, 'visited nodes are the engine\'s count');
  const x = d.nodes.find((n) => n.op === 'var' && n.label === 'x');
  assert.equal(x.uses, 2, 'x feeds the square and the sine');
  const two = d.nodes.find((n) => n.op === 'const');
  assert.equal(two.grad, 0);
  assert.equal(two.visited, false);
  assert.ok(d.nodes.at(-1).root && d.nodes.at(-1).grad === 1, 'the root starts the reverse pass with gradient 1');
  const scene = autogradGraph.draw(d, THEME);
  assertSceneSubset('autograd-graph', scene);
  const t = texts(scene);
  for (const s of ['value=0.9093', 'grad=11.58', 'grad=4', 'value=12.91']) assert.ok(t.includes(s), `the graph shows ${s}`);
  assert.ok(t.some((s) => s.includes('∂f/∂x = 11.58')), 'the gradient is stated under the graph');
  assert.equal(scene.nodes.filter((n) => n.kind === 'polygon').length, 7, 'one arrow per operand edge (x feeds two)');
  // The two shares that add up at x are on its arrows and spelled out under the graph.
  for (const s of ['12', '-0.4161', '1', '4']) assert.ok(t.includes(s), `an arrow carries ${s}`);
  // Each share sits in a gap of its arrow: a patch of the page's colour under the text.
  const patches = scene.nodes.filter((n) => n.kind === 'rect' && n.fill === THEME.background);
  for (const s of ['12', '-0.4161']) {
    const label = scene.nodes.find((n) => n.kind === 'text' && n.text === s);
    assert.ok(patches.some((r) => label.x > r.x && label.x < r.x + r.w && label.y > r.y && label.y < r.y + r.h + 2), `${s} has its patch`);
  }
  assert.ok(t.join(' ').includes('12 from ^ − 0.4161 from sin = 11.5839'), 'the sum at x is stated (the note may wrap)');
  assert.deepEqual(d.sums.map((v) => v.parts.map((p) => sig4(p.share))), [['12', '-0.4161']]);
  assert.ok(d.table.rows.some((r) => /^12 from node \d+ − 0\.4161 from node \d+$/.test(r.at(-1))), 'the data table subtracts a negative share');
});

test('autograd-graph: the shares printed under the graph add up to the printed gradient', () => {
  // exp(xy)·sin x + x³/y at (2, 3): x's shares are 1100.49, −167.89 and 4; at four significant
  // digits each ("1101") they would add up to 937.1, not the gradient's 936.6.
  const d = run(autogradGraph, { expression: 'exp(x*y)*sin(x) + x^3/y', values: { x: 2, y: 3 } });
  const note = texts(autogradGraph.draw(d, THEME)).join(' ');
  assert.ok(note.includes('1100.5 from × − 167.9 from sin + 4 from ^ = 936.6'), note);
  assert.ok(note.includes('733.674 from × − 0.889 from ÷ = 732.785'), note);
  const cases = [['x^2*y + sin(x)', { x: 2, y: 3 }], ['exp(x*y)*sin(x) + x^3/y', { x: 2, y: 3 }], ['x*x + x', { x: 2 }],
    ['tanh(x*y) + relu(y - x)', { x: -1, y: 0.5 }], ['x*y*x - y/x + log(x*y)', { x: 1.7, y: 2.3 }], ['sin(x)*cos(x) + x', { x: 0.3 }]];
  for (const [expression, values] of cases) {
    const r = run(autogradGraph, { expression, values });
    for (const v of r.sums) {
      const s = sumText(v.parts, v.grad);
      const [lhs, rhs] = s.split(' = ');
      const terms = lhs.replace(/ from \S+/g, '').replace(/− /g, '-').replace(/\+ /g, '').replace(/^−/, '-').split(' ').map(Number);
      const total = Number(rhs.replace('−', '-'));
      const places = Math.max(...[...terms.map(String), rhs].map((x) => (x.split('.')[1] ?? '').length));
      assert.ok(Math.abs(terms.reduce((a, b) => a + b, 0) - total) < 0.5 * 10 ** -places, `${expression}: ${s}`);
      close(total, v.grad, 1e-3);
      assert.ok(!s.includes('+ -') && !s.includes('+ −'), `${expression}: a negative share is subtracted: ${s}`);
    }
  }
});

test('autograd-graph: fan-out adds, errors name the expression and its position', () => {
  // x*x + x at x = 2: d/dx = 2x + 1 = 5, three contributions into one leaf.
  const d = run(autogradGraph, { expression: 'x*x + x', values: { x: 2 } });
  close(d.gradients.find((g) => g.name === 'x').grad, 5, 1e-15);
  assert.equal(d.nodes.find((n) => n.op === 'var').uses, 3);
  assert.throws(() => run(autogradGraph, { expression: '(x + 1' }), (e) => isEngineError('expression')(e) && /column/i.test(e.message));
  assert.throws(() => run(autogradGraph, { expression: 'foo(x)' }), isEngineError('expression'));
  assert.throws(() => run(autogradGraph, { expression: 'log(x - 5)' }), isEngineError('expression'));
  assert.throws(() => run(autogradGraph, { expression: 'x*z' }), isEngineError('values'));
  assert.throws(() => run(autogradGraph, { expression: Array(60).fill('x').join(' + ') }), (e) => isEngineError('expression')(e) && /at most/.test(e.message));
  assert.deepEqual([sig4(0), sig4(-0.41614683), sig4(12.9093), sig4(1e-9), sig4(2.5e7)], ['0', '-0.4161', '12.91', '1e-9', '2.5e7']);
});

test('gradient-check-error: truncation ~h and ~h², rounding ~ε/h, best steps near √ε and ε^(1/3)', () => {
  const d = run(gradientCheck); // exp at x = 1
  const e = Math.E;
  const curve = (method, dtype) => d.curves.find((c) => c.method === method && c.dtype === dtype);
  const at = (c, h) => c.sweep.find((s) => s.step === h).abs_error;
  const f64 = { forward: curve('forward', 'fp64'), central: curve('central', 'fp64') };
  // Closed forms of the truncation error at h = 0.1: e(e^h − 1)/h − e and e·sinh(h)/h − e.
  close(at(f64.forward, 0.1), e * (Math.exp(0.1) - 1) / 0.1 - e, 1e-9);
  close(at(f64.central, 0.1), e * Math.sinh(0.1) / 0.1 - e, 1e-9);
  // Tenfold smaller h: error / 10 (forward, first order), / 100 (central, second order).
  const ratio = (c) => at(c, 0.1) / at(c, 0.01);
  assert.ok(ratio(f64.forward) > 9 && ratio(f64.forward) < 11, `forward ratio ${ratio(f64.forward)}`);
  assert.ok(ratio(f64.central) > 99 && ratio(f64.central) < 101, `central ratio ${ratio(f64.central)}`);
  // Best steps: √ε ≈ 1.5e-8 and ε^(1/3) ≈ 6e-6 in fp64; √ε ≈ 3.5e-4, ε^(1/3) ≈ 4.9e-3 in fp32,
  // each the nearest power of ten of the sweep.
  assert.equal(f64.forward.best_step, 1e-8);
  assert.equal(f64.central.best_step, 1e-5);
  assert.equal(curve('forward', 'fp32').best_step, 1e-3);
  assert.equal(curve('central', 'fp32').best_step, 1e-2);
  assert.ok(f64.central.best_error < 1e-10, 'the lesson: below 1e-10 at the best fp64 step');
  assert.ok(curve('central', 'fp32').best_error > 1e4 * f64.central.best_error, 'fp32 far worse');
  // In fp32, 1 + h rounds to 1 for h ≤ 1e-8 (half an ulp of 1 is 2^-24 ≈ 6e-8): quotient 0, error e.
  close(at(curve('forward', 'fp32'), 1e-8), e, 1e-7);
  close(at(curve('forward', 'fp32'), 1e-12), e, 1e-7);
  const cfg = gradientCheck.draw(d, THEME);
  assertChartSubset('gradient-check-error', cfg);
  assert.deepEqual([cfg.options.scales.x.min, cfg.options.scales.x.max], [1e-12, 1e-1]);
  assert.equal(cfg.data.datasets.length, 4);
  for (const ds of cfg.data.datasets) assert.equal(ds.pointStyle.filter((s) => s === 'star').length, 1, 'one best step per curve');
});

test('gradient-check-error: the caption\'s sqrt(x) at 0.01 moves every best step to a smaller h', () => {
  const best = (d) => Object.fromEntries(d.curves.map((c) => [`${c.method} ${c.dtype}`, c.best_step]));
  const ref = best(run(gradientCheck, {}));
  const d = run(gradientCheck, { expression: 'sqrt(x)', values: { x: 0.01 } });
  for (const [name, step] of Object.entries(best(d))) assert.ok(step < ref[name], `${name}: ${step} < ${ref[name]}`);
  // h = 0.1 takes x − h below 0: the central curves have no point there, the forward ones do.
  for (const c of d.curves) assert.equal(c.sweep.some((q) => q.step === 0.1), c.method === 'forward', `${c.method} ${c.dtype}`);
});

test('gradient-check-error: a kink, other points, and rejected inputs', () => {
  // relu(x - 1) at x = 1: reverse mode says 0, the central difference the mean slope 1/2 at
  // every h (to rounding: (1 + h) − 1 is h to about ε/h relative).
  const d = run(gradientCheck, { expression: 'relu(x - 1)' });
  const central = d.curves.find((c) => c.method === 'central' && c.dtype === 'fp64');
  for (const s of central.sweep.filter((q) => q.step >= 1e-6)) close(s.abs_error, 0.5, 1e-9);
  // A linear function has no truncation error: errors may be exactly 0, left off the log axis.
  const lin = run(gradientCheck, { expression: '3*x' });
  assert.ok(lin.yRange[0] > 0 && lin.yRange[1] > lin.yRange[0]);
  gradientCheck.draw(lin, THEME);
  assert.throws(() => run(gradientCheck, { expression: 'log(x - 2)' }), (e) => ['expression', 'values'].includes(e.field));
  assert.throws(() => run(gradientCheck, { variable: 'y' }), isEngineError('variable'));
});

test('backprop-memory-depth: Chen et al.\'s count at the defaults, the y axis fixed over k', () => {
  const d = run(memoryDepth); // L = 64, w = 4096, b = 32 × 4,096 token rows, bf16, k = 16
  const [L, w, b, s, k] = [64, 4096, 32 * 4096, 2, 16];
  const layer = 2 * b * w * s, cp = b * w * s;
  const peak = (kk) => Math.ceil(L / kk) * cp + Math.min(kk, L) * layer - cp;
  const by = (key) => d.strategies.find((q) => q.key === key);
  assert.equal(d.weight_bytes, L * w * w * s);
  close(by('none').peak_bytes / 1e9, 137.4, 1e-3); // the lesson's 137 GB, 64 times the 2.15 GB of weights
  assert.equal(by('none').peak_bytes, 64 * d.weight_bytes);
  // Up to depth k the network is one segment: the dashed curve lies on the solid one, never above.
  for (const c of d.curve) {
    assert.ok(c.every_k_bytes <= c.none_bytes && c.sqrt_bytes <= c.none_bytes, `L = ${c.layers}`);
    if (c.layers <= k) assert.equal(c.every_k_bytes, c.none_bytes);
  }
  assert.equal(d.layer_bytes, layer);
  assert.equal(by('none').peak_bytes, L * layer);
  assert.equal(by('every_k').peak_bytes, peak(k));
  assert.equal(by('sqrt').k, 8);
  assert.equal(by('sqrt').peak_bytes, peak(8));
  let best = 1;
  for (let kk = 2; kk <= L; kk++) if (peak(kk) < peak(best)) best = kk;
  assert.equal(d.best_k, best);
  assert.equal(d.best_peak_bytes, peak(best));
  assert.ok(Math.abs(d.best_k - Math.sqrt(L / 2)) < 1, 'the best k is near √(L/2)');
  assert.deepEqual([everyK(1), everyK(16)], ['Every layer', 'Every 16 layers']);
  assert.equal(run(memoryDepth, { k: 1 }).strategies.find((q) => q.key === 'every_k').name, 'Every layer');
  assert.equal(peak(d.best_k + 1), d.best_peak_bytes, 'the lesson: a segment one layer longer ties with the best k at L = 64');
  for (const q of [by('every_k'), by('sqrt')]) close(q.recompute_fraction, 1 / 3, 1e-12); // one forward of three
  close(d.forward_flops, 2 * b * w * w * L, 1e-12);
  for (const c of d.curve) assert.equal(c.none_bytes, c.layers * layer);
  const yMax = d.yMax;
  for (const kk of [1, 4, 64, 256]) assert.equal(run(memoryDepth, { k: kk }).yMax, yMax, `y axis fixed at k = ${kk}`);
  const cfg = memoryDepth.draw(d, THEME);
  assertChartSubset('backprop-memory-depth', cfg);
  assert.ok(cfg.data.datasets.slice(0, 3).every((ds) => ds.data.at(-1).label), 'each curve labelled at depth L');
  // The star at depth L lies inside the plot, not on its right edge (half cut off there).
  assert.ok(cfg.options.scales.x.max >= 1.3 * d.layers, 'room right of depth L');
  assert.ok(cfg.data.datasets.every((ds) => ds.clip === undefined), 'nothing drawn outside the plot');
  // Where every-k and √L coincide (k = 8 = ⌈√64⌉), one label names both.
  const same = memoryDepth.draw(run(memoryDepth, { k: 8 }), THEME).data.datasets;
  assert.match(same[1].data.at(-1).label, /and k = ⌈√L⌉/);
  assert.equal(same[2].data.at(-1).label, undefined);
});
