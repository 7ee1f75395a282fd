// Memory on one GPU across one training step: weights and optimizer states stay, the forward
// pass piles up activations layer by layer, the backward pass frees them while gradients
// grow, then the optimizer step and zero_grad. One calc('training-memory-timeline') per redraw.
import { formatSI } from '../runtime/format.js';
import { PRESETS, presetOptions, presetOf, calcFor } from './training-fit.js';
import { chart, linear, colours, series } from './shared/chart-config.js';

const LAYERS = [['weights_bytes', 'Weights'], ['optimizer_bytes', 'Optimizer states'], ['grads_bytes', 'Gradients'], ['activations_bytes', 'Activations']];

export default {
  id: 'step-memory-timeline',
  title: 'Memory during one training step',
  caption:
    'Bytes on one GPU at each event of a step, stacked: the forward pass adds each layer\'s activations, the logits and loss add a spike, the backward pass frees activations while the gradients grow, and zero_grad frees the gradients after the optimizer step. Switch recomputation to full and the activation mountain flattens, with a small bump as each layer is re-run; raise the ZeRO stage to watch the flat base shrink.',
  params: [
    { key: 'model', label: 'Model', type: 'select', options: presetOptions(), default: 'gpt3-1.3b' },
    { key: 'recompute', label: 'Recomputation', from: ['training-memory-timeline', 'recompute'] },
    { key: 'zero_stage', label: 'ZeRO stage', type: 'select', options: ['0', '1', '2', '3'], default: '0' },
    { key: 'dp', label: 'Data-parallel GPUs', from: ['training-memory-timeline', 'dp'], max: 1024, default: 8, scale: 'log' },
    { key: 'micro_batch', label: 'Micro-batch (sequences)', from: ['training-memory-timeline', 'micro_batch'], max: 64, default: 4, scale: 'log' },
    { key: 'seq', label: 'Sequence length', from: ['training-memory-timeline', 'seq'], min: 128, max: 32768, default: 2048, scale: 'log' },
  ],

  data(engine, p) {
    const fields = { recompute: 'recompute', zero_stage: 'zero_stage', dp: 'dp', micro_batch: 'micro_batch', seq: 'seq' };
    const r = calcFor(engine, 'training-memory-timeline', { ...presetOf(p.model).config, recompute: p.recompute,
      zero_stage: Number(p.zero_stage), dp: p.dp, micro_batch: p.micro_batch, seq: p.seq, flash_attention: true }, fields, 'model');
    const points = r.points.map((q, i) => ({ ...q, i, name: q.phase === 'start' || q.phase === 'optimizer' || q.phase === 'zero-grad' ? q.phase : `${q.phase} layer ${q.layer}` }));
    const table = {
      columns: ['Event', ...LAYERS.map(([, l]) => `${l} (B)`), 'Total (B)'],
      rows: points.map((q) => [q.name, ...LAYERS.map(([k]) => q[k]), q.total_bytes]),
    };
    return { model: PRESETS[p.model].label, points, peak: r.peak_bytes, peak_phase: r.peak_phase, table };
  },

  draw(data, theme) {
    const dashes = [[], [6, 3], [2, 2], [8, 3, 2, 3]];
    const pick = colours(theme);
    const datasets = LAYERS.map(([k, label], i) => series(pick(), {
      label, data: data.points.map((q) => ({ x: q.i, y: q[k], q })), showLine: true, stepped: false,
      fill: i === 0 ? 'origin' : '-1', pointRadius: 0, borderWidth: 2, borderDash: dashes[i],
    }));
    return chart(theme, {
      type: 'line', datasets,
      scales: {
        x: linear(`Event in the step (index): forward, backward, optimizer; peak ${formatSI(data.peak, 'B')} (${data.peak_phase})`,
          { range: [0, data.points.length - 1], ticks: { precision: 0 } }),
        y: linear(`Bytes on the GPU (B), ${data.model}`, { stacked: true, min: 0, ticks: { callback: (v) => formatSI(v, 'B') } }),
      },
      legend: { usePointStyle: false },
      tooltip: { callbacks: { title: (items) => items[0]?.raw.q.name ?? '', label: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.y, 'B')}` } },
      options: { interaction: { mode: 'nearest', axis: 'x', intersect: false } },
    });
  },
};
