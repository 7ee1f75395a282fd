// Alpha-beta time against message size for every algorithm that can run the collective on
// p ranks, with the sizes where each crosses the ring. One calc('collective-sweep') call.
import { formatSI, logTick } from '../runtime/format.js';

const NAMES = {
  ring: 'Ring', tree: 'Binomial tree', 'recursive-doubling': 'Recursive doubling', 'halving-doubling': 'Halving-doubling',
};

export default {
  id: 'collective-time-vs-size',
  title: 'Latency-bound or bandwidth-bound: time against message size',
  caption:
    'Modelled time of each algorithm (log-log) as the message grows, with the crossover sizes marked. Small messages are latency-bound, so the algorithm with the fewest steps wins; large ones are bandwidth-bound, so the one sending the fewest bytes wins. Raise α or the rank count and watch the crossover move right; choose 12 ranks and recursive doubling disappears (it needs a power of two).',
  params: [
    { key: 'op', label: 'Collective', type: 'select', default: 'allreduce',
      options: [{ value: 'allreduce', label: 'All-reduce' }, { value: 'broadcast', label: 'Broadcast' }, { value: 'reduce', label: 'Reduce' },
        { value: 'allgather', label: 'All-gather' }, { value: 'reducescatter', label: 'Reduce-scatter' }] },
    { key: 'ranks', label: 'Ranks p', type: 'integer', min: 2, max: 1024, default: 16, scale: 'log' },
    { key: 'latency_s', label: 'Latency α per message', from: ['collective-sweep', 'latency_s'], min: 1e-7, max: 1e-4, scale: 'log' },
    { key: 'bandwidth_Bps', label: 'Link bandwidth B (per direction)', from: ['collective-sweep', 'bandwidth_Bps'], min: 1e9, max: 1e12, scale: 'log' },
  ],

  data(engine, p) {
    const r = engine.calc('collective-sweep', {
      op: p.op, ranks: p.ranks, latency_s: p.latency_s, bandwidth_Bps: p.bandwidth_Bps, min_bytes: 1e3, max_bytes: 1e10, points: 57,
    });
    const series = r.series.map((s) => ({ algorithm: s.algorithm, points: s.points }));
    const crossovers = r.crossovers.filter((c) => c.exists).map((c) => {
      const ring = series.find((s) => s.algorithm === 'ring');
      const cost = engine.calc('collective', { op: p.op, algorithm: 'ring', ranks: p.ranks, bytes: c.bytes, latency_s: p.latency_s, bandwidth_Bps: p.bandwidth_Bps });
      return { algorithm: c.algorithm, bytes: c.bytes, time_s: cost.time_s, closed_form: c.closed_form, inRange: c.bytes >= ring.points[0].bytes && c.bytes <= ring.points.at(-1).bytes };
    });
    const table = {
      columns: ['Message size (B)', ...series.map((s) => `${NAMES[s.algorithm]} time (s)`)],
      rows: series[0].points.map((q, i) => [q.bytes, ...series.map((s) => s.points[i].time_s)]),
    };
    return { op: p.op, ranks: p.ranks, latency_s: p.latency_s, bandwidth_Bps: p.bandwidth_Bps, series, crossovers, notes: r.crossovers, table };
  },

  draw(data, theme) {
    const shapes = ['circle', 'triangle', 'rect', 'rectRot'];
    const colours = [theme.memory, theme.compute, theme.palette[2], theme.palette[3]];
    const datasets = data.series.map((s, i) => ({
      label: NAMES[s.algorithm], data: s.points.map((q) => ({ x: q.bytes, y: q.time_s })), showLine: true,
      pointStyle: shapes[i], pointRadius: 2, borderWidth: 2, borderDash: i === 0 ? [] : [6, 3 * i],
      borderColor: colours[i], backgroundColor: colours[i],
    }));
    const all = data.series.flatMap((s) => s.points.map((q) => q.time_s)).filter((t) => t > 0);
    const [lo, hi] = [Math.min(...all), Math.max(...all)];
    for (const c of data.crossovers.filter((x) => x.inRange)) {
      datasets.push({
        label: `Crossover with ${NAMES[c.algorithm].toLowerCase()}: ${formatSI(c.bytes, 'B')}`,
        data: [{ x: c.bytes, y: lo }, { x: c.bytes, y: hi }], showLine: true, pointRadius: 0, pointStyle: 'line',
        borderWidth: 1.5, borderDash: [2, 3], borderColor: theme.text, backgroundColor: theme.text,
      });
    }
    const axis = (text, unit) => ({ type: 'logarithmic', title: { display: true, text, color: theme.text },
      ticks: { color: theme.muted, maxRotation: 0, callback: logTick(unit) }, grid: { color: theme.grid } });
    return {
      type: 'scatter', data: { datasets },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: { x: axis('Message size S (B)', 'B'), y: { ...axis('Time (s)', 's'), min: lo / 1.5, max: hi * 1.5 } },
        plugins: {
          legend: { labels: { color: theme.text, usePointStyle: true } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.x, 'B')} in ${formatSI(ctx.raw.y, 's')}` } },
        },
      },
    };
  },
};
