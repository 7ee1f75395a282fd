// Parameters of a decoder-only transformer, component by component (the `transformer`
// calculator's params_breakdown): one published model, or a configuration of the reader's,
// beside the 12·L·h² rule of thumb and the published total; or every published dense model
// as shares of its own total. One `transformer` call per model.
import { formatCount } from '../runtime/format.js';
import { EngineError } from '../runtime/engine-api.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';
import { modelOptions, publishedModel, publishedConfig } from './shared/published-models.js';

// Every dense model of content/data/models.json (Mixtral's experts are another lesson's).
export const MODEL_IDS = ['gpt-2-124m', 'gpt-3-175b', 'opt-13b', 'llama-2-7b', 'llama-2-13b', 'llama-2-70b',
  'llama-3-8b', 'llama-3-70b', 'llama-3-405b', 'mistral-7b', 'gemma-7b', 'palm-540b'];
export const PARTS = [
  ['embedding', 'Token embedding (V·h)'],
  ['attention', 'Attention: W_Q, W_K, W_V, W_O'],
  ['mlp', 'MLP: 2 or 3 matrices of h × f'],
  ['norms', 'Norm gains'],
  ['head', 'Untied output head (V·h)'],
];
const CUSTOM = { view: ['one'], model: ['custom'] };
// 174,566,105,088 -> "174.6B", 123,551,232 -> "123.6M" (four digits: the gaps are small).
export const billions = (x) => formatCount(x, 4);

// Parameters by component, the rule of thumb and (for a published model) its published total.
export function countModel(engine, cfg) {
  const r = engine.calc('transformer', cfg);
  const layers = r.params_breakdown.attention + r.params_breakdown.mlp + r.params_breakdown.norms;
  const rule = 12 * cfg.layers * cfg.hidden ** 2; // Kaplan et al.'s n_params ≈ 12·n_layer·d_model²
  return { ...r, layers_params: layers, rule };
}

// The engine's message for a width that the query heads do not divide offers a head size
// ('head_dim'), which this figure has no control for: its heads are always h/H wide.
function countOwn(engine, cfg) {
  try {
    return countModel(engine, cfg);
  } catch (e) {
    if (e instanceof EngineError && e.message.includes("(or give 'head_dim')")) {
      throw new EngineError(e.field, e.message.replace(" (or give 'head_dim').", ': here every head is h/H wide.'));
    }
    throw e;
  }
}

// Below this width (px) the bars' totals move from beside the bars into their names.
const NARROW_PX = 500;

