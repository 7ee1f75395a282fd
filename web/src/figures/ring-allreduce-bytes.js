// Ring collectives as the rank count grows: bytes each rank sends per byte of S (the model
// for p up to 1024, and the counts from executing the algorithm for p ≤ 16), and algorithm
// against bus bandwidth (nccl-tests' convention). calc('collective') and calc('collective-execute').
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

const RANKS = [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024];
const EXEC = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];

export default {
  id: 'ring-allreduce-bytes',
  title: 'Ring algorithms: bytes per rank, algorithm and bus bandwidth',
  simulation: true,
  caption:
    'Bytes each rank sends, as a multiple of the message size S, against the number of ranks: for the ring all-reduce it climbs to 2S and stays there, which is why its time hardly grows with p; the crosses are counted by executing the ring on simulated ranks. The right axis shows why nccl-tests reports bus bandwidth: algorithm bandwidth S/time falls as p grows, bus bandwidth stays at the link speed. Switch to all-gather and the limit halves; shrink the message and watch latency pull bus bandwidth down at large p.',
  params: [
    { key: 'op', label: 'Collective', type: 'select', default: 'allreduce',
      options: [{ value: 'allreduce', label: 'All-reduce' }, { value: 'allgather', label: 'All-gather' },
        { value: 'reducescatter', label: 'Reduce-scatter' }, { value: 'alltoall', label: 'All-to-all' }] },
    { key: 'bytes', label: 'Message size S', from: ['collective', 'bytes'], min: 1e3, max: 1e11, scale: 'log' },
    { key: 'latency_s', label: 'Latency α per message', from: ['collective', 'latency_s'], min: 0, max: 1e-4 },
    { key: 'bandwidth_Bps', label: 'Link bandwidth B (per direction)', from: ['collective', 'bandwidth_Bps'], min: 1e9, max: 1e12, scale: 'log' },
  ],

  data(engine, p) {
    const model = RANKS.map((ranks) => {
      const r = engine.calc('collective', { op: p.op, algorithm: 'ring', ranks, bytes: p.bytes, latency_s: p.latency_s, bandwidth_Bps: p.bandwidth_Bps });
      return { ranks, sent_per_S: r.bytes_sent_per_rank / p.bytes, time_s: r.time_s, algbw: r.algbw_Bps, busbw: r.busbw_Bps };
    });
    const executed = EXEC.map((ranks) => {
      const r = engine.calc('collective-execute', { op: p.op, algorithm: 'ring', ranks, elements: 2 * ranks });
      return { ranks, sent_per_S: r.bytes_sent_per_rank / r.bytes, model_per_S: r.model.bytes_sent_per_rank / r.bytes, ok: r.equals_direct };
    });
    const limit = p.op === 'allreduce' ? 2 : 1;
    const table = {
      columns: ['Ranks p', 'Bytes sent per rank / S', 'Time (s)', 'Algorithm bandwidth (B/s)', 'Bus bandwidth (B/s)'],
      rows: model.map((q) => [q.ranks, q.sent_per_S, q.time_s, q.algbw, q.busbw]),
    };
    return { op: p.op, bytes: p.bytes, bandwidth_Bps: p.bandwidth_Bps, limit, model, executed, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const model = pick();
    const datasets = [
      series(model, { label: 'Bytes sent per rank ÷ S (model)', data: data.model.map((q) => ({ x: q.ranks, y: q.sent_per_S })), yAxisID: 'y',
        showLine: true, pointStyle: 'circle', pointRadius: 2, borderWidth: 2, group: 'sent' }),
      series(pick('text'), { label: 'Counted on simulated ranks', data: data.executed.map((q) => ({ x: q.ranks, y: q.sent_per_S })), yAxisID: 'y',
        showLine: false, pointStyle: 'crossRot', pointRadius: 6, borderWidth: 2 }),
      // The limit of the model's curve, in its colour.
      line(model, { label: `Limit ${data.limit}S`, data: [{ x: 2, y: data.limit }, { x: 1024, y: data.limit }], yAxisID: 'y',
        borderWidth: 1, borderDash: [2, 3], group: 'sent' }),
      series(pick(), { label: 'Algorithm bandwidth S/time (right)', data: data.model.map((q) => ({ x: q.ranks, y: q.algbw })), yAxisID: 'y1',
        showLine: true, pointStyle: 'triangle', pointRadius: 2, borderWidth: 2, borderDash: [6, 3] }),
      series(pick(), { label: 'Bus bandwidth (right)', data: data.model.map((q) => ({ x: q.ranks, y: q.busbw })), yAxisID: 'y1',
        showLine: true, pointStyle: 'rectRot', pointRadius: 2, borderWidth: 2, borderDash: [2, 2] }),
    ];
    const bws = data.model.flatMap((q) => [q.algbw, q.busbw]).filter((x) => x > 0);
    return chart(theme, {
      datasets,
      scales: {
        x: log('Ranks p (GPUs)', { unit: '', range: [2, 1024] }),
        // The same left axis for every collective, so that all-gather's limit is seen to halve.
        y: linear('Bytes sent per rank (multiples of S)', { range: [0, 2 * 1.15], position: 'left', ticks: { includeBounds: false } }),
        y1: log('Bandwidth (B/s)', { unit: 'B/s', position: 'right', range: [Math.min(...bws) / 1.5, Math.max(...bws) * 1.5], grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: p = ${ctx.raw.x}, ${ctx.dataset.yAxisID === 'y1' ? formatSI(ctx.raw.y, 'B/s') : `${ctx.raw.y.toFixed(3)} S`}`,
    });
  },
};
