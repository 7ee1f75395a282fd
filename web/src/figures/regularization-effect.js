// Two ways to keep a too-large polynomial from memorizing noise, on the engine's executed fits
// (calc('polyfit')), in three views:
//  - "ridge": weight decay. Train and validation MSE of the ridge solution (minimize
//    (1/n)·Σ(fit − y)² + λ·‖c‖², solved by the QR of the augmented system) for λ on a log grid;
//    one calc per λ, plus λ = 0 (plain least squares) as the dashed reference.
//  - "early": early stopping. Gradient descent from c = 0 on the unregularized objective with
//    the engine's default step 1/λ_max (by_step), train and validation MSE after every step.
//  - "fit": the fitted polynomial itself (the engine's `curve`, 201 points of [−1, 1]) without
//    and with the chosen λ, against the true function.
import { chart, linear, log, colours, series, line, lineLabel, offLine } from './shared/chart-config.js';
import { onAxis, fmt, decadeTicks } from './capacity-curve.js';

// λ from 1e-8 to 1e2, four points a decade.
const LAMBDAS = Array.from({ length: 41 }, (_, k) => 10 ** (-8 + k / 4));
// Fixed error axis of both sweeps (values beyond it are drawn on its edge).
const RANGE = [1e-3, 1e5];
// Fixed y axis of the fit view: the true functions stay within [−1, 1].
const FIT_RANGE = [-2.5, 2.5];

