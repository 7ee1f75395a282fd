// FLOPs counting and MFU: PaLM's accounting (6N + 12·L·H·Q·T FLOPs per token) applied to a
// model, a measured throughput and a number of devices; achieved FLOP/s per device against the
// peak, split into the weight and attention terms, with HFU beside MFU. One `mfu` call.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';
import { modelOptions, publishedModel } from './shared/published-models.js';

// Published models (content/data/models.json, through the engine's `models` calculator),
// counted as PaLM counts its own: N every parameter in a token's matmuls, the published total
// with a tied head (PaLM's 540.35B, GPT-3's 175B), less the input embedding table (a lookup)
// with an untied one (Llama 2); L layers, H heads of size Q, T the trained context.
const MODEL_IDS = ['palm-540b', 'gpt-3-175b', 'llama-2-70b', 'llama-2-7b'];
// Short enough for the select at 1280 px and on a phone (heads and head size are in Show data).
const shape = (m) => `${m.name} (${m.layers} layers, T = ${m.seq})`;
export const MODELS = Object.fromEntries(modelOptions(MODEL_IDS, shape).map((o) => [o.value, { label: o.label }]));

export default {
  id: 'mfu-flops-counter',
  title: 'Counting FLOPs: from tokens per second to MFU',
  caption:
    'Achieved FLOP/s per device against the peak, with PaLM’s accounting: N is every parameter in a token’s matmuls, the output head included (the whole model for PaLM and GPT-3, whose head is the embedding; all but the input embedding for Llama 2). The defaults are PaLM 540B’s published run (238.3K tokens/s on 6144 TPU v4 chips): 46.2% MFU. Switch to an H100 and find the throughput that gives the same MFU; then raise the sequence length and watch the attention slice grow.',
  params: [
    { key: 'model', label: 'Model', type: 'select', default: 'palm-540b',
      options: modelOptions(MODEL_IDS, shape) },
    { key: 'hardware', label: 'Accelerator', from: ['mfu', 'hardware'], default: 'tpu-v4' },
    { key: 'devices', label: 'Devices', type: 'select', default: 6144,
      options: [8, 64, 256, 1024, 2048, 3072, 6144, 8192, 16384].map((v) => ({ value: v, label: String(v) })) },
    { key: 'tokens_per_s', label: 'Throughput of the job', type: 'number', unit: 'tokens/s', min: 1e3, max: 1e8, default: 238300, scale: 'log' },
    { key: 'seq', label: 'Sequence length T', type: 'select', default: 0,
      options: [{ value: 0, label: 'as trained' }, ...[2048, 8192, 32768, 131072].map((v) => ({ value: v, label: `${v} tokens` }))] },
    { key: 'recompute_fraction', label: 'Recomputed forward (HFU)', type: 'select', default: 0.75,
      options: [{ value: 0, label: 'none' }, { value: 0.75, label: '3/4 of a forward pass' }, { value: 1, label: 'full recomputation' }] },
  ],

  data(engine, p) {
    const m = { ...publishedModel(engine, p.model), label: MODELS[p.model]?.label };
    const seq = Number(p.seq) || m.seq;
    const n = m.params - (m.tied_embeddings ? 0 : m.vocab * m.hidden);
    const r = engine.calc('mfu', {
      params: n, layers: m.layers, heads: m.heads, head_dim: m.head_dim, hidden: m.heads * m.head_dim, seq,
      tokens_per_s: p.tokens_per_s, devices: Number(p.devices), hardware: p.hardware, dtype: 'bf16',
      recompute_fraction: Number(p.recompute_fraction),
    });
    const perDevice = p.tokens_per_s / Number(p.devices);
    const weights = perDevice * r.flops_per_token_params;
    const attention = perDevice * r.flops_per_token_attention;
    const recompute = perDevice * (r.hardware_flops_per_token - r.flops_per_token);
    const table = {
      columns: ['Quantity', 'Value', 'Unit'],
      rows: [
        ['N: parameters in the matmuls (layers and output head)', n, ''],
        ['L: layers', m.layers, ''],
        ['H × Q: heads × head size', `${m.heads} × ${m.head_dim}`, ''],
        ['T: sequence length', seq, 'tokens'],
        ['FLOPs per token, 6N', r.flops_per_token_params, 'FLOP'],
        ['FLOPs per token, attention 12·L·H·Q·T', r.flops_per_token_attention, 'FLOP'],
        ['Attention share', 100 * r.attention_share, '%'],
        ['Achieved model FLOP/s per device', r.achieved_flops_per_device, 'FLOP/s'],
        ['Peak FLOP/s per device (bf16, dense)', r.peak_flops_per_device, 'FLOP/s'],
        ['MFU', 100 * r.mfu, '%'],
        ['HFU', 100 * r.hfu, '%'],
      ],
    };
    return { model: m.label, seq, ...r, weights, attention, recompute, table };
  },

  draw(data, theme) {
    const pct = (x) => `${(100 * x).toFixed(1)}%`;
    const labels = ['Peak', `Hardware FLOP/s: HFU ${pct(data.hfu)}`, `Model FLOP/s: MFU ${pct(data.mfu)}`];
    const T = 1e12;
    const pick = colours(theme);
    const ds = (colour, label, values) => series(colour, { label, data: values.map((v) => v / T), borderWidth: 1, stack: 's' });
    return chart(theme, {
      type: 'bar', labels,
      datasets: [
        ds(pick('compute'), 'Weights: 6N per token', [0, data.weights, data.weights]),
        ds(pick(), 'Attention: 12·L·H·Q·T per token', [0, data.attention, data.attention]),
        ds(pick(), 'Recomputed forward (counted in HFU only)', [0, data.recompute, 0]),
        ds(pick('muted'), `Peak: ${formatSI(data.peak_flops_per_device, 'FLOP/s')} per device`, [data.peak_flops_per_device, 0, 0]),
      ],
      scales: {
        x: category({ stacked: true }),
        y: linear('FLOP/s per device (TFLOP/s)', { stacked: true, min: 0 }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw * T, 'FLOP/s')}`,
    });
  },
};
