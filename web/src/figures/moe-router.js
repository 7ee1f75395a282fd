// A simulated mixture-of-experts router (calc 'moe-routing'): assignments per expert, split
// into those kept and those dropped by the expert capacity C = floor(capacity_factor·T·k/E).
// One calculator call per redraw.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const MAX_CAPACITY_FACTOR = 4;

export default {
  id: 'moe-router',
  simulation: true,
  title: 'Tokens per expert under a simulated router',
  caption:
    'Each bar is one expert: the assignments it kept and, stacked on top, those beyond its capacity that were dropped; the dashed line is the capacity. Raise the capacity factor and fewer tokens are dropped, at the price of buffers (and compute) sized for the busiest expert. Raise the skew to make some experts popular, then raise the balance knob, which stands for training with the load-balancing loss, and watch the bars level out.',
  params: [
    { key: 'capacity_factor', label: 'Capacity factor', from: ['moe-routing', 'capacity_factor'], min: 0.5, max: MAX_CAPACITY_FACTOR },
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
    const pick = colours(theme);
    // The count axis reaches the capacity at the largest capacity factor (or the busiest
    // expert, if higher), so that moving the capacity, skew or balance moves the bars and the
    // line, not the axis.
    const mean = data.assignments / data.experts.length;
    const top = Math.max(MAX_CAPACITY_FACTOR * mean, data.capacity, ...data.experts.map((e) => e.routed));
    return chart(theme, {
      type: 'bar', labels,
      datasets: [
        series(pick(), { label: 'Kept (within capacity)', data: data.experts.map((e) => e.kept), borderColor: theme.text, borderWidth: 1, stack: 's',
          pointStyle: 'rect' }),
        series(pick(), { label: `Dropped: ${data.dropped} of ${data.assignments} assignments (${(100 * data.drop_fraction).toFixed(1)}%)`, data: data.experts.map((e) => e.dropped),
          borderColor: theme.text, borderWidth: 2, stack: 's', pointStyle: 'rect' }),
        series(pick('text'), { type: 'line', label: `Capacity C = ${data.capacity}; max/mean load ${data.max_over_mean.toFixed(2)}; E·Σf·P = ${data.balance_score.toFixed(3)}`,
          data: labels.map(() => data.capacity), borderDash: [6, 4], borderWidth: 2, pointRadius: 0, pointStyle: 'line' }),
      ],
      scales: {
        x: category({ title: 'Expert', stacked: true }),
        // suggestedMax, not max: the top rounds up to a whole tick, and every setting stays below it.
        y: linear('Token assignments (count)', { stacked: true, min: 0, suggestedMax: top }),
      },
      // Point-style keys: filled boxes for the bars, a dashed stroke for the capacity line (24 px
      // wide, so that its dashes show).
      legend: { usePointStyle: true, pointStyleWidth: 24 },
      tooltip: (ctx) => `${ctx.dataset.label.split(':')[0].split(' (')[0]}: ${formatSI(ctx.raw, '')}`,
    });
  },
};
