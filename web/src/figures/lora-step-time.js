// Time of one training step of full fine-tuning, LoRA and QLoRA on one accelerator: the matmul
// FLOPs at a chosen share of the peak (6N per token for full fine-tuning, 4N plus the adapters for
// LoRA: the frozen base computes no weight gradients) and QLoRA's dequantization of its 4-bit base
// at the memory bandwidth. One `lora-step` call.
import { formatSI, formatFixed } from '../runtime/format.js';
import { modelOptions } from './shared/published-models.js';
import { chart, category, linear, colours, series } from './shared/chart-config.js';

export const LABELS = { full: 'Full fine-tuning', lora: 'LoRA', qlora: 'QLoRA' };

export const MODELS = ['llama-2-7b', 'llama-3-8b', 'mistral-7b', 'llama-2-13b', 'llama-2-70b', 'llama-3-70b', 'gpt-3-175b'];

export default {
  id: 'lora-step-time',
  title: 'FLOPs and time of a fine-tuning step',
  caption:
    'Seconds per training step of 8 sequences of 2,048 tokens, at 40% of the accelerator\u2019s dense bf16 peak. At the defaults, Llama 2 7B on an H100, full fine-tuning takes about 1.77 s and LoRA about 1.24 s: the frozen base still runs its forward pass and the backward pass through its activations (4N FLOPs per token) but skips its weight gradients (the other 2N), so LoRA does about 70% of the work. QLoRA adds the thin segment on top of its bar: unpacking the 4-bit weights to bf16 on every pass, about 1% here. Cut the batch to 1 and that segment grows, because dequantization costs the same whatever the batch. Switch to an A100 and the matmuls stretch by the peaks\u2019 ratio, the dequantization only by the bandwidths\u2019.',
  params: [
    { key: 'model', label: 'Model', type: 'select', default: 'llama-2-7b', options: modelOptions(MODELS) },
    { key: 'hardware', label: 'Accelerator', from: ['lora-step', 'hardware'] },
    { key: 'batch', label: 'Sequences per step', from: ['lora-step', 'batch'], min: 1, max: 64 },
    { key: 'mfu', label: 'Share of the peak (MFU)', from: ['lora-step', 'mfu'], min: 0.1, max: 0.8 },
  ],

  data(engine, p) {
    const r = engine.calc('lora-step', { model: p.model, seq: 2048, hardware: p.hardware, batch: Number(p.batch), mfu: Number(p.mfu) });
    const table = {
      columns: ['Method', 'FLOPs per token', 'FLOPs per step', 'Compute (s)', 'Dequantization (s)', 'Step time (s)', 'Tokens per second'],
      rows: r.rows.map((q) => [LABELS[q.method], q.flops_per_token, q.flops_per_step, q.compute_s, q.dequant_s, q.time_s, q.tokens_per_s]),
    };
    return { ...r, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const labels = data.rows.map((q) => LABELS[q.method]);
    const datasets = [
      series(pick(), { type: 'bar', label: 'Matmuls at the chosen MFU', data: data.rows.map((q) => q.compute_s), stack: 't', borderColor: theme.text, borderWidth: 1 }),
      series(pick(), { type: 'bar', label: 'QLoRA: dequantizing the 4-bit base', data: data.rows.map((q) => q.dequant_s), stack: 't', borderColor: theme.text, borderWidth: 1 }),
    ];
    const top = Math.max(...data.rows.map((q) => q.time_s));
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ title: `Method (LoRA: ${formatFixed(100 * data.lora_flops_ratio, 1)}% of full fine-tuning\u2019s FLOPs)`, stacked: true }),
        y: linear('Time per step (s)', { stacked: true, min: 0, suggestedMax: top * 1.1 }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatFixed(ctx.parsed.y, 3)} s (${formatSI(data.rows[ctx.dataIndex].flops_per_step, 'FLOP')})`,
    });
  },
};
