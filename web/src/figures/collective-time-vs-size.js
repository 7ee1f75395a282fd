// Alpha-beta time against message size for every algorithm that can run the collective on
// p ranks, with the sizes where each crosses the ring. One calc('collective-sweep') call.
import { formatSI } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';

const SIZES = [1e3, 1e10]; // the swept message sizes (B)

const NAMES = {
  ring: 'Ring', tree: 'Binomial tree', 'recursive-doubling': 'Recursive doubling', 'halving-doubling': 'Halving-doubling',
};

export default {
  id: 'collective-time-vs-size',
  title: 'Latency-bound or bandwidth-bound: time against message size',
  caption:
    'Modelled time of each algorithm (log-log) as the message grows, with the crossover sizes marked. Small messages are latency-bound, so the algorithm with the fewest steps wins; large ones are bandwidth-bound, so those sending the fewest bytes win: the ring and halving-doubling, which sends the ring\'s bytes in fewer steps and so, on a power of two, stays below the ring at every size. Raise α or the rank count and watch the crossover move right; choose 12 ranks and recursive doubling disappears (it needs a power of two).',
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
      op: p.op, ranks: p.ranks, latency_s: p.latency_s, bandwidth_Bps: p.bandwidth_Bps, min_bytes: SIZES[0], max_bytes: SIZES[1], points: 57,
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
    const pick = colours(theme);
    const colour = Object.fromEntries(data.series.map((s) => [s.algorithm, pick()]));
    // An algorithm that never crosses the ring and is the faster at small sizes is faster at
    // every size (halving-doubling on a power of two): said in its legend entry.
    const never = new Set(data.notes.filter((c) => !c.exists && c.faster_small === c.algorithm).map((c) => c.algorithm));
    const datasets = data.series.map((s, i) => series(colour[s.algorithm], {
      label: never.has(s.algorithm) ? `${NAMES[s.algorithm]} (never slower than the ring)` : NAMES[s.algorithm], data: s.points.map((q) => ({ x: q.bytes, y: q.time_s })), showLine: true,
      pointStyle: shapes[i], pointRadius: 2, borderWidth: 2, borderDash: i === 0 ? [] : [6, 3 * i], group: s.algorithm,
    }));
    const all = data.series.flatMap((s) => s.points.map((q) => q.time_s)).filter((t) => t > 0);
    const [lo, hi] = [Math.min(...all), Math.max(...all)];
    // A crossover with the ring is drawn in the colour of the algorithm that meets it, its size
    // written at the top of the line (the lesson quotes these sizes).
    for (const c of data.crossovers.filter((x) => x.inRange)) {
      datasets.push(line(colour[c.algorithm], {
        label: `Crossover with ${NAMES[c.algorithm].toLowerCase()}: ${formatSI(c.bytes, 'B')}`,
        data: [{ x: c.bytes, y: lo }, { x: c.bytes, y: hi, label: formatSI(c.bytes, 'B') }], borderWidth: 1.5, borderDash: [2, 3], group: c.algorithm,
        pointLabels: true,
      }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: log('Message size S (B)', { unit: 'B', range: [SIZES[0], SIZES[1]] }), // fixed: the crossovers move, not the axis
        y: log('Time (s)', { unit: 's', range: [lo / 1.5, hi * 1.5] }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.x, 'B')} in ${formatSI(ctx.raw.y, 's')}`,
    });
  },
};
