// The memory hierarchy and compute units of one GPU: bandwidth against capacity for registers,
// L1/shared memory, L2 and HBM (log-log), the latency of each level, and tensor-core against
// CUDA-core peaks per number format. calc('memory-hierarchy') and calc('compute-units').
import { formatSI, logTick } from '../runtime/format.js';

const GPUS = ['h100-sxm', 'a100-sxm-80gb', 'h200-sxm', 'h100-pcie'];
const STYLES = ['circle', 'rect', 'triangle', 'rectRot'];
// Binary prefixes for memory capacities (registers and caches are powers of two).
function bytes(x) {
  const units = [[2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']];
  const [scale, unit] = units.find(([s]) => x >= s) ?? [1, 'B'];
  return `${Number((x / scale).toPrecision(3))} ${unit}`;
}
const FORMAT_LABEL = { fp64: 'fp64', fp32: 'fp32 (tensor cores: tf32)', fp16: 'fp16', bf16: 'bf16', fp8: 'fp8', int8: 'int8 (op/s)' };

export default {
  id: 'memory-hierarchy',
  title: 'Where data lives and what computes on it',
  caption:
    'Each memory level of one GPU, from the registers beside the arithmetic units out to HBM. In the first view, watch bandwidth fall several-fold at each step outwards while capacity grows (the register file is as large as the L1); switch to latency to see why a load from HBM must be hidden; switch to compute and compare the tensor cores with the CUDA cores, format by format.',
  params: [
    { key: 'hardware', label: 'GPU', from: ['memory-hierarchy', 'hardware'], options: GPUS },
    {
      key: 'view', label: 'View', type: 'select', default: 'pyramid',
      options: [
        { value: 'pyramid', label: 'Bandwidth against capacity' },
        { value: 'latency', label: 'Latency of each level' },
        { value: 'compute', label: 'Tensor cores against CUDA cores' },
      ],
    },
  ],

  data(engine, p) {
    if (p.view === 'compute') {
      const c = engine.calc('compute-units', { hardware: p.hardware });
      const name = engine.calc('hardware', { id: p.hardware }).name;
      const formats = c.formats.map((f) => ({ ...f, label: FORMAT_LABEL[f.format] ?? f.format }));
      return {
        view: p.view, name, formats,
        table: {
          columns: ['Format', 'CUDA cores (FLOP/s)', 'Tensor cores (FLOP/s)', 'Tensor-core speed-up (x)'],
          rows: formats.map((f) => [f.label, f.cuda_core_flops ?? '—', f.tensor_core_flops ?? '—', f.tensor_speedup ?? '—']),
        },
      };
    }
    const h = engine.calc('memory-hierarchy', { hardware: p.hardware });
    const name = engine.calc('hardware', { id: p.hardware }).name;
    const levels = h.levels;
    return {
      view: p.view, name, levels, clock: h.boost_clock_hz,
      table: {
        columns: ['Level', 'Capacity, whole GPU (B)', 'Capacity per SM or shared (B)', 'Bandwidth (B/s)', 'Latency (s)', 'Latency (cycles)'],
        rows: levels.map((l) => [l.name, l.capacity_bytes, l.capacity_per_sm_bytes, l.bandwidth_Bps, l.latency_s ?? '—', l.latency_cycles ?? '—']),
      },
    };
  },

  draw(data, theme) {
    const colours = [theme.palette[3], theme.palette[2], theme.palette[1], theme.memory];
    const logAxis = (title, unit, extra = {}) => ({
      type: 'logarithmic', title: { display: true, text: title, color: theme.text },
      ticks: { color: theme.muted, maxRotation: 0, callback: logTick(unit) }, grid: { color: theme.grid }, ...extra,
    });
    if (data.view === 'pyramid') {
      const datasets = data.levels.map((l, i) => ({
        label: `${l.name}: ${bytes(l.capacity_bytes)}${l.per_sm ? ` (${bytes(l.capacity_per_sm_bytes)} per SM)` : ''}, ${formatSI(l.bandwidth_Bps, 'B/s')}`,
        data: [{ x: l.capacity_bytes, y: l.bandwidth_Bps, l }], pointStyle: STYLES[i], pointRadius: 9,
        borderColor: colours[i], backgroundColor: colours[i],
      }));
      datasets.push({ label: 'From the arithmetic units outwards', data: data.levels.map((l) => ({ x: l.capacity_bytes, y: l.bandwidth_Bps, l })),
        showLine: true, pointStyle: 'line', pointRadius: 0, borderWidth: 1, borderDash: [4, 4], borderColor: theme.muted, backgroundColor: theme.muted });
      const xs = data.levels.map((l) => l.capacity_bytes), ys = data.levels.map((l) => l.bandwidth_Bps);
      return {
        type: 'scatter',
        data: { datasets },
        options: {
          responsive: true, maintainAspectRatio: false, animation: false,
          scales: {
            x: logAxis('Capacity, whole GPU (B)', 'B', { min: Math.min(...xs) / 4, max: Math.max(...xs) * 4 }),
            y: logAxis('Bandwidth (B/s)', 'B/s', { min: Math.min(...ys) / 3, max: Math.max(...ys) * 3 }),
          },
          plugins: {
            legend: { labels: { color: theme.text, usePointStyle: true } },
            tooltip: { callbacks: { label: (ctx) => `${ctx.raw.l.name}: ${bytes(ctx.raw.x)}, ${formatSI(ctx.raw.y, 'B/s')}` } },
          },
        },
      };
    }
    if (data.view === 'latency') {
      const levels = data.levels.filter((l) => l.latency_s !== null);
      const ts = levels.map((l) => l.latency_s);
      return {
        type: 'bar',
        data: {
          labels: levels.map((l) => `${l.name}: ${formatSI(l.latency_s, 's')} (${Math.round(l.latency_cycles)} cycles)`),
          datasets: [{ label: 'Load-to-use latency, unloaded (registers are read within the instruction)', data: ts,
            backgroundColor: levels.map((l) => colours[data.levels.indexOf(l)]), borderColor: theme.text, borderWidth: 1 }],
        },
        options: {
          indexAxis: 'y', responsive: true, maintainAspectRatio: false, animation: false,
          scales: {
            x: logAxis('Load-to-use latency, unloaded (s)', 's', { min: 1e-9, max: 1e-6 }),
            y: { type: 'category', ticks: { color: theme.text }, grid: { display: false } },
          },
          plugins: {
            legend: { display: false },
            tooltip: { callbacks: { label: (ctx) => `${formatSI(ctx.raw, 's')}` } },
          },
        },
      };
    }
    const values = (key) => data.formats.map((f) => f[key]);
    const all = data.formats.flatMap((f) => [f.cuda_core_flops, f.tensor_core_flops]).filter((v) => v !== null);
    return {
      type: 'bar',
      data: {
        labels: data.formats.map((f) => (f.tensor_speedup ? `${f.label}: ${f.tensor_speedup.toFixed(1)}×` : `${f.label}: tensor cores only`)),
        datasets: [
          { label: 'CUDA cores', data: values('cuda_core_flops'), backgroundColor: theme.memory, borderColor: theme.memory, borderWidth: 0 },
          { label: 'Tensor cores', data: values('tensor_core_flops'), backgroundColor: theme.compute, borderColor: theme.text, borderWidth: 1 },
        ],
      },
      options: {
        indexAxis: 'y', responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: logAxis('Dense peak (FLOP/s)', 'FLOP/s', {
            min: 10 ** Math.floor(Math.log10(Math.min(...all) / 1.5)), max: 10 ** Math.ceil(Math.log10(Math.max(...all) * 1.2)),
          }),
          y: { type: 'category', ticks: { color: theme.text }, grid: { display: false } },
        },
        plugins: {
          legend: { labels: { color: theme.text } },
          tooltip: { filter: (ctx) => ctx.raw !== null, callbacks: { label: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw, 'FLOP/s')}` } },
        },
      },
    };
  },
};
