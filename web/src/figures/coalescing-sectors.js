// One warp's load at every stride from 1 to 32 elements: the 32-byte sectors it touches (the
// engine enumerates the 32 lanes' addresses) and the effective bandwidth that leaves, peak ×
// bytes used / bytes moved. The chosen stride is highlighted. All numbers from
// calc('coalescing').
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const STRIDES = Array.from({ length: 32 }, (_, i) => i + 1);
const SIZES = [
  { value: 1, label: '1 B (int8, fp8)' },
  { value: 2, label: '2 B (bf16, fp16)' },
  { value: 4, label: '4 B (fp32)' },
  { value: 8, label: '8 B (fp64)' },
  { value: 16, label: '16 B (float4 vector)' },
];
// The model is NVIDIA's: 32-lane warps, 32-byte sectors (AMD GPUs run 64-lane wavefronts).
const GPUS = ['a100-sxm-80gb', 'h100-sxm', 'h100-pcie', 'h200-sxm', 'b200', 'l4'];

export default {
  id: 'coalescing-sectors',
  title: 'Coalescing: sectors per warp load',
  caption:
    'Bars: the 32-byte sectors one warp’s load touches when its 32 threads read elements a fixed stride apart; line: the effective bandwidth left when only the requested bytes count. Start at 4-byte elements and walk the stride from 1 to 8: the sectors go 4, 8, 12 … 32 and the bandwidth falls to an eighth. Then set the offset to 1 and watch stride 1 need a fifth sector.',
  params: [
    { key: 'element_bytes', label: 'Element size', type: 'select', default: 4, options: SIZES },
    { key: 'stride', label: 'Highlighted stride', from: ['coalescing', 'stride'], max: 32 },
    { key: 'offset', label: 'Offset of thread 0', from: ['coalescing', 'offset'], max: 32 },
    { key: 'hardware', label: 'GPU', from: ['coalescing', 'hardware'], options: GPUS },
  ],

  data(engine, p) {
    const at = (stride) => engine.calc('coalescing', { element_bytes: p.element_bytes, stride, offset: p.offset, hardware: p.hardware });
    const points = STRIDES.map((stride) => {
      const r = at(stride);
      return {
        stride, sectors: r.sectors, lines: r.cache_lines, moved: r.bytes_moved, used: r.bytes_used,
        efficiency: r.efficiency, effective: r.effective_bandwidth_Bps, wavefronts: r.smem_wavefronts,
      };
    });
    const chosen = at(p.stride);
    const peak = chosen.peak_bandwidth_Bps;
    const table = {
      columns: ['Stride (elements)', 'Sectors per warp load', '128-byte lines', 'Bytes moved (B)', 'Bytes used (B)',
        'Efficiency (%)', 'Effective bandwidth (B/s)', 'Shared-memory passes (bank conflicts)'],
      rows: points.map((q) => [q.stride, q.sectors, q.lines, q.moved, q.used, 100 * q.efficiency, q.effective, q.wavefronts]),
    };
    return {
      element_bytes: p.element_bytes, offset: p.offset, stride: p.stride, peak, points,
      chosen: {
        stride: p.stride, sectors: chosen.sectors, lines: chosen.cache_lines, moved: chosen.bytes_moved,
        used: chosen.bytes_used, efficiency: chosen.efficiency, effective: chosen.effective_bandwidth_Bps,
        min_sectors: chosen.min_sectors, wavefronts: chosen.smem_wavefronts,
      },
      table,
    };
  },

  draw(data, theme) {
    const c = data.chosen;
    const bars = (pred) => data.points.map((q) => (pred(q) ? q.sectors : null));
    const pick = colours(theme);
    const datasets = [
      series(pick('memory'), { type: 'bar', label: 'Sectors per warp load', data: bars((q) => q.stride !== c.stride), yAxisID: 'y',
        borderWidth: 1, grouped: false, order: 2 }),
      series(pick('compute'), { type: 'bar', label: `Stride ${c.stride}: ${c.sectors} sectors, ${c.moved} B moved for ${c.used} B used (${Math.round(100 * c.efficiency)}%)`,
        data: bars((q) => q.stride === c.stride), yAxisID: 'y', borderColor: theme.text, borderWidth: 2, grouped: false, order: 2 }),
      series(pick('text'), { type: 'line', label: `Effective bandwidth (right axis; peak ${formatSI(data.peak, 'B/s')})`,
        data: data.points.map((q) => q.effective / 1e12), yAxisID: 'y1', borderWidth: 2, borderDash: [6, 3], pointStyle: 'rectRot', pointRadius: 3, order: 1 }),
    ];
    const labels = data.points.map((q) => String(q.stride));
    // Stride 1 and every multiple of 4: the staircase's steps (8 for 4-byte elements, 32 for 1-byte) carry a tick.
    const strideTick = (value, index) => (index === 0 || (index + 1) % 4 === 0 ? labels[index] : '');
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ title: `Stride between threads (elements of ${data.element_bytes} B)`,
          ticks: { maxRotation: 0, autoSkip: false, callback: strideTick } }),
        y: linear('32-byte sectors per warp load (count)', { range: [0, 36], position: 'left', ticks: { stepSize: 4 } }),
        y1: linear('Effective bandwidth (TB/s)', { range: [0, Number((data.peak / 1e12).toPrecision(3)) * 1.05], position: 'right',
          grid: { drawOnChartArea: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: {
        filter: (ctx) => ctx.raw !== null,
        callbacks: {
          label: (ctx) => {
            const q = data.points[ctx.dataIndex];
            if (ctx.dataset.yAxisID === 'y1') return `Effective bandwidth ${formatSI(q.effective, 'B/s')} (${Math.round(100 * q.efficiency)}% of peak)`;
            return `${q.sectors} sectors in ${q.lines} line${q.lines === 1 ? '' : 's'}: ${q.moved} B moved for ${q.used} B used`;
          },
        },
      },
    });
  },
};
