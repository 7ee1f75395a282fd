// Model states per GPU (weights, gradients, optimizer states) for models from 1.3B to 175B
// parameters: 16 bytes per parameter with mixed-precision Adam, cut by ZeRO stages over dp
// GPUs. One calc('training-memory', {params, ...}) per model size and per ZeRO stage (the
// "bytes per parameter" view puts the four stages side by side at the chosen GPU count).
import { calcFor } from './training-fit.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const SIZES = [1.3e9, 7e9, 13e9, 30e9, 70e9, 175e9];
const PARTS = [['weights_bytes', 'Weights'], ['grads_bytes', 'Gradients'], ['optimizer_bytes', 'Optimizer states']];

export default {
  id: 'model-state-bytes',
  title: 'Sixteen bytes per parameter, and how ZeRO splits them',
  caption:
    'Weights, gradients and optimizer states held by each GPU for models from 1.3B to 175B parameters. At ZeRO stage 0 every GPU holds all 16 bytes per parameter, three quarters of it optimizer state. Raise the ZeRO stage one step at a time with 64 GPUs and watch first the optimizer states, then the gradients, then the weights shrink against the fixed axis. Switch to "bytes per parameter" to see the four stages side by side (the same for every model size): 16, then 4 + 12/N, 2 + 14/N and 16/N bytes per parameter for N GPUs; move the GPU count there to watch the sharded parts thin out.',
  params: [
    { key: 'zero_stage', label: 'ZeRO stage', type: 'select', options: ['0', '1', '2', '3'], default: '0' },
    { key: 'dp', label: 'Data-parallel GPUs', from: ['training-memory', 'dp'], max: 4096, default: 64, scale: 'log' },
    { key: 'optimizer', label: 'Optimizer', from: ['training-memory', 'optimizer'] },
    { key: 'dtype', label: 'Precision', from: ['training-memory', 'dtype'] },
    { key: 'view', label: 'Show', type: 'select', options: [{ value: 'gpu', label: 'GB per GPU' }, { value: 'param', label: 'bytes per parameter' }], default: 'gpu' },
  ],

  data(engine, p) {
    const fields = { dp: 'dp', zero_stage: 'zero_stage', optimizer: 'optimizer', dtype: 'dtype' };
    const bars = SIZES.map((params) => {
      const r = calcFor(engine, 'training-memory', { params, zero_stage: Number(p.zero_stage), dp: p.dp,
        optimizer: p.optimizer, dtype: p.dtype }, fields, 'dp');
      const label = `${Number((params / 1e9).toPrecision(3))}B`;  // 1.3B, 175B: billions, as models are named
      return { params, label, parts: PARTS.map(([k]) => r[k]), total: r.model_states_bytes };
    });
    // The y axis keeps stage 0's height (the largest model's 16 B/param) at every stage, so
    // raising the stage shows the bars shrink instead of the axis rescaling under them.
    const top = calcFor(engine, 'training-memory', { params: SIZES.at(-1), zero_stage: 0, dp: p.dp,
      optimizer: p.optimizer, dtype: p.dtype }, fields, 'dp').model_states_bytes;
    // Bytes per parameter do not depend on the model size, so that view compares the stages.
    const stages = [0, 1, 2, 3].map((zero_stage) => {
      const r = calcFor(engine, 'training-memory', { params: SIZES.at(-1), zero_stage, dp: p.dp,
        optimizer: p.optimizer, dtype: p.dtype }, fields, 'dp');
      return { zero_stage, parts: PARTS.map(([k]) => r[k] / SIZES.at(-1)), total: r.model_states_bytes / SIZES.at(-1) };
    });
    const perParam = p.view === 'param';
    const table = perParam
      ? { columns: ['ZeRO stage', ...PARTS.map(([, l]) => `${l} per GPU (B per parameter)`), 'Total per GPU (B per parameter)'],
        rows: stages.map((q) => [q.zero_stage, ...q.parts, q.total]) }
      : { columns: ['Parameters', ...PARTS.map(([, l]) => `${l} per GPU (B)`), 'Total per GPU (B)', 'Bytes per parameter per GPU'],
        rows: bars.map((b) => [b.params, ...b.parts, b.total, b.total / b.params]) };
    return { view: p.view, zero_stage: Number(p.zero_stage), dp: p.dp, bars, stages, stage0_top: { bytes: top, per_param: top / SIZES.at(-1) }, table };
  },

  draw(data, theme) {
    const perParam = data.view === 'param';
    const patterns = [[], [6, 3], [2, 2]];
    const top = perParam ? data.stage0_top.per_param : data.stage0_top.bytes / 1e9; // stage 0's tallest bar
    const pick = colours(theme);
    const datasets = PARTS.map(([, label], i) => series(pick(), {
      label,
      data: perParam ? data.stages.map((q) => q.parts[i]) : data.bars.map((b) => b.parts[i] / 1e9),
      borderColor: theme.text, borderWidth: 1, borderDash: patterns[i], stack: 'states',
    }));
    // Per parameter the x axis is the ZeRO stage; the chosen stage is marked.
    const labels = perParam
      ? data.stages.map((q) => (q.zero_stage === data.zero_stage ? `stage ${q.zero_stage} ◀` : `stage ${q.zero_stage}`))
      : data.bars.map((b) => b.label);
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ title: perParam ? `ZeRO stage (${data.dp} GPUs)` : 'Model size (parameters)', stacked: true }),
        y: linear(perParam ? 'Bytes per parameter on each GPU (B)' : `Model states per GPU (GB), ZeRO ${data.zero_stage}, ${data.dp} GPUs`,
          { stacked: true, range: [0, 1.05 * top], ticks: { includeBounds: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${ctx.dataset.label}: ${perParam ? `${Number(ctx.raw.toPrecision(3))} B/param` : `${Number(ctx.raw.toPrecision(4))} GB`}`,
    });
  },
};
