// One workload of a published model (a training step, a prefill, a decode step) timed on eight
// accelerators by the roofline: for each chip its compute time (FLOPs / peak) and memory time
// (bytes / bandwidth), the larger being the step's time; chips whose HBM cannot hold the step
// are marked (hollow bars, the label says by how much). Training has its own chip count, 8 by
// default, so that the step fits on most chips; prefill and decode start on one chip. For a
// decode step the axis also gives the ceiling its intensity approaches as the batch grows,
// which the KV cache sets. One calc('accelerator-compare').
import { formatSI, formatFixed, formatDecimal } from '../runtime/format.js';
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
    'Two bars per chip: the time its arithmetic needs at the dense peak, and the time its HBM needs to move the step’s bytes. The roofline time is the taller of the two, printed under the chip with its bound; hollow bars mark a chip that cannot hold the step. The default decode step of Llama 3 8B (8 sequences, 4,096 tokens cached) does about 7 FLOP per byte, far left of every ridge point, so the memory bars win everywhere and the order is that of bandwidth: B200, MI300X, H200, H100, TPU v5p, A100, TPU v4, while the TPU v5e cannot hold the weights and cache in its 16 GiB (17.2 GB). Raise the batch: the intensity climbs only towards the ceiling on the axis, about 32 FLOP/B, because every sequence adds its own KV cache, and the compute bars never catch up; fewer tokens per sequence lift the ceiling. Switch to a prefill (one chip) or a training step (8 chips of each kind) and the compute bars take over, in the order of peak FLOP/s. Pick a 70B model to see which chips can no longer hold it, then add chips.',
  params: [
    { key: 'workload', label: 'Workload', type: 'select', default: 'decode-step', options: WORKLOADS },
    { key: 'model', label: 'Model', type: 'select', default: 'llama-3-8b', options: modelOptions(MODELS) },
    { key: 'batch', label: 'Sequences (batch)', from: ['accelerator-compare', 'batch'], min: 1, max: 1024, default: 8, scale: 'log' },
    { key: 'seq', label: 'Tokens per sequence (trained, prompt or cached)', from: ['accelerator-compare', 'seq'], min: 128, max: 32768, default: 4096, scale: 'log' },
    { key: 'dtype', label: 'Data type', type: 'select', default: 'bf16', options: ['bf16', 'fp8-e4m3', 'int8'].map((d) => ({ value: d, label: d })) },
    { key: 'chips', label: 'Chips of each kind', from: ['accelerator-compare', 'chips'], min: 1, max: 64, default: 1, scale: 'log',
      when: { workload: ['prefill', 'decode-step'] } },
    { key: 'train_chips', label: 'Chips of each kind (training)', from: ['accelerator-compare', 'chips'], min: 1, max: 64, default: 8,
      scale: 'log', when: { workload: ['training-step'] } },
  ],

  data(engine, p) {
    const chipsPer = p.workload === 'training-step' ? p.train_chips : p.chips;
    const r = engine.calc('accelerator-compare', { workload: p.workload, model: p.model, batch: p.batch, seq: p.seq,
      dtype: p.dtype, chips: chipsPer, ids: CHIPS });
    const chips = r.rows.map((x) => ({ ...x, short: SHORT[x.id] }));
    const times = chips.flatMap((c) => [c.compute_time_s, c.memory_time_s]);
    // Whole decades, the top one clear of the tallest bar.
    const range = [10 ** Math.floor(Math.log10(Math.min(...times))), 10 ** Math.ceil(Math.log10(Math.max(...times) * 1.3))];
    const table = {
      columns: ['Accelerator', 'Peak (FLOP/s)', 'HBM (B/s)', 'Ridge (FLOP/B)', 'Compute time (s)', 'Memory time (s)', 'Roofline time (s)',
        'Bound', 'Tokens/s', 'Memory per chip (B)', 'HBM per chip (B)', 'Fits', 'Compute-bound from batch'],
      rows: chips.map((c) => [c.name, c.peak_flops, c.bandwidth_Bps, c.ridge_intensity, c.compute_time_s, c.memory_time_s, c.time_s,
        c.bound, c.tokens_per_s, c.memory_per_chip_bytes, c.hbm_bytes, c.fits ? 'yes' : 'no', c.compute_bound_batch ?? 'never']),
    };
    return { workload: p.workload, model: p.model, dtype: p.dtype, seq: p.seq, intensity: r.intensity, limit: r.intensity_limit,
      flops: r.flops, bytes: r.bytes, chipsPer: r.chips, chips, excluded: r.excluded.map((x) => SHORT[x.id]), range, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const [compute, memory] = [pick('compute'), pick('memory')];
    const labels = data.chips.map((c) => [c.short, c.fits ? `${c.bound}-bound, ${ms(c.time_s)}`
      : `does not fit: ${formatSI(c.memory_per_chip_bytes, 'B')} > ${formatSI(c.hbm_bytes, 'B')}`]);
    const left = data.excluded.length ? `; no ${data.dtype} rate: ${data.excluded.join(', ')}` : '';
    // A decode step's intensity climbs with the batch only towards the limit its KV cache sets.
    const ceiling = data.workload === 'decode-step' ? `, at most ${formatFixed(data.limit, 1)} at any batch with ${formatDecimal(data.seq)} cached` : '';
    // Chips that cannot hold the step: hollow bars of the same colours (outline only), still to
    // scale, as their own datasets so that the legend names them; skipNull keeps two bars a chip.
    const misfits = data.chips.some((c) => !c.fits);
    const bars = (fits, colour, label, field) => series(colour, {
      label, borderWidth: 2, skipNull: true, ...(fits ? {} : { backgroundColor: theme.background }),
      data: data.chips.map((c) => (c.fits === fits ? c[field] : null)),
    });
    return chart(theme, {
      type: 'bar', labels,
      datasets: [
        bars(true, compute, 'Compute time: FLOPs / dense peak', 'compute_time_s'),
        bars(true, memory, 'Memory time: bytes / HBM bandwidth', 'memory_time_s'),
        ...(misfits ? [bars(false, compute, 'Compute time, does not fit in HBM', 'compute_time_s'),
          bars(false, memory, 'Memory time, does not fit in HBM', 'memory_time_s')] : []),
      ],
      scales: {
        x: category({ title: `Accelerator (${formatSI(data.intensity)} FLOP/B for this step${ceiling}, ${data.chipsPer} chip${data.chipsPer === 1 ? '' : 's'} each${left})` }),
        y: log('Time of the step (s, log)', { unit: 's', range: data.range }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${data.chips[ctx.dataIndex].name}: ${ctx.dataset.label.split(':')[0]} ${ms(ctx.raw)}`,
    });
  },
};
