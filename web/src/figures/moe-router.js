// A simulated mixture-of-experts router (calc 'moe-routing'): assignments per expert, split
// into those kept and those dropped by the expert capacity C = floor(capacity_factor·T·k/E).
// One calculator call per redraw.
import { formatSI } from '../runtime/format.js';

export default {
  id: 'moe-router',
  simulation: true,
  title: 'Tokens per expert under a simulated router',
  caption:
    'Each bar is one expert: the assignments it kept and, stacked on top, those beyond its capacity that were dropped; the dashed line is the capacity. Raise the capacity factor and fewer tokens are dropped, at the price of buffers (and compute) sized for the busiest expert. Raise the skew to make some experts popular, then raise the balance knob, which stands for training with the load-balancing loss, and watch the bars level out.',
  params: [
    { key: 'capacity_factor', label: 'Capacity factor', from: ['moe-routing', 'capacity_factor'], min: 0.5, max: 4 },
    { key: 'skew', label: 'Router skew (std of expert bias)', from: ['moe-routing', 'skew'], max: 3 },
    { key: 'balance', label: 'Balance (effect of the load-balancing loss)', from: ['moe-routing', 'balance'] },
    { key: 'experts', label: 'Experts E', type: 'select', options: ['8', '16', '32', '64'], default: '8' },
    { key: 'top_k', label: 'Experts per token k', type: 'select', options: ['1', '2', '4'], default: '2' },
    { key: 'tokens', label: 'Tokens', type: 'select', options: ['1024', '4096', '16384'], default: '4096' },
    { key: 'seed', label: 'Seed', from: ['moe-routing', 'seed'], max: 1000 },
  ],

  data(engine, p) {
    const r = engine.calc('moe-routing', { tokens: Number(p.tokens), experts: Number(p.experts), top_k: Number(p.top_k),
      capacity_factor: p.capacity_factor, skew: p.skew, balance: p.balance, seed: p.seed });
    const experts = r.routed_per_expert.map((routed, i) => ({ expert: i, routed, kept: r.kept_per_expert[i], dropped: routed - r.kept_per_expert[i],
      f: r.fraction_per_expert[i], P: r.mean_prob_per_expert[i] }));
    const table = {
      columns: ['Expert', 'Assignments routed', 'Kept', 'Dropped', 'Fraction routed f_i', 'Mean router probability P_i'],
      rows: experts.map((e) => [e.expert, e.routed, e.kept, e.dropped, e.f, e.P]),
    };
    return { experts, capacity: r.capacity, dropped: r.dropped, drop_fraction: r.drop_fraction, max_over_mean: r.max_over_mean,
      aux_loss: r.aux_loss, balance_score: r.balance_score, assignments: r.assignments, table };
  },

  draw(data, theme) {
    const labels = data.experts.map((e) => `E${e.expert}`);
    return {
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label: 'Kept (within capacity)', data: data.experts.map((e) => e.kept), backgroundColor: theme.palette[1], borderColor: theme.text, borderWidth: 1, stack: 's' },
          { label: `Dropped: ${data.dropped} of ${data.assignments} assignments (${(100 * data.drop_fraction).toFixed(1)}%)`, data: data.experts.map((e) => e.dropped),
            backgroundColor: theme.palette[0], borderColor: theme.text, borderWidth: 2, stack: 's' },
          { type: 'line', label: `Capacity C = ${data.capacity}; max/mean load ${data.max_over_mean.toFixed(2)}; E·Σf·P = ${data.balance_score.toFixed(3)}`,
            data: labels.map(() => data.capacity), borderColor: theme.text, backgroundColor: theme.text, borderDash: [6, 4], borderWidth: 2, pointRadius: 0 },
        ],
      },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: { type: 'category', stacked: true, title: { display: true, text: 'Expert', color: theme.text }, ticks: { color: theme.muted }, grid: { color: theme.grid } },
          y: { type: 'linear', stacked: true, min: 0, title: { display: true, text: 'Token assignments (count)', color: theme.text }, ticks: { color: theme.muted }, grid: { color: theme.grid } },
        },
        plugins: {
          legend: { labels: { color: theme.text } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label.split(':')[0].split(' (')[0]}: ${formatSI(ctx.raw, '')}` } },
        },
      },
    };
  },
};
