// Multi-head (MHA), grouped-query (GQA) and multi-query (MQA) attention side by side for
// published models and a custom configuration, from calc('attention-variants'): KV-cache bytes
// per token (2 · layers · kv_heads · head_dim · bytes), the cache of a whole context and batch,
// the attention FLOPs per byte of cache one decode step reads (2 · group size / bytes), and the
// W_Q, W_K, W_V, W_O parameters of one layer. The cache view draws the HBM of one and two
// H100s, the decode view the H100's ridge point, peak bf16 FLOP/s over HBM bandwidth (calc
// 'hardware'). Each
// published model is drawn with all
// three layouts (GQA with 8 KV heads, which is what the GQA models among them use); the label
// above each group names the layout the model was published with and its value.
import { formatSI, formatDecimal, formatSignificant, formatShort } from '../runtime/format.js';
import { chart, log, category, colours, series } from './shared/chart-config.js';
import { modelOptions, publishedModel } from './shared/published-models.js';

const MODELS = ['gpt-3-175b', 'llama-2-7b', 'llama-2-70b', 'llama-3-405b', 'mistral-7b', 'palm-540b'];
const NAMES = new Map(modelOptions(MODELS).map((o) => [o.value, o.label]));
const GQA_KV = 8; // the GQA bars of the published models: 8 KV heads (Llama 2 70B, Llama 3, Mistral 7B)
const SHOWS = {
  token: { label: 'KV cache per token', field: 'kv_bytes_per_token', unit: 'B', axis: 'KV cache per token, all layers (B)' },
  context: { label: 'KV cache of the context and batch', field: 'kv_bytes', unit: 'B', axis: 'KV cache of the context × batch (B)' },
  intensity: { label: 'Decode: FLOPs per byte of cache read', field: 'decode_flops_per_byte', unit: 'FLOP/B', tick: '', axis: 'Decode FLOPs per cache byte read (FLOP/B)' },
  params: { label: 'Attention parameters per layer', field: 'attention_params_per_layer', unit: '', axis: 'W_Q, W_K, W_V, W_O of one layer (parameters)' },
};
const VARIANTS = [['mha', 'MHA'], ['gqa', 'GQA'], ['mqa', 'MQA']];
const DTYPES = ['fp32', 'bf16', 'fp8-e4m3'];
const KV = ['token', 'context'];          // views that depend on the layers
const DTYPED = ['token', 'context', 'intensity']; // views that depend on the cache's data type
const HBM_OF = 'h100-sxm';

// The layout a model was published with, from its K/V heads.
const layoutOf = (heads, kv) => (kv === heads ? 'mha' : kv === 1 ? 'mqa' : 'gqa');
const fmt = (v, show) => (show === 'intensity' ? `${formatShort(v)} FLOP/B` : SHOWS[show].unit ? formatSI(v, 'B') : formatSI(v));

