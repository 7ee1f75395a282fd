// Memory on one GPU across one training step: weights and optimizer states stay, the forward
// pass piles up activations layer by layer, the backward pass frees them while gradients
// grow, then the optimizer step and zero_grad. A dashed line marks the training-memory total
// (all four at once), which the timeline reaches only with persistent gradient buffers.
// One calc('training-memory-timeline') and two calc('training-memory') per redraw.
import { formatSI } from '../runtime/format.js';
import { PRESETS, presetOptions, presetOf, calcFor } from './training-fit.js';
import { chart, linear, colours, series } from './shared/chart-config.js';

const LAYERS = [['weights_bytes', 'Weights'], ['optimizer_bytes', 'Optimizer states'], ['grads_bytes', 'Gradients'], ['activations_bytes', 'Activations']];

export default {
  id: 'step-memory-timeline',
  title: 'Memory during one training step',
  caption:
    'Bytes on one GPU at each event of a step, stacked: the forward pass adds each layer\'s activations, the logits and loss add a spike, the backward pass frees activations while the gradients grow, and zero_grad frees the gradients after the optimizer step. With gradients allocated on demand (PyTorch\'s zero_grad(set_to_none=True)) no gradient exists during the forward pass, so the top of the forward pass sits one gradient copy below the dashed line, the training-memory total that the "Does it fit?" calculator reports (weights, gradients, optimizer states and activations at once). Keep the gradient buffers, as DDP, Megatron-LM and DeepSpeed do, and the peak meets the line, with or without recomputation. The vertical line marks the end of the forward pass. FlashAttention is on by default; turn it off to see the attention scores. Switch recomputation to full and the staircase flattens to the layer inputs, while each layer re-run in the backward pass rises as a spike on top of them; the axis follows the model, sequence, micro-batch, FlashAttention and recomputation. Raise the ZeRO stage or the GPUs to watch the flat base shrink against an axis that stays put.',
  params: [
    { key: 'model', label: 'Model', type: 'select', options: presetOptions(), default: 'gpt3-1.3b' },
    { key: 'recompute', label: 'Recomputation', from: ['training-memory-timeline', 'recompute'] },
    { key: 'zero_stage', label: 'ZeRO stage', type: 'select', options: ['0', '1', '2', '3'], default: '0' },
    { key: 'dp', label: 'Data-parallel GPUs', from: ['training-memory-timeline', 'dp'], max: 1024, default: 8, scale: 'log' },
    { key: 'micro_batch', label: 'Micro-batch (sequences)', from: ['training-memory-timeline', 'micro_batch'], max: 64, default: 4, scale: 'log' },
    { key: 'seq', label: 'Sequence length', from: ['training-memory-timeline', 'seq'], min: 128, max: 32768, default: 2048, scale: 'log' },
    { key: 'persistent_grads', label: 'Gradient buffers kept all step', from: ['training-memory-timeline', 'persistent_grads'] },
    { key: 'flash_attention', label: 'FlashAttention', from: ['training-memory-timeline', 'flash_attention'], default: true },
  ],

  data(engine, p) {
    const fields = { recompute: 'recompute', zero_stage: 'zero_stage', dp: 'dp', micro_batch: 'micro_batch', seq: 'seq',
      persistent_grads: 'persistent_grads', flash_attention: 'flash_attention' };
    const setup = { ...presetOf(p.model).config, recompute: p.recompute, zero_stage: Number(p.zero_stage), dp: p.dp,
      micro_batch: p.micro_batch, seq: p.seq, flash_attention: p.flash_attention };
    const r = calcFor(engine, 'training-memory-timeline', { ...setup, persistent_grads: p.persistent_grads }, fields, 'model');
    const total = calcFor(engine, 'training-memory', setup, fields, 'model').total_bytes;
    // The y axis keeps the height of ZeRO stage 0 for this model, micro-batch, sequence,
    // FlashAttention and recomputation (its total is this step's peak with every state
    // unsharded), so the ZeRO stage, the GPU count and the gradient buffers move the curves,
    // not the axis, while the axis fits the step being shown.
    const top = calcFor(engine, 'training-memory', { ...setup, zero_stage: 0 }, fields, 'model').total_bytes;
    const forwardEnd = r.points.findLastIndex((q) => q.phase === 'forward');
    const points = r.points.map((q, i) => ({ ...q, i, name: q.phase === 'start' || q.phase === 'optimizer' || q.phase === 'zero-grad' ? q.phase : `${q.phase} layer ${q.layer}` }));
    const table = {
      columns: ['Event', ...LAYERS.map(([, l]) => `${l} (B)`), 'Total (B)', 'training-memory total, all four at once (B)'],
      rows: points.map((q) => [q.name, ...LAYERS.map(([k]) => q[k]), q.total_bytes, total]),
    };
    return { model: PRESETS[p.model].label, points, peak: r.peak_bytes, peak_phase: r.peak_phase, total, top, forwardEnd, table };
  },

  draw(data, theme) {
    const dashes = [[], [6, 3], [2, 2], [8, 3, 2, 3]];
    const pick = colours(theme);
    const datasets = LAYERS.map(([k, label], i) => series(pick(), {
      label, data: data.points.map((q) => ({ x: q.i, y: q[k], q })), showLine: true, stepped: false,
      fill: i === 0 ? 'origin' : '-1', pointRadius: 0, borderWidth: 2, borderDash: dashes[i], stack: 'memory',
    }));
    const last = data.points.length - 1;
    const ref = { name: 'training-memory total' };
    datasets.push(series(pick('text'), {
      label: `training-memory total ${formatSI(data.total, 'B')} (all four at once)`, stack: 'total', showLine: true,
      data: [{ x: 0, y: data.total, q: ref }, { x: last, y: data.total, q: ref }],
      fill: false, pointRadius: 0, borderWidth: 1.5, borderDash: [5, 4],
    }));
    const edge = { name: 'end of the forward pass' };
    datasets.push(series(pick('muted'), {
      label: 'end of the forward pass', stack: 'marker', showLine: true, fill: false, pointRadius: 0, borderWidth: 1,
      borderDash: [2, 3], data: [{ x: data.forwardEnd, y: 0, q: edge }, { x: data.forwardEnd, y: 1.05 * data.top, q: edge }],
    }));
    return chart(theme, {
      type: 'line', datasets,
      scales: {
        x: linear(`Event in the step (index): forward, backward, optimizer; peak ${formatSI(data.peak, 'B')} (${data.peak_phase})`,
          { range: [0, data.points.length - 1], ticks: { precision: 0 } }),
        y: linear(`Bytes on the GPU (B), ${data.model}`, { stacked: true, range: [0, 1.05 * data.top],
          ticks: { callback: (v) => formatSI(v, 'B'), includeBounds: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: { callbacks: { title: (items) => items[0]?.raw.q.name ?? '', label: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.y, 'B')}` } },
      options: { interaction: { mode: 'nearest', axis: 'x', intersect: false } },
    });
  },
};
