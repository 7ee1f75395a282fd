// KV-cache size and how many sequences fit in HBM beside the weights, against context length,
// for the same model with multi-head, grouped-query (8 KV heads) and multi-query attention.
// Three calls to calc('kv-capacity') (each returns the whole series over context).
import { formatSI } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';
import { EngineError } from '../runtime/engine-api.js';
import { modelOptions, publishedConfig, publishedModel } from './shared/published-models.js';

// Published configurations (content/data/models.json, through the engine's `models`
// calculator). Shared by the serving figures.
export const MODEL_IDS = ['llama-3-8b', 'llama-2-7b', 'mistral-7b', 'llama-2-13b', 'opt-13b', 'llama-3-70b'];
const attention = (m) => (m.kv_heads === m.heads ? 'MHA' : m.kv_heads === 1 ? 'MQA' : `GQA, ${m.kv_heads} KV heads`);

export const modelParam = (def = 'llama-3-8b') => ({
  key: 'model', label: 'Model', type: 'select', default: def,
  options: modelOptions(MODEL_IDS, (m) => `${m.name} (${attention(m)})`),
});

// The calculator fields of a preset (its own KV heads unless `kv_heads` is given).
export function modelConfig(engine, id, kv_heads) {
  if (!MODEL_IDS.includes(id)) throw new EngineError('model', `Unknown model "${id}"; choose one of ${MODEL_IDS.join(', ')}.`);
  const cfg = publishedConfig(engine, id);
  return kv_heads === undefined ? cfg : { ...cfg, kv_heads };
}

