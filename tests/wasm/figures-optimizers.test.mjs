// The optimizers lesson's three figures on the built WASM engine: what their data says,
// checked against the lesson's closed forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, assertChartSubset } from './figure-harness.mjs';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import trajectories from '../../web/src/figures/optimizer-trajectories.js';
import schedules from '../../web/src/figures/lr-schedules.js';
import stateBytes from '../../web/src/figures/optimizer-state-bytes.js';

const runOf = (data, optimizer) => data.runs.find((r) => r.optimizer === optimizer);
// The point labels a drawing writes on the chart (runtime/point-labels.js labelText).
const drawnText = (cfg) => JSON.stringify(cfg.data.datasets.map((d) => (typeof d.pointLabels === 'function' ? d.data.map((raw, i) => d.pointLabels(raw, i))
  : d.pointLabels ? d.data.map((raw) => raw.label) : [])));

// --- optimizer-trajectories --------------------------------------------------------------

test('optimizer-trajectories: gradient descent follows its exact iterates (1 − lr)^k and (1 − lr·κ)^k', () => {
  // The lesson's closed form on f = ½(x² + κy²) from (1, 1): x_k = (1 − η)^k, y_k = (1 − ηκ)^k.
  const d = run(trajectories, { condition: 50, lr: 0.025, steps: 100 });
  const gd = runOf(d, 'sgd');
  assert.equal(gd.path.length, 101);
  for (const q of gd.path) {
    close(q.x, 0.975 ** q.step, 1e-9);
    assert.ok(Math.abs(q.y - (-0.25) ** q.step) <= 1e-12, `y at step ${q.step}`);
    close(q.loss, 0.5 * (q.x ** 2 + 50 * q.y ** 2), 1e-12);
  }
});

test('optimizer-trajectories: above lr = 2/κ gradient descent diverges, labelled, on fixed axes', () => {
  const stable = run(trajectories, { lr: 0.039 });
  const unstable = run(trajectories, { lr: 0.045 });
  assert.equal(runOf(stable, 'sgd').diverged, false);
  const gd = runOf(unstable, 'sgd');
  assert.equal(gd.diverged, true);
  // |y_k| = |1 − 0.045·50|^k = 1.25^k; the path ends at the first loss above 10^6 × 25.5.
  const k = gd.diverged_step;
  assert.ok(0.5 * 50 * 1.25 ** (2 * k) > 1e6 * 25.5 && 0.5 * 50 * 1.25 ** (2 * (k - 1)) < 1e6 * 25.5 * 1.01);
  const cfg = trajectories.draw(unstable, THEME);
  assertChartSubset('optimizer-trajectories', cfg);
  assert.match(drawnText(cfg), new RegExp(`Gradient descent diverges at step ${k}`));
  const axes = (c) => [c.options.scales.x.min, c.options.scales.x.max, c.options.scales.y.min, c.options.scales.y.max];
  assert.deepEqual(axes(cfg), axes(trajectories.draw(stable, THEME)));
  // The loss view's axis stays fixed too.
  const lossAxes = (lr) => axes(trajectories.draw(run(trajectories, { lr, view: 'loss' }), THEME)).slice(2);
  assert.deepEqual(lossAxes(0.045), lossAxes(0.01));
});

test('optimizer-trajectories: Adam\'s bias-corrected first step moves each coordinate by lr', () => {
  // m̂₁ = g, v̂₁ = g²: the step is lr·g/(|g| + ε) ≈ lr·sign(g), whatever κ.
  for (const condition of [1, 50, 100]) {
    const a = runOf(run(trajectories, { condition, lr: 0.02, weight_decay: 0 }), 'adam').path[1];
    close(a.x, 0.98, 1e-6);
    close(a.y, 0.98, 1e-6);
  }
});

test('optimizer-trajectories: momentum at μ = 0 is gradient descent; Nesterov\'s first step is lr·κ·(1 + μ)', () => {
  const gd = runOf(run(trajectories), 'sgd').path, mom = runOf(run(trajectories, { show: 'momentum', momentum: 0 }), 'momentum').path;
  mom.forEach((q, i) => { close(q.x, gd[i].x, 1e-12); assert.ok(Math.abs(q.y - gd[i].y) < 1e-12); });
  // v₁ = g, step g + μ·v₁ = (1 + μ)·g: y₁ = 1 − 0.025·50·1.9.
  const nes = runOf(run(trajectories), 'nesterov').path[1];
  close(nes.y, 1 - 0.025 * 50 * 1.9, 1e-12);
  // Nesterov at μ = 0 is refused (as torch.optim.SGD does), on the momentum control.
  assert.throws(() => run(trajectories, { momentum: 0 }), (e) => e instanceof EngineError && e.field === 'momentum');
});

