// "Does it fit?": bytes per GPU by component (weights, gradients, optimizer states,
// activations) for a model preset and a training setup, as floating horizontal bars against
// the accelerator's HBM capacity. One calc('training-memory', ...) call per redraw.
import { formatSI } from '../runtime/format.js';
import { EngineError } from '../runtime/engine-api.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

// Published configurations (GPT-2 XL: Radford et al. 2019; GPT-3: Brown et al. 2020 Table 2.1;
// Llama 2: Touvron et al. 2023) as inputs of the `transformer` / `training-memory` calculators.
export const PRESETS = {
  'gpt3-1.3b': { label: 'GPT-3 XL 1.3B', config: { layers: 24, hidden: 2048, heads: 16, vocab: 50257 } },
  'gpt2-xl': { label: 'GPT-2 XL 1.5B', config: { layers: 48, hidden: 1600, heads: 25, vocab: 50257 } },
  'llama2-7b': { label: 'Llama 2 7B', config: { layers: 32, hidden: 4096, heads: 32, ffn_hidden: 11008, vocab: 32000, gated_mlp: true, tied_embeddings: false } },
  'llama2-13b': { label: 'Llama 2 13B', config: { layers: 40, hidden: 5120, heads: 40, ffn_hidden: 13824, vocab: 32000, gated_mlp: true, tied_embeddings: false } },
  'gpt3-13b': { label: 'GPT-3 13B', config: { layers: 40, hidden: 5140, heads: 40, head_dim: 128, vocab: 50257 } },
  'llama2-70b': { label: 'Llama 2 70B', config: { layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn_hidden: 28672, vocab: 32000, gated_mlp: true, tied_embeddings: false } },
  'gpt3-175b': { label: 'GPT-3 175B', config: { layers: 96, hidden: 12288, heads: 96, vocab: 50257 } },
};
export const presetOptions = (keys = Object.keys(PRESETS)) => keys.map((k) => ({ value: k, label: PRESETS[k].label }));

// Runs a calculator and points its errors at this figure's controls (`fields` maps engine
// field names to control keys; a field that is not a control goes to `fallback`).
export function calcFor(engine, name, input, fields, fallback) {
  try {
    return engine.calc(name, input);
  } catch (e) {
    if (e && e.field !== undefined) e.field = fields[e.field] ?? (fallback || e.field);
    throw e;
  }
}

export function presetOf(key) {
  if (!Object.hasOwn(PRESETS, key)) throw new EngineError('model', `Unknown model "${key}".`);
  return PRESETS[key];
}

export const COMPONENTS = [
  ['weights_bytes', 'Weights'],
  ['grads_bytes', 'Gradients'],
  ['optimizer_bytes', 'Optimizer states'],
  ['activations_bytes', 'Activations'],
];

// The axis end: the next of 1.2, 1.5, 1.8, 2.4, 3, 4.5, 6, 7.5, 9 or 12 × 10^k at or above
// `top`, so that each of three equal steps is a round number (120 GB: 40, 80, 120).
export function niceTop(top) {
  const unit = 10 ** Math.floor(Math.log10(top));
  return unit * [1.2, 1.5, 1.8, 2.4, 3, 4.5, 6, 7.5, 9, 12].find((m) => m * unit >= top * (1 - 1e-12));
}

