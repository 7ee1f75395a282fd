// Input pipeline: the share of time the GPU computes, against data-loader workers, for
// several prefetch depths (calc 'input-pipeline': a seeded simulation of a PyTorch-style
// DataLoader, batch k built whole by worker k mod W, prefetch_factor batches in flight per
// worker, the training loop taking batches in order). The dashed line is the closed-form
// ceiling min(1, W·step/load): what the workers' mean supply allows.
import { formatSI, formatShort } from '../runtime/format.js';
import { chart, linear, colours, series, line } from './shared/chart-config.js';

const WORKERS = Array.from({ length: 16 }, (_, i) => i + 1);
const PREFETCH = [1, 2, 4, 8];

export default {
  id: 'input-pipeline-workers',
  title: 'Input pipeline: GPU busy time against data-loader workers and prefetch',
  caption:
    'Each point is a simulated run of 200 training steps: W workers each build whole batches with a random (lognormal) load time, each may have a few batches in flight (PyTorch\'s prefetch_factor), and the training loop takes them in order. The GPU is busy the share of time shown and stalls for data the rest (the stall time is in the tooltip and "Show data"). The dashed line is the mean-supply ceiling W × step time / load time: no prefetch depth lifts a curve above it. Near the ceiling\'s knee (4 workers at the defaults) the deeper queues stall less, because they absorb slow batches. Even above the ceiling\'s knee the curves stop short of 100%: all workers start together, so the GPU waits for the first batch and, when load times vary, for the first few after it, before the queue has filled. Set the load-time variation to 0 and every prefetch depth stalls for nothing else as soon as W × step ≥ load.',
  simulation: true,
  params: [
    { key: 'load_time_s', label: 'Mean load time per batch', from: ['input-pipeline', 'load_time_s'], min: 0.05, max: 5, scale: 'log' },
    { key: 'step_time_s', label: 'Training step time', from: ['input-pipeline', 'step_time_s'], min: 0.05, max: 2, scale: 'log' },
    { key: 'load_cv', label: 'Load-time variation (CV)', from: ['input-pipeline', 'load_cv'], min: 0, max: 2 },
    { key: 'seed', label: 'Seed', from: ['input-pipeline', 'seed'], max: 1000 },
  ],

  data(engine, p) {
    const base = { load_time_s: p.load_time_s, step_time_s: p.step_time_s, load_cv: p.load_cv, seed: p.seed, steps: 200 };
    const curves = PREFETCH.map((prefetch) => ({
      prefetch,
      points: WORKERS.map((workers) => {
        const r = engine.calc('input-pipeline', { ...base, workers, prefetch });
        return { workers, busy: r.gpu_busy_fraction, stall_s: r.stall_s, throughput: r.throughput_steps_per_s, makespan_s: r.makespan_s };
      }),
    }));
    const ceiling = WORKERS.map((w) => ({ workers: w, busy: Math.min(1, (w * p.step_time_s) / p.load_time_s) }));
    const needed = engine.calc('input-pipeline', { ...base, workers: 1, steps: 1 }).workers_needed;
    const table = {
      columns: ['Workers', 'Prefetch per worker', 'GPU busy', 'Stall (s)', 'Steps/s', 'Mean-supply ceiling'],
      rows: curves.flatMap((c) => c.points.map((q, i) => [q.workers, c.prefetch, q.busy, q.stall_s, q.throughput, ceiling[i].busy])),
    };
    return { curves, ceiling, needed, load_time_s: p.load_time_s, step_time_s: p.step_time_s, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const datasets = data.curves.map((c) => series(pick(), {
      label: `prefetch ${c.prefetch} per worker${c.prefetch === 2 ? ' (PyTorch default)' : ''}`,
      data: c.points.map((q) => ({ x: q.workers, y: 100 * q.busy, stall: q.stall_s,
        label: c.prefetch === 2 && q.workers === data.needed ? `${formatShort(100 * q.busy)}% at ${q.workers} workers` : '' })),
      showLine: true, pointRadius: 3, borderWidth: 2, pointLabels: true,
    }));
    datasets.push(line(pick('muted'), {
      label: 'mean-supply ceiling: W × step / load', borderDash: [6, 4],
      data: data.ceiling.map((q) => ({ x: q.workers, y: 100 * q.busy })),
    }));
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Data-loader workers W (processes)', { range: [0, 17], ticks: { stepSize: 1 } }),
        y: linear('GPU busy (% of wall-clock time)', { range: [0, 100], ticks: { stepSize: 20 } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.raw.x} workers, busy ${formatShort(ctx.raw.y)}%${ctx.raw.stall === undefined ? '' : `, stalled ${formatSI(ctx.raw.stall, 's')}`}`,
    });
  },
};
