// One weight matmul [b × d]·[d × d_out] fed b tokens: roofline time per token and achieved
// FLOP/s against b, and the crossover batch where it turns compute-bound. All numbers from
// calc('matmul', {m: b, k: d, n: d_out, dtype, hardware}) and calc('roofline').
import { formatSI } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';

const B_MAX = 4096;
// About 60 log-spaced integer batch sizes from 1 to 4096.
const BS = [...new Set(Array.from({ length: 76 }, (_, i) => Math.round(B_MAX ** (i / 75))))];
// The matmul calculator's field names -> this figure's control keys (for error messages).
const FIELD = { m: 'b', k: 'd', n: 'd_out' };

export default {
  id: 'batch-crossover',
  title: 'Batch size and the weight matmul',
  caption:
    'Roofline time per token and achieved FLOP/s of one weight matmul as the batch grows: the cost per token falls as 1/b until the layer turns compute-bound at the crossover batch, then levels off. Switch from the A100 to the H100 and watch the crossover move right.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['roofline', 'hardware'] },
    { key: 'dtype', label: 'Data type', from: ['roofline', 'dtype'], options: ['fp32', 'tf32', 'bf16', 'fp16', 'fp8-e4m3', 'int8'] },
    { key: 'd', label: 'Input width d', type: 'integer', min: 256, max: 65536, default: 8192, scale: 'log' },
    { key: 'd_out', label: 'Output width d_out', type: 'integer', min: 256, max: 65536, default: 8192, scale: 'log' },
  ],

  data(engine, p) {
    const { hardware, dtype } = p;
    const layer = (b) => {
      try {
        return engine.calc('matmul', { m: b, k: p.d, n: p.d_out, dtype, hardware });
      } catch (e) {
        if (e && FIELD[e.field]) e.field = FIELD[e.field]; // point at our control
        throw e;
      }
    };
    const ridge = engine.calc('roofline', { hardware, dtype, flops: 1, bytes: 1 }).ridge_intensity;
    const peak = 1e12 / engine.calc('roofline', { hardware, dtype, flops: 1e12, bytes: 1 }).compute_time_s;

    // Crossover: smallest b that is compute-bound (intensity, hence bound, is monotone in b).
    let crossover = null;
    if (layer(B_MAX).bound === 'compute') {
      let lo = 1, hi = B_MAX;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (layer(mid).bound === 'compute') hi = mid;
        else lo = mid + 1;
      }
      crossover = lo;
    }

    // Sample the curve, including both sides of the crossover so the two segments meet.
    const bs = [...new Set([...BS, ...(crossover ? [crossover - 1, crossover] : [])])].filter((b) => b >= 1).sort((a, b) => a - b);
    const points = bs.map((b) => {
      const r = layer(b);
      return { b, per_token_s: r.time_s / b, achieved_flops: r.flops / r.time_s, intensity: r.intensity, bound: r.bound };
    });

    const table = {
      columns: ['Batch b (tokens)', 'Time per token (s/token)', 'Achieved (FLOP/s)', 'Intensity (FLOP/B)', 'Bound'],
      rows: points.map((q) => [q.b, q.per_token_s, q.achieved_flops, q.intensity, q.bound]),
    };
    return { hardware, dtype, d: p.d, d_out: p.d_out, ridge, peak, crossover_batch: crossover, points, table };
  },

  draw(data, theme) {
    const tpt = (bound) => data.points.filter((q) => q.bound === bound).map((q) => ({ x: q.b, y: q.per_token_s, q }));
    const ys = data.points.map((q) => q.per_token_s);
    const [yLo, yHi] = [Math.min(...ys), Math.max(...ys)];
    const c = data.crossover_batch;
    const pick = colours(theme);
    const datasets = [
      series(pick('memory'), { label: 'Time per token, memory-bound', data: tpt('memory'), yAxisID: 'y', showLine: true, pointStyle: 'circle',
        pointRadius: 3, borderWidth: 2 }),
      series(pick('compute'), { label: 'Time per token, compute-bound', data: tpt('compute'), yAxisID: 'y', showLine: true, pointStyle: 'triangle',
        pointRadius: 4, borderWidth: 2 }),
      series(pick(), { label: 'Achieved FLOP/s (right axis)', data: data.points.map((q) => ({ x: q.b, y: q.achieved_flops, q })),
        yAxisID: 'y1', showLine: true, pointStyle: 'rect', pointRadius: 2, borderWidth: 2, borderDash: [6, 3] }),
      line(pick('muted'), { label: `Peak ${formatSI(data.peak, 'FLOP/s')} (right axis)`, data: [{ x: 1, y: data.peak }, { x: B_MAX, y: data.peak }],
        yAxisID: 'y1', borderWidth: 1, borderDash: [2, 3] }),
      line(pick('text'), { label: c ? `Crossover: b = ${c} (ridge ${formatSI(data.ridge, 'FLOP/B')})` : 'No crossover up to b = 4096',
        data: c ? [{ x: c, y: yLo }, { x: c, y: yHi }] : [], yAxisID: 'y', borderDash: [8, 4] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Batch size b (tokens)', { unit: '', range: [1, B_MAX] }),
        y: log('Time per token (s/token)', { unit: 's', position: 'left', range: [yLo / 1.5, yHi * 1.5] }),
        y1: log('Achieved performance (FLOP/s)', { unit: 'FLOP/s', position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        return `b = ${q.b}: ${formatSI(q.per_token_s, 's')}/token, ${formatSI(q.achieved_flops, 'FLOP/s')}, ${formatSI(q.intensity, 'FLOP/B')}, ${q.bound}-bound`;
      },
    });
  },
};
