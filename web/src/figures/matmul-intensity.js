// Arithmetic intensity of C[m,n] = A[m,k]·B[k,n] against n, per dtype, with each dtype's
// ridge point on the chosen accelerator: I = 2/(s(1/m + 1/n + 1/k)). Intensities come from
// calc('matmul'), ridge points from calc('roofline').
import { formatSI } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';

const DTYPES = ['fp32', 'bf16', 'fp8-e4m3'];
const STYLES = ['circle', 'triangle', 'rect']; // one point style per dtype (not colour alone)
const N_MAX = 65536;
// n from 1 to 65536, four points per octave, as distinct integers.
const NS = [...new Set(Array.from({ length: 65 }, (_, i) => Math.round(2 ** (i / 4))))];

export default {
  id: 'matmul-intensity',
  title: 'Matmul intensity against size',
  caption:
    'Arithmetic intensity of an m×k · k×n matmul as n grows, for three dtypes, with each dtype’s ridge point on the chosen chip as a dashed line; a cross marks where a line first clears its ridge. Keep the square shape and compare the crossings of bf16 and fp8; then choose “fixed m” and watch each line flatten at 2m/s.',
  params: [
    { key: 'shape', label: 'Shape', type: 'select', default: 'square',
      options: [{ value: 'square', label: 'Square (m = n = k)' }, { value: 'weight', label: 'Fixed m, k = n (weight matmul)' }] },
    { key: 'm', label: 'Rows m (fixed-m shape)', type: 'integer', min: 1, max: N_MAX, default: 16, scale: 'log' },
    { key: 'hardware', label: 'Accelerator', from: ['roofline', 'hardware'] },
  ],

  data(engine, p) {
    const dims = (n) => (p.shape === 'square' ? { m: n, n, k: n } : { m: p.m, n, k: n });
    const intensity = (n, dtype) => engine.calc('matmul', { ...dims(n), dtype }).intensity;

    const series = DTYPES.map((dtype) => {
      const points = NS.map((n) => ({ x: n, y: intensity(n, dtype) }));
      // The chip's ridge for this dtype; a chip without that format has no ridge to draw.
      let ridge = null;
      try {
        ridge = engine.calc('roofline', { hardware: p.hardware, dtype, flops: 1, bytes: 1 }).ridge_intensity;
      } catch (e) {
        if (e?.field !== 'dtype') throw e;
      }
      // Smallest integer n whose intensity reaches the ridge: intensity grows with n, so
      // bracket it between two samples and bisect there.
      let crossing = null;
      const first = ridge === null ? -1 : points.findIndex((q) => q.y >= ridge);
      if (first >= 0) {
        let lo = first === 0 ? 1 : NS[first - 1] + 1, hi = NS[first];
        while (lo < hi) {
          const mid = Math.floor((lo + hi) / 2);
          if (intensity(mid, dtype) >= ridge) hi = mid;
          else lo = mid + 1;
        }
        crossing = { n: lo, intensity: intensity(lo, dtype) };
      }
      return { dtype, points, ridge, crossing };
    });

    // The y axis spans the square shape's intensities (n = 1 to N_MAX), which bound every
    // shape's, and the ridges: fixed across shape and m, so the fixed-m lines are seen to flatten.
    const square = (n, dtype) => engine.calc('matmul', { m: n, n, k: n, dtype }).intensity;
    const ends = DTYPES.flatMap((d) => [square(1, d), square(N_MAX, d)]);
    const yRange = span([...ends, ...series.map((s) => s.ridge).filter((r) => r !== null)], { log: true, pad: 1.5 });

    const table = {
      columns: ['n', 'm', 'k', ...DTYPES.map((d) => `Intensity ${d} (FLOP/B)`)],
      rows: NS.map((n, i) => {
        const d = dims(n);
        return [n, d.m, d.k, ...series.map((s) => s.points[i].y)];
      }),
    };
    return { shape: p.shape, m: p.m, hardware: p.hardware, series, yRange, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const datasets = [];
    data.series.forEach((s, i) => {
      const colour = pick();
      const group = s.dtype; // a dtype's line and its ridge share the colour
      datasets.push(series(colour, { label: `${s.dtype} intensity`, data: s.points, showLine: true, borderWidth: 2,
        pointStyle: STYLES[i], pointRadius: 2.5, group }));
      datasets.push(s.ridge === null
        ? series(colour, { label: `${s.dtype}: no peak on this chip`, data: [], pointStyle: 'line', borderDash: [6, 4], group })
        : line(colour, { label: `${s.dtype} ridge (${formatSI(s.ridge, 'FLOP/B')})`, data: [{ x: 1, y: s.ridge }, { x: N_MAX, y: s.ridge }],
          borderDash: [6, 4], borderWidth: 1.5, group }));
    });
    const crossings = data.series.filter((s) => s.crossing)
      .map((s) => ({ x: s.crossing.n, y: s.crossing.intensity, dtype: s.dtype }));
    datasets.push(series(pick('text'), { label: crossings.length ? 'Clears its ridge' : 'No line clears its ridge', data: crossings,
      pointStyle: 'crossRot', pointRadius: 9, borderWidth: 3 }));

    const xTitle = data.shape === 'square' ? 'Matrix size n = m = k (elements)' : `Matrix size n = k (elements; m = ${data.m})`;
    return chart(theme, {
      datasets,
      scales: { x: log(xTitle, { unit: '', range: [1, N_MAX] }), y: log('Arithmetic intensity (FLOP/B)', { unit: '', range: data.yRange }) },
      tooltip: (ctx) => (ctx.raw.dtype
        ? `${ctx.raw.dtype} reaches its ridge at n = ${ctx.raw.x} (${formatSI(ctx.raw.y, 'FLOP/B')})`
        : `${ctx.dataset.label}: n = ${ctx.raw.x}, ${formatSI(ctx.raw.y, 'FLOP/B')}`),
    });
  },
};
