// Expert parallelism's all-to-all: bytes each GPU sends in one MoE layer's dispatch and
// combine (calc 'expert-parallel') against the expert-parallel degree, with the all-to-all
// time beside the experts' compute time, for a Mixtral-like layer (h = 4096, gated experts
// of width 14,336). Every control is an input of the calculator.
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series } from './shared/chart-config.js';

const EP = [1, 2, 4, 8, 16, 32, 64];
const IB_BPS = 50e9; // 400 Gb/s InfiniBand NDR per GPU, per direction
const HIDDEN = 4096, FFN = 14336;

export default {
  id: 'moe-all-to-all',
  title: 'All-to-all volume and time of expert parallelism',
  caption:
    'One MoE layer of a Mixtral-like model (h = 4096, gated experts of width 14,336), forward pass. Bytes each GPU sends in the dispatch and combine all-to-alls grow as (EP−1)/EP and saturate; the time (right axis) depends on the link: switch from NVLink to InfiniBand and the all-to-all grows from a tenth of the experts\' compute to as much as the compute itself. More tokens per GPU or a larger k scale bytes, time and compute together.',
  params: [
    { key: 'link', label: 'Link between GPUs', type: 'select', options: [{ value: 'nvlink', label: 'NVLink (half the scale-up bandwidth)' }, { value: 'ib', label: 'InfiniBand 400 Gb/s (50 GB/s)' }], default: 'nvlink' },
    { key: 'top_k', label: 'Experts per token k', type: 'select', options: ['1', '2', '4', '8'], default: '2' },
    { key: 'tokens', label: 'Tokens per GPU', type: 'select', options: ['2048', '8192', '32768'], default: '8192' },
    { key: 'hardware', label: 'Accelerator', from: ['expert-parallel', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'] },
  ],

  data(engine, p) {
    const k = Number(p.top_k);
    const sweep = (linkKey) => EP.map((ep) => {
      const link = linkKey === 'ib' ? { link_bandwidth_Bps: IB_BPS } : {};
      const r = engine.calc('expert-parallel', { tokens: Number(p.tokens), hidden: HIDDEN, ffn_hidden: FFN, top_k: k, ep, hardware: p.hardware, ...link });
      return { ep, bytes: r.bytes_per_layer_forward, comm_s: r.comm_time_forward_s, compute_s: r.expert_compute_time_s };
    });
    const points = sweep(p.link);
    // The time axis reaches the slower link's all-to-all, so that switching NVLink to
    // InfiniBand grows the line against a fixed axis.
    const other = sweep(p.link === 'ib' ? 'nvlink' : 'ib');
    const timeTop = Math.max(...[...points, ...other].flatMap((q) => [q.comm_s, q.compute_s]));
    return { points, timeTop, tokens: Number(p.tokens), k,
      table: { columns: ['Expert-parallel degree', 'Sent per GPU per layer, forward (B)', 'All-to-all time, dispatch + combine (s)', 'Expert compute at peak (s)'],
        rows: points.map((q) => [q.ep, q.bytes, q.comm_s, q.compute_s]) } };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const curve = (colour, label, pts, style, extra = {}) => series(colour, { label, data: pts, showLine: true, pointStyle: style, pointRadius: 3, borderWidth: 2, ...extra });
    const pts = (key) => data.points.map((q) => ({ x: q.ep, y: q[key] }));
    return chart(theme, {
      datasets: [
        curve(pick(), 'Bytes sent per GPU per layer, forward', pts('bytes').filter((q) => q.y > 0), 'circle'),
        curve(pick(), 'All-to-all time, dispatch + combine (right axis)', pts('comm_s').filter((q) => q.y > 0), 'rect', { yAxisID: 'y1', borderDash: [6, 3] }),
        curve(pick('compute'), 'Expert compute at peak (right axis)', pts('compute_s'), 'triangle', { yAxisID: 'y1', borderDash: [2, 3] }),
      ],
      scales: {
        // One labelled tick per degree swept.
        x: log(['Expert-parallel degree EP (GPUs)', `${data.tokens.toLocaleString('en-US')} tokens per GPU, k = ${data.k}, h = ${HIDDEN}`], {
          range: [EP[0] / 1.2, EP.at(-1) * 1.2],
          afterBuildTicks: (axis) => { axis.ticks = EP.map((value) => ({ value })); },
          ticks: { autoSkip: false, callback: (v) => String(v) } }),
        y: linear('Sent per GPU (B)', { min: 0, ticks: { callback: (v) => formatSI(v, 'B') } }),
        // suggestedMax, not max: the top rounds up to a whole tick, and every setting stays below it.
        y1: linear('Time per layer (s)', { min: 0, suggestedMax: data.timeTop, position: 'right', ticks: { callback: (v) => formatSI(v, 's') }, grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label.split(' (')[0]}: ${formatSI(ctx.raw.y, ctx.dataset.yAxisID === 'y1' ? 's' : 'B')} at EP = ${ctx.raw.x}`,
    });
  },
};
