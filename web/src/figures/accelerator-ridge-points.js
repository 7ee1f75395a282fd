// The datasheets of eight accelerators on one chart: dense peak FLOP/s against HBM bandwidth,
// both log, so every chip's ridge point (peak / bandwidth) is its distance above the diagonal
// line of a kernel's intensity. Chips above the line are memory-bound for that kernel, chips
// below it compute-bound. Peaks, bandwidths and ridge points from calc('accelerator-compare');
// capacity, power and its source from calc('hardware').
import { formatSI, formatFixed } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';

export const CHIPS = ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x', 'tpu-v4', 'tpu-v5e', 'tpu-v5p'];
export const SHORT = { 'a100-sxm-80gb': 'A100', 'h100-sxm': 'H100', 'h200-sxm': 'H200', b200: 'B200', mi300x: 'MI300X',
  'tpu-v4': 'TPU v4', 'tpu-v5e': 'TPU v5e', 'tpu-v5p': 'TPU v5p' };
export const X_RANGE = [5e11, 1.5e13];  // HBM bytes/s
export const Y_RANGE = [1e14, 1e16];    // FLOP/s
const DTYPES = ['bf16', 'fp8-e4m3', 'int8'];

export default {
  id: 'accelerator-ridge-points',
  title: 'Eight datasheets, eight ridge points',
  caption:
    'Each chip sits at its dense peak (up) and its HBM bandwidth (right); its ridge point, peak ÷ bandwidth, is printed beside it. The dashed line holds every chip whose ridge equals the kernel intensity you set: chips above it are memory-bound for that kernel, chips below it compute-bound. At the default 200 FLOP/B the A100 and TPU v5p are already compute-bound while the H100 and B200, with more FLOP/s per byte of bandwidth, still wait on memory. Slide the intensity down to a decode step (under 10 FLOP/B) and every chip turns memory-bound; switch to fp8 and the GPUs move up, their ridge points doubling (the TPU v5p runs fp8 at its bf16 rate and stays put), while the A100 and the TPUs v4 and v5e, which have no fp8 rate, drop out.',
  params: [
    { key: 'dtype', label: 'Data type', type: 'select', default: 'bf16', options: DTYPES.map((d) => ({ value: d, label: d })) },
    { key: 'intensity', label: 'Kernel intensity', type: 'number', unit: 'FLOP/B', min: 1, max: 3000, default: 200, scale: 'log' },
  ],

  data(engine, p) {
    const cmp = engine.calc('accelerator-compare', { workload: 'decode-step', dtype: p.dtype, ids: CHIPS });
    const sheet = new Map(engine.calc('hardware', {}).accelerators.map((a) => [a.id, a]));
    const I = Number(p.intensity);
    const chips = cmp.rows.map((r) => {
      const h = sheet.get(r.id);
      return { id: r.id, short: SHORT[r.id], name: r.name, peak: r.peak_flops, bandwidth: r.bandwidth_Bps, ridge: r.ridge_intensity,
        hbm: h.hbm_bytes, power: h.power_w, power_source: h.power_source, scaleup: h.scaleup_bandwidth_Bps,
        bound: r.ridge_intensity > I ? 'memory' : 'compute' };
    });
    const excluded = cmp.excluded.map((x) => SHORT[x.id]);
    const diagonal = X_RANGE.map((x) => ({ x, y: I * x }));
    const table = {
      columns: ['Accelerator', `Dense ${p.dtype} peak (FLOP/s)`, 'HBM bandwidth (B/s)', 'Ridge point (FLOP/B)', `Bound at ${I} FLOP/B`,
        'HBM capacity (B)', 'Scale-up bandwidth, both directions (B/s)', 'Power for per-watt numbers (W)', 'Power figure'],
      rows: chips.map((c) => [c.name, c.peak, c.bandwidth, c.ridge, c.bound, c.hbm, c.scaleup ?? '—', c.power ?? '—', c.power_source]),
    };
    return { dtype: p.dtype, intensity: I, chips, excluded, diagonal, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const [memory, compute, muted] = [pick('memory'), pick('compute'), pick('muted')];
    const pts = (bound) => data.chips.filter((c) => c.bound === bound)
      .map((c) => ({ x: c.bandwidth, y: c.peak, label: `${c.short}: ${formatFixed(c.ridge, 0)} FLOP/B`, c }));
    const left = data.excluded.length ? ` (no ${data.dtype} rate: ${data.excluded.join(', ')})` : '';
    return chart(theme, {
      datasets: [
        line(muted, { label: `Ridge = ${formatFixed(data.intensity, 0)} FLOP/B: the kernel's intensity`, data: data.diagonal, borderDash: [6, 4] }),
        series(memory, { label: `Memory-bound for this kernel (ridge above ${formatFixed(data.intensity, 0)})`, data: pts('memory'),
          pointStyle: 'circle', pointRadius: 7, pointLabels: true, group: 'memory' }),
        series(compute, { label: `Compute-bound for this kernel${left}`, data: pts('compute'), pointStyle: 'rectRot', pointRadius: 8,
          pointLabels: true, group: 'compute' }),
      ],
      scales: {
        x: log('HBM bandwidth (B/s, log)', { unit: 'B/s', range: X_RANGE }),
        y: log(`Dense ${data.dtype} peak (FLOP/s, log)`, { unit: 'FLOP/s', range: Y_RANGE }),
      },
      tooltip: (ctx) => (ctx.raw.c
        ? `${ctx.raw.c.name}: ${formatSI(ctx.raw.c.peak, 'FLOP/s')}, ${formatSI(ctx.raw.c.bandwidth, 'B/s')}, ridge ${formatFixed(ctx.raw.c.ridge, 1)} FLOP/B`
        : ctx.dataset.label),
    });
  },
};