export default {
  id: 'param-breakdown',
  title: 'Where the parameters are: a transformer counted matrix by matrix',
  caption:
    'The engine’s count of a model, component by component, against the 12·L·h² rule of thumb (layers only) and the published total. GPT-3 175B: the layers are 12·L·h² almost exactly and the count is 0.25% under 175B (its biases and position embeddings are left out). Switch to Llama 3 8B: a 128K vocabulary, grouped-query attention and a 3.5·h gated MLP move the count away from the rule. Choose “Your configuration” to build one, or “Every model” to compare the shares.',
  params: [
    { key: 'view', label: 'Show', type: 'select', default: 'one',
      options: [{ value: 'one', label: 'One model, in parameters' }, { value: 'all', label: 'Every model, as shares' }] },
    { key: 'model', label: 'Model', type: 'select', default: 'gpt-3-175b', when: { view: ['one'] },
      options: [...modelOptions(MODEL_IDS), { value: 'custom', label: 'Your configuration' }] },
    { key: 'layers', label: 'Layers L', from: ['transformer', 'layers'], default: 32, when: CUSTOM },
    { key: 'hidden', label: 'Width h', from: ['transformer', 'hidden'], default: 4096, when: CUSTOM },
    { key: 'heads', label: 'Query heads', from: ['transformer', 'heads'], default: 32, when: CUSTOM },
    { key: 'kv_heads', label: 'Key/value heads', from: ['transformer', 'kv_heads'], default: 8, when: CUSTOM },
    { key: 'ffn_hidden', label: 'MLP width f', from: ['transformer', 'ffn_hidden'], default: 14336, when: CUSTOM },
    { key: 'vocab', label: 'Vocabulary V', from: ['transformer', 'vocab'], default: 128256, when: CUSTOM },
    { key: 'gated_mlp', label: 'Gated MLP (SwiGLU)', from: ['transformer', 'gated_mlp'], default: true, when: CUSTOM },
    { key: 'tied_embeddings', label: 'Tied embeddings', from: ['transformer', 'tied_embeddings'], default: false, when: CUSTOM },
  ],

  data(engine, p) {
    if (p.view === 'all') {
      const bars = MODEL_IDS.map((id) => {
        const m = publishedModel(engine, id);
        const c = countModel(engine, publishedConfig(engine, id));
        return { id, name: m.name, parts: c.params_breakdown, params: c.params, published: m.params };
      });
      const table = {
        columns: ['Model', ...PARTS.map(([, l]) => `${l} (%)`), 'Counted', 'Published'],
        rows: bars.map((b) => [b.name, ...PARTS.map(([k]) => 100 * b.parts[k] / b.params), b.params, b.published]),
      };
      return { view: 'all', bars, table };
    }
    const custom = p.model === 'custom';
    const cfg = custom
      ? { layers: p.layers, hidden: p.hidden, heads: p.heads, kv_heads: p.kv_heads, ffn_hidden: p.ffn_hidden,
        vocab: p.vocab, gated_mlp: p.gated_mlp, tied_embeddings: p.tied_embeddings }
      : publishedConfig(engine, p.model);
    const m = custom ? null : publishedModel(engine, p.model);
    const c = countOwn(engine, cfg);
    const name = custom ? 'Your configuration' : m.name;
    const published = custom ? null : m.params;
    const rows = [
      ...PARTS.map(([k, l]) => [l, c.params_breakdown[k]]),
      ['Total counted by the engine', c.params],
      ['Layers (attention + MLP + norms)', c.layers_params],
      ['Rule of thumb 12·L·h²', c.rule],
      ...(custom ? [] : [['Published total', published], ['Counted − published (%)', 100 * (c.params / published - 1)]]),
      ['Embedding share (%)', 100 * c.embedding_share],
    ];
    return { view: 'one', name, cfg, ...c, published, table: { columns: ['Component', 'Parameters'], rows } };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const patterns = [[], [6, 3], [], [2, 2], [1, 1]];
    if (data.view === 'all') {
      const datasets = PARTS.map(([key, label], i) => series(pick(), {
        label, stack: 'p', borderColor: theme.text, borderWidth: 1, borderDash: patterns[i],
        data: data.bars.map((b) => 100 * b.parts[key] / b.params),
      }));
      // Each bar is named with its counted and published totals.
      return chart(theme, {
        type: 'bar', indexAxis: 'y', labels: data.bars.map((b) => `${b.name}: ${billions(b.params)} (published ${billions(b.published)})`), datasets,
        scales: {
          x: linear('Share of the model’s parameters (%)', { stacked: true, range: [0, 100] }),
          y: category({ stacked: true }),
        },
        legend: { usePointStyle: false },
        tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.raw.toFixed(2)}% (${billions(data.bars[ctx.dataIndex].parts[PARTS[ctx.datasetIndex][0]])})`,
      });
    }
    const B = 1e9;
    const labels = ['Counted by the engine', 'Rule of thumb 12·L·h²', ...(data.published === null ? [] : ['Published'])];
    const datasets = PARTS.map(([key, label], i) => series(pick(), {
      label, stack: 'p', borderColor: theme.text, borderWidth: 1, borderDash: patterns[i],
      data: [data.params_breakdown[key] / B, 0, ...(data.published === null ? [] : [0])],
    }));
    datasets.push(series(pick(), { label: '12·L·h² (the layers, estimated)', stack: 'p', data: [0, data.rule / B, 0] }));
    if (data.published !== null) datasets.push(series(pick('muted'), { label: 'Published total', stack: 'p', data: [0, 0, data.published / B] }));
    const pct = (x) => (Math.abs(x) < 5e-5 ? '±0.00%' : `${x >= 0 ? '+' : ''}${(100 * x).toFixed(2)}%`);
    const text = [
      `${billions(data.params)}${data.published === null ? '' : ` (${pct(data.params / data.published - 1)} against published)`}`,
      `${billions(data.rule)} (${pct(data.rule / data.layers_params - 1)} against the layers counted)`,
      ...(data.published === null ? [] : [billions(data.published)]),
    ];
    // The same, short enough for a phone's axis (half its width).
    const short = [
      `${billions(data.params)}${data.published === null ? '' : ` (${pct(data.params / data.published - 1)} vs published)`}`,
      `${billions(data.rule)} (${pct(data.rule / data.layers_params - 1)} vs layers)`,
      ...(data.published === null ? [] : [billions(data.published)]),
    ];
    const ends = [data.params, data.rule, ...(data.published === null ? [] : [data.published])].map((v) => v / B);
    // Each bar's total right of it; on a phone, where a total does not fit there, it is a second
    // line of the bar's name instead.
    const narrow = theme.width !== undefined && theme.width < NARROW_PX;
    if (!narrow) {
      datasets.push({ ...series(pick('text'), { label: 'Totals', data: ends }),
        type: 'line', stack: 'labels', showLine: false, pointRadius: 0, pointHoverRadius: 0, pointHitRadius: 0, noLegend: true,
        pointLabels: (_raw, j) => text[j] });
    }
    return chart(theme, {
      type: 'bar', indexAxis: 'y', labels: narrow ? labels.map((l, j) => [l, short[j]]) : labels, datasets,
      scales: {
        x: linear(`${data.name}: parameters (billions)`, { stacked: true, min: 0, suggestedMax: 1.8 * Math.max(...ends) }),
        y: category({ stacked: true }),
      },
      legend: { usePointStyle: false, filter: (item, d) => !d.datasets[item.datasetIndex].noLegend },
      tooltip: (ctx) => `${ctx.dataset.label}: ${billions(ctx.raw * B)}`,
    });
  },
};
