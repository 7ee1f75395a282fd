// A synthetic profiler trace of one data-parallel training step: the CPU thread launching
// kernels, the compute stream and the all-reduce stream as floating bars against time. The
// reader toggles fusion, overlap and CUDA graphs. One `step-profile` call per redraw.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

// GPT-3's 350M, 1.3B and 6.7B shapes (Brown et al. 2020, Table 2.1) with its 50,257-token
// vocabulary and tied output head: the labels are their parameter counts, head included.
export const VOCAB = 50257;
export const STACKS = {
  '350m': { label: '350M (24 layers × 1024)', layers: 24, hidden: 1024, heads: 16 },
  '1.3b': { label: '1.3B (24 layers × 2048)', layers: 24, hidden: 2048, heads: 16 },
  '6.7b': { label: '6.7B (32 layers × 4096)', layers: 32, hidden: 4096, heads: 32 },
};

const ROWS = { cpu: 'CPU thread', compute: 'Compute stream', comm: 'Comm stream (NCCL)' };
const KINDS = [
  ['matmul', 'Matmuls (GEMMs)'],
  ['attention', 'Attention kernels'],
  ['elementwise', 'Elementwise kernels (memory-bound)'],
  ['optimizer', 'Optimizer step (Adam)'],
  ['allreduce', 'Gradient all-reduce'],
  ['launch', 'CPU dispatching kernels'],
];

// The part of the step a view shows: [start, end] in seconds.
function windowOf(view, r) {
  const ks = r.kernels.filter((k) => k.stream === 'compute');
  if (view === 'layer') {
    const firstLayer = ks.filter((k) => k.phase === 'forward' && k.layer === 0);
    return [0, firstLayer.at(-1).end_s];
  }
  if (view === 'tail') {
    // From the backward pass of layer 1 (the head and embedding kernels have layer −1).
    const lastBackward = ks.filter((k) => k.phase === 'backward' && k.layer >= 0 && k.layer <= 1);
    return [lastBackward[0].start_s, r.step_time_s];
  }
  return [0, r.step_time_s];
}

export default {
  id: 'step-timeline',
  title: 'A profiler trace of one training step',
  simulation: true, // schedules a synthetic trace of every kernel on three streams: redraw budget 50 ms
  caption:
    'One data-parallel training step of a GPT-3-shaped model (its layers, output head and loss) on an H100 (16 ranks, 50 GB/s all-reduce), drawn like a profiler trace: the CPU launching kernels, the compute stream and the communication stream; white space on a stream is idle time. View “first layer’s forward” and turn on CUDA graphs to see the launch gaps close, then fusion to see the runs of tiny elementwise kernels merge; view “end of the step” and turn off overlap to see the all-reduce become exposed.',
  params: [
    { key: 'stack', label: 'Model', type: 'select', default: '350m',
      options: Object.entries(STACKS).map(([value, s]) => ({ value, label: s.label })) },
    { key: 'view', label: 'View', type: 'select', default: 'layer',
      options: [{ value: 'layer', label: 'first layer’s forward' }, { value: 'tail', label: 'end of the step' }, { value: 'step', label: 'whole step' }] },
    { key: 'micro_batch', label: 'Batch: sequences per GPU (T = 2048)', type: 'select', default: 1,
      options: [1, 2, 4, 8, 16].map((v) => ({ value: v, label: String(v) })) },
    { key: 'launch_us', label: 'CPU cost per kernel launch', type: 'number', unit: 'µs', min: 1, max: 50, default: 20 },
    { key: 'fusion', label: 'Fuse elementwise ops (torch.compile)', type: 'boolean', default: false },
    { key: 'overlap', label: 'Overlap all-reduce with backward', type: 'boolean', default: true },
    { key: 'cuda_graphs', label: 'CUDA graphs', type: 'boolean', default: false },
  ],

  data(engine, p) {
    const s = STACKS[p.stack];
    const r = engine.calc('step-profile', {
      layers: s.layers, hidden: s.hidden, heads: s.heads, vocab: VOCAB, micro_batch: Number(p.micro_batch), hardware: 'h100-sxm',
      launch_s: p.launch_us * 1e-6, fusion: p.fusion, overlap: p.overlap, cuda_graphs: p.cuda_graphs,
    });
    const [t0, t1] = windowOf(p.view, r);
    const visible = r.kernels
      .filter((k) => k.end_s >= t0 && k.start_s <= t1)
      .map((k) => ({ stream: k.stream, name: k.name, kind: k.kind, start: Math.max(k.start_s, t0), end: Math.min(k.end_s, t1) }));
    const table = {
      columns: ['Quantity', 'Value', 'Unit'],
      rows: [
        ['Shown window start', t0, 's'],
        ['Shown window end', t1, 's'],
        ['Step time', r.step_time_s, 's'],
        ['Compute kernels', r.compute_kernels, ''],
        ['Compute stream busy', 100 * r.busy_fraction.compute, '%'],
        ['Comm stream busy', 100 * r.busy_fraction.comm, '%'],
        ['Matmul and attention time', r.matmul_time_s, 's'],
        ['Memory-bound kernel time', r.memory_bound_time_s, 's'],
        ['Launch gaps (compute idle, waiting for the CPU)', r.launch_gap_s, 's'],
        ['Exposed communication', r.exposed_comm_s, 's'],
        ['MFU', 100 * r.mfu, '%'],
      ],
    };
    return { view: p.view, window: [t0, t1], kernels: visible, step: r, table };
  },

  draw(data, theme) {
    // Matmuls in the compute colour, memory-bound elementwise kernels in the memory colour; the
    // all-reduce in green, far in hue from the matmuls' orange (palette order: c1, c2, c3).
    const pick = colours(theme);
    const fills = { matmul: pick('compute'), elementwise: pick('memory'), launch: pick('muted') };
    fills.attention = pick();
    fills.allreduce = pick();
    fills.optimizer = pick();
    const ms = 1e3;
    const datasets = KINDS.map(([kind, label]) => series(fills[kind], {
      label,
      data: data.kernels.filter((k) => k.kind === kind).map((k) => ({ x: [k.start * ms, k.end * ms], y: ROWS[k.stream], name: k.name })),
      borderWidth: 0, grouped: false, barPercentage: 0.8, categoryPercentage: 0.9, minBarLength: 1,
    })).filter((d) => d.data.length > 0);
    const r = data.step;
    const pct = (x) => `${(100 * x).toFixed(1)}%`;
    // The step's summary under the axis: one line beside the axis name on a wide figure, short
    // lines on a phone (a single long title would be squeezed into illegibility).
    const facts = [`step ${formatSI(r.step_time_s, 's')}, MFU ${pct(r.mfu)}`,
      `launch gaps ${formatSI(r.launch_gap_s, 's')}, exposed comm ${formatSI(r.exposed_comm_s, 's')}`];
    const title = (theme.width ?? 1000) < 600 ? ['Time (ms)', ...facts] : `Time (ms): ${facts.join('; ')}`;
    return chart(theme, {
      type: 'bar', indexAxis: 'y', labels: Object.values(ROWS), datasets,
      scales: {
        x: linear(title, { range: [data.window[0] * ms, data.window[1] * ms] }),
        y: category(),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${ctx.raw.name}: ${formatSI((ctx.raw.x[1] - ctx.raw.x[0]) / ms, 's')}`,
    });
  },
};
