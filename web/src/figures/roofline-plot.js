// Roofline of one accelerator and dtype: attainable FLOP/s = min(peak, intensity x bandwidth)
// on log-log axes, with standard kernels and a reader-movable custom kernel placed on it.
// Every number comes from the engine's `roofline` and `matmul` calculators. One rule for
// which roof an op sits under, the same as the transformer-ops figure and calculator: matmuls
// under the dtype's tensor-core (matrix) peak, elementwise ops and reductions under the fp32
// CUDA-core (vector) peak, where the table has one; both flat roofs are drawn.
import { formatSI } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';
import { roofNames, mergeCloseLabels } from './shared/compute-roofs.js';

const DTYPES = ['fp32', 'tf32', 'bf16', 'fp16', 'fp8-e4m3', 'int8'];
const N = 2 ** 26; // elements of the elementwise kernels
// Elementwise kernels: FLOPs per element and elements moved (read + written) per element.
const ELEMENTWISE = [
  { name: 'Vector add (2^26 elements)', flopsPer: 1, elemsPer: 3 },
  { name: 'Softmax (2^26 elements)', flopsPer: 5, elemsPer: 2 },
  { name: 'Layer norm (2^26 elements)', flopsPer: 8, elemsPer: 2 },
];
// Matmuls C[m,n] = A[m,k] B[k,n]; FLOPs and compulsory bytes from calc('matmul').
const MATMULS = [
  { name: 'Decode GEMV (1 × 8192 · 8192 × 8192)', m: 1, n: 8192, k: 8192 },
  { name: 'Batched GEMM (256 × 8192 · 8192 × 8192)', m: 256, n: 8192, k: 8192 },
  { name: 'Square GEMM (8192³)', m: 8192, n: 8192, k: 8192 },
];

