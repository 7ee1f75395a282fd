// One workload of a published model (a training step, a prefill, a decode step) timed on eight
// accelerators by the roofline: for each chip its compute time (FLOPs / peak) and memory time
// (bytes / bandwidth), the larger being the step's time; chips whose HBM cannot hold the step
// are marked. One calc('accelerator-compare').
import { formatSI, formatFixed } from '../runtime/format.js';
import { chart, log, category, colours, series } from './shared/chart-config.js';
import { modelOptions } from './shared/published-models.js';
import { CHIPS, SHORT } from './accelerator-ridge-points.js';

export const MODELS = ['llama-2-7b', 'llama-3-8b', 'mistral-7b', 'llama-2-13b', 'llama-2-70b', 'llama-3-70b'];
const WORKLOADS = [
  { value: 'training-step', label: 'Training step (forward, backward, Adam)' },
  { value: 'prefill', label: 'Prefill (a prompt of seq tokens)' },
  { value: 'decode-step', label: 'Decode step (one token per sequence)' },
];
const ms = (s) => (s >= 1 ? `${formatFixed(s, 2)} s` : s >= 1e-3 ? `${formatFixed(s * 1e3, s >= 0.1 ? 0 : 2)} ms` : `${formatFixed(s * 1e6, 0)} µs`);

export default {
  id: 'accelerator-workload-time',
  title: 'The same step on eight accelerators',
  caption:
    'Two bars per chip: the time its arithmetic needs at the dense peak, and the time its HBM needs to move the step’s bytes. The roofline time is the taller of the two, printed under the chip with its bound. The default decode step of Llama 3 8B (8 sequences, 4,096 tokens cached) does about 7 FLOP per byte, far left of every ridge point, so the memory bars win everywhere and the order is the order of bandwidth: B200, MI300X, H200, H100, TPU v5p, A100, TPU v4, while the TPU v5e cannot hold the weights and cache in its 16 GB. Switch to a prefill or a training step and the compute bars take over: the order becomes that of peak FLOP/s. Raise the batch of the decode step and watch the compute bars catch up; pick a 70B model and see which chips can no longer hold it, then add chips.',
  params: [
    { key: 'workload', label: 'Workload', type: 'select', default: 'decode-step', options: WORKLOADS },
    { key: 'model', label: 'Model', type: 'select', default: 'llama-3-8b', options: modelOptions(MODELS) },
    { key: 'batch', label: 'Sequences (batch)', from: ['accelerator-compare', 'batch'], min: 1, max: 1024, default: 8, scale: 'log' },
    { key: 'seq', label: 'Tokens per sequence (trained, prompt or cached)', from: ['accelerator-compare', 'seq'], min: 128, max: 32768, default: 4096, scale: 'log' },
    { key: 'dtype', label: 'Data type', type: 'select', default: 'bf16', options: ['bf16', 'fp8-e4m3', 'int8'].map((d) => ({ value: d, label: d })) },
    { key: 'chips', label: 'Chips of each kind', from: ['accelerator-compare', 'chips'], min: 1, max: 64, default: 1, scale: 'log' },
  ],

  data(engine, p) {
    const r = engine.calc('accelerator-compare', { workload: p.workload, model: p.model, batch: p.batch, seq: p.seq,
      dtype: p.dtype, chips: p.chips, ids: CHIPS });
    const chips = r.rows.map((x) => ({ ...x, short: SHORT[x.id] }));
    const times = chips.flatMap((c) => [c.compute_time_s, c.memory_time_s]);
    const range = [10 ** Math.floor(Math.log10(Math.min(...times))), 10 ** Math.ceil(Math.log10(Math.max(...times)) + 0.2)];
    const table = {
      columns: ['Accelerator', 'Peak (FLOP/s)', 'HBM (B/s)', 'Ridge (FLOP/B)', 'Compute time (s)', 'Memory time (s)', 'Roofline time (s)',
        'Bound', 'Tokens/s', 'Memory per chip (B)', 'HBM per chip (B)', 'Fits'],
      rows: chips.map((c) => [c.name, c.peak_flops, c.bandwidth_Bps, c.ridge_intensity, c.compute_time_s, c.memory_time_s, c.time_s,
        c.bound, c.tokens_per_s, c.memory_per_chip_bytes, c.hbm_bytes, c.fits ? 'yes' : 'no']),
    };
    return { workload: p.workload, model: p.model, dtype: p.dtype, intensity: r.intensity, flops: r.flops, bytes: r.bytes,
      chipsPer: r.chips, chips, excluded: r.excluded.map((x) => SHORT[x.id]), range, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const [compute, memory] = [pick('compute'), pick('memory')];
    const labels = data.chips.map((c) => [c.short, c.fits ? `${c.bound}-bound, ${ms(c.time_s)}`
      : `does not fit: ${formatSI(c.memory_per_chip_bytes, 'B')} > ${formatSI(c.hbm_bytes, 'B')}`]);
    const left = data.excluded.length ? `; no ${data.dtype} rate: ${data.excluded.join(', ')}` : '';
    return chart(theme, {
      type: 'bar', labels,
      datasets: [
        series(compute, { label: 'Compute time: FLOPs / dense peak', data: data.chips.map((c) => c.compute_time_s) }),
        series(memory, { label: 'Memory time: bytes / HBM bandwidth', data: data.chips.map((c) => c.memory_time_s) }),
      ],
      scales: {
        x: category({ title: `Accelerator (${formatSI(data.intensity)} FLOP/B for this step, ${data.chipsPer} chip${data.chipsPer === 1 ? '' : 's'} each${left})` }),
        y: log('Time of the step (s, log)', { unit: 's', range: data.range }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${data.chips[ctx.dataIndex].name}: ${ctx.dataset.label.split(':')[0]} ${ms(ctx.raw)}`,
    });
  },
};