export default {
  id: 'training-fit',
  title: 'Does it fit? Bytes per GPU against HBM',
  caption:
    'All four components count at once, as with gradient buffers kept for the whole step. Start with Llama 2 7B on one H100: the 16 bytes per parameter alone overflow it. On one GPU, try 8-bit Adam with full recomputation, or CPU offload (the legend names what moved). Or raise the GPUs and the ZeRO stage to shard the model states, then raise the sequence length or micro-batch and watch activations take over; switch recomputation to selective or full to win them back. fp32 gradient buffers, as Megatron-LM keeps them, add 2 bytes per parameter. Activations count at the step\'s peak, with the layer recomputation re-makes.',
  params: [
    { key: 'model', label: 'Model', type: 'select', options: presetOptions(), default: 'llama2-7b' },
    { key: 'hardware', label: 'Accelerator', from: ['training-memory', 'hardware'], default: 'h100-sxm' },
    { key: 'gpus', label: 'Data-parallel GPUs', from: ['training-memory', 'dp'], max: 1024, scale: 'log' },
    { key: 'zero_stage', label: 'ZeRO stage', type: 'select', options: ['0', '1', '2', '3'], default: '0' },
    { key: 'micro_batch', label: 'Micro-batch (sequences)', from: ['training-memory', 'micro_batch'], max: 64, scale: 'log' },
    { key: 'seq', label: 'Sequence length', from: ['training-memory', 'seq'], min: 128, max: 131072, default: 4096, scale: 'log', unit: 'tokens' },
    { key: 'dtype', label: 'Precision', from: ['training-memory', 'dtype'] },
    { key: 'recompute', label: 'Recomputation', from: ['training-memory', 'recompute'] },
    { key: 'flash_attention', label: 'FlashAttention', from: ['training-memory', 'flash_attention'], default: true },
    { key: 'optimizer', label: 'Optimizer', from: ['training-memory', 'optimizer'] },
    { key: 'fp32_grads', label: 'fp32 gradient buffers', from: ['training-memory', 'fp32_grads'] },
    { key: 'cpu_offload', label: 'CPU offload (ZeRO-Offload)', from: ['training-memory', 'cpu_offload'] },
  ],

  data(engine, p) {
    const preset = presetOf(p.model);
    const input = {
      ...preset.config, seq: p.seq, micro_batch: p.micro_batch, dtype: p.dtype, dp: p.gpus,
      zero_stage: Number(p.zero_stage), recompute: p.recompute, flash_attention: p.flash_attention, hardware: p.hardware,
      optimizer: p.optimizer, fp32_grads: p.fp32_grads, cpu_offload: p.cpu_offload,
    };
    const fields = { dp: 'gpus', seq: 'seq', micro_batch: 'micro_batch', dtype: 'dtype', zero_stage: 'zero_stage',
      recompute: 'recompute', hardware: 'hardware', flash_attention: 'flash_attention', optimizer: 'optimizer',
      fp32_grads: 'fp32_grads', cpu_offload: 'cpu_offload' };
    const r = calcFor(engine, 'training-memory', input, fields, 'model');
    let start = 0;
    const segments = COMPONENTS.map(([key, name]) => {
      const label = key === 'activations_bytes' && r.recompute_bytes > 0 ? `${name} at the peak (one layer re-made)` : name;
      const seg = { key, label, start, end: start + r[key], bytes: r[key] };
      start = seg.end;
      return seg;
    });
    const table = {
      columns: ['Component', 'Bytes per GPU (B)'],
      rows: [...segments.map((s) => [s.label, s.bytes]), ['Total', r.total_bytes], ['HBM capacity', r.hbm_bytes],
        ['Offloaded to CPU memory (not on the GPU)', r.offloaded_bytes]],
    };
    // The x axis holds the unsharded total (one GPU, ZeRO 0, no offload) of the same settings,
    // so raising the GPUs, the ZeRO stage or offloading shrinks the bar instead of the axis.
    const unsharded = engine.calc('training-memory', { ...input, dp: 1, zero_stage: 0, cpu_offload: false }).total_bytes;
    return { model: preset.label, params: r.params, segments, total: r.total_bytes, hbm: r.hbm_bytes, fits: r.fits,
      offloaded: r.offloaded_bytes, top: 1.05 * Math.max(unsharded, r.total_bytes, r.hbm_bytes), table };
  },

  draw(data, theme) {
    const patterns = [[], [6, 3], [2, 2], [8, 2, 2, 2]];
    const rows = ['Needed', 'HBM capacity'];
    const pick = colours(theme);
    const datasets = data.segments.map((s, i) => series(pick(), {
      label: `${s.label}: ${formatSI(s.bytes, 'B')}`,
      data: [[s.start, s.end], null],
      borderColor: theme.text, borderWidth: 1, borderDash: patterns[i], borderSkipped: false,
    }));
    datasets.push(series(pick('muted'), {
      label: `HBM capacity ${formatSI(data.hbm, 'B')}: ${data.fits ? 'fits' : 'does NOT fit'} (total ${formatSI(data.total, 'B')}${data.offloaded > 0 ? `; ${formatSI(data.offloaded, 'B')} in CPU memory` : ''})`,
      data: [null, [0, data.hbm]], borderColor: theme.text, borderWidth: 2, borderSkipped: false,
    }));
    return chart(theme, {
      type: 'bar', labels: rows, datasets, indexAxis: 'y',
      scales: {
        x: linear(`Bytes per GPU (B), ${data.model}`, { range: [0, niceTop(data.top)], ticks: { stepSize: niceTop(data.top) / 3, callback: (v) => formatSI(v, 'B') } }),
        y: category({ stacked: true }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => ctx.dataset.label,
    });
  },
};