export default {
  id: 'regularization-effect',
  title: 'Weight decay and early stopping',
  caption:
    'A degree-15 polynomial on 20 noisy samples has almost as many coefficients as samples, and plain least squares memorizes the noise (in the two error views, the dashed line is its validation error, on the top edge when it lies above the axis). Weight-decay view: the ridge penalty λ·‖c‖² shrinks the coefficients; as λ grows the train error rises, and the validation error falls to a minimum (star) before both climb together when the fit becomes too flat. Early-stopping view: gradient descent from all-zero coefficients on the same unpenalized loss; the validation error is lowest after a few steps (star) and then rises as the later steps fit the noise, towards the least-squares error far above. Fit view: the fitted curve without weight decay and with the chosen λ, against the true function; move λ and watch the curve calm down and then go flat. Lower the degree or add samples and there is less to gain.',
  simulation: true,
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'ridge',
      options: [{ value: 'ridge', label: 'Weight decay (λ)' }, { value: 'early', label: 'Early stopping (steps)' }, { value: 'fit', label: 'The fitted curve' }] },
    { key: 'degree', label: 'Polynomial degree', from: ['polyfit', 'degree'], max: 30, default: 15 },
    { key: 'samples', label: 'Training samples n', from: ['polyfit', 'samples'], max: 100, default: 20 },
    { key: 'noise', label: 'Label noise σ', from: ['polyfit', 'noise'], max: 1, default: 0.2 },
    { key: 'seed', label: 'Seed', from: ['polyfit', 'seed'], max: 99 },
    { key: 'weight_decay', label: 'Weight decay λ', from: ['polyfit', 'weight_decay'], min: 1e-8, max: 100, default: 0.1, scale: 'log',
      when: { view: ['ridge', 'fit'] } },
    { key: 'gd_steps', label: 'Gradient-descent steps', from: ['polyfit', 'gd_steps'], min: 10, default: 1000, scale: 'log',
      when: { view: ['early'] } },
  ],

  data(engine, p) {
    const base = { degree: p.degree, samples: p.samples, noise: p.noise, seed: p.seed };
    const plain = engine.calc('polyfit', base);
    const reference = { train: plain.train_mse, validation: plain.validation_mse, norm: plain.coefficient_norm, solver: plain.solver };
    if (p.view === 'early') {
      const r = engine.calc('polyfit', { ...base, gd_steps: p.gd_steps });
      const rows = r.by_step.map((q) => ({ step: q.step, train: q.train_mse, validation: q.validation_mse }));
      const best = rows.reduce((a, b) => (b.validation < a.validation ? b : a));
      return { view: 'early', degree: p.degree, steps: p.gd_steps, lr: r.gd_lr, lrMax: r.gd_lr_max_stable, reference, rows, best,
        table: { columns: ['Gradient-descent step', 'Train MSE', 'Validation MSE'], rows: rows.map((q) => [q.step, q.train, q.validation]) } };
    }
    const ridge = (lambda) => {
      const r = engine.calc('polyfit', { ...base, weight_decay: lambda });
      return { lambda, train: r.train_mse, validation: r.validation_mse, norm: r.coefficient_norm, curve: r.curve };
    };
    const chosen = ridge(p.weight_decay);
    if (p.view === 'fit') {
      const rows = plain.curve.map((q, i) => ({ x: q.x, truth: q.truth, plain: q.fit, ridge: chosen.curve[i].fit }));
      return { view: 'fit', degree: p.degree, lambda: p.weight_decay, reference, chosen: { ...chosen, curve: undefined }, rows,
        table: { columns: ['x', 'True function', 'Fit, λ = 0', `Fit, λ = ${fmt(p.weight_decay)}`], rows: rows.map((q) => [q.x, q.truth, q.plain, q.ridge]) } };
    }
    const rows = LAMBDAS.map((l) => { const q = ridge(l); delete q.curve; return q; });
    const best = rows.reduce((a, b) => (b.validation < a.validation ? b : a));
    delete chosen.curve;
    return { view: 'ridge', degree: p.degree, lambda: p.weight_decay, reference, chosen, rows, best,
      table: { columns: ['Weight decay λ', 'Train MSE', 'Validation MSE', '‖c‖ (RMS of the fit)'],
        rows: [...rows.map((q) => [q.lambda, q.train, q.validation, q.norm]), ['0 (least squares)', reference.train, reference.validation, reference.norm],
          [`${fmt(p.weight_decay)} (chosen)`, chosen.train, chosen.validation, chosen.norm]] } };
  },

  draw(data, theme) {
    const pick = colours(theme);
    if (data.view === 'fit') {
      const xy = (key) => data.rows.map((q) => ({ x: q.x, y: q[key] }));
      return chart(theme, {
        datasets: [
          line(pick('muted'), { label: 'True function sin(πx)', data: xy('truth'), borderDash: [6, 4] }),
          line(pick(), { label: `Least squares, λ = 0 (validation MSE ${fmt(data.reference.validation)})`, data: xy('plain') }),
          line(pick(), { label: `Weight decay λ = ${fmt(data.lambda)} (validation MSE ${fmt(data.chosen.validation)})`, data: xy('ridge'), borderWidth: 3 }),
        ],
        scales: {
          x: linear('Input x (dimensionless)', { range: [-1, 1] }),
          y: linear('Output y (label units)', { range: FIT_RANGE }),
        },
        tooltip: (ctx) => `${ctx.dataset.label}: y = ${fmt(ctx.raw.y)} at x = ${fmt(ctx.raw.x)}`,
      });
    }
    const [lo, hi] = RANGE;
    // The least-squares line is often far above the axis: drawn on its edge, and its label says so.
    const edge = (v) => (onAxis(v, RANGE).clipped ? ' (off the axis)' : '');
    const early = data.view === 'early';
    const key = early ? 'step' : 'lambda';
    const rows = early ? data.rows.filter((q) => q.step >= 1) : data.rows; // step 0 (c = 0) has no place on a log axis
    const pts = (k) => rows.map((q) => ({ x: q[key], ...onAxis(q[k], RANGE), q }));
    const trainPts = pts('train');
    const valPts = pts('validation');
    const xRange = early ? [1, data.steps] : [LAMBDAS[0], LAMBDAS[LAMBDAS.length - 1]];
    const what = (q) => (early ? `step ${q.step}` : `λ = ${fmt(q.lambda)}`);
    const muted = pick('muted');
    const datasets = [
      series(pick(), { label: 'Train MSE', data: trainPts, showLine: true, pointRadius: early ? 0 : 3, borderWidth: 2, pointStyle: 'circle' }),
      series(pick(), { label: 'Validation MSE', data: valPts, showLine: true, pointRadius: early ? 0 : 3, borderWidth: 2, pointStyle: 'rect' }),
      line(muted, { label: `Least squares without ${early ? 'stopping or decay' : 'weight decay'}: validation MSE ${fmt(data.reference.validation)}`,
        data: [{ x: xRange[0], ...onAxis(data.reference.validation, RANGE) }, { x: xRange[1], ...onAxis(data.reference.validation, RANGE) }],
        borderDash: [6, 4], group: 'reference' }),
      lineLabel(muted, 'reference', xRange[0], offLine(data.reference.validation, RANGE),
        `least squares: ${fmt(data.reference.validation)}${edge(data.reference.validation)}`),
      series(pick(), { label: `Best validation: ${what(data.best)}, MSE ${fmt(data.best.validation)}`,
        data: [{ x: data.best[key], ...onAxis(data.best.validation, RANGE), q: data.best, label: `best: ${what(data.best)}` }],
        pointStyle: 'star', pointRadius: 10, borderWidth: 2, pointLabels: true }),
    ];
    if (!early) {
      const ink = pick('text');
      datasets.push(line(ink, { label: `Chosen λ = ${fmt(data.lambda)}: validation MSE ${fmt(data.chosen.validation)}`,
        data: [{ x: data.lambda, y: lo }, { x: data.lambda, y: hi }], borderDash: [2, 3], borderWidth: 1, group: 'chosen' }),
      lineLabel(ink, 'chosen', data.lambda, lo * 10, `chosen λ = ${fmt(data.lambda)}`));
    }
    const clipped = [...trainPts, ...valPts].filter((q) => q.clipped);
    if (clipped.length) {
      datasets.push(series(pick(), { label: 'Off the axis: drawn on its edge', data: clipped, pointStyle: 'crossRot', pointRadius: 5 }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: log(early ? `Gradient-descent steps (count; learning rate ${fmt(data.lr)} = 1/λ_max)` : 'Weight decay λ (penalty per unit ‖c‖²)',
          { range: xRange, ticks: decadeTicks(xRange) }),
        y: log(`Mean squared error, degree ${data.degree} (label units²)`, { range: RANGE, ticks: decadeTicks(RANGE) }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        return q ? `${what(q)}: train MSE ${fmt(q.train)}, validation MSE ${fmt(q.validation)}` : ctx.dataset.label;
      },
    });
  },
};