test('optimizer-trajectories: AdamW equals Adam without weight decay, and differs with it', () => {
  const zero = run(trajectories, { show: 'all', weight_decay: 0 });
  assert.deepEqual(runOf(zero, 'adamw').path, runOf(zero, 'adam').path);
  const decayed = run(trajectories, { show: 'all', weight_decay: 0.1 });
  // AdamW's first step: x ← x − lr·wd·x, then the Adam step of lr: 1 − 0.025·0.1 − 0.025.
  close(runOf(decayed, 'adamw').path[1].x, 1 - 0.025 * 0.1 - 0.025, 1e-6);
  assert.notDeepEqual(runOf(decayed, 'adamw').path, runOf(decayed, 'adam').path);
});

test('optimizer-trajectories: level sets lie on ½(x² + κ·y²) = c; a chosen optimizer is drawn alone', () => {
  const d = run(trajectories, { condition: 20 });
  for (const lv of d.levels) for (const q of lv.points) close(0.5 * (q.x ** 2 + 20 * q.y ** 2), lv.c, 1e-9);
  const one = run(trajectories, { show: 'adam' });
  assert.deepEqual(one.runs.map((r) => r.optimizer), ['adam']);
  assert.ok(one.table.rows.every((row) => row[0].startsWith('Adam')));
});

// --- lr-schedules ------------------------------------------------------------------------

test('lr-schedules: linear warm-up, then the cosine peak·½(1 + cos πp), half the peak at its midpoint', () => {
  const d = run(schedules, { peak_lr: 3e-4, warmup_steps: 1000, total_steps: 10000 });
  const c = d.curves[0];
  c.steps.forEach((t, i) => {
    // API.md: warm-up lr = peak·t/warmup; cosine with p = (t − warmup)/(total − warmup), floor 0.
    const want = t < 1000 ? 3e-4 * t / 1000 : 3e-4 * 0.5 * (1 + Math.cos(Math.PI * (t - 1000) / 9000));
    assert.ok(Math.abs(c.lr[i] - want) <= 1e-12 * 3e-4 + 1e-9 * want, `step ${t}: ${c.lr[i]} vs ${want}`);
  });
  const [end, mid] = c.marks;
  assert.deepEqual([end.step, mid.step], [1000, 5500]);
  close(end.lr, 3e-4, 1e-12);
  close(mid.lr, 1.5e-4, 1e-12);
  assert.match(drawnText(schedules.draw(d, THEME)), /cosine midpoint: step 5500, lr 1\.50e-4/);
});

test('lr-schedules: WSD holds the peak until its decay, step decay divides by 10 every third', () => {
  const d = run(schedules, { schedule: 'all', warmup_steps: 1000, total_steps: 10000, decay_fraction: 0.2 });
  const wsd = d.curves.find((c) => c.schedule === 'wsd');
  wsd.steps.forEach((t, i) => {
    const want = t < 1000 ? 3e-4 * t / 1000 : t < 8000 ? 3e-4 : 3e-4 * (1 - (t - 8000) / 2000);
    assert.ok(Math.abs(wsd.lr[i] - want) <= 1e-12, `wsd step ${t}`);
  });
  assert.deepEqual(wsd.marks.map((m) => [m.label, m.step]), [['end of warm-up', 1000], ['decay starts', 8000]]);
  const step = d.curves.find((c) => c.schedule === 'step');
  step.steps.forEach((t, i) => {
    const want = t < 1000 ? 3e-4 * t / 1000 : 3e-4 * 0.1 ** Math.floor((t - 1000) / 3000);
    assert.ok(Math.abs(step.lr[i] - want) <= 1e-12 * 3e-4, `step ${t}`);
  });
});

test('lr-schedules: a decay that does not fit after the warm-up is reported on the decay fraction', () => {
  assert.throws(() => run(schedules, { schedule: 'wsd', warmup_steps: 5000, total_steps: 6000, decay_fraction: 0.5 }),
    (e) => e instanceof EngineError && e.field === 'decay_fraction' && /decay/.test(e.message));
});

