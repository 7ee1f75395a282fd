// Tokens each GPU must process per step so that FSDP's all-gathers and reduce-scatters fit
// behind its compute, against the per-GPU network bandwidth: calc('fsdp-overlap') per point
// with the ring over the network (gpus_per_node 1) at that bandwidth.
import { formatSI, formatFixed } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';

const BWS = Array.from({ length: 25 }, (_, i) => 5e9 * 200 ** (i / 24)); // 5 GB/s .. 1 TB/s
const FIELD = { params: 'params', gpus: 'gpus', mfu: 'mfu', units: 'units' };
const HARDWARE = ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'];

export default {
  id: 'fsdp-tokens-to-hide',
  title: 'Tokens per GPU needed to hide FSDP communication',
  caption:
    'The smallest number of tokens per GPU per step for which compute (6Ψ per token) lasts as long as FSDP\'s two all-gathers and one reduce-scatter, against the bandwidth each GPU has. The bandwidth-only line does not depend on the model size; the latency of many small per-layer collectives lifts the full line for small models and many GPUs. Switch to a faster accelerator and watch the whole curve rise: faster compute needs more tokens to cover the same bytes.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['fsdp-overlap', 'hardware'], options: HARDWARE },
    { key: 'params', label: 'Parameters Ψ', type: 'number', min: 1e8, max: 1e12, default: 7e9, scale: 'log' },
    { key: 'gpus', label: 'GPUs in the sharding group', type: 'integer', min: 2, max: 4096, default: 64, scale: 'log' },
    { key: 'units', label: 'FSDP units (layers)', type: 'integer', min: 1, max: 200, default: 32 },
    { key: 'mfu', label: 'MFU', from: ['fsdp-overlap', 'mfu'], min: 0.05, max: 0.8 },
  ],

  data(engine, p) {
    const at = (bw, hardware = p.hardware) => {
      try {
        return engine.calc('fsdp-overlap', { hardware, params: p.params, gpus: p.gpus, units: p.units, mfu: p.mfu,
          gpus_per_node: 1, inter_bandwidth_Bps: bw, intra_bandwidth_Bps: bw });
      } catch (e) {
        if (e && FIELD[e.field]) e.field = FIELD[e.field];
        throw e;
      }
    };
    const points = BWS.map((bw) => ({ bw, ...at(bw) }));
    const hw = engine.calc('hardware', { id: p.hardware }); // validated by the calls above
    const nvlink = hw.scaleup_bandwidth_Bps / 2;
    const marks = [
      { name: `${hw.name} NVLink (${formatSI(nvlink, 'B/s')})`, bw: nvlink, tokens: at(nvlink).tokens_min },
      { name: '400 Gb/s InfiniBand (50 GB/s)', bw: 5e10, tokens: at(5e10).tokens_min },
    ];
    // The token axis spans every accelerator of the list (tokens fall with bandwidth: the ends
    // bound it), so that switching to a faster one shows the whole curve rise.
    const ends = HARDWARE.flatMap((h) => [at(BWS[0], h), at(BWS.at(-1), h)]).flatMap((r) => [r.tokens_min, r.tokens_min_bandwidth]);
    const range = span([...ends, ...points.map((q) => q.tokens_min)], { log: true, pad: 1.5 });
    const table = {
      columns: ['Bandwidth per direction (B/s)', 'Tokens per GPU, with latency', 'Tokens per GPU, bandwidth only', 'Communication per step (s)'],
      rows: points.map((q) => [q.bw, q.tokens_min, q.tokens_min_bandwidth, q.comm_time_s]),
    };
    return { hardware: p.hardware, peak_flops: points[0].peak_flops, points, marks, range, table };
  },

  draw(data, theme) {
    const pts = (key) => data.points.map((q) => ({ x: q.bw, y: q[key] }));
    const pick = colours(theme);
    const SHORT = ['NVLink', 'InfiniBand']; // the marks named on the chart, as in the prose
    const datasets = [
      series(pick('compute'), { label: 'Tokens per GPU per step (with latency α)', data: pts('tokens_min'), showLine: true, pointRadius: 2, pointStyle: 'circle',
        borderWidth: 2 }),
      line(pick('memory'), { label: 'Bandwidth term only: 2 B·(p−1)/p·peak·MFU / (2·bandwidth)', data: pts('tokens_min_bandwidth'), borderDash: [6, 4] }),
      ...data.marks.map((m, i) => series(pick(), { label: `${m.name}: ${formatFixed(Math.round(m.tokens), 0)} tokens`,
        data: [{ x: m.bw, y: m.tokens, label: SHORT[i] }], pointRadius: 7, pointStyle: i === 0 ? 'triangle' : 'rectRot', pointLabels: true })),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Bandwidth per GPU per direction (B/s)', { unit: 'B/s', range: [5e9, 1e12] }),
        y: log('Tokens per GPU per step (tokens)', { unit: '', range: data.range }),
      },
      tooltip: (ctx) => `${formatSI(ctx.raw.x, 'B/s')}: ${formatFixed(Math.round(ctx.raw.y), 0)} tokens per GPU per step`,
    });
  },
};