export default {
  id: 'roofline-plot',
  title: 'The roofline of one accelerator',
  caption:
    'Attainable FLOP/s against arithmetic intensity: the slanted memory roof meets a flat compute roof at a ridge point, and each kernel sits on one of them. On the GPUs there are two flat roofs: matmuls (and the custom kernel) run on the tensor cores, elementwise ops and reductions on the CUDA cores’ fp32 vector peak, far lower; for the TPUs the table gives only the matrix unit’s rate, so every op sits under that one roof, which their vector unit may not reach. Switch to fp32 and watch the tensor-core roof drop onto the vector one while the slanted roof stays; then move the custom kernel across the ridge with its two controls.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['roofline', 'hardware'] },
    { key: 'dtype', label: 'Data type', from: ['roofline', 'dtype'], options: DTYPES },
    { key: 'flops', label: 'Custom kernel work', type: 'number', unit: 'FLOP', min: 1e3, max: 1e18, default: 1e12, scale: 'log' },
    { key: 'bytes', label: 'Custom kernel traffic', type: 'number', unit: 'B', min: 1e3, max: 1e15, default: 1e10, scale: 'log' },
  ],

  data(engine, p) {
    const { hardware, dtype } = p;
    const roof = (flops, bytes) => engine.calc('roofline', { hardware, dtype, flops, bytes });
    const size = engine.calc('matmul', { m: 1, n: 1, k: 1, dtype }).bytes / 3; // bytes per element

    // The kernels, each placed with the roofline calculator.
    // The vector roof: the fp32 CUDA-core peak, never above the dtype's own (as transformer-ops).
    const peakOf = (d) => {
      try {
        return 1e12 / engine.calc('roofline', { hardware, dtype: d, flops: 1e12, bytes: 1 }).compute_time_s;
      } catch (e) {
        if (e?.field !== 'dtype') throw e;
        return 0; // the chip has no rate for this format
      }
    };
    const tensorPeak = 1e12 / roof(1e12, 1).compute_time_s; // throws on a format the chip lacks
    const names = roofNames(engine.calc('hardware', { id: hardware }).vendor); // after the hardware is checked
    const vectorPeak = peakOf('fp32') > 0 ? Math.min(peakOf('fp32'), tensorPeak) : tensorPeak;
    const specs = [
      ...ELEMENTWISE.map((e) => ({ name: e.name, flops: e.flopsPer * N, bytes: e.elemsPer * N * size, vector: true })),
      ...MATMULS.map((mm) => {
        const r = engine.calc('matmul', { m: mm.m, n: mm.n, k: mm.k, dtype });
        return { name: mm.name, flops: r.flops, bytes: r.bytes };
      }),
      { name: 'Custom kernel', flops: p.flops, bytes: p.bytes, custom: true },
    ];
    const kernels = specs.map((s) => {
      const r = s.vector
        ? engine.calc('roofline', { hardware, dtype, flops: s.flops, bytes: s.bytes, peak_flops: vectorPeak })
        : roof(s.flops, s.bytes);
      return { ...s, intensity: r.intensity, attainable: r.attainable_flops, time: r.time_s, bound: r.bound,
        noOverlap: r.time_no_overlap_s, unit: s.vector ? names.vectorUnits : names.matrixUnits };
    });

    // The roof: attainable FLOP/s from 0.01 to 10^4 FLOP/B (widened to hold every kernel).
    // Both parts are straight lines on log-log axes, so their ends and the ridge suffice.
    const ridge = roof(1, 1).ridge_intensity;
    const bandwidth = 1e9 / roof(1, 1e9).memory_time_s; // B = bytes / memory time
    const peak = 1e12 / roof(1e12, 1).compute_time_s; // P = FLOPs / compute time
    const lo = Math.min(1e-2, ...kernels.map((k) => k.intensity / 2));
    const hi = Math.max(1e4, ...kernels.map((k) => k.intensity * 2));
    const point = (x) => ({ x, y: roof(x * 1e9, 1e9).attainable_flops });
    const memoryRoof = [lo, ridge].map(point);
    const computeRoof = [ridge, hi].map(point);
    const vectorRidge = vectorPeak / bandwidth;
    const vectorRoof = vectorPeak < peak ? [{ x: vectorRidge, y: vectorPeak }, { x: hi, y: vectorPeak }] : null;

    // The y axis reaches above the chip's highest peak of any dtype, fixed across dtypes, so
    // switching to fp32 shows the flat roof drop instead of the axis rescaling under it.
    const yMax = 2 * Math.max(peak, ...DTYPES.map(peakOf));

    const table = {
      columns: ['Kernel', 'Runs on', 'Work (FLOP)', 'Traffic (B)', 'Intensity (FLOP/B)', 'Attainable (FLOP/s)',
        'Time, full overlap: max(F/P, Q/B) (s)', 'Time, no overlap: F/P + Q/B (s)', 'Bound'],
      rows: kernels.map((k) => [k.name, k.unit, k.flops, k.bytes, k.intensity, k.attainable, k.time, k.noOverlap, k.bound]),
    };
    return { hardware, dtype, size, names, ridge, peak, vectorPeak, vectorRidge, vectorRoof, bandwidth, memoryRoof, computeRoof, kernels,
      range: [lo, hi], yMax, table };
  },

  draw(data, theme) {
    // Labels of kernels whose markers coincide (the decode GEMV and the softmax) are merged.
    const labelled = mergeCloseLabels(data.kernels.map((k) => ({ x: k.intensity, y: k.attainable, name: k.name, k, label: k.name.split(' (')[0] })));
    const pts = (pred) => labelled.filter((q) => pred(q.k));
    const custom = data.kernels.find((k) => k.custom);
    const bottom = data.memoryRoof[0].y;
    const pick = colours(theme);
    const [memory, compute, muted] = [pick('memory'), pick('compute'), pick('muted')];
    // A kernel's colour is its roof's: memory- or compute-bound (group names that meaning).
    const dots = { pointLabels: true };
    const datasets = [
      line(memory, { label: `Memory roof: ${formatSI(data.bandwidth, 'B/s')} × intensity`, data: data.memoryRoof, group: 'memory' }),
      // Where the dtype's peak is the vector peak itself (fp32 on NVIDIA), one roof serves every op.
      line(compute, { label: data.vectorRoof ? `${data.names.matrix} roof: ${formatSI(data.peak, 'FLOP/s')} (${data.dtype}), for matmuls`
        : data.dtype === 'fp32' ? `Compute roof: ${formatSI(data.peak, 'FLOP/s')} (fp32), for every op (vector units)`
          : `${data.names.matrix} roof: ${formatSI(data.peak, 'FLOP/s')} (${data.dtype}), for every op (no separate vector rate in the table)`,
        data: data.computeRoof, group: 'compute' }),
      ...(data.vectorRoof ? [line(pick(), { label: `${data.names.vector} roof: ${formatSI(data.vectorPeak, 'FLOP/s')}, elementwise`,
        data: data.vectorRoof, borderDash: [8, 4] })] : []),
      line(muted, { label: data.vectorRoof ? `Ridge point: ${formatSI(data.ridge, 'FLOP/B')} (vector roof: ${formatSI(data.vectorRidge, 'FLOP/B')})` : `Ridge point: ${formatSI(data.ridge, 'FLOP/B')}`, data: [{ x: data.ridge, y: bottom }, { x: data.ridge, y: data.peak }], borderDash: [4, 4] }),
      series(memory, { ...dots, label: 'Memory-bound kernels', data: pts((k) => !k.custom && k.bound === 'memory'), pointStyle: 'circle', pointRadius: 6, group: 'memory' }),
      series(compute, { ...dots, label: 'Compute-bound kernels', data: pts((k) => !k.custom && k.bound === 'compute'), pointStyle: 'rectRot', pointRadius: 7, group: 'compute' }),
      series(theme[custom.bound], { ...dots, label: `Custom kernel (${custom.bound}-bound)`, data: pts((k) => k.custom), pointStyle: 'star', pointRadius: 11,
        borderWidth: 3, group: custom.bound }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Arithmetic intensity (FLOP/B)', { unit: '', range: data.range }),
        y: log('Attainable performance (FLOP/s)', { unit: 'FLOP/s', max: data.yMax }),
      },
      tooltip: (ctx) => {
        const k = ctx.raw.k;
        if (!k) return `${ctx.dataset.label}: ${formatSI(ctx.raw.y, 'FLOP/s')} at ${formatSI(ctx.raw.x, 'FLOP/B')}`;
        return `${k.name} (${k.unit}): ${formatSI(k.intensity, 'FLOP/B')}, ${formatSI(k.attainable, 'FLOP/s')}, ` +
          `${formatSI(k.time, 's')} to ${formatSI(k.noOverlap, 's')} (full to no overlap), ${k.bound}-bound`;
      },
    });
  },
};
