// Memory of fine-tuning a published model three ways: full fine-tuning (every weight trained,
// 16 bytes of model states per parameter), LoRA (16-bit frozen base + adapters) and QLoRA (the
// blocks' linear layers in NF4, 4.127 bits with double quantization), with activations on top.
// One `lora` call.
import { formatSI, formatFixed } from '../runtime/format.js';
import { modelOptions } from './shared/published-models.js';
import { chart, category, linear, colours, series } from './shared/chart-config.js';

export const METHODS = [['full_finetune', 'Full fine-tuning'], ['lora', 'LoRA'], ['qlora', 'QLoRA']];
export const PARTS = [
  ['frozen_weights_bytes', 'Frozen weights (16-bit)'],
  ['quantized_weights_bytes', 'Frozen weights (quantized)'],
  ['trainable_weights_bytes', 'Trained weights'],
  ['grads_bytes', 'Gradients'],
  ['optimizer_bytes', 'Optimizer states'],
  ['activations_bytes', 'Activations'],
];

export const MODELS = ['llama-2-7b', 'llama-3-8b', 'mistral-7b', 'llama-2-13b', 'llama-2-70b', 'llama-3-70b', 'gpt-3-175b'];

export default {
  id: 'lora-memory-methods',
  title: 'Full fine-tuning, LoRA and QLoRA: what each holds in memory',
  caption:
    'GPU memory of one fine-tuning step, split by what it holds, for a published model (one sequence of 2,048 tokens, FlashAttention, no recomputation). At the defaults, Llama 2 7B with rank-16 adapters on every linear layer, full fine-tuning needs about 117 GB, almost all of it gradients and Adam states; LoRA trains 0.6% of the weights and drops to about 24 GB, most of it the frozen 16-bit base and the activations; QLoRA stores that base in 4-bit NormalFloat and needs about 14 GB. Raise the rank and watch the trained part grow, 16 bytes per adapter parameter: small beside the base at r = 64, three quarters of it at r = 256. Pick Llama 2 70B and compare with the dashed 80 GB line: only QLoRA\u2019s weights fit on one GPU.',
  params: [
    { key: 'model', label: 'Model', type: 'select', default: 'llama-2-7b', options: modelOptions(MODELS) },
    { key: 'rank', label: 'LoRA rank r', from: ['lora', 'rank'], options: [1, 4, 8, 16, 32, 64, 128, 256] },
    { key: 'targets', label: 'Adapted matrices', from: ['lora', 'targets'] },
  ],

  data(engine, p) {
    const r = engine.calc('lora', { model: p.model, seq: 2048, rank: Number(p.rank), targets: p.targets });
    const bars = METHODS.map(([m]) => Object.fromEntries(PARTS.map(([k]) => [k, r[`${m}_breakdown`][k] / 1e9])));
    const table = {
      columns: ['Method', ...PARTS.map(([, l]) => `${l} (GB)`), 'Total (GB)', 'Trained parameters'],
      rows: METHODS.map(([m, label], i) => [label, ...PARTS.map(([k]) => bars[i][k]), r[`${m}_bytes`] / 1e9,
        m === 'full_finetune' ? r.params : r.trainable_params]),
    };
    return { ...r, bars, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const labels = METHODS.map(([, l]) => l);
    const datasets = PARTS.map(([k, label]) => series(pick(), {
      type: 'bar', label, data: data.bars.map((b) => b[k]), stack: 'memory', borderColor: theme.text, borderWidth: 1,
    }));
    datasets.push(series(pick('muted'), {
      type: 'line', label: '80 GB: one H100\u2019s memory', data: labels.map(() => 80), borderDash: [6, 4], borderWidth: 2,
      pointRadius: 0, pointStyle: 'line',
    }));
    const top = Math.max(100, data.full_finetune_bytes / 1e9);
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ title: `Method (${formatFixed(100 * data.trainable_fraction, 2)}% of the weights trained by LoRA)`, stacked: true }),
        y: linear('GPU memory (GB)', { stacked: true, min: 0, suggestedMax: top * 1.05 }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatFixed(ctx.parsed.y, 2)} GB (${formatSI(ctx.parsed.y * 1e9, 'B')})`,
    });
  },
};
