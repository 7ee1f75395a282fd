// Share of a sequence's time lost to kernel-launch overhead against the work each kernel
// does (HBM bytes moved), for launches that wait for each other (serial), launches the CPU
// queues ahead (pipelined) and one CUDA graph. Every kernel costs the GPU the same gap in all
// three modes; a graph removes only the CPU's per-kernel launch, so its line never lies above
// the eager ones. The overheads are parameters, not datasheet values. All numbers from
// calc('launch-overhead').
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

const LO = 1e3, HI = 1e10;
// Bytes per kernel from 1 KB to 10 GB, eight points per decade.
const BYTES = Array.from({ length: 57 }, (_, i) => LO * 10 ** (i / 8));
// The calculator's fields -> this figure's controls (for error messages).
const FIELD = { launch_overhead_s: 'launch_us', graph_node_s: 'graph_us' };

export default {
  id: 'launch-overhead-size',
  title: 'Launch overhead against kernel size',
  caption:
    'Share of the time lost to overhead when a sequence of memory-bound kernels runs one after another, against the bytes each kernel moves. Each kernel pays the GPU gap in every mode; eager launching adds the CPU launch, which a CUDA graph pays once for the whole sequence. Below the break-even size (dashed), where the work takes as long as a launch plus a gap, most of the serial time is overhead; once the work outlasts a launch, the CPU keeps ahead and the pipelined line meets the graph line. Raise the launch overhead to 20 µs and watch the break-even move right.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['launch-overhead', 'hardware'] },
    { key: 'launch_us', label: 'Launch overhead per kernel', type: 'number', unit: 'µs', min: 0.5, max: 50, default: 5, scale: 'log' },
    { key: 'graph_us', label: 'GPU gap per kernel (eager and graph)', type: 'number', unit: 'µs', min: 0.1, max: 10, default: 1, scale: 'log' },
    { key: 'kernels', label: 'Kernels in the sequence', from: ['launch-overhead', 'kernels'], min: 1, max: 10000, scale: 'log' },
  ],

  data(engine, p) {
    const run = (bytes) => {
      try {
        return engine.calc('launch-overhead', {
          kernels: p.kernels, bytes_per_kernel: bytes, launch_overhead_s: p.launch_us * 1e-6,
          graph_node_s: p.graph_us * 1e-6, hardware: p.hardware,
        });
      } catch (e) {
        if (e && FIELD[e.field]) e.field = FIELD[e.field];
        throw e;
      }
    };
    const points = BYTES.map((bytes) => {
      const r = run(bytes);
      return {
        bytes, work_s: r.work_per_kernel_s, serial_s: r.serial_time_s / p.kernels, pipelined_s: r.pipelined_time_s / p.kernels,
        graph_s: r.graph_time_s / p.kernels, serial: 100 * r.serial_overhead_fraction,
        pipelined: 100 * r.pipelined_overhead_fraction, graph: 100 * r.graph_overhead_fraction,
      };
    });
    const first = run(BYTES[0]);
    const table = {
      columns: ['Bytes per kernel (B)', 'Work per kernel (s)', 'Serial, per kernel (s)', 'Pipelined, per kernel (s)',
        'CUDA graph, per kernel (s)', 'Lost, serial (%)', 'Lost, pipelined (%)', 'Lost, CUDA graph (%)'],
      rows: points.map((q) => [q.bytes, q.work_s, q.serial_s, q.pipelined_s, q.graph_s, q.serial, q.pipelined, q.graph]),
    };
    return {
      kernels: p.kernels, launch_us: p.launch_us, graph_us: p.graph_us, bandwidth: first.bandwidth_Bps,
      breakeven_bytes: first.breakeven_bytes, points, table,
    };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const curve = (key, label, style, dash) => series(pick(), {
      label, data: data.points.map((q) => ({ x: q.bytes, y: q[key], q })), showLine: true, borderWidth: 2, borderDash: dash,
      pointStyle: style, pointRadius: 2.5,
    });
    const datasets = [
      curve('serial', `Eager, each launch waits: ${data.launch_us} µs launch + ${data.graph_us} µs gap per kernel`, 'circle', []),
      curve('pipelined', 'Eager, CPU launches ahead (lost while the GPU waits, and the gaps)', 'triangle', [6, 3]),
      curve('graph', `One CUDA graph: one launch, then ${data.graph_us} µs gap per kernel`, 'rect', [2, 2]),
    ];
    const b = data.breakeven_bytes;
    if (b >= LO && b <= HI) {
      datasets.push(line(pick('text'), { label: `Break-even: ${formatSI(b, 'B')} per kernel (work = launch + gap)`,
        data: [{ x: b, y: 0 }, { x: b, y: 100 }], borderDash: [8, 4] }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: log('HBM bytes moved by each kernel (B)', { unit: 'B', range: [LO, HI] }),
        y: linear('Time lost to launch overhead and gaps (%)', { range: [0, 100], ticks: { callback: (v) => `${v}%` } }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        const per = { 0: q.serial_s, 1: q.pipelined_s, 2: q.graph_s }[ctx.datasetIndex];
        return `${formatSI(q.bytes, 'B')} per kernel: ${ctx.raw.y.toFixed(1)}% lost, ${formatSI(per, 's')} per kernel ` +
          `(work ${formatSI(q.work_s, 's')})`;
      },
    });
  },
};
