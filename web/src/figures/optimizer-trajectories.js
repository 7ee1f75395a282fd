// Optimizers executed by the engine on the ill-conditioned quadratic f(x, y) = ½(x² + κ·y²)
// (calc 'optimizer-trajectory': PyTorch's update rules for SGD, heavy-ball momentum, Nesterov,
// Adam and AdamW), drawn as paths in the (x, y) plane over level sets of the loss, or as the
// loss against the step on a log axis. A path that diverges ends at the step the engine
// flags; it is labelled and the axes stay fixed, so the reader sees it leave the plot.
import { formatShort } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

const OPTIMIZERS = [
  ['sgd', 'Gradient descent'],
  ['momentum', 'Momentum (heavy ball)'],
  ['nesterov', 'Nesterov momentum'],
  ['adam', 'Adam (L2 weight decay)'],
  ['adamw', 'AdamW (decoupled decay)'],
];
const SETS = {
  compare: ['sgd', 'nesterov', 'adam'],
  all: ['sgd', 'momentum', 'nesterov', 'adam', 'adamw'],
  'gd-family': ['sgd', 'momentum', 'nesterov'],
  'adam-family': ['adam', 'adamw'],
  sgd: ['sgd'], momentum: ['momentum'], nesterov: ['nesterov'], adam: ['adam'], adamw: ['adamw'],
};
const SET_OPTIONS = [
  { value: 'compare', label: 'GD, Nesterov, Adam' },
  { value: 'all', label: 'all five' },
  { value: 'gd-family', label: 'GD, momentum, Nesterov' },
  { value: 'adam-family', label: 'Adam and AdamW' },
  ...OPTIMIZERS.map(([value, label]) => ({ value, label: `${label.split(' (')[0]} only` })),
];
const WITH_MOMENTUM = Object.keys(SETS).filter((k) => SETS[k].some((o) => o === 'momentum' || o === 'nesterov'));
const WITH_ADAM = Object.keys(SETS).filter((k) => SETS[k].some((o) => o.startsWith('adam')));
const START = [1, 1];
const PLANE = 1.6; // the plane view shows at least −1.6 … 1.6 on both axes, at one scale
const LOSS_RANGE = [1e-12, 1e6]; // the loss view's y axis, fixed: a diverging path climbs out of it
// Ticks (and grid lines) of the loss axis: every third power of ten.
const DECADES = Array.from({ length: 7 }, (_, i) => 10 ** (3 * i - 12));
// The plane view's axes: the same pixels per unit along x and y, so the valley keeps its shape.
// The plot area is estimated from the chart box less the axes, titles and legend rows; the
// shorter side shows −1.6 … 1.6 and the longer one proportionally more.
function planeAxes(theme, legendItems) {
  const w = Math.max(200, (theme.width ?? 640) - 70);
  const rows = Math.ceil((legendItems * 230) / Math.max(200, (theme.width ?? 640)));
  const h = Math.max(150, (theme.height ?? 400) - 70 - 22 * rows);
  return w >= h ? { x: [-PLANE * w / h, PLANE * w / h], y: [-PLANE, PLANE] } : { x: [-PLANE, PLANE], y: [-PLANE * h / w, PLANE * h / w] };
}
// Two final losses equal to six significant digits, what the legend can show.
const sameLoss = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));
const LEVELS = [1, 0.25]; // loss values of the level sets drawn (two, so the centre stays readable)
const DIRECTIONS = 96;
// The plane's ranges end where one scale puts them (±1.6, ±4.2): ticks only at round values.
const ROUND_TICKS = { includeBounds: false };

