// Time to first token against time per output token as the prompt grows: prefill pushes the
// whole prompt through the weights in one compute-bound pass, decode re-reads the weights and
// KV cache for every token. Each point is one calc('decode') with context = prompt.
import { formatSI, logTick } from '../runtime/format.js';
import { modelParam, modelConfig } from './kv-cache-capacity.js';

const PROMPTS = Array.from({ length: 17 }, (_, i) => Math.round(128 * 2 ** (i / 2)));

export default {
  id: 'ttft-tpot',
  title: 'Prefill and decode: TTFT against TPOT',
  caption:
    'Roofline time to first token (prefill of the prompt) and time per output token (one decode step at that context) against prompt length, each with its other roof dashed: prefill sits on the compute roof, decode on the memory roof. Raise the batch and see TTFT grow in proportion while TPOT barely moves until the KV cache dominates.',
  params: [
    modelParam('llama-3-8b'),
    { key: 'hardware', label: 'Accelerator', from: ['decode', 'hardware'] },
    { key: 'batch', label: 'Batch (sequences)', from: ['decode', 'batch'], max: 256, scale: 'log' },
    { key: 'weight_dtype', label: 'Weight type', from: ['decode', 'weight_dtype'], options: ['bf16', 'fp8-e4m3', 'int8', 'int4'] },
  ],

  data(engine, p) {
    const cfg = modelConfig(engine, p.model);
    const points = PROMPTS.map((n) => {
      const r = engine.calc('decode', { ...cfg, weight_dtype: p.weight_dtype, batch: p.batch, prompt: n, context: n, hardware: p.hardware });
      return {
        prompt: n, ttft_s: r.ttft_s, tpot_s: r.tpot_s,
        prefill_memory_s: r.prefill.bytes / r.bandwidth_Bps, prefill_compute_s: r.prefill.flops / r.peak_flops,
        decode_memory_s: r.decode_step.bytes / r.bandwidth_Bps, decode_compute_s: r.decode_step.flops / r.peak_flops,
        prefill_bound: r.prefill_bound, decode_bound: r.bound,
      };
    });
    const table = {
      columns: ['Prompt (tokens)', 'TTFT (s)', 'TPOT (s)', 'Prefill memory time (s)', 'Decode compute time (s)', 'Prefill bound', 'Decode bound'],
      rows: points.map((q) => [q.prompt, q.ttft_s, q.tpot_s, q.prefill_memory_s, q.decode_compute_s, q.prefill_bound, q.decode_bound]),
    };
    return { batch: p.batch, points, table };
  },

  draw(data, theme) {
    const line = (label, field, colour, style, dash) => ({
      label, data: data.points.map((q) => ({ x: q.prompt, y: q[field], q })), showLine: true, pointStyle: style,
      pointRadius: dash.length ? 0 : 3, borderWidth: 2, borderDash: dash, borderColor: colour, backgroundColor: colour,
    });
    const datasets = [
      line('TTFT: prefill of the prompt', 'ttft_s', theme.compute, 'triangle', []),
      line('Prefill if only bytes counted (memory roof)', 'prefill_memory_s', theme.compute, 'line', [4, 4]),
      line('TPOT: one decode step', 'tpot_s', theme.memory, 'circle', []),
      line('Decode if only FLOPs counted (compute roof)', 'decode_compute_s', theme.memory, 'line', [4, 4]),
    ];
    const axis = (title, unit, extra = {}) => ({
      type: 'logarithmic', title: { display: true, text: title, color: theme.text },
      ticks: { color: theme.muted, maxRotation: 0, callback: logTick(unit) }, grid: { color: theme.grid }, ...extra,
    });
    return {
      type: 'scatter',
      data: { datasets },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: { x: axis('Prompt length = context (tokens)', '', { min: 128, max: 32768 }), y: axis('Time (s)', 's') },
        plugins: {
          legend: { labels: { color: theme.text, usePointStyle: true } },
          tooltip: { callbacks: { label: (ctx) => { const q = ctx.raw.q; return `${ctx.dataset.label.split(':')[0]} at ${q.prompt} tokens: ${formatSI(ctx.parsed.y, 's')}`; } } },
        },
      },
    };
  },
};
