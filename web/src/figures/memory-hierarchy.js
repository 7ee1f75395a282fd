// The memory hierarchy and compute units of one GPU: bandwidth against capacity for registers,
// L1/shared memory, L2 and HBM (log-log), the latency of each level, and tensor-core against
// CUDA-core peaks per number format. calc('memory-hierarchy') and calc('compute-units').
// Every value carries its source from the hardware table (datasheet, whitepaper, derivation,
// or the microbenchmark and the GPU it was measured on), in the legend, the latency labels and
// the data table, so one GPU's measurement is never shown as another's.
import { formatSI } from '../runtime/format.js';
import { chart, log, category, colours, series, line } from './shared/chart-config.js';

const GPUS = ['h100-sxm', 'a100-sxm-80gb', 'h200-sxm', 'h100-pcie'];
const STYLES = ['circle', 'rect', 'triangle', 'rectRot'];
// Binary prefixes for memory capacities (registers and caches are powers of two).
const bytes = (x) => formatSI(x, 'GiB');
// Powers of 8 bytes (8 MiB, 64 MiB, 512 MiB, 4 GiB, ...) between lo and hi, for a capacity axis.
function binaryTicks(lo, hi) {
  const out = [];
  for (let e = Math.ceil(Math.log2(lo) / 3) * 3; 2 ** e <= hi; e += 3) out.push(2 ** e);
  return out;
}
// Word-wrapped lines of at most `width` characters, for multi-line axis labels that fit a phone.
function wrap(text, width = 26) {
  const lines = [];
  for (const word of text.split(' ')) {
    if (lines.length && (lines.at(-1) + ' ' + word).length <= width) lines[lines.length - 1] += ' ' + word;
    else lines.push(word);
  }
  return lines;
}
// "L2 cache (measured on an H200)" when the bandwidth was measured on a GPU other than `gpu`.
function pointLabel(l, gpu) {
  const on = /measured on an? ([^:(]+)/.exec(l.bandwidth_source ?? '')?.[1]?.trim();
  return on && !on.split(' ').every((w) => gpu.includes(w)) ? `${l.name} (measured on ${on})` : l.name;
}
const FORMAT_LABEL = { fp64: 'fp64', fp32: 'fp32 (tensor cores: tf32)', fp16: 'fp16', bf16: 'bf16', fp8: 'fp8', int8: 'int8 (op/s)' };

export default {
  id: 'memory-hierarchy',
  title: 'Where data lives and what computes on it',
  caption:
    'Each memory level of one GPU, from the registers beside the arithmetic units out to HBM, with the source of every value: datasheet, whitepaper, a derivation, or a microbenchmark and the GPU it ran on (the sources used here have no latency of the H100 SXM itself; the H200, the same chip with faster memory, was measured for this course). In the first view, watch bandwidth fall several-fold at each step outwards while capacity grows (the register file is as large as the L1); switch to latency to see why a load from HBM must be hidden; switch to compute and compare the tensor cores with the CUDA cores, format by format.',
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
        columns: ['Level', 'Capacity, whole GPU (B)', 'Capacity per SM or shared (B)', 'Bandwidth (B/s)', 'Latency (s)', 'Latency (cycles)',
          'Capacity source', 'Bandwidth source', 'Latency source'],
        rows: levels.map((l) => [l.name, l.capacity_bytes, l.capacity_per_sm_bytes, l.bandwidth_Bps, l.latency_s ?? '—', l.latency_cycles ?? '—',
          l.capacity_source || '—', l.bandwidth_source || '—', l.latency_s === null ? 'read within the instruction' : (l.latency_source || '—')]),
      },
    };
  },

  draw(data, theme) {
    // One colour per level, the same in every view (HBM in the memory colour).
    const pick = colours(theme);
    const levelColours = [pick(), pick(), pick(), pick('memory')];
    if (data.view === 'pyramid') {
      const datasets = data.levels.map((l, i) => series(levelColours[i], {
        label: `${l.name}: ${bytes(l.capacity_bytes)}${l.per_sm ? ` (${bytes(l.capacity_per_sm_bytes)} per SM)` : ''}, ${formatSI(l.bandwidth_Bps, 'B/s')}`,
        // On the chart, a bandwidth measured on another GPU names it; every source is in the
        // tooltip and the data table.
        data: [{ x: l.capacity_bytes, y: l.bandwidth_Bps, l, label: pointLabel(l, data.name) }], pointStyle: STYLES[i], pointRadius: 9, pointLabels: true,
      }));
      datasets.push(line(pick('muted'), { label: 'From the arithmetic units outwards', data: data.levels.map((l) => ({ x: l.capacity_bytes, y: l.bandwidth_Bps, l })),
        borderWidth: 1, borderDash: [4, 4] }));
      const xs = data.levels.map((l) => l.capacity_bytes), ys = data.levels.map((l) => l.bandwidth_Bps);
      return chart(theme, {
        datasets,
        scales: {
          // Ticks at powers of 8 in binary prefixes, as the legend writes capacities (33 MiB, 80 GiB).
          x: log('Capacity, whole GPU (B)', { range: [Math.min(...xs) / 4, Math.max(...xs) * 4],
            afterBuildTicks: (axis) => { axis.ticks = binaryTicks(axis.min, axis.max).map((value) => ({ value })); },
            ticks: { autoSkip: false, callback: (v) => bytes(v) } }),
          y: log('Bandwidth (B/s)', { unit: 'B/s', range: [Math.min(...ys) / 3, Math.max(...ys) * 3] }),
        },
        tooltip: (ctx) => `${ctx.raw.l.name}: ${bytes(ctx.raw.x)}, ${formatSI(ctx.raw.y, 'B/s')} (${ctx.raw.l.bandwidth_source || 'source not given'})`,
      });
    }
    if (data.view === 'latency') {
      const levels = data.levels.filter((l) => l.latency_s !== null);
      return chart(theme, {
        type: 'bar', indexAxis: 'y',
        // Two-line labels: the value, then where it was measured.
        labels: levels.map((l) => [`${l.name.replace(' (device memory)', '')}:`, `${formatSI(l.latency_s, 's')} (${Math.round(l.latency_cycles)} cycles)`,
          ...wrap(l.latency_source || 'source not given')]),
        datasets: [{ label: 'Load-to-use latency, unloaded (registers are read within the instruction)', data: levels.map((l) => l.latency_s),
          backgroundColor: levels.map((l) => levelColours[data.levels.indexOf(l)]), borderColor: theme.text, borderWidth: 1 }],
        scales: {
          x: log('Load-to-use latency, unloaded (s)', { unit: 's', range: [1e-9, 1e-6] }),
          y: category({ grid: { display: false } }),
        },
        legend: false,
        tooltip: (ctx) => `${formatSI(ctx.raw, 's')}`,
      });
    }
    const values = (key) => data.formats.map((f) => f[key]);
    const all = data.formats.flatMap((f) => [f.cuda_core_flops, f.tensor_core_flops]).filter((v) => v !== null);
    return chart(theme, {
      type: 'bar', indexAxis: 'y',
      labels: data.formats.map((f) => (f.tensor_speedup ? `${f.label}: ${f.tensor_speedup.toFixed(1)}×` : `${f.label}: tensor cores only`)),
      datasets: [
        { label: 'CUDA cores', data: values('cuda_core_flops'), backgroundColor: theme.memory, borderColor: theme.memory, borderWidth: 0 },
        { label: 'Tensor cores', data: values('tensor_core_flops'), backgroundColor: theme.compute, borderColor: theme.text, borderWidth: 1 },
      ],
      scales: {
        x: log('Dense peak (FLOP/s)', { unit: 'FLOP/s',
          range: [10 ** Math.floor(Math.log10(Math.min(...all) / 1.5)), 10 ** Math.ceil(Math.log10(Math.max(...all) * 1.2))] }),
        y: category({ grid: { display: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: { filter: (ctx) => ctx.raw !== null, callbacks: { label: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw, 'FLOP/s')}` } },
    });
  },
};