export default {
  id: 'kv-cache-capacity',
  title: 'How many sequences fit beside the weights',
  caption:
    "The most sequences whose whole KV cache fits in what the weights leave of a 90% share of HBM (vLLM's default budget), against context length, for the chosen model built with multi-head, grouped-query (8 KV heads) and multi-query attention. It is an upper bound: in a real engine activations and CUDA graphs take part of that budget too. Start with Llama 2 7B, then switch the KV cache to fp8; pick Llama 3 70B and add GPUs until its weights fit. The dotted vertical line marks the context the model was trained at.",
  params: [
    modelParam('llama-3-8b'),
    { key: 'hardware', label: 'Accelerator', from: ['kv-capacity', 'hardware'] },
    { key: 'gpus', label: 'GPUs (weights and KV split across them)', type: 'integer', min: 1, max: 8, default: 1 },
    { key: 'weight_dtype', label: 'Weight type', from: ['kv-capacity', 'weight_dtype'], options: ['fp32', 'bf16', 'fp8-e4m3', 'int8', 'int4'] },
    { key: 'kv_dtype', label: 'KV-cache type', from: ['kv-capacity', 'kv_dtype'], options: ['fp32', 'bf16', 'fp8-e4m3', 'int8', 'int4'] },
  ],

  data(engine, p) {
    const cfg = modelConfig(engine, p.model);
    let hw;
    try {
      hw = engine.calc('hardware', { id: p.hardware });
    } catch (e) {
      if (e && e.field === 'id') e.field = 'hardware'; // point at our control
      throw e;
    }
    const hbm = hw.hbm_bytes * p.gpus;
    const variants = [
      { key: 'mha', name: `MHA (${cfg.heads} KV heads)`, kv_heads: cfg.heads },
      { key: 'gqa', name: 'GQA (8 KV heads)', kv_heads: 8 },
      { key: 'mqa', name: 'MQA (1 KV head)', kv_heads: 1 },
    ].map((v) => {
      const r = engine.calc('kv-capacity', { ...cfg, kv_heads: v.kv_heads, weight_dtype: p.weight_dtype, kv_dtype: p.kv_dtype, hbm_bytes: hbm, context: 4096 });
      return { ...v, actual: v.kv_heads === cfg.kv_heads, kv_bytes_per_token: r.kv_bytes_per_token, weights_bytes: r.weights_bytes, free_bytes: r.free_bytes, series: r.series };
    });
    // The count axis reaches what the smallest KV type (int4) fits with one KV head, so that
    // switching the KV cache to fp8 moves the lines up against a fixed axis.
    const most = engine.calc('kv-capacity', { ...cfg, kv_heads: 1, weight_dtype: p.weight_dtype, kv_dtype: 'int4', hbm_bytes: hbm, context: 4096 });
    const range = span([1, ...most.series.map((s) => s.max_sequences)], { log: true, pad: 1.5 });
    const contexts = variants[0].series.map((s) => s.context);
    const table = {
      columns: ['Context (tokens)', ...variants.map((v) => `${v.name}: sequences`), ...variants.map((v) => `${v.name}: KV per sequence (B)`)],
      rows: contexts.map((c, i) => [c, ...variants.map((v) => v.series[i].max_sequences), ...variants.map((v) => v.series[i].bytes_per_sequence)]),
    };
    // The weights as the model is built (the MHA/MQA variants also resize W_K and W_V).
    const built = variants.find((v) => v.actual) ?? variants[0];
    // The context the model was trained at: the curves run past it (a longer-context release of
    // the same shape, such as Llama 3.1, reaches further), so the chart marks where it ends.
    const pm = publishedModel(engine, p.model);
    return { model: p.model, name: pm.name, trained_context: pm.seq, hbm_bytes: hbm, weights_bytes: built.weights_bytes, free_bytes: built.free_bytes, variants, range, table };
  },

  draw(data, theme) {
    const styles = [['circle', []], ['triangle', [6, 3]], ['rect', [2, 3]]];
    const pick = colours(theme);
    // KV bytes in KiB, as the lesson's prose gives them (131,072 B = 128 KiB per token).
    const kib = (b) => `${Number((b / 1024).toPrecision(3))} KiB/token`;
    // A variant whose own weights leave no room (multi-head attention resizes W_K and W_V)
    // draws no curve; its legend entry says why.
    // Short enough for a phone's legend row.
    const none = (v) => data.free_bytes > 0 && v.free_bytes <= 0;
    const datasets = data.variants.map((v, i) => series(pick(), {
      label: none(v)
        ? `${v.key.toUpperCase()}: no curve (weights ${formatSI(v.weights_bytes, 'B')} > ${formatSI(0.9 * data.hbm_bytes, 'B')} budget)`
        : `${v.name}${v.actual ? ' — as built' : ''}: ${kib(v.kv_bytes_per_token)}`,
      data: v.series.filter((s) => s.max_sequences >= 1).map((s) => ({ x: s.context, y: s.max_sequences, s })),
      showLine: true, pointStyle: styles[i][0], pointRadius: v.actual ? 4 : 3, borderWidth: v.actual ? 3 : 2, borderDash: styles[i][1],
    }));
    if (data.free_bytes <= 0) {
      datasets.push(series(pick('text'), { label: `The weights (${formatSI(data.weights_bytes, 'B')}) exceed 90% of ${formatSI(data.hbm_bytes, 'B')}: add GPUs`, data: [],
        showLine: false, pointStyle: 'line' }));
    }
    if (data.trained_context > 0) {
      datasets.push(line(pick('muted'), {
        label: `${data.name}'s trained context: ${data.trained_context.toLocaleString('en-US')} tokens`,
        data: [{ x: data.trained_context, y: data.range[0] }, { x: data.trained_context, y: data.range[1] }], borderWidth: 1.5, borderDash: [2, 3],
      }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: log('Context per sequence (tokens)', { unit: '', range: [256, 1048576] }),
        y: log('Sequences that fit (count)', { unit: '', range: data.range }),
      },
      tooltip: (ctx) => (ctx.raw.s ? `${ctx.dataset.label.split(':')[0]}: ${ctx.raw.s.max_sequences} sequences of ${ctx.raw.s.context} tokens (${formatSI(ctx.raw.s.bytes_per_sequence, 'B')} each)` : ctx.dataset.label),
    });
  },
};
