// Speculative decoding: the expected walltime speedup against the acceptance rate for several
// draft lengths (Leviathan et al. 2023, calc('speculative')), and an executed speculative
// sampler whose emitted tokens follow the target distribution (calc('speculative-sample')).
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series, line } from './shared/chart-config.js';

const ALPHAS = Array.from({ length: 34 }, (_, i) => Number((i * 0.03).toFixed(2)));
const GAMMAS = [1, 2, 4, 8];

export default {
  id: 'speculative-decoding',
  title: 'Speculative decoding: speedup and an exact sampler',
  caption:
    '"Speedup" plots the expected walltime speedup over plain decoding against the acceptance rate α for several draft lengths γ, at the chosen draft cost. Raise the draft cost and see the acceptance rate a long draft needs to beat a short one rise (γ = 8 passes γ = 4 only at high α). "Executed sampler" runs the accept/reject sampler: the emitted-token histogram lands on the target p, not on the draft q; raise the mismatch and only the acceptance rate falls.',
  simulation: true,
  params: [
    { key: 'mode', label: 'Show', type: 'select', default: 'speedup', options: [{ value: 'speedup', label: 'Speedup' }, { value: 'sampler', label: 'Executed sampler' }] },
    { key: 'draft_cost', label: 'Draft cost c (fraction of a target pass)', from: ['speculative', 'draft_cost'], max: 1, when: { mode: ['speedup'] } },
    { key: 'gamma', label: 'Draft tokens γ', from: ['speculative-sample', 'gamma'] },
    { key: 'mismatch', label: 'Draft mismatch (sampler)', from: ['speculative-sample', 'mismatch'], max: 3, when: { mode: ['sampler'] } },
    { key: 'seed', label: 'Seed (sampler)', from: ['speculative-sample', 'seed'], max: 1000, when: { mode: ['sampler'] } },
  ],

  data(engine, p) {
    const gammas = [...new Set([...GAMMAS, p.gamma])].sort((a, b) => a - b);
    const curves = gammas.map((g) => ({
      gamma: g,
      points: ALPHAS.map((alpha) => {
        const r = engine.calc('speculative', { alpha, gamma: g, draft_cost: p.draft_cost });
        return { alpha, speedup: r.speedup, expected_tokens: r.expected_tokens };
      }),
    }));
    // The speedup axis reaches the free draft (c = 0) at the highest α, the most any draft cost
    // gives: raising the cost then lowers the curves against a fixed axis.
    const topSpeedup = Math.max(...gammas.map((g) => engine.calc('speculative', { alpha: ALPHAS.at(-1), gamma: g, draft_cost: 0 }).speedup));
    const s = engine.calc('speculative-sample', { vocab: 12, mismatch: p.mismatch, gamma: p.gamma, rounds: 20000, seed: p.seed });
    const sampler = {
      p: s.p, q: s.q, frequencies: s.frequencies, emitted_tokens: s.emitted_tokens, acceptance_measured: s.acceptance_measured,
      acceptance_formula: s.acceptance_formula, tv_empirical: s.tv_empirical, tv_direct: s.tv_direct, tv_p_q: s.tv_p_q,
      tokens_per_round_measured: s.tokens_per_round_measured, tokens_per_round_formula: s.tokens_per_round_formula,
    };
    const table = p.mode === 'speedup'
      ? { columns: ['Acceptance rate α', ...gammas.map((g) => `Speedup, γ = ${g} (×)`)], rows: ALPHAS.map((a, i) => [a, ...curves.map((c) => c.points[i].speedup)]) }
      : { columns: ['Token', 'Target p', 'Draft q', 'Emitted frequency'], rows: s.p.map((x, i) => [`t${i}`, x, s.q[i], s.frequencies[i]]) };
    return { mode: p.mode, gamma: p.gamma, draft_cost: p.draft_cost, curves, topSpeedup, sampler, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    if (data.mode === 'sampler') {
      const s = data.sampler;
      const labels = s.p.map((_, i) => `t${i}`);
      return chart(theme, {
        type: 'bar', labels,
        datasets: [
          series(pick(), { label: 'Target p', data: s.p, borderColor: theme.text, borderWidth: 1, pointStyle: 'rect' }),
          series(pick(), { label: `Emitted by the sampler (${formatSI(s.emitted_tokens)} tokens, TV to p ${s.tv_empirical.toFixed(4)})`, data: s.frequencies,
            borderColor: theme.text, borderWidth: 1, pointStyle: 'triangle' }),
          series(pick('grid'), { label: `Draft q (TV to p ${s.tv_p_q.toFixed(3)}; acceptance ${s.acceptance_measured.toFixed(3)}, formula ${s.acceptance_formula.toFixed(3)})`, data: s.q,
            borderColor: theme.muted, borderWidth: 2, pointStyle: 'rectRot' }),
        ],
        scales: {
          x: category({ title: 'Vocabulary token' }),
          y: linear('Probability (fraction)', { min: 0 }),
        },
        tooltip: (ctx) => `${ctx.dataset.label.split(' (')[0]}: ${ctx.parsed.y.toFixed(4)}`,
      });
    }
    const styles = ['circle', 'triangle', 'rect', 'rectRot', 'star'];
    const datasets = data.curves.map((c, i) => series(pick(), {
      label: `γ = ${c.gamma}${c.gamma === data.gamma ? ' (chosen)' : ''}`,
      data: c.points.map((q) => ({ x: q.alpha, y: q.speedup, q })), showLine: true, pointStyle: styles[i % styles.length],
      pointRadius: c.gamma === data.gamma ? 3 : 2, borderWidth: c.gamma === data.gamma ? 3 : 2,
    }));
    datasets.push(line(pick('text'), { label: 'Break-even (no speedup)', data: [{ x: 0, y: 1 }, { x: 0.99, y: 1 }], borderWidth: 1, borderDash: [6, 4] }));
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Acceptance rate α (fraction)', { range: [0, 1] }),
        // suggestedMax, not max: the top rounds up to a whole tick, and every setting stays below it.
        y: linear(`Expected speedup at c = ${data.draft_cost} (×)`, { min: 0, suggestedMax: data.topSpeedup }),
      },
      tooltip: (ctx) => (ctx.raw.q ? `${ctx.dataset.label}, α = ${ctx.raw.q.alpha}: ${ctx.raw.q.speedup.toFixed(2)}× (${ctx.raw.q.expected_tokens.toFixed(2)} tokens per round)` : ctx.dataset.label),
    });
  },
};
