// Wave quantization: a grid of equal blocks on the SMs of one GPU. Three views of one
// calc('waves') result: the share of SM slot-time that is busy against grid size (a sawtooth
// that peaks at whole waves); a timeline of the chosen grid, one bar row per group of SMs with
// the same schedule (so a lone tail block gets a row of its own instead of one pixel of 132);
// and the kernel time in tile-times against grid size for one tile per block (data-parallel,
// or a persistent kernel looping over whole tiles) beside Stream-K's even split of the MAC
// iterations, with its fix-up cost.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series, line } from './shared/chart-config.js';

const NVIDIA = ['h100-sxm', 'a100-sxm-80gb', 'h200-sxm', 'b200', 'h100-pcie', 'l4'];

export default {
  id: 'wave-quantization',
  title: 'Blocks, SMs and waves',
  caption:
    'A grid of equal blocks runs in waves of SMs × blocks-per-SM slots; the last wave is usually partial and leaves SMs idle. Set the grid to exactly the number of SMs, then add one block and watch utilization halve; switch to the timeline to see the lone block of the second wave, then raise the grid and watch the tail matter less. The third view treats the blocks as matmul tiles: one tile per block (or a persistent kernel that loops over whole tiles) still takes two tile-times for one extra tile, while Stream-K splits every tile’s MAC iterations evenly over the SMs and pays a small fix-up instead.',
  params: [
    { key: 'hardware', label: 'GPU', from: ['waves', 'hardware'], options: NVIDIA },
    {
      key: 'view', label: 'View', type: 'select', default: 'curve',
      options: [
        { value: 'curve', label: 'Utilization against grid size' },
        { value: 'timeline', label: 'Blocks on the SMs over time' },
        { value: 'streamk', label: 'Tiles: one per block against Stream-K' },
      ],
    },
    { key: 'blocks', label: 'Blocks in the grid', from: ['waves', 'blocks'], min: 1, max: 20000, default: 160, scale: 'log' },
    { key: 'blocks_per_sm', label: 'Blocks per SM at once', from: ['waves', 'blocks_per_sm'], max: 32 },
    { key: 'iters_per_tile', label: 'Stream-K: MAC iterations per tile', from: ['waves', 'iters_per_tile'], max: 256, scale: 'log' },
    { key: 'fixup_iters', label: 'Stream-K: fix-up cost (iterations)', from: ['waves', 'fixup_iters'], max: 16 },
  ],

  data(engine, p) {
    const r = engine.calc('waves', { hardware: p.hardware, blocks: p.blocks, blocks_per_sm: p.blocks_per_sm,
      iters_per_tile: p.iters_per_tile, fixup_iters: p.fixup_iters });
    const name = engine.calc('hardware', { id: p.hardware }).name;
    const base = {
      view: p.view, name, blocks: p.blocks, sms: r.sms, perSm: r.blocks_per_sm, slots: r.slots, waves: r.waves,
      fullWaves: r.full_waves, lastBlocks: r.last_wave_blocks, utilization: r.utilization,
      lastUtilization: r.last_wave_utilization, blocksHigh: r.blocks_high, smsHigh: r.sms_high,
      smsBusyLast: r.sms_busy_last_wave, truncated: r.curve_truncated, streamK: r.stream_k,
    };
    if (p.view === 'streamk') {
      const at = (key) => r.curve.map((q) => ({ x: q.blocks, y: q[key] }));
      const dataParallel = at('data_parallel_tiles'), streamKTimes = at('stream_k_tiles');
      const ideal = [{ x: 0, y: 0 }, { x: r.curve.at(-1).blocks, y: r.curve.at(-1).blocks / r.slots }];
      return {
        ...base, dataParallel, streamKTimes, ideal,
        table: {
          columns: ['Grid size (tiles)', 'One tile per block (tile-times)', 'Stream-K (tile-times)', 'Perfect balance (tile-times)'],
          rows: r.curve.map((q) => [q.blocks, q.data_parallel_tiles, q.stream_k_tiles, q.blocks / r.slots]),
        },
      };
    }
    if (p.view === 'curve') {
      const curve = r.curve.map((q) => ({ x: q.blocks, y: 100 * q.utilization, waves: q.waves }));
      // Stream-K's busy share: perfect balance over its time, fix-ups counted as idle.
      const streamKCurve = r.curve.map((q) => ({ x: q.blocks, y: (100 * q.blocks) / r.slots / q.stream_k_tiles }));
      return {
        ...base, curve, streamKCurve,
        table: {
          columns: ['Grid size (blocks)', 'Waves', 'Utilization (%)', 'Stream-K utilization (%)'],
          rows: curve.map((q, i) => [q.x, q.waves, q.y, streamKCurve[i].y]),
        },
      };
    }
    // Timeline: SMs grouped by schedule (the full waves, then their load in the last wave).
    const partial = r.last_wave_blocks < r.slots;
    const lastStart = partial ? r.full_waves : r.waves;
    const lastOf = (s) => (s < r.sms_high ? r.blocks_high : r.blocks_high - 1);
    const groups = [];  // consecutive SMs with the same last-wave load
    for (let s = 0; s < r.sms; s++) {
      const n = partial ? lastOf(s) : 0;
      if (groups.length && groups.at(-1).n === n) groups.at(-1).to = s;
      else groups.push({ from: s, to: s, n });
    }
    const rowName = (g) => (g.from === g.to ? `SM ${g.from} (1 SM)` : `SMs ${g.from}–${g.to} (${g.to - g.from + 1} SMs)`);
    return {
      ...base, partial, lastStart, groups: groups.map((g) => ({ ...g, label: rowName(g) })),
      table: {
        columns: ['SMs', 'Full waves (all slots busy)', 'Blocks in the last wave', 'Idle slots in the last wave'],
        rows: groups.map((g) => [rowName(g), r.full_waves, partial ? g.n : 0, partial ? r.blocks_per_sm - g.n : 0]),
      },
    };
  },

  draw(data, theme) {
    const pct = (x) => `${x.toFixed(1)}%`;
    const summary = `${data.blocks} blocks on ${data.sms} SMs × ${data.perSm}: ${data.waves} wave${data.waves === 1 ? '' : 's'}, ${pct(100 * data.utilization)} busy`;
    const pick = colours(theme);
    const sk = data.streamK;
    if (data.view === 'curve') {
      const here = { x: data.blocks, y: 100 * data.utilization };
      const fullWaveGrids = data.curve.filter((q) => q.y === 100);
      return chart(theme, {
        datasets: [
          line(pick(), { label: `One block per tile: busy share, ${data.slots} slots per wave`, data: data.curve }),
          line(pick('compute'), { label: `Stream-K, ${sk.iters_per_tile} iterations per tile`, data: data.streamKCurve,
            borderDash: [6, 3] }),
          series(pick(), { label: 'Grids of whole waves (100%)', data: fullWaveGrids, pointStyle: 'triangle', pointRadius: 5, clip: false }),
          series(pick(), { label: `Your grid: ${summary}${data.truncated ? ' (beyond the plotted waves)' : ''}`, data: [here],
            pointStyle: 'star', pointRadius: 11, borderWidth: 3, clip: false }),
        ],
        scales: {
          x: linear('Blocks in the grid (count)', { range: [0, Math.max(data.curve.at(-1).x, data.blocks)] }),
          y: linear('Utilization (%)', { range: [0, 100], ticks: { stepSize: 20, callback: (v) => `${v}%` } }),
        },
        tooltip: (ctx) => `${ctx.raw.x} blocks: ${pct(ctx.raw.y)} busy`,
      });
    }
    if (data.view === 'streamk') {
      const here = (y) => [{ x: data.blocks, y }];
      const xMax = Math.max(data.dataParallel.at(-1).x, data.blocks);
      return chart(theme, {
        datasets: [
          line(pick(), { label: 'One tile per block (or persistent): ceil(tiles ÷ slots)', data: data.dataParallel }),
          line(pick('compute'), { label: 'Stream-K: iterations split evenly, + fix-ups', data: data.streamKTimes, borderDash: [6, 3] }),
          line(pick('muted'), { label: 'Perfect balance: tiles ÷ slots', data: data.ideal, borderDash: [2, 3], borderWidth: 1 }),
          series(pick(), { label: `Your grid, one tile per block: ${sk.data_parallel_tiles}`, data: here(sk.data_parallel_tiles),
            pointStyle: 'star', pointRadius: 11, borderWidth: 3, clip: false }),
          series(pick(), { label: `Your grid, Stream-K: ${sk.stream_k_tiles.toFixed(2)} (${sk.speedup.toFixed(2)}× faster)`, data: here(sk.stream_k_tiles),
            pointStyle: 'rectRot', pointRadius: 8, borderWidth: 2, clip: false }),
        ],
        scales: {
          x: linear('Output tiles in the matmul (count)', { range: [0, xMax] }),
          y: linear('Kernel time (tile-times: one tile on one SM)', { range: [0, Math.ceil(xMax / data.slots)], ticks: { precision: 0 } }),
        },
        tooltip: (ctx) => `${ctx.raw.x} tiles: ${ctx.raw.y.toFixed(3)} tile-times`,
      });
    }
    // Timeline: horizontal floating bars, one row per group of SMs with the same schedule, and
    // a last row for the same tiles under Stream-K.
    const groups = data.groups;
    const labels = [...groups.map((g) => g.label), `Stream-K, all ${data.sms} SMs`];
    const W = data.waves;
    const rows = (pred, span) => labels.map((_, i) => (i < groups.length && pred(groups[i]) ? span : null));
    const last = [data.lastStart, W];
    const bar = (label, values, fill) => series(fill, {
      label, data: values, borderWidth: 1, borderColor: theme.background, grouped: false, barPercentage: 0.9, categoryPercentage: 1,
    });
    // Each kind of bar in its own colour, and only the kinds this grid has in the legend.
    const datasets = [bar('Full waves: every slot busy', rows(() => data.fullWaves > 0, [0, data.lastStart]), pick())];
    if (data.partial) {
      datasets.push(
        bar('Last wave: every slot of the SM busy', rows((g) => g.n === data.perSm, last), pick()),
        bar('Last wave: some slots idle', rows((g) => g.n > 0 && g.n < data.perSm, last), pick()),
        bar('Last wave: SM idle', rows((g) => g.n === 0, last), theme.grid),
      );
    }
    for (let i = datasets.length - 1; i > 0; i--) if (datasets[i].data.every((v) => v === null)) datasets.splice(i, 1);
    const skRow = (span) => labels.map((_, i) => (i === groups.length ? span : null));
    const macEnd = sk.iters_per_worker / sk.iters_per_tile;
    datasets.push(bar(`Stream-K: ${sk.iters_per_worker} MAC iterations per SM (one tile has ${sk.iters_per_tile})`, skRow([0, macEnd]), pick('compute')));
    if (sk.fixup_iters > 0) datasets.push(bar(`Stream-K: ${sk.fixups} fix-up${sk.fixups === 1 ? '' : 's'} (assumed cost)`,
      skRow([macEnd, sk.stream_k_tiles]), pick('muted')));
    return chart(theme, {
      type: 'bar', labels, datasets, indexAxis: 'y',
      scales: {
        x: linear(`Time (block durations): ${data.waves} wave${data.waves === 1 ? '' : 's'}, ${pct(100 * data.utilization)} busy; Stream-K ${sk.stream_k_tiles.toFixed(2)}`,
          { range: [0, Math.max(W, Math.ceil(sk.stream_k_tiles))], ticks: { precision: 0 } }),
        y: category({ reverse: false, ticks: { color: theme.muted }, grid: { display: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: {
        filter: (ctx) => ctx.raw !== null,
        callbacks: {
          label: (ctx) => {
            const i = ctx.dataIndex;
            if (i === groups.length) return `Stream-K: ${ctx.dataset.label.replace('Stream-K: ', '')}, until ${ctx.raw[1].toFixed(2)}`;
            const g = groups[i];
            if (ctx.datasetIndex === 0) return `${g.label}: ${data.fullWaves} full wave${data.fullWaves === 1 ? '' : 's'}`;
            return `${g.label}: ${g.n} of ${data.perSm} slots busy in the last wave (${formatSI(100 * data.lastUtilization, '')}% of all slots)`;
          },
        },
      },
    });
  },
};
