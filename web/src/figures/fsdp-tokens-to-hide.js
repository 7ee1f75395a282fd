// Tokens each GPU must process per step so that FSDP's all-gathers and reduce-scatters fit
// behind its compute, against the bandwidth of each GPU's own NIC: calc('fsdp-overlap') per
// point, nodes of 8 GPUs on the accelerator's NVLink, the hierarchical collectives across them.
import { formatSI, formatFixed } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';

const BWS = Array.from({ length: 25 }, (_, i) => 1e9 * 1000 ** (i / 24)); // 1 GB/s .. 1 TB/s: three decades, labelled at powers of ten
const FIELD = { params: 'params', gpus: 'gpus', mfu: 'mfu', units: 'units' };
const GROUPS = Array.from({ length: 12 }, (_, i) => 2 ** (i + 1)); // 2 … 4096: whole nodes past 8
const HARDWARE = ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'];

export default {
  id: 'fsdp-tokens-to-hide',
  title: 'Tokens per GPU needed to hide FSDP communication',
  caption:
    'The smallest number of tokens per GPU per step for which compute (6Ψ per token) lasts as long as FSDP\'s two all-gathers and one reduce-scatter, against the bandwidth of each GPU\'s own NIC, in nodes of 8 joined by NVLink. The bandwidth line does not depend on the model size and levels off where the NVLink phase, not the network, sets the time; the dotted line is the network phase alone, the threshold if NCCL hid the NVLink phase completely. The latency of many small per-layer collectives lifts the full line for small models. Switch to a faster accelerator and watch the whole curve rise: faster compute needs more tokens to cover the same bytes.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['fsdp-overlap', 'hardware'], options: HARDWARE },
    { key: 'params', label: 'Parameters Ψ', type: 'number', min: 1e8, max: 1e12, default: 7e9, scale: 'log' },
    { key: 'gpus', label: 'GPUs in the sharding group', type: 'select', options: GROUPS.map((n) => ({ value: n, label: String(n) })), default: 64 },
    { key: 'units', label: 'FSDP units (layers)', type: 'integer', min: 1, max: 200, default: 32 },
    { key: 'mfu', label: 'MFU', from: ['fsdp-overlap', 'mfu'], min: 0.05, max: 0.8 },
  ],

  data(engine, p) {
    const at = (bw, hardware = p.hardware) => {
      try {
        return engine.calc('fsdp-overlap', { hardware, params: p.params, gpus: p.gpus, units: p.units, mfu: p.mfu,
          gpus_per_node: 8, inter_bandwidth_Bps: bw });
      } catch (e) {
        if (e && FIELD[e.field]) e.field = FIELD[e.field];
        throw e;
      }
    };
    const points = BWS.map((bw) => ({ bw, ...at(bw) }));
    const ib = at(5e10);
    const marks = [
      { name: '400 Gb/s InfiniBand per GPU (50 GB/s)', bw: 5e10, tokens: ib.tokens_min },
      { name: 'Network phase alone at 50 GB/s', bw: 5e10, tokens: ib.tokens_min_network },
    ].filter((m) => m.tokens > 0); // inside one node there is no network phase
    // The token axis spans every accelerator of the list (tokens fall with bandwidth: the ends
    // bound it), so that switching to a faster one shows the whole curve rise.
    // The network-only line reaches 0 inside one node; the axis keeps its lower end at 10.
    const ends = HARDWARE.flatMap((h) => [at(BWS[0], h), at(BWS.at(-1), h)]).flatMap((r) => [r.tokens_min, r.tokens_min_bandwidth]);
    const range = span([...ends, ...points.map((q) => q.tokens_min), 10], { log: true, pad: 1.5 });
    const table = {
      columns: ['NIC bandwidth per GPU per direction (B/s)', 'Tokens per GPU, with latency', 'Tokens per GPU, bandwidth only', 'Tokens per GPU, network phase alone', 'Bus bandwidth (B/s)', 'Communication per step (s)'],
      rows: points.map((q) => [q.bw, q.tokens_min, q.tokens_min_bandwidth, q.tokens_min_network, q.link_bandwidth_Bps, q.comm_time_s]),
    };
    return { hardware: p.hardware, peak_flops: points[0].peak_flops, points, marks, range, table };
  },

  draw(data, theme) {
    const pts = (key) => data.points.map((q) => ({ x: q.bw, y: q[key] }));
    const pick = colours(theme);
    const SHORT = ['InfiniBand', 'network alone']; // the marks named on the chart, as in the prose
    const datasets = [
      series(pick('compute'), { label: 'Tokens per GPU per step (with latency α)', data: pts('tokens_min'), showLine: true, pointRadius: 2, pointStyle: 'circle',
        borderWidth: 2 }),
      line(pick('memory'), { label: 'Bandwidth term: NVLink + network phases', data: pts('tokens_min_bandwidth'), borderDash: [6, 4] }),
      line(pick('muted'), { label: 'Network phase alone (node egress)', data: pts('tokens_min_network').filter((q) => q.y > 0), borderDash: [2, 3] }),
      ...data.marks.map((m, i) => series(pick(), { label: `${m.name}: ${formatFixed(Math.round(m.tokens), 0)} tokens`,
        data: [{ x: m.bw, y: m.tokens, label: SHORT[i] }], pointRadius: 7, pointStyle: i === 0 ? 'triangle' : 'rectRot', pointLabels: true })),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('NIC bandwidth per GPU per direction (B/s)', { unit: 'B/s', range: [1e9, 1e12] }),
        y: log('Tokens per GPU per step (tokens)', { unit: '', range: data.range }),
      },
      tooltip: (ctx) => `${formatSI(ctx.raw.x, 'B/s')}: ${formatFixed(Math.round(ctx.raw.y), 0)} tokens per GPU per step`,
    });
  },
};
