// What the load-balancing loss buys: the simulated router (calc 'moe-routing') as the balance
// knob, the effect of training with the Switch loss, goes from 0 to 1: peak load, dropped
// assignments and the loss term E·Σ f_i·P_i. Every control is an input of the router, and the
// router's setting (E, T, k) is named on the axis.
import { chart, linear, colours, series } from './shared/chart-config.js';

const BALANCE = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

export default {
  id: 'moe-load-balance',
  simulation: true,
  title: 'What the load-balancing loss does to a skewed router',
  caption:
    'A seeded router sends T tokens to their top-k of E experts; balance scales the experts\' popularity bias by (1 − balance), as training with the Switch load-balancing loss would. As balance goes from 0 to 1, the busiest expert approaches the mean, dropped assignments (right axis) vanish and the loss term E·Σf·P falls toward its minimum of 1. Raise the skew to start from a worse router, or the capacity factor to drop less at every balance.',
  params: [
    { key: 'skew', label: 'Router skew', from: ['moe-routing', 'skew'], max: 3, default: 1.5 },
    { key: 'capacity_factor', label: 'Capacity factor', from: ['moe-routing', 'capacity_factor'], min: 0.5, max: 4 },
    { key: 'top_k', label: 'Experts per token k', type: 'select', options: ['1', '2', '4', '8'], default: '2' },
    { key: 'experts', label: 'Experts E', type: 'select', options: ['8', '16', '64'], default: '16' },
    { key: 'tokens', label: 'Tokens T', type: 'select', options: ['1024', '2048', '8192'], default: '2048' },
  ],

  data(engine, p) {
    const [k, experts, tokens] = [Number(p.top_k), Number(p.experts), Number(p.tokens)];
    const points = BALANCE.map((balance) => {
      let r;
      try {
        r = engine.calc('moe-routing', { tokens, experts, top_k: k, capacity_factor: p.capacity_factor, skew: p.skew, balance, seed: 1 });
      } catch (e) {
        if (e && e.field === 'experts') e.field = 'top_k';  // k > E: the select the reader moved last
        throw e;
      }
      return { balance, max_over_mean: r.max_over_mean, drop_fraction: r.drop_fraction, balance_score: r.balance_score, aux_loss: r.aux_loss };
    });
    return { points, experts, tokens, k,
      table: { columns: ['Balance', 'Max/mean load', 'Dropped fraction', 'E·Σ f·P', 'Loss α·E·Σ f·P (α = 0.01)'],
        rows: points.map((q) => [q.balance, q.max_over_mean, q.drop_fraction, q.balance_score, q.aux_loss]) } };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const curve = (colour, label, key, style, { scale = 1, ...extra } = {}) => series(colour, { label, showLine: true, pointStyle: style, pointRadius: 3, borderWidth: 2,
      data: data.points.map((q) => ({ x: q.balance, y: q[key] * scale })), ...extra });
    return chart(theme, {
      datasets: [
        curve(pick(), 'Busiest expert / mean load', 'max_over_mean', 'circle'),
        curve(pick(), 'E·Σ f_i·P_i (loss / α)', 'balance_score', 'rect', { borderDash: [6, 3] }),
        curve(pick(), 'Dropped assignments (%, right axis)', 'drop_fraction', 'triangle', { yAxisID: 'y1', borderDash: [2, 3], scale: 100 }),
      ],
      scales: {
        x: linear([`Balance: effect of the load-balancing loss (0–1)`, `E = ${data.experts} experts, T = ${data.tokens.toLocaleString('en-US')} tokens, k = ${data.k}`], { range: [0, 1] }),
        y: linear('Load ratio (×)', { min: 0 }),
        y1: linear('Dropped (%)', { min: 0, position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.raw.y.toFixed(3)}`,
    });
  },
};
