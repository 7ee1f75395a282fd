// Learning-rate schedules over a training run (calc 'lr-schedule'): constant, step decay,
// linear decay, warm-up + cosine (Loshchilov & Hutter's SGDR cosine, as Hugging Face's
// get_cosine_schedule_with_warmup) and WSD (warm-up, stable, decay; Hu et al., MiniCPM), every
// one after the same linear warm-up. The labelled points are read from the engine's lr at
// their steps: the end of the warm-up, the cosine's midpoint, the start of WSD's decay. Total
// steps stop at 20,000: the engine lists every step, and five lists of 100,000 take ~0.5 s.
import { formatShort } from '../runtime/format.js';
import { EngineError } from '../runtime/engine-api.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';
import { decadeTicks } from './capacity-curve.js';

// The loss view: gradient descent with seeded gradient noise on the lesson's valley
// ½(x² + κ·y²), κ = 10, from (1, 1), every schedule peaking at the same learning rate. Its
// stationary loss under a constant rate is about lr·σ²·2/4 (two coordinates), so it falls with
// the rate: the floor the decay removes.
const NOISY = { optimizer: 'sgd', condition: 10, lr: 0.02, start: [1, 1] };
const LOSS_RANGE = [1e-6, 10];
const WINDOWS = 100; // the loss view plots the mean loss over each hundredth of the run

const SCHEDULES = [
  ['constant', 'Constant'],
  ['step', 'Step decay (×0.1 at 1/3 and 2/3 of the decay phase)'],
  ['linear', 'Linear decay to 0'],
  ['warmup-cosine', 'Warm-up + cosine'],
  ['wsd', 'WSD: warm-up, stable, decay'],
];

