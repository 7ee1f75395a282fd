// Learning-rate schedules over a training run (calc 'lr-schedule'): constant, step decay,
// linear decay, warm-up + cosine (Loshchilov & Hutter's SGDR cosine, as Hugging Face's
// get_cosine_schedule_with_warmup) and WSD (warm-up, stable, decay; Hu et al., MiniCPM), every
// one after the same linear warm-up. The labelled points are read from the engine's lr at
// their steps: the end of the warm-up, the cosine's midpoint, the start of WSD's decay. Total
// steps stop at 20,000: the engine lists every step, and five lists of 100,000 take ~0.5 s.
import { formatShort } from '../runtime/format.js';
import { EngineError } from '../runtime/engine-api.js';
import { chart, linear, colours, series, line } from './shared/chart-config.js';

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
    'The learning rate at every step of a run, as the engine computes it. Every schedule starts with the same linear warm-up from 0 (the first labelled point is its end, at the peak); the cosine passes half the peak exactly halfway through the steps after the warm-up. Compare all schedules at once, set the warm-up to 0 and see every curve start at the peak, or shrink WSD’s decay fraction and watch it hold the peak longer and drop more steeply at the end.',
  params: [
    { key: 'schedule', label: 'Schedule', type: 'select', options: [{ value: 'all', label: 'all, compared' }, ...SCHEDULES.map(([value, label]) => ({ value, label: label.split(' (')[0] }))], default: 'warmup-cosine' },
    { key: 'peak_lr', label: 'Peak learning rate', from: ['lr-schedule', 'peak_lr'], min: 1e-5, max: 1e-2, default: 3e-4, scale: 'log' },
    { key: 'warmup_steps', label: 'Warm-up steps', from: ['lr-schedule', 'warmup_steps'], max: 5000, default: 1000 },
    { key: 'total_steps', label: 'Total steps', from: ['lr-schedule', 'total_steps'], min: 1000, max: 20000, default: 10000, scale: 'log' },
    { key: 'decay_fraction', label: 'WSD decay fraction of the run', type: 'number', unit: '', min: 0.01, max: 0.5, default: 0.2, when: { schedule: ['all', 'wsd'] } },
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
    return { schedule: p.schedule, peak_lr: p.peak_lr, total_steps: p.total_steps, warmup_steps: p.warmup_steps, decay_steps: decaySteps, step_size: stepSize, curves, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const dashes = { constant: [2, 3], step: [], linear: [6, 3], 'warmup-cosine': [], wsd: [8, 3, 2, 3] };
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
        y: linear('Learning rate (dimensionless)', { range: [0, 1.12 * data.peak_lr] }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: step ${ctx.raw.x}, lr ${formatShort(ctx.raw.y)}`,
    });
  },
};