export default {
  id: 'optimizer-trajectories',
  title: 'Gradient descent, momentum and Adam on an ill-conditioned valley',
  caption:
    'Paths of gradient descent, Nesterov momentum and Adam from one start on the loss ½(x² + κ·y²), run step by step by the engine with PyTorch’s update rules, on axes of one scale so the valley keeps its shape; the legend gives each final loss. Gradient descent jumps across the valley, then crawls along the floor; Nesterov swings across but gathers speed along it; Adam walks the diagonal, moving both coordinates by about the learning rate per step. Turn the valley by 45°: gradient descent and Nesterov end at the same losses, but Adam’s per-coordinate scaling no longer matches the valley’s axes and it ends far higher. Show Adam and AdamW: on the unturned valley Adam’s L2 weight decay changes nothing (the legend says so), AdamW’s decoupled decay does. Raise the learning rate to 0.035 and Nesterov leaves the plot; past 0.04 (= 2/κ) gradient descent does too. The loss view compares how fast each gets down.',
  simulation: true,
  params: [
    { key: 'show', label: 'Optimizers', type: 'select', options: SET_OPTIONS, default: 'compare' },
    { key: 'view', label: 'View', type: 'select', options: [{ value: 'plane', label: 'paths in the (x, y) plane' }, { value: 'loss', label: 'loss against step (log)' }], default: 'plane' },
    { key: 'condition', label: 'Condition number κ', from: ['optimizer-trajectory', 'condition'], max: 100, default: 50, scale: 'log' },
    { key: 'rotation', label: 'Valley turned by', from: ['optimizer-trajectory', 'rotation'], min: 0, max: 90, default: 0 },
    { key: 'lr', label: 'Learning rate', from: ['optimizer-trajectory', 'lr'], min: 0.001, max: 1, default: 0.025, scale: 'log' },
    { key: 'momentum', label: 'Momentum μ', from: ['optimizer-trajectory', 'momentum'], max: 0.99, when: { show: WITH_MOMENTUM } },
    { key: 'beta1', label: 'Adam β₁', from: ['optimizer-trajectory', 'beta1'], max: 0.99, when: { show: WITH_ADAM } },
    { key: 'beta2', label: 'Adam β₂', from: ['optimizer-trajectory', 'beta2'], when: { show: WITH_ADAM } },
    { key: 'weight_decay', label: 'Weight decay (Adam L2, AdamW decoupled)', from: ['optimizer-trajectory', 'weight_decay'], max: 1, default: 0.1, when: { show: WITH_ADAM } },
    { key: 'steps', label: 'Steps', from: ['optimizer-trajectory', 'steps'], min: 1, max: 300, default: 100 },
  ],

  data(engine, p) {
    const names = Object.fromEntries(OPTIMIZERS);
    const runs = SETS[p.show].map((optimizer) => {
      const adam = optimizer.startsWith('adam');
      const input = {
        optimizer, condition: p.condition, lr: p.lr, steps: p.steps, start: START, rotation: p.rotation,
        ...(adam ? { beta1: p.beta1, beta2: p.beta2, weight_decay: p.weight_decay } : { momentum: p.momentum, weight_decay: 0 }),
      };
      const r = engine.calc('optimizer-trajectory', input);
      // Adam's L2 decay on this loss: the same run without it, to say when the decay changed nothing.
      // Adam's ε and rounding leave a difference near 1e-9 of the loss; a real effect is far larger.
      const l2NoOp = optimizer === 'adam' && p.weight_decay > 0
        && sameLoss(engine.calc('optimizer-trajectory', { ...input, weight_decay: 0 }).final_loss, r.final_loss);
      return { optimizer, name: names[optimizer], path: r.path, final_loss: r.final_loss, diverged: r.diverged, diverged_step: r.diverged_step, l2NoOp };
    });
    // Level sets from the engine's own loss: its value at unit direction u (a zero-step path
    // from u); the loss is a quadratic form, so the point of loss c along u is √(c / f(u))·u.
    // The directions are spread evenly along the ellipse (angle atan2(sin t, √κ·cos t)), a
    // sampling choice only: the loss values themselves are the engine's.
    const unit = Array.from({ length: DIRECTIONS + 1 }, (_, i) => {
      const t = (2 * Math.PI * i) / DIRECTIONS;
      const a = Math.atan2(Math.sin(t), Math.sqrt(p.condition) * Math.cos(t));
      const u = [Math.cos(a), Math.sin(a)];
      // The engine turns the start with the valley: path[0] is u turned, with its loss.
      const q = engine.calc('optimizer-trajectory', { condition: p.condition, start: u, steps: 0, rotation: p.rotation }).path[0];
      return { u: [q.x, q.y], f: q.loss };
    });
    const levels = LEVELS.map((c) => ({ c, points: unit.map(({ u, f }) => ({ x: Math.sqrt(c / f) * u[0], y: Math.sqrt(c / f) * u[1] })) }));
    const table = {
      columns: ['Optimizer', 'Step', 'x', 'y', 'Loss ½(x² + κ·y²)'],
      rows: runs.flatMap((r) => r.path.map((q) => [r.name, q.step, q.x, q.y, q.loss])),
    };
    const start = [runs[0].path[0].x, runs[0].path[0].y];
    return { view: p.view, condition: p.condition, lr: p.lr, steps: p.steps, rotation: p.rotation, start, start_loss: runs[0].path[0].loss, runs, levels, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const colour = Object.fromEntries(OPTIMIZERS.map(([o]) => [o, pick()]));
    const dashes = { sgd: [], momentum: [6, 3], nesterov: [2, 2], adam: [], adamw: [8, 3, 2, 3] };
    const styles = { sgd: 'circle', momentum: 'rect', nesterov: 'triangle', adam: 'rectRot', adamw: 'crossRot' };
    const plane = data.view === 'plane';
    const axes = planeAxes(theme, data.runs.length + 1);
    const inside = (q) => q.x >= axes.x[0] && q.x <= axes.x[1] && q.y >= axes.y[0] && q.y <= axes.y[1];
    const datasets = [];
    if (plane) {
      const muted = pick('muted');
      data.levels.forEach((lv, i) => datasets.push(line(muted, {
        label: `Level set: loss ${lv.c}`, group: 'level', borderWidth: 1, noLegend: true,
        // Labels on opposite sides of the minimum (loss 1 left, 0.25 right), apart.
        data: lv.points.map((q, k) => ({ ...q, label: k === (i === 1 ? 0 : DIRECTIONS / 2) ? `loss ${lv.c}` : '' })),
        pointLabels: (raw) => raw.label,
      })));
    }
    for (const r of data.runs) {
      const pts = r.path.map((q) => ({ x: plane ? q.x : q.step, y: plane ? q.y : q.loss, q, name: r.name }));
      // The diverged step's label sits on its last point still inside the fixed axes.
      let mark = -1;
      if (r.diverged) {
        mark = pts.length - 1;
        if (plane) while (mark > 0 && !inside(r.path[mark])) mark--;
        else while (mark > 0 && !(r.path[mark].loss <= LOSS_RANGE[1])) mark--;
      }
      const same = r.optimizer === 'adamw' && data.runs.some((o) => o.optimizer === 'adam' && sameLoss(o.final_loss, r.final_loss));
      const note = r.l2NoOp ? ' (L2 decay changes nothing here)' : same ? ' (same path as Adam)' : '';
      const end = r.diverged ? `diverges at step ${r.diverged_step}` : `loss ${formatShort(r.final_loss)} at step ${r.path.at(-1).step}${note}`;
      datasets.push(series(colour[r.optimizer], {
        label: `${r.name.split(' (')[0]}: ${end}`, data: pts, showLine: true, borderWidth: 2, borderDash: dashes[r.optimizer],
        pointStyle: styles[r.optimizer], pointRadius: plane ? 2.5 : 0, pointHitRadius: 4,
        pointLabels: (_raw, i) => (i === mark ? `${r.name.split(' (')[0]} ${end}` : ''),
      }));
    }
    if (plane) {
      datasets.push(series(pick('text'), { label: `Start, loss ${formatShort(data.start_loss)}`,
        data: [{ x: data.start[0], y: data.start[1], label: `start, loss ${formatShort(data.start_loss)}` }], pointStyle: 'star', pointRadius: 9, pointLabels: true, noLegend: true }));
      // The minimum is marked and named in the legend (a label there would sit on the level sets' labels).
      datasets.push(series(pick('compute'), { label: 'Minimum (0, 0)', data: [{ x: 0, y: 0 }], pointStyle: 'crossRot', pointRadius: 8, borderWidth: 2 }));
    }
    const fmt = formatShort;
    // Every third power of ten on the loss axis, as 10^k (24 decades would crowd the ticks).
    const decade = (v) => { const k = Math.round(Math.log10(v)); return Math.abs(v / 10 ** k - 1) < 1e-9 && k % 3 === 0 ? (k === 0 ? '1' : `1e${k}`) : ''; };
    return chart(theme, {
      datasets,
      // The level sets, start and minimum are labelled on the chart; the legend names the optimizers.
      legend: { filter: (item, d) => !d.datasets[item.datasetIndex].noLegend, boxWidth: 10 },
      scales: plane
        ? data.rotation === 0
          ? { x: linear('x, the gentle direction (curvature 1)', { range: axes.x, ticks: ROUND_TICKS }),
            y: linear(`y, the steep direction (curvature κ = ${fmt(data.condition)})`, { range: axes.y, ticks: ROUND_TICKS }) }
          : { x: linear(`Parameter x (valley turned ${fmt(data.rotation)}°)`, { range: axes.x, ticks: ROUND_TICKS }),
            y: linear('Parameter y (dimensionless)', { range: axes.y, ticks: ROUND_TICKS }) }
        : { x: linear('Step (updates)', { range: [0, data.steps] }),
          y: log('Loss ½(x² + κ·y²) (dimensionless)', { range: LOSS_RANGE, ticks: { callback: decade, autoSkip: false },
            afterBuildTicks: (axis) => { axis.ticks = DECADES.map((value) => ({ value })); } }) },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        return `${ctx.raw.name}, step ${q.step}: (${fmt(q.x)}, ${fmt(q.y)}), loss ${fmt(q.loss)}`;
      },
    });
  },
};