export default {
  id: 'lr-schedules',
  title: 'Learning-rate schedules: warm-up, cosine, step and WSD',
  caption:
    'The learning rate at every step of a run, as the engine computes it. Every schedule starts with the same linear warm-up from 0 (the first labelled point is its end, at the peak); the cosine passes half the peak exactly halfway through the steps after the warm-up; WSD’s decay is linear here (MiniCPM used an exponential one). Compare all schedules at once, set the warm-up to 0 and see every curve start at the peak, or shrink WSD’s decay fraction and watch it hold the peak longer and drop more steeply at the end. Switch to the loss view: the engine runs gradient descent with seeded gradient noise on the valley ½(x² + 10·y²), every schedule peaking at lr 0.02, and plots the mean loss over each hundredth of the run. Under the constant rate the loss stops at a noise floor; each decay lowers it, and WSD drops from the constant curve only when its decay starts. Raise the noise and every floor rises; change the seed to see which wiggles are one draw.',
  params: [
    { key: 'view', label: 'View', type: 'select', options: [{ value: 'lr', label: 'learning rate' }, { value: 'loss', label: 'loss of a noisy run (log)' }], default: 'lr' },
    { key: 'schedule', label: 'Schedule', type: 'select', options: [{ value: 'all', label: 'all, compared' }, ...SCHEDULES.map(([value, label]) => ({ value, label: label.split(' (')[0] }))], default: 'warmup-cosine' },
    { key: 'peak_lr', label: 'Peak learning rate', from: ['lr-schedule', 'peak_lr'], min: 1e-5, max: 1e-2, default: 3e-4, scale: 'log', when: { view: ['lr'] } },
    { key: 'warmup_steps', label: 'Warm-up steps', from: ['lr-schedule', 'warmup_steps'], max: 5000, default: 1000 },
    { key: 'total_steps', label: 'Total steps', from: ['lr-schedule', 'total_steps'], min: 1000, max: 20000, default: 10000, scale: 'log' },
    { key: 'decay_fraction', label: 'WSD decay fraction of the run', type: 'number', unit: '', min: 0.01, max: 0.5, default: 0.2, when: { schedule: ['all', 'wsd'] } },
    { key: 'noise', label: 'Gradient noise σ', from: ['optimizer-trajectory', 'noise'], max: 3, default: 1, when: { view: ['loss'] } },
    { key: 'seed', label: 'Noise seed', from: ['optimizer-trajectory', 'seed'], max: 1000, default: 1, when: { view: ['loss'] } },
  ],

  data(engine, p) {
    const shown = p.schedule === 'all' ? SCHEDULES : SCHEDULES.filter(([s]) => s === p.schedule);
    const decaySteps = Math.max(1, Math.round(p.decay_fraction * p.total_steps));
    const stepSize = Math.max(1, Math.round((p.total_steps - p.warmup_steps) / 3));
    const input = (schedule, extra = {}) => ({ schedule, peak_lr: p.peak_lr, warmup_steps: p.warmup_steps, total_steps: p.total_steps,
      ...(schedule === 'wsd' ? { decay_steps: decaySteps } : {}), ...(schedule === 'step' ? { step_size: stepSize, gamma: 0.1 } : {}), ...extra });
    const calc = (schedule, extra) => {
      try {
        return engine.calc('lr-schedule', input(schedule, extra));
      } catch (e) {
        // decay_steps is set by the decay fraction: name that control in the message.
        if (e?.field === 'decay_steps') {
          throw new EngineError('decay_fraction', `WSD's decay (${decaySteps} steps) must fit after the warm-up: lower the decay fraction or the warm-up steps.`);
        }
        throw e;
      }
    };
    if (p.view === 'loss') return lossData(engine, p, shown, decaySteps, stepSize);
    const curves = shown.map(([schedule, name]) => {
      const r = calc(schedule);
      // A marked step's rate: the engine's entry for that step (every step is listed up to
      // 100,000 steps), or its lr_at where the list is a sample.
      const at = (_s, t) => ({ step: t, lr: r.sampled ? calc(schedule, { at_step: t }).lr_at : r.lr[t] });
      const marks = [];
      if (p.warmup_steps > 0) marks.push({ ...at(schedule, p.warmup_steps === p.total_steps ? p.total_steps - 1 : p.warmup_steps), label: 'end of warm-up' });
      if (schedule === 'warmup-cosine' && p.total_steps > p.warmup_steps) {
        marks.push({ ...at(schedule, Math.round(p.warmup_steps + (p.total_steps - p.warmup_steps) / 2)), label: 'cosine midpoint' });
      }
      if (schedule === 'wsd') marks.push({ ...at(schedule, p.total_steps - decaySteps), label: 'decay starts' });
      // Drawn from at most about 1,000 of the engine's points per curve (every k-th and the last).
      const k = Math.ceil(r.steps.length / 1000);
      const keep = r.steps.map((_, i) => i).filter((i) => i % k === 0 || i === r.steps.length - 1);
      return { schedule, name, steps: keep.map((i) => r.steps[i]), lr: keep.map((i) => r.lr[i]), marks };
    });
    const table = {
      columns: ['Schedule', 'Step', 'Learning rate'],
      rows: curves.flatMap((c) => [...c.steps.map((t, i) => [c.name, t, c.lr[i]]), ...c.marks.map((m) => [`${c.name}: ${m.label}`, m.step, m.lr])]),
    };
    return { view: 'lr', schedule: p.schedule, peak_lr: p.peak_lr, total_steps: p.total_steps, warmup_steps: p.warmup_steps, decay_steps: decaySteps, step_size: stepSize, curves, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const dashes = { constant: [2, 3], step: [], linear: [6, 3], 'warmup-cosine': [], wsd: [8, 3, 2, 3] };
    if (data.view === 'loss') return drawLoss(data, theme, pick, dashes);
    const datasets = [];
    const marked = [];
    for (const c of data.curves) {
      const colour = pick();
      const label = c.schedule === 'step' ? `Step decay (×0.1 every ${data.step_size} steps)`
        : c.schedule === 'wsd' ? `WSD (decay over the last ${data.decay_steps} steps)` : c.name;
      datasets.push(line(colour, { label, data: c.steps.map((t, i) => ({ x: t, y: c.lr[i] })), borderDash: dashes[c.schedule], group: c.schedule }));
      if (c.marks.length) {
        // One schedule: each mark says its step and rate; compared: only the warm-up's end once.
        const marks = data.curves.length === 1 ? c.marks : c.marks.filter((m) => m.label !== 'end of warm-up' || !marked.some((q) => q.label === m.label));
        marked.push(...marks);
        if (marks.length) datasets.push(series(colour, { label: `${c.name.split(' (')[0]}: ${marks.map((m) => m.label).join(', ')}`, group: c.schedule,
          data: marks.map((m) => ({ x: m.step, y: m.lr, label: `${m.label}: step ${m.step}, lr ${formatShort(m.lr)}` })),
          pointStyle: 'circle', pointRadius: 5, pointLabels: true, noLegend: true }));
      }
    }
    return chart(theme, {
      datasets,
      // The marked points are labelled on the chart; the legend names the schedules.
      legend: { filter: (item, d) => !d.datasets[item.datasetIndex].noLegend },
      scales: {
        x: linear('Training step (steps)', { range: [0, data.total_steps] }),
        y: linear('Learning rate (dimensionless)', { range: [0, 1.12 * data.peak_lr], ticks: { includeBounds: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: step ${ctx.raw.x}, lr ${formatShort(ctx.raw.y)}`,
    });
  },
};

// The noisy runs of the loss view: one engine run per schedule, the same seed for all.
function lossData(engine, p, shown, decaySteps, stepSize) {
  const curves = shown.map(([schedule, name]) => {
    let r;
    try {
      r = engine.calc('optimizer-trajectory', { ...NOISY, steps: p.total_steps, noise: p.noise, seed: p.seed,
        lr_schedule: schedule, warmup_steps: p.warmup_steps,
        ...(schedule === 'wsd' ? { decay_steps: decaySteps } : {}), ...(schedule === 'step' ? { step_size: stepSize, gamma: 0.1 } : {}) });
    } catch (e) {
      if (e?.field === 'decay_steps') {
        throw new EngineError('decay_fraction', `WSD's decay (${decaySteps} steps) must fit after the warm-up: lower the decay fraction or the warm-up steps.`);
      }
      throw e;
    }
    // Mean loss over each window of the run (steps 1 … total; step 0 is the start).
    const size = Math.max(1, Math.floor(p.total_steps / WINDOWS));
    const windows = [];
    for (let lo = 1; lo + size - 1 <= r.path.length - 1; lo += size) {
      let sum = 0;
      for (let i = lo; i < lo + size; i++) sum += r.path[i].loss;
      windows.push({ step: lo + size - 1, loss: sum / size });
    }
    return { schedule, name, windows, final: windows.at(-1).loss, late: r.late_mean_loss, diverged: r.diverged };
  });
  const table = { columns: ['Schedule', 'Last step of the window', 'Mean loss over the window'],
    rows: curves.flatMap((c) => c.windows.map((w) => [c.name, w.step, w.loss])) };
  return { view: 'loss', schedule: p.schedule, total_steps: p.total_steps, decay_steps: decaySteps, step_size: stepSize, noise: p.noise, curves, table };
}

function drawLoss(data, theme, pick, dashes) {
  const datasets = data.curves.map((c) => line(pick(), {
    // The engine's mean over the last tenth of the run: one window's mean is still a noisy draw.
    label: `${c.name.split(' (')[0].split(':')[0]}: mean loss ${formatShort(c.late)} over the last tenth`,
    data: c.windows.map((w) => ({ x: w.step, y: w.loss })), borderDash: dashes[c.schedule], group: c.schedule,
  }));
  return chart(theme, {
    datasets,
    scales: {
      x: linear('Training step (steps)', { range: [0, data.total_steps] }),
      y: log('Mean loss over the window (dimensionless)', { range: LOSS_RANGE, ticks: decadeTicks(LOSS_RANGE) }),
    },
    tooltip: (ctx) => `${ctx.dataset.label.split(':')[0]}: steps to ${ctx.raw.x}, mean loss ${formatShort(ctx.raw.y)}`,
  });
}