// --- optimizer-state-bytes ---------------------------------------------------------------

test('optimizer-state-bytes: mixed precision 8, 12, 16 (ZeRO: 2 + 2 + 12), 10 and Adafactor\'s factored state', () => {
  const d = run(stateBytes);
  const per = Object.fromEntries(d.bars.map((b) => [b.optimizer, b]));
  assert.equal(per.sgd.bytes_per_param, 2 + 2 + 4 + 0);
  assert.equal(per.momentum.bytes_per_param, 2 + 2 + 4 + 4);
  assert.equal(per.adam.bytes_per_param, 16);
  assert.deepEqual(per.adam.parts, { weights: 2, grads: 2, master: 4, states: 8, scales: 0, grad_buffer: 0 });
  // 8-bit Adam: 1 + 1 bytes of m and v, one fp32 scale of each per 2,048-value block.
  close(per['adam-8bit'].bytes_per_param, 10 + 8 / 2048, 1e-12);
  // Adafactor: 4·(r + c)/(r·c) for a 4,096 × 4,096 matrix.
  close(per.adafactor.parts.states, (4 * 8192) / 4096 ** 2, 1e-12);
  const fp32 = Object.fromEntries(run(stateBytes, { precision: 'fp32' }).bars.map((b) => [b.optimizer, b]));
  assert.deepEqual(fp32.adam.parts, { weights: 4, grads: 4, master: 0, states: 8, scales: 0, grad_buffer: 0 });
});

