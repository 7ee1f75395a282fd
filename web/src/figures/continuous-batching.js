// Static against continuous batching on one simulated request stream, as the arrival rate
// grows: throughput and a latency percentile of both policies. Each point is one
// calc('batching-sim') (an event-driven simulation of 300 requests under both policies).
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

// Arrival rates as fractions of a rough continuous-batching capacity.
const LOADS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5];
const METRICS = {
  latency_p50_s: 'median latency', latency_p90_s: 'p90 latency', latency_p99_s: 'p99 latency', ttft_p99_s: 'p99 time to first token',
};

export default {
  id: 'continuous-batching',
  title: 'Static against continuous batching',
  caption:
    'Output tokens/s (left) and a latency percentile (right, log scale) of one seeded stream of 300 requests, simulated under static and continuous batching at rising arrival rates (Llama-3-8B-sized model, bf16). The dotted lines mark each policy\'s capacity, its throughput on the same requests as one backlog: past static batching\'s, its latency climbs while continuous batching still keeps up. Then lengthen the outputs, which widens the spread of lengths and the gap between the policies.',
  simulation: true,
  params: [
    { key: 'max_batch', label: 'Max batch', type: 'select', default: 32, options: [8, 16, 32, 64, 128].map((v) => ({ value: v, label: String(v) })) },
    { key: 'metric', label: 'Latency shown', type: 'select', default: 'latency_p90_s', options: Object.entries(METRICS).map(([value, label]) => ({ value, label })) },
    { key: 'output_mean', label: 'Mean output length', from: ['batching-sim', 'output_mean'], min: 16, max: 1024, scale: 'log' },
    { key: 'prompt_mean', label: 'Mean prompt length', from: ['batching-sim', 'prompt_mean'], min: 16, max: 4096, scale: 'log' },
    { key: 'hardware', label: 'Accelerator', from: ['batching-sim', 'hardware'] },
    { key: 'seed', label: 'Seed', from: ['batching-sim', 'seed'], max: 1000 },
  ],

  data(engine, p) {
    const base = { requests: 300, max_batch: Number(p.max_batch), output_mean: p.output_mean, prompt_mean: p.prompt_mean, hardware: p.hardware, seed: p.seed };
    const probe = engine.calc('batching-sim', { ...base, requests: 1, rate_rps: 1 });
    // A decode step costs at least the weight read; a full batch emits max_batch tokens per step.
    const capacity = Number(p.max_batch) / (probe.decode_step_s * p.output_mean);
    const points = LOADS.map((f) => {
      const rate = Number((capacity * f).toPrecision(3));
      const r = engine.calc('batching-sim', { ...base, rate_rps: rate });
      return { rate, offered: r.offered_tokens_per_s, static: r.static, continuous: r.continuous };
    });
    // Each policy's capacity (requests/s on the stream's requests as a backlog): the same at every rate.
    const capacities = { static: points[0].static.capacity_rps, continuous: points[0].continuous.capacity_rps };
    const m = p.metric;
    const table = {
      columns: ['Arrival rate (req/s)', 'Offered (tokens/s)', 'Static (tokens/s)', 'Continuous (tokens/s)', `Static ${METRICS[m]} (s)`, `Continuous ${METRICS[m]} (s)`, 'Static mean batch', 'Continuous mean batch'],
      rows: points.map((q) => [q.rate, q.offered, q.static.tokens_per_s, q.continuous.tokens_per_s, q.static[m], q.continuous[m], q.static.mean_batch, q.continuous.mean_batch]),
    };
    return { metric: m, metricLabel: METRICS[m], capacity_rps: capacity, capacities, points, table };
  },

  draw(data, theme) {
    // One colour per policy: its throughput solid, its latency dashed (group: the policy).
    const pick = colours(theme);
    const [continuous, fixed] = [pick(), pick()];
    // Throughput: circle and triangle on solid lines; latency: square and diamond on dashed
    // lines, so the legend tells the four apart by marker as well as colour.
    const ds = (colour, group, label, get, axis, style, dash) => series(colour, {
      label, data: data.points.map((q) => ({ x: q.rate, y: get(q), q })), yAxisID: axis, showLine: true,
      pointStyle: style, pointRadius: style === 'rectRot' ? 4 : 3, borderWidth: 2, borderDash: dash, group,
    });
    const datasets = [
      ds(continuous, 'continuous', 'Continuous: tokens/s (solid)', (q) => q.continuous.tokens_per_s, 'y', 'circle', []),
      ds(fixed, 'static', 'Static: tokens/s (solid)', (q) => q.static.tokens_per_s, 'y', 'triangle', []),
      ds(continuous, 'continuous', `Continuous: ${data.metricLabel} (dashed, right axis)`, (q) => q.continuous[data.metric], 'y1', 'rect', [6, 3]),
      ds(fixed, 'static', `Static: ${data.metricLabel} (dashed, right axis)`, (q) => q.static[data.metric], 'y1', 'rectRot', [6, 3]),
      { ...ds(pick('muted'), undefined, 'Offered load', (q) => q.offered, 'y', 'line', [2, 3]), pointRadius: 0 },
    ];
    // Capacity markers in their policy's colour (same group), up to the highest throughput drawn.
    const top = Math.max(...data.points.flatMap((q) => [q.offered, q.static.tokens_per_s, q.continuous.tokens_per_s]));
    const maxRate = data.points.at(-1).rate;
    for (const [policy, colour, name] of [['static', fixed, 'Static'], ['continuous', continuous, 'Continuous']]) {
      const c = data.capacities[policy];
      datasets.push(line(colour, {
        label: `${name}: capacity ${c.toFixed(1)} req/s${c > maxRate ? ' (beyond the axis)' : ''}`, group: policy, yAxisID: 'y',
        data: c <= maxRate ? [{ x: c, y: 0 }, { x: c, y: top }] : [], borderWidth: 1.5, borderDash: [2, 3],
      }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Arrival rate (requests/s)', { min: 0 }),
        y: linear('Throughput (output tokens/s)', { min: 0, position: 'left' }),
        y1: log(`${data.metricLabel} (s)`, { unit: 's', position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label.replace(/ \((solid|dashed, right axis)\)/, '')} at ${ctx.raw.q.rate} req/s: ${ctx.dataset.yAxisID === 'y1' ? formatSI(ctx.parsed.y, 's') : `${formatSI(ctx.parsed.y)} tokens/s`}`,
    });
  },
};