export default {
  id: 'attention-variants',
  title: 'MHA, GQA and MQA: KV cache and parameters',
  caption:
    'For each model, three bars: its attention with one K/V head per query head (MHA), with 8 K/V heads shared by groups of query heads (GQA), and with a single K/V head (MQA); the second line under each model names the layout it was published with, and its value. Per token, Llama 2 70B’s GQA caches 8 times less than MHA would, and PaLM’s MQA 48 times less. Switch to the cache of the context and batch: the dashed lines are the HBM of one and of two H100s; at 4,096 tokens and 16 sequences Llama 2 70B’s MHA cache reaches the second line. Switch to decode FLOPs per byte: each bar is 2 × group size ÷ bytes, and every layout stays far under the H100’s ridge point, so decode attention is bound by reading the cache. Switch to parameters per layer: the bars of a model differ by at most a factor of two. The last group is yours: set its layers, heads, K/V heads and head size.',
  params: [
    { key: 'show', label: 'Show', type: 'select', default: 'token', options: Object.entries(SHOWS).map(([value, s]) => ({ value, label: s.label })) },
    { key: 'dtype', label: 'Cache data type', from: ['attention-variants', 'dtype'], options: DTYPES, default: 'bf16', when: { show: DTYPED } },
    { key: 'context', label: 'Context', from: ['attention-variants', 'context'], min: 512, max: 131072, default: 4096, scale: 'log', when: { show: ['context'] } },
    { key: 'batch', label: 'Sequences in the batch', from: ['attention-variants', 'batch'], min: 1, max: 64, default: 1, scale: 'log', when: { show: ['context'] } },
    { key: 'layers', label: 'Your model: layers', from: ['attention-variants', 'layers'], min: 1, max: 128, default: 32, when: { show: KV } },
    { key: 'hidden', label: 'Your model: width', from: ['attention-variants', 'hidden'], min: 512, max: 16384, default: 4096, scale: 'log', when: { show: ['params'] } },
    { key: 'heads', label: 'Your model: query heads', from: ['attention-variants', 'heads'], min: 1, max: 128, default: 32 },
    { key: 'kv_heads', label: 'Your model: K/V heads (GQA)', from: ['attention-variants', 'kv_heads'], min: 1, max: 128, default: 4 },
    { key: 'head_dim', label: 'Your model: head size', type: 'select', default: 128, when: { show: ['token', 'context', 'params'] },
      options: [64, 96, 128, 256].map((v) => ({ value: v, label: String(v) })) },
  ],

  data(engine, p) {
    const { field } = SHOWS[p.show];
    const kv = KV.includes(p.show);
    const typed = DTYPED.includes(p.show);
    const common = { dtype: typed ? p.dtype : 'bf16', context: p.show === 'context' ? p.context : 4096, batch: p.show === 'context' ? p.batch : 1 };
    const groups = MODELS.map((id) => {
      const m = publishedModel(engine, id);
      const r = engine.calc('attention-variants', { ...common, model: id, kv_heads: GQA_KV });
      return {
        id, name: NAMES.get(id), layers: m.layers, heads: m.heads, kv_heads: m.kv_heads, head_dim: m.head_dim, hidden: m.hidden,
        gqa_kv: GQA_KV, own: layoutOf(m.heads, m.kv_heads), values: Object.fromEntries(VARIANTS.map(([k]) => [k, r[k][field]])),
        reduction: r.gqa.kv_reduction,
      };
    });
    // A control hidden in a view holds its default there: the decode intensity does not depend on
    // the head size (2 · group size / bytes), the cache on the width, the parameters on the layers.
    const custom = { layers: kv ? p.layers : 32, hidden: p.show === 'params' ? p.hidden : 4096, heads: p.heads, kv_heads: p.kv_heads,
      head_dim: p.show === 'intensity' ? 128 : p.head_dim };
    const c = engine.calc('attention-variants', { ...common, ...custom });
    groups.push({
      id: 'custom', name: 'Your model', ...custom, gqa_kv: p.kv_heads, own: layoutOf(p.heads, p.kv_heads),
      values: Object.fromEntries(VARIANTS.map(([k]) => [k, c[k][field]])), reduction: c.gqa.kv_reduction,
    });
    // Fixed axis: every value this view can show, over the published models and the custom
    // controls' ends (the smallest and the largest configuration), in decades.
    const extreme = (over) => engine.calc('attention-variants', over);
    const lo = Math.min(
      ...MODELS.map((id) => extreme({ model: id, dtype: kv ? 'fp8-e4m3' : typed ? 'fp32' : 'bf16', context: 512, batch: 1 }).mqa[field]),
      extreme({ layers: 1, hidden: 512, heads: 1, kv_heads: 1, head_dim: 64, dtype: kv ? 'fp8-e4m3' : typed ? 'fp32' : 'bf16', context: 512, batch: 1 }).mqa[field],
    );
    const big = { dtype: kv ? 'fp32' : typed ? 'fp8-e4m3' : 'bf16', context: p.show === 'context' ? 131072 : 4096, batch: p.show === 'context' ? 64 : 1 };
    const hi = Math.max(
      ...MODELS.map((id) => extreme({ ...big, model: id }).mha[field]),
      extreme({ ...big, layers: 128, hidden: 16384, heads: 128, kv_heads: 128, head_dim: 256 }).mha[field],
      ...MODELS.map((id) => extreme({ ...big, model: id }).mqa[field]),
      extreme({ ...big, layers: 128, hidden: 16384, heads: 128, kv_heads: 1, head_dim: 256 }).mqa[field],
    );
    // The reference lines: one and two H100s' HBM (cache view), the H100's bf16 ridge point
    // (decode view), from the engine's hardware table.
    const gpu = engine.calc('hardware', { id: HBM_OF });
    const hbm = gpu.hbm_bytes;
    const ridge = gpu.peak_flops.bf16 / gpu.hbm_bandwidth_Bps; // the roofline's ridge point
    const refs = p.show === 'context' ? [[hbm, `${formatSI(hbm, 'GiB')}: one H100’s HBM`], [2 * hbm, `${formatSI(2 * hbm, 'GiB')}: two H100s`]]
      : p.show === 'intensity' ? [[ridge, `${formatSignificant(ridge, 3)} FLOP/B: H100 ridge point (bf16)`]] : [];
    const top = Math.max(hi, ...refs.map(([v]) => v));
    const range = [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(top) + 0.3)];
    const unit = SHOWS[p.show].unit ? ' (B)' : '';
    const table = {
      columns: ['Model', ...(kv ? ['Layers'] : []), 'Query heads', 'K/V heads (published)', 'Head size', ...(p.show === 'params' ? ['Width'] : []),
        `MHA${unit}`, `GQA${unit}`, 'GQA K/V heads', `MQA${unit}`, 'Published layout'],
      rows: groups.map((g) => [g.name, ...(kv ? [g.layers] : []), g.heads, g.kv_heads, g.head_dim, ...(p.show === 'params' ? [g.hidden] : []),
        g.values.mha, g.values.gqa, g.gqa_kv, g.values.mqa, g.own.toUpperCase()]),
    };
    return { show: p.show, dtype: common.dtype, context: common.context, batch: common.batch, groups, range, refs, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const s = SHOWS[data.show];
    const patterns = { mha: [], gqa: [6, 3], mqa: [2, 2] };
    const names = {
      mha: 'MHA: a K/V head per query head',
      gqa: `GQA: ${GQA_KV} K/V heads (yours: ${data.groups.at(-1).gqa_kv})`,
      mqa: 'MQA: one K/V head',
    };
    const datasets = VARIANTS.map(([k]) => series(pick(), {
      label: names[k], borderColor: theme.text, borderWidth: 1, borderDash: patterns[k],
      data: data.groups.map((g) => g.values[k]),
    }));
    const refColours = [pick('memory'), pick('muted')];
    data.refs.forEach(([v, label], i) => datasets.push(series(refColours[i], {
      // Filled with the background: the legend's box is the dashed outline of the line.
      type: 'line', label, data: data.groups.map(() => v), borderDash: i ? [2, 3] : [6, 4], borderWidth: 2, backgroundColor: theme.background,
      pointRadius: 0, pointHoverRadius: 0, pointStyle: 'line',
    })));
    const where = data.show === 'params' ? '' : data.show === 'context'
      ? `, ${formatDecimal(data.context, 0)} tokens × ${data.batch}, ${data.dtype}` : `, ${data.dtype}`;
    return chart(theme, {
      // Each group's second line names the layout the model was published with, and its value.
      type: 'bar', labels: data.groups.map((g) => [g.name, `${g.own === 'gqa' ? `GQA-${g.kv_heads}` : g.own.toUpperCase()}: ${fmt(g.values[g.own], data.show)}`]), datasets,
      scales: {
        x: category({ title: `Model (bars: MHA, GQA, MQA${where})` }),
        y: log(s.axis, { unit: s.tick ?? s.unit, range: data.range }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => {
        if (ctx.dataset.type === 'line') return ctx.dataset.label;
        const g = data.groups[ctx.dataIndex];
        return `${ctx.dataset.label}: ${fmt(ctx.raw, data.show)} (${g.name}: ${g.layers} layers, ${g.heads} heads, head size ${g.head_dim})`;
      },
    });
  },
};
