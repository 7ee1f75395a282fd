// A chain of L elementwise ops on n elements, unfused (L kernels, each reading its inputs
// from HBM and writing its output back) against fused (one kernel): HBM bytes as bars and
// roofline time as lines, for L = 1 … 16. All numbers from calc('fusion').
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const CHAIN = Array.from({ length: 16 }, (_, i) => i + 1);
const BINARY = {
  none: { label: 'None (all unary)', count: () => 0 },
  half: { label: 'Every other op (bias, residual)', count: (l) => Math.floor(l / 2) },
  all: { label: 'Every op', count: (l) => l },
};

export default {
  id: 'fusion-chain',
  title: 'Fusing a chain of elementwise ops',
  caption:
    'HBM traffic (bars) and roofline time (lines) of a chain of L elementwise ops, one kernel per op versus one fused kernel. Unfused, every op adds a read and a write of the whole tensor; fused, the chain reads its inputs once and writes once, so the gap grows with L. Raise the FLOPs per element to 40 and the fused kernel eventually turns compute-bound (stars): fusion has removed the memory bottleneck.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['fusion', 'hardware'] },
    { key: 'dtype', label: 'Data type', from: ['fusion', 'dtype'], options: ['fp32', 'bf16', 'fp16', 'fp8-e4m3'] },
    { key: 'n', label: 'Elements n', from: ['fusion', 'n'], min: 1024, max: 2 ** 30, scale: 'log' },
    { key: 'binary', label: 'Ops reading a second tensor', type: 'select', default: 'none',
      options: Object.entries(BINARY).map(([value, b]) => ({ value, label: b.label })) },
    { key: 'flops_per_element', label: 'FLOPs per element per op', from: ['fusion', 'flops_per_element'], max: 100 },
  ],

  data(engine, p) {
    const points = CHAIN.map((ops) => {
      const binary_ops = BINARY[p.binary].count(ops);
      const r = engine.calc('fusion', {
        n: p.n, ops, binary_ops, flops_per_element: p.flops_per_element, dtype: p.dtype, hardware: p.hardware,
      });
      return {
        ops, binary_ops, unfused_bytes: r.unfused_bytes, fused_bytes: r.fused_bytes, unfused_s: r.unfused_time_s,
        fused_s: r.fused_time_s, speedup: r.speedup, fused_bound: r.fused_bound, unfused_bound: r.unfused_bound,
        fused_intensity: r.fused_intensity, ridge: r.ridge_intensity,
      };
    });
    const table = {
      columns: ['Chain length L', 'Binary ops', 'Unfused bytes (B)', 'Fused bytes (B)', 'Unfused time (s)',
        'Fused time (s)', 'Speedup (x)', 'Fused intensity (FLOP/B)', 'Fused kernel bound'],
      rows: points.map((q) => [q.ops, q.binary_ops, q.unfused_bytes, q.fused_bytes, q.unfused_s, q.fused_s, q.speedup,
        q.fused_intensity, q.fused_bound]),
    };
    return { n: p.n, dtype: p.dtype, ridge: points[0].ridge, points, table };
  },

  draw(data, theme) {
    // Unfused in one colour, fused in another: the bytes bar and the time line of each share it.
    const pick = colours(theme);
    const [cu, cf] = [pick(), pick()];
    const fusedTime = (bound) => data.points.map((q) => (q.fused_bound === bound ? q.fused_s : null));
    const datasets = [
      series(theme.grid, { type: 'bar', label: 'HBM bytes, unfused (left axis)', data: data.points.map((q) => q.unfused_bytes), yAxisID: 'y',
        borderColor: cu, borderWidth: 2, order: 3, group: 'unfused' }),
      series(cf, { type: 'bar', label: 'HBM bytes, fused (left axis)', data: data.points.map((q) => q.fused_bytes), yAxisID: 'y',
        borderWidth: 2, order: 3, group: 'fused' }),
      series(cu, { type: 'line', label: 'Time, unfused: L kernels (right axis)', data: data.points.map((q) => q.unfused_s), yAxisID: 'y1',
        borderWidth: 2, pointStyle: 'circle', pointRadius: 3, order: 1, group: 'unfused' }),
      series(cf, { type: 'line', label: 'Time, fused: 1 kernel, memory-bound (right axis)', data: fusedTime('memory'), yAxisID: 'y1',
        borderWidth: 2, borderDash: [6, 3], pointStyle: 'triangle', pointRadius: 4, spanGaps: false, order: 1, group: 'fused' }),
      series(pick('compute'), { type: 'line', label: 'Time, fused, compute-bound (right axis)', data: fusedTime('compute'), yAxisID: 'y1',
        borderWidth: 2, pointStyle: 'star', pointRadius: 7, order: 1 }),
    ];
    const maxBytes = Math.max(...data.points.map((q) => q.unfused_bytes));
    const maxTime = Math.max(...data.points.map((q) => Math.max(q.unfused_s, q.fused_s)));
    return chart(theme, {
      type: 'bar', labels: data.points.map((q) => String(q.ops)), datasets,
      scales: {
        x: category({ title: 'Ops in the chain, L (count)' }),
        y: linear('HBM traffic (B)', { range: [0, maxBytes * 1.08], position: 'left',
          ticks: { includeBounds: false, callback: (v) => formatSI(v, 'B') } }),
        y1: linear('Roofline time (s)', { range: [0, maxTime * 1.08], position: 'right',
          ticks: { includeBounds: false, callback: (v) => formatSI(v, 's') }, grid: { drawOnChartArea: false } }),
      },
      tooltip: {
        filter: (ctx) => ctx.raw !== null,
        callbacks: {
          label: (ctx) => {
            const q = data.points[ctx.dataIndex];
            if (ctx.dataset.type === 'bar') return `${ctx.dataset.label.split(' (')[0]}: ${formatSI(ctx.raw, 'B')}`;
            const fused = ctx.datasetIndex > 2;
            return fused
              ? `Fused: ${formatSI(q.fused_s, 's')}, ${q.fused_bound}-bound, ${q.speedup.toFixed(2)}× faster`
              : `Unfused: ${formatSI(q.unfused_s, 's')} over ${q.ops} kernel${q.ops === 1 ? '' : 's'}`;
          },
        },
      },
    });
  },
};
