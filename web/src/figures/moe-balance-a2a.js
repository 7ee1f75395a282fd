// Two costs of mixture-of-experts layers, one view each; each control is tied to the views
// whose data it changes (`when`), so a view shows only its own controls, and the settings a
// view holds fixed are named on its axis.
// View "balance": the simulated router (calc 'moe-routing') as the balance knob, the effect of
// training with the load-balancing loss, goes from 0 to 1: peak load, dropped assignments and
// the Switch loss term E·Σ f_i·P_i, for E experts and T tokens.
// View "a2a": bytes each GPU sends in one MoE layer's dispatch and combine (calc
// 'expert-parallel') against the expert-parallel degree, with the all-to-all time beside the
// experts' compute time, for a Mixtral-like layer (h = 4096, gated experts of width 14,336).
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series } from './shared/chart-config.js';

const BALANCE = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
const EP = [1, 2, 4, 8, 16, 32, 64];
const IB_BPS = 50e9; // 400 Gb/s InfiniBand NDR per GPU, per direction
const HIDDEN = 4096, FFN = 14336;
const BAL = { view: ['balance'] }, A2A = { view: ['a2a'] };
const count = (n) => n.toLocaleString('en-US');

export default {
  id: 'moe-balance-a2a',
  simulation: true,
  title: 'Load balancing and all-to-all volume of expert parallelism',
  caption:
    'Balance view: a seeded router sends T tokens to their top-k of E experts; as the load-balancing loss takes effect (balance from 0 to 1), the busiest expert approaches the mean, dropped assignments (right axis) vanish and the loss term E·Σf·P falls toward 1, its value at uniform routing. All-to-all view: for a Mixtral-like layer (h = 4096, gated experts of width 14,336), bytes each GPU sends per MoE layer in the forward pass grow as (EP−1)/EP and saturate, while the time (right axis) depends on the link: switch from NVLink to InfiniBand and the all-to-all grows from a tenth of the experts\' compute to as much as the compute itself. Each view shows only the controls it uses.',
  params: [
    { key: 'view', label: 'View', type: 'select', options: [{ value: 'balance', label: 'Load-balancing loss effect' }, { value: 'a2a', label: 'All-to-all vs expert-parallel degree' }], default: 'balance' },
    { key: 'skew', label: 'Router skew', from: ['moe-routing', 'skew'], max: 3, default: 1.5, when: BAL },
    { key: 'capacity_factor', label: 'Capacity factor', from: ['moe-routing', 'capacity_factor'], min: 0.5, max: 4, when: BAL },
    { key: 'experts', label: 'Experts E', type: 'select', options: ['8', '16', '64'], default: '16', when: BAL },
    { key: 'router_tokens', label: 'Tokens routed T', type: 'select', options: ['1024', '2048', '8192'], default: '2048', when: BAL },
    { key: 'top_k', label: 'Experts per token k', type: 'select', options: ['1', '2', '4', '8'], default: '2' },
    { key: 'tokens', label: 'Tokens per GPU', type: 'select', options: ['2048', '8192', '32768'], default: '8192', when: A2A },
    { key: 'link', label: 'Link between GPUs', type: 'select', options: [{ value: 'nvlink', label: 'NVLink (half the scale-up bandwidth)' }, { value: 'ib', label: 'InfiniBand 400 Gb/s (50 GB/s)' }], default: 'nvlink', when: A2A },
    { key: 'hardware', label: 'Accelerator', from: ['expert-parallel', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'], when: A2A },
  ],

  data(engine, p) {
    return p.view === 'balance' ? balanceData(engine, p) : a2aData(engine, p);
  },

  draw(data, theme) {
    return data.view === 'balance' ? drawBalance(data, theme) : drawA2a(data, theme);
  },
};

function balanceData(engine, p) {
  const [k, experts, tokens] = [Number(p.top_k), Number(p.experts), Number(p.router_tokens)];
  const points = BALANCE.map((balance) => {
    const r = engine.calc('moe-routing', { tokens, experts, top_k: k, capacity_factor: p.capacity_factor, skew: p.skew, balance, seed: 1 });
    return { balance, max_over_mean: r.max_over_mean, drop_fraction: r.drop_fraction, balance_score: r.balance_score, aux_loss: r.aux_loss };
  });
  return { view: 'balance', points, experts, tokens, k,
    table: { columns: ['Balance', 'Max/mean load', 'Dropped fraction', 'E·Σ f·P', 'Loss α·E·Σ f·P (α = 0.01)'],
      rows: points.map((q) => [q.balance, q.max_over_mean, q.drop_fraction, q.balance_score, q.aux_loss]) } };
}

function a2aData(engine, p) {
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
  return { view: 'a2a', points, timeTop, tokens: Number(p.tokens), k,
    table: { columns: ['Expert-parallel degree', 'Sent per GPU per layer, forward (B)', 'All-to-all time, dispatch + combine (s)', 'Expert compute at peak (s)'],
      rows: points.map((q) => [q.ep, q.bytes, q.comm_s, q.compute_s]) } };
}

const curve = (colour, label, pts, style, extra = {}) => series(colour, { label, data: pts, showLine: true, pointStyle: style, pointRadius: 3, borderWidth: 2, ...extra });

function drawBalance(data, theme) {
  const pick = colours(theme);
  const pts = (key, scale = 1) => data.points.map((q) => ({ x: q.balance, y: q[key] * scale }));
  return chart(theme, {
    datasets: [
      curve(pick(), 'Busiest expert / mean load', pts('max_over_mean'), 'circle'),
      curve(pick(), 'E·Σ f_i·P_i (loss / α)', pts('balance_score'), 'rect', { borderDash: [6, 3] }),
      curve(pick(), 'Dropped assignments (%, right axis)', pts('drop_fraction', 100), 'triangle', { yAxisID: 'y1', borderDash: [2, 3] }),
    ],
    scales: {
      x: linear(['Balance: effect of the load-balancing loss (0–1)', `E = ${data.experts} experts, T = ${count(data.tokens)} tokens, k = ${data.k}`], { range: [0, 1] }),
      y: linear('Load ratio (×)', { min: 0 }),
      y1: linear('Dropped (%)', { min: 0, position: 'right', grid: { drawOnChartArea: false } }),
    },
    tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.raw.y.toFixed(3)}`,
  });
}

function drawA2a(data, theme) {
  const pick = colours(theme);
  const pts = (key) => data.points.map((q) => ({ x: q.ep, y: q[key] }));
  return chart(theme, {
    datasets: [
      curve(pick(), 'Bytes sent per GPU per layer, forward', pts('bytes').filter((q) => q.y > 0), 'circle'),
      curve(pick(), 'All-to-all time, dispatch + combine (right axis)', pts('comm_s').filter((q) => q.y > 0), 'rect', { yAxisID: 'y1', borderDash: [6, 3] }),
      curve(pick('compute'), 'Expert compute at peak (right axis)', pts('compute_s'), 'triangle', { yAxisID: 'y1', borderDash: [2, 3] }),
    ],
    scales: {
      // One labelled tick per degree swept.
      x: log(['Expert-parallel degree EP (GPUs)', `${count(data.tokens)} tokens per GPU, k = ${data.k}, h = ${HIDDEN}, expert width ${count(FFN)}`], {
        range: [EP[0] / 1.2, EP.at(-1) * 1.2],
        afterBuildTicks: (axis) => { axis.ticks = EP.map((value) => ({ value })); },
        ticks: { autoSkip: false, callback: (v) => String(v) } }),
      y: linear('Sent per GPU (B)', { min: 0, ticks: { callback: (v) => formatSI(v, 'B') } }),
      // suggestedMax, not max: the top rounds up to a whole tick, and every setting stays below it.
      y1: linear('Time per layer (s)', { min: 0, suggestedMax: data.timeTop, position: 'right', ticks: { callback: (v) => formatSI(v, 's') }, grid: { drawOnChartArea: false } }),
    },
    tooltip: (ctx) => `${ctx.dataset.label.split(' (')[0]}: ${formatSI(ctx.raw.y, ctx.dataset.yAxisID === 'y1' ? 's' : 'B')} at EP = ${ctx.raw.x}`,
  });
}