test('optimizer-state-bytes: the GB view is bytes per parameter × parameters, on an axis fixed across formats', () => {
  const d = run(stateBytes, { view: 'total', billions: 7 });
  const adam = d.bars.find((b) => b.optimizer === 'adam');
  close(adam.total_bytes, 16 * 7e9, 1e-12);
  const cfg = stateBytes.draw(d, THEME);
  assertChartSubset('optimizer-state-bytes', cfg);
  assert.match(drawnText(cfg), /"112 GB"/);
  // One H100's memory (80 GiB, the hardware table) is drawn across the bars, below Adam's 112 GB.
  const hbm = cfg.data.datasets.find((ds) => /H100's memory/.test(ds.label));
  close(hbm.data[0], 80 * 2 ** 30 / 1e9, 1e-12);
  assert.ok(adam.total_bytes / 1e9 > hbm.data[0]);
  // The axis ends on a round number above every bar and the line.
  assert.ok([1, 2, 2.5, 5].some((m) => Number.isInteger(cfg.options.scales.y.max / m / 10 ** Math.floor(Math.log10(cfg.options.scales.y.max)))));
  const top = (precision) => stateBytes.draw(run(stateBytes, { precision }), THEME).options.scales.y.max;
  assert.equal(top('mixed'), top('bf16'));
  assert.equal(top('mixed'), top('fp32'));
});

test('optimizer-trajectories: turning the valley leaves gradient descent and Nesterov alone, not Adam', () => {
  const flat = run(trajectories, { rotation: 0 }), turned = run(trajectories, { rotation: 45 });
  for (const o of ['sgd', 'nesterov']) close(runOf(turned, o).final_loss, runOf(flat, o).final_loss, 1e-9);
  // Adam's per-coordinate scaling matches only the unturned valley: 7.3e-4 against 0.378 at step 100
  // (the figure's weight decay 0.1; 0.388 without it).
  close(runOf(flat, 'adam').final_loss, 7.3194e-4, 1e-4);
  close(runOf(turned, 'adam').final_loss, 0.3780, 1e-3);
  // The start turns with the valley: (1, 1) by 45° is (0, √2), and the level sets turn with it.
  close(turned.start[1], Math.SQRT2, 1e-12);
  for (const lv of turned.levels) for (const q of lv.points) {
    const a = (q.x + q.y) / Math.SQRT2, b = (q.y - q.x) / Math.SQRT2;
    close(0.5 * (a ** 2 + 50 * b ** 2), lv.c, 1e-9);
  }
});

test('optimizer-trajectories: Adam\'s L2 decay changes nothing on the unturned valley, and the legend says so', () => {
  const d = run(trajectories, { show: 'adam-family', weight_decay: 0.1 });
  assert.equal(runOf(d, 'adam').l2NoOp, true);
  close(runOf(d, 'adam').final_loss, runOf(run(trajectories, { show: 'adam', weight_decay: 0 }), 'adam').final_loss, 1e-6);
  const labels = trajectories.draw(d, THEME).data.datasets.map((ds) => ds.label).join(' | ');
  assert.match(labels, /Adam: loss [^|]*L2 decay changes nothing here/);
  assert.equal(runOf(run(trajectories, { show: 'adam-family', weight_decay: 0.1, rotation: 45 }), 'adam').l2NoOp, false);
});

test('optimizer-trajectories: the plane view has one scale on both axes, at desktop and phone sizes', () => {
  const d = run(trajectories);
  for (const [width, height] of [[1180, 460], [350, 420]]) {
    const cfg = trajectories.draw(d, { ...THEME, width, height });
    const { x, y } = cfg.options.scales;
    close((x.max - x.min) / (y.max - y.min), (width - 70) / (height - 70 - 22 * Math.ceil(4 * 230 / width)), 1e-9);
    assert.ok(Math.min(x.max, y.max) >= 1.6 && x.min === -x.max && y.min === -y.max);
  }
});

test('lr-schedules: the loss view runs noisy gradient descent; a decayed rate ends below the constant one\'s floor', () => {
  const d = run(schedules, { view: 'loss', schedule: 'all', warmup_steps: 1000, total_steps: 10000, decay_fraction: 0.2 });
  const last = Object.fromEntries(d.curves.map((c) => [c.schedule, c.windows.at(-1).loss]));
  // SGD's stationary loss is about lr·σ²·2/4 = 0.01 under the constant rate.
  assert.ok(last.constant > 0.003 && last.constant < 0.05, `constant ${last.constant}`);
  for (const s of ['step', 'linear', 'warmup-cosine', 'wsd']) assert.ok(last[s] < 0.1 * last.constant, `${s} ${last[s]}`);
  // The same seed gives the same run; another seed another one.
  assert.deepEqual(run(schedules, { view: 'loss', seed: 1 }).curves[0].windows, run(schedules, { view: 'loss', seed: 1 }).curves[0].windows);
  assert.notDeepEqual(run(schedules, { view: 'loss', seed: 2 }).curves[0].windows, run(schedules, { view: 'loss', seed: 1 }).curves[0].windows);
  const cfg = schedules.draw(d, THEME);
  assertChartSubset('lr-schedules', cfg);
  assert.deepEqual([cfg.options.scales.y.min, cfg.options.scales.y.max], [1e-6, 10]);
  // The legend gives the mean over the last tenth (the lesson's number), not one noisy window;
  // a short WSD decay leaves more of the floor than the cosine's long one.
  const late = Object.fromEntries(d.curves.map((c) => [c.schedule, c.late]));
  assert.ok(late.constant > 0.005 && late.constant < 0.03, `constant ${late.constant}`);
  assert.ok(late['warmup-cosine'] < late.wsd && late.wsd < 0.5 * late.constant, `cosine ${late['warmup-cosine']} wsd ${late.wsd}`);
  assert.match(cfg.data.datasets[0].label, /^Constant: mean loss 0\.0153 over the last tenth$/);
});


test('lr-schedules: warm-up only delays the descent; the curves reach the floor about halfway through 1,000 warm-up steps', () => {
  // The lesson: with 1,000 warm-up steps the loss view's curves reach the noise floor about halfway
  // through the warm-up, a few hundred steps later than with none.
  const reached = (warmup_steps) => {
    const w = run(schedules, { view: 'loss', schedule: 'constant', warmup_steps, total_steps: 10000 }).curves[0].windows;
    return w.find((q) => q.loss < 0.03).step;
  };
  const slow = reached(1000), fast = reached(0);
  assert.ok(slow >= 400 && slow <= 700, `with warm-up: floor at step ${slow}`);
  assert.ok(fast <= 200, `without: floor at step ${fast}`);
  assert.ok(slow - fast >= 200, `${slow} vs ${fast}`);
});

test('optimizer-trajectories and lr-schedules: linear axes tick only at round values, not at the range ends', () => {
  const plane = trajectories.draw(run(trajectories), THEME).options.scales;
  for (const a of [plane.x, plane.y]) assert.equal(a.ticks.includeBounds, false);
  const turned = trajectories.draw(run(trajectories, { rotation: 45 }), THEME).options.scales;
  for (const a of [turned.x, turned.y]) assert.equal(a.ticks.includeBounds, false);
  assert.equal(schedules.draw(run(schedules), THEME).options.scales.y.ticks.includeBounds, false);
});
