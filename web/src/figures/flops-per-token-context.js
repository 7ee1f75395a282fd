// FLOPs per token against the context length T: the weight matmuls (6N for training, 2N
// forward) do not depend on T, attention over the context (12·L·H·Q·T, a third of it forward)
// grows linearly with it; the two are equal at T = N / (2·L·H·Q). One `transformer` call per
// context length, PaLM's accounting (N = params_flops, the output head included).
import { formatSI } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';
import { modelOptions, publishedModel, publishedConfig } from './shared/published-models.js';

export const MODEL_IDS = ['gpt-2-124m', 'gpt-3-175b', 'opt-13b', 'llama-2-7b', 'llama-2-13b', 'llama-2-70b',
  'llama-3-8b', 'llama-3-70b', 'llama-3-405b', 'mistral-7b', 'gemma-7b', 'palm-540b'];
// Context lengths drawn: 2^7 = 128 to 2^20 = 1,048,576 tokens.
export const CONTEXTS = Array.from({ length: 14 }, (_, i) => 2 ** (7 + i));
const PASSES = { training: { factor: 1, label: 'training (forward + backward)' }, forward: { factor: 1 / 3, label: 'forward only' } };

// The calculator's per-token split at context `seq`, scaled to the pass shown.
function at(engine, cfg, seq, factor) {
  const r = engine.calc('transformer', { ...cfg, seq });
  return { seq, matmul: factor * r.flops_per_token_matmul, attention: factor * r.flops_per_token_attention,
    total: factor * r.flops_per_token_training, share: r.attention_flops_share, equal: r.attention_equals_matmul_seq };
}

// Contexts are powers of two, named as the text names them (4K = 4,096, 128K = 131,072); any
// other length (the crossing) is written out in full.
const tokens = (t) => {
  const n = Math.round(t);
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}K` : n.toLocaleString('en-US');
};

export default {
  id: 'flops-per-token-context',
  title: 'FLOPs per token: weight matmuls against attention over the context',
  caption:
    'Training FLOPs per token of Llama 2 7B against the context length (log–log, axes fixed for every model): the weight matmuls cost 6N whatever the context, attention’s QKᵀ and AV cost 12·L·H·Q·T and grow with it. They meet near 25K tokens; at the 4K Llama 2 was trained at, attention is 14% of the total. Switch to GPT-3 175B or PaLM 540B: wider models push the crossing out, because N grows as h² and attention only as h. Forward only divides both by three and moves nothing.',
  params: [
    { key: 'model', label: 'Model', type: 'select', default: 'llama-2-7b', options: modelOptions(MODEL_IDS) },
    { key: 'pass', label: 'Count', type: 'select', default: 'training',
      options: Object.entries(PASSES).map(([value, { label }]) => ({ value, label })) },
  ],

  data(engine, p) {
    const m = publishedModel(engine, p.model);
    const cfg = publishedConfig(engine, p.model);
    const { factor } = PASSES[p.pass] ?? PASSES.training;
    const points = CONTEXTS.map((t) => at(engine, cfg, t, factor));
    const trained = at(engine, cfg, m.seq, factor);
    const equal = trained.equal;
    const crossing = at(engine, cfg, Math.round(equal), factor);
    // The y axis holds every model's curves at both passes over the drawn contexts.
    const range = span(MODEL_IDS.flatMap((id) => {
      const c = publishedConfig(engine, id);
      const lo = at(engine, c, CONTEXTS[0], 1 / 3), hi = at(engine, c, CONTEXTS.at(-1), 1);
      return [lo.attention, lo.matmul, hi.total];
    }), { log: true, pad: 2 });
    const table = {
      columns: ['Context T (tokens)', 'Weight matmuls (FLOP/token)', 'Attention (FLOP/token)', 'Total (FLOP/token)', 'Attention share (%)'],
      rows: [...points, ...(points.some((q) => q.seq === trained.seq) ? [] : [trained])].sort((a, b) => a.seq - b.seq).map((q) => [q.seq, q.matmul, q.attention, q.total, 100 * q.share]),
    };
    return { name: m.name, pass: p.pass, points, trained, equal, crossing, range, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const xy = (key) => data.points.map((q) => ({ x: q.seq, y: q[key] }));
    const pct = (x) => `${(100 * x).toFixed(1)}%`;
    const datasets = [
      line(pick('compute'), { label: data.pass === 'forward' ? 'Weight matmuls: 2N' : 'Weight matmuls: 6N', data: xy('matmul') }),
      line(pick(), { label: data.pass === 'forward' ? 'Attention: 4·L·H·Q·T' : 'Attention: 12·L·H·Q·T', data: xy('attention') }),
      line(pick(), { label: 'Total', data: xy('total'), borderDash: [6, 3] }),
      series(pick(), {
        label: 'Attention = matmuls', pointStyle: 'circle', pointRadius: 6, pointLabels: true,
        data: [{ x: data.equal, y: data.crossing.matmul, label: `equal at T = ${tokens(data.equal)}` }],
      }),
      series(pick(), {
        label: 'Trained context', pointStyle: 'rectRot', pointRadius: 7, pointLabels: true,
        data: [{ x: data.trained.seq, y: data.trained.total, label: `trained at ${tokens(data.trained.seq)}: attention ${pct(data.trained.share)}` }],
      }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Context length T (tokens)', { unit: '', range: [CONTEXTS[0], CONTEXTS.at(-1)] }),
        y: log(`FLOPs per token, ${data.pass === 'forward' ? 'forward' : 'training'} (FLOP)`, { unit: 'FLOP', range: data.range }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.y, 'FLOP')} per token at T = ${Math.round(ctx.raw.x)}`,
    });
  },
};
