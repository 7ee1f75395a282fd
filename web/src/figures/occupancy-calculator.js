// The CUDA occupancy calculator: blocks per SM allowed by each resource (warp slots,
// registers, shared memory, block slots) for one launch configuration, or occupancy as one
// input sweeps its range with each point marked by the resource that limits it.
// calc('occupancy') and calc('occupancy-curve') do all the arithmetic.
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const NVIDIA = ['h100-sxm', 'a100-sxm-80gb', 'h200-sxm', 'b200', 'h100-pcie', 'l4'];
const LIMITS = [
  { key: 'threads', label: 'Warp slots (threads)' },
  { key: 'registers', label: 'Registers' },
  { key: 'smem', label: 'Shared memory' },
  { key: 'blocks', label: 'Block slots' },
];
const AXIS = {
  registers_per_thread: 'Registers per thread (count)',
  threads_per_block: 'Threads per block (count)',
  smem_per_block_bytes: 'Shared memory per block (KiB)',
};
const STYLES = { threads: 'circle', registers: 'triangle', smem: 'rect', blocks: 'rectRot' };

export default {
  id: 'occupancy-calculator',
  title: 'The occupancy calculator',
  caption:
    'How many blocks of a kernel fit on one SM at once, limited by warp slots, registers, shared memory and block slots; occupancy is the resident warps over the SM’s maximum. Start on the H100, where registers limit this kernel, then switch to the A100 and watch shared memory take over; then sweep registers per thread and find the steps where one more register per thread costs a whole block.',
  params: [
    { key: 'hardware', label: 'GPU', from: ['occupancy', 'hardware'], options: NVIDIA },
    {
      key: 'view', label: 'View', type: 'select', default: 'limits',
      options: [
        { value: 'limits', label: 'Blocks per SM allowed by each limit' },
        { value: 'registers_per_thread', label: 'Occupancy against registers per thread' },
        { value: 'threads_per_block', label: 'Occupancy against threads per block' },
        { value: 'smem_per_block_bytes', label: 'Occupancy against shared memory per block' },
      ],
    },
    { key: 'threads_per_block', label: 'Threads per block', from: ['occupancy', 'threads_per_block'] },
    { key: 'registers_per_thread', label: 'Registers per thread', from: ['occupancy', 'registers_per_thread'], default: 48 },
    { key: 'smem_per_block_bytes', label: 'Shared memory per block', from: ['occupancy', 'smem_per_block_bytes'],
      max: 232448, step: 1024, default: 36864 },
  ],

  data(engine, p) {
    const input = {
      hardware: p.hardware, threads_per_block: p.threads_per_block, registers_per_thread: p.registers_per_thread,
      smem_per_block_bytes: p.smem_per_block_bytes,
    };
    const r = engine.calc('occupancy', input);
    const name = engine.calc('hardware', { id: p.hardware }).name;
    const base = {
      view: p.view, name, blocks: r.blocks_per_sm, warps: r.active_warps, occupancy: r.occupancy, limiter: r.limiter,
      limiters: r.limiters, warpsPerBlock: r.warps_per_block, maxWarps: r.max_warps_per_sm, maxBlocks: r.blocks_by.blocks,
    };
    if (p.view === 'limits') {
      const limits = LIMITS.map((l) => ({ ...l, blocks: r.blocks_by[l.key], limiting: r.limiters.includes(l.key) }));
      return {
        ...base, limits,
        table: {
          columns: ['Limit', 'Blocks per SM it allows (count)', 'Limiting'],
          rows: limits.map((l) => [l.label, l.blocks, l.limiting ? 'yes' : 'no']),
        },
      };
    }
    const c = engine.calc('occupancy-curve', { ...input, vary: p.view });
    const scale = p.view === 'smem_per_block_bytes' ? 1 / 1024 : 1;
    const points = c.points.map((q) => ({ x: q.x * scale, y: 100 * q.occupancy, limiter: q.limiter, launchable: q.launchable, blocks: q.blocks_per_sm, warps: q.active_warps }));
    return {
      ...base, points, current: { x: c.current.x * scale, y: 100 * c.current.occupancy }, axis: AXIS[p.view],
      table: {
        columns: [AXIS[p.view], 'Blocks per SM (count)', 'Active warps (count)', 'Occupancy (%)', 'Limited by'],
        rows: points.map((q) => [q.x, q.blocks, q.warps, q.y, q.launchable ? q.limiter : 'cannot launch']),
      },
    };
  },

  draw(data, theme) {
    const headline = `${data.blocks} block${data.blocks === 1 ? '' : 's'} × ${data.warpsPerBlock} warps = ${data.warps} of ${data.maxWarps} warps, occupancy ${(100 * data.occupancy).toFixed(1)}%`;
    const limitedBy = data.limiters.join(' and ');
    const pick = colours(theme);
    if (data.view === 'limits') {
      const cap = data.maxBlocks * 1.25;
      const labels = data.limits.map((l) => `${l.label}: ${l.blocks > 9999 ? 'no limit' : l.blocks}${l.limiting ? '  ◀ limits' : ''}`);
      const values = (limiting) => data.limits.map((l) => (l.limiting === limiting ? Math.min(l.blocks, cap) : null));
      return chart(theme, {
        type: 'bar', labels, indexAxis: 'y',
        datasets: [
          series(pick('compute'), { label: `Limiting: ${limitedBy}, ${data.warps} of ${data.maxWarps} warps (${(100 * data.occupancy).toFixed(1)}%)`, data: values(true), borderWidth: 0, grouped: false }),
          series(pick(), { label: 'Other limits (bars past the axis are cut)', data: values(false), borderWidth: 0, grouped: false }),
        ],
        scales: {
          x: linear('Blocks per SM allowed (count)', { range: [0, cap] }),
          y: category({ grid: { display: false } }),
        },
        legend: { usePointStyle: false },
        tooltip: { filter: (ctx) => ctx.raw !== null, callbacks: { label: (ctx) => `${data.limits[ctx.dataIndex].blocks} blocks` } },
      });
    }
    const byLimiter = (key) => data.points.filter((q) => q.launchable && q.limiter === key);
    // Each limiter keeps its colour whichever of them appear.
    const limiterColours = LIMITS.map(() => pick());
    const datasets = LIMITS.map((l, i) => series(limiterColours[i], {
      label: `Limited by ${l.label.toLowerCase()}`, data: byLimiter(l.key), pointStyle: STYLES[l.key], pointRadius: 3, clip: false,
    })).filter((d) => d.data.length > 0);
    const blocked = data.points.filter((q) => !q.launchable);
    const muted = pick('muted');
    if (blocked.length) {
      datasets.push(series(muted, { label: 'Cannot launch (block exceeds a per-block limit)', data: blocked, pointStyle: 'crossRot', pointRadius: 4 }));
    }
    datasets.push(series(pick('text'), { label: `Your kernel, limited by ${limitedBy}: ${headline}`, data: [data.current], pointStyle: 'star',
      pointRadius: 11, borderWidth: 3, clip: false }));
    return chart(theme, {
      datasets,
      scales: {
        x: linear(data.axis, { range: [0, data.points.at(-1).x] }),
        y: linear('Occupancy (%)', { range: [0, 100], ticks: { stepSize: 20, callback: (v) => `${v}%` } }),
      },
      tooltip: (ctx) => (ctx.raw.limiter ? `${ctx.raw.x}: ${ctx.raw.y.toFixed(1)}% (${ctx.raw.blocks} blocks, ${ctx.raw.launchable ? `limited by ${ctx.raw.limiter}` : 'cannot launch'})` : ctx.dataset.label),
    });
  },
};
