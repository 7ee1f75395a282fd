// Activation bytes per transformer layer against the tensor-parallel degree (Korthikanti et
// al. 2022): tensor parallelism alone leaves 10·s·b·h bytes whole on every GPU (the two layer
// norms' inputs, the QKV and first MLP matmuls' inputs, the two dropout masks); sequence
// parallelism divides them by t too; selective recomputation drops the 5·a·s²·b attention
// scores. Each model's own MLP (GeLU 4h or SwiGLU of its width) sets the MLP's share. Two
// calls of calc('sequence-parallel-memory'), each returning the whole series.
import { formatSI } from '../runtime/format.js';
import { chart, log, category, colours, series } from './shared/chart-config.js';

const MODELS = {
  'gpt3-175b': { label: 'GPT-3 175B (GeLU MLP)', hidden: 12288, heads: 96, layers: 96, ffn_hidden: 49152, gated: false },
  'llama-70b': { label: 'Llama-2 70B (SwiGLU)', hidden: 8192, heads: 64, layers: 80, ffn_hidden: 28672, gated: true },
  'llama-7b': { label: 'Llama-2 7B (SwiGLU)', hidden: 4096, heads: 32, layers: 32, ffn_hidden: 11008, gated: true },
};
const FIELDS = { seq: 'seq', micro_batch: 'micro_batch', flash_attention: 'flash_attention' };

export default {
  id: 'sp-activation-memory',
  title: 'Activation memory per layer with Megatron sequence parallelism',
  caption:
    'Bytes of activations one GPU stores per layer and micro-batch as the tensor-parallel degree grows (log scale). Tensor parallelism alone flattens out: 10·s·b·h bytes (the layer norms\' inputs, the QKV and first MLP matmuls\' inputs, the two dropout masks) stay whole on every GPU. Sequence parallelism keeps dividing by t. Each model\'s MLP sets its share: GPT-3\'s GeLU MLP of width 4h gives Korthikanti\'s 34·s·b·h; the Llama-2 SwiGLU MLPs store their gate, up and product tensors. K and V are counted at the full width of the heads, as in Korthikanti; grouped-query attention (Llama-2 70B) stores a little less. Try 32,768 tokens: the attention scores dominate until selective recomputation or FlashAttention removes them.',
  params: [
    { key: 'model', label: 'Model', type: 'select', options: Object.entries(MODELS).map(([value, m]) => ({ value, label: m.label })), default: 'gpt3-175b' },
    { key: 'seq', label: 'Sequence length', type: 'select', options: ['2048', '4096', '8192', '16384', '32768'], default: '2048' },
    { key: 'micro_batch', label: 'Micro-batch (sequences)', from: ['sequence-parallel-memory', 'micro_batch'], max: 16 },
    { key: 'flash_attention', label: 'FlashAttention', from: ['sequence-parallel-memory', 'flash_attention'] },
  ],

  data(engine, p) {
    const m = MODELS[p.model];
    const run = (recompute) => {
      try {
        return engine.calc('sequence-parallel-memory', { seq: Number(p.seq), micro_batch: p.micro_batch, hidden: m.hidden,
          heads: m.heads, layers: m.layers, ffn_hidden: m.ffn_hidden, gated: m.gated, tp: 1, max_tp: 64, recompute,
          flash_attention: p.flash_attention });
      } catch (e) {
        if (e && !FIELDS[e.field]) e.field = 'model';
        throw e;
      }
    };
    const none = run('none').series;
    const sel = run('selective').series;
    const points = none.map((q, i) => ({ tp: q.tp, tp_only: q.tp_only_bytes, tp_sp: q.tp_sp_bytes, tp_sp_selective: sel[i].tp_sp_bytes }));
    const table = {
      columns: ['Tensor-parallel degree t', 'TP only (B per layer)', 'TP + SP (B per layer)', 'TP + SP + selective recompute (B per layer)', `TP + SP, whole model, ${m.layers} layers (B)`],
      rows: points.map((q) => [q.tp, q.tp_only, q.tp_sp, q.tp_sp_selective, q.tp_sp * m.layers]),
    };
    const mlp = `${m.gated ? 'SwiGLU' : 'GeLU'} MLP ${m.ffn_hidden.toLocaleString('en-US')}`;
    const shape = `h ${m.hidden.toLocaleString('en-US')}, ${m.heads} heads, ${m.layers} layers, ${mlp}`;
    return { model: p.model, layers: m.layers, seq: Number(p.seq), shape, points, table };
  },

  draw(data, theme) {
    const labels = data.points.map((q) => `t = ${q.tp}`);
    const pick = colours(theme);
    const set = (label, key) => series(pick(), { label, data: data.points.map((q) => q[key]), borderColor: theme.text, borderWidth: 1 });
    return chart(theme, {
      type: 'bar', labels,
      datasets: [
        set('Tensor parallelism only', 'tp_only'),
        set('Tensor + sequence parallelism', 'tp_sp'),
        set('TP + SP + selective recomputation', 'tp_sp_selective'),
      ],
      scales: {
        x: category({ title: ['Tensor-parallel degree', data.shape] }),
        // Fixed over every setting (Llama-2 7B at 2,048 tokens, t = 64, selective: 4.5 MB; GPT-3
        // at 32,768 tokens, 16 sequences, t = 1: 8.6 TB), so longer sequences grow the bars.
        y: log('Activations per layer per micro-batch (B)', { unit: 'B', range: [1e6, 1e13] }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw, 'B')} per layer, ${formatSI(ctx.raw * data.layers, 'B')} for ${data.layers} layers`,
    });
  },
};
