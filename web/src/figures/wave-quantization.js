// Wave quantization: a grid of equal blocks on the SMs of one GPU. Two views of one
// calc('waves') result: the share of SM slot-time that is busy against grid size (a sawtooth
// that peaks at whole waves), and a timeline of the chosen grid, one bar row per SM, with the
// last, partial wave placed breadth first.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series, line } from './shared/chart-config.js';

const NVIDIA = ['h100-sxm', 'a100-sxm-80gb', 'h200-sxm', 'b200', 'h100-pcie', 'l4'];

export default {
  id: 'wave-quantization',
  title: 'Blocks, SMs and waves',
  caption:
    'A grid of equal blocks runs in waves of SMs × blocks-per-SM slots; the last wave is usually partial and leaves SMs idle. Set the grid to exactly the number of SMs, then add one block and watch utilization halve; switch to the timeline to see the lone block of the second wave, then raise the grid and watch the tail matter less.',
  params: [
    { key: 'hardware', label: 'GPU', from: ['waves', 'hardware'], options: NVIDIA },
    {
      key: 'view', label: 'View', type: 'select', default: 'curve',
      options: [
        { value: 'curve', label: 'Utilization against grid size' },
        { value: 'timeline', label: 'Blocks on the SMs over time' },
      ],
    },
    { key: 'blocks', label: 'Blocks in the grid', from: ['waves', 'blocks'], min: 1, max: 20000, default: 160, scale: 'log' },
    { key: 'blocks_per_sm', label: 'Blocks per SM at once', from: ['waves', 'blocks_per_sm'], max: 32 },
  ],

  data(engine, p) {
    const r = engine.calc('waves', { hardware: p.hardware, blocks: p.blocks, blocks_per_sm: p.blocks_per_sm });
    const name = engine.calc('hardware', { id: p.hardware }).name;
    const base = {
      view: p.view, name, blocks: p.blocks, sms: r.sms, perSm: r.blocks_per_sm, slots: r.slots, waves: r.waves,
      fullWaves: r.full_waves, lastBlocks: r.last_wave_blocks, utilization: r.utilization,
      lastUtilization: r.last_wave_utilization, blocksHigh: r.blocks_high, smsHigh: r.sms_high,
      smsBusyLast: r.sms_busy_last_wave, truncated: r.curve_truncated,
    };
    if (p.view === 'curve') {
      const curve = r.curve.map((q) => ({ x: q.blocks, y: 100 * q.utilization, waves: q.waves }));
      return {
        ...base, curve,
        table: {
          columns: ['Grid size (blocks)', 'Waves', 'Utilization (%)'],
          rows: curve.map((q) => [q.x, q.waves, q.y]),
        },
      };
    }
    // Timeline: per SM, the full waves, then what it runs in the last wave (if that is partial).
    const partial = r.last_wave_blocks < r.slots;
    const lastStart = partial ? r.full_waves : r.waves;
    const lastOf = (s) => (s < r.sms_high ? r.blocks_high : r.blocks_high - 1);
    const groups = [];  // consecutive SMs with the same last-wave load
    for (let s = 0; s < r.sms; s++) {
      const n = partial ? lastOf(s) : 0;
      if (groups.length && groups.at(-1).n === n) groups.at(-1).to = s;
      else groups.push({ from: s, to: s, n });
    }
    return {
      ...base, partial, lastStart, lastBySm: Array.from({ length: r.sms }, (_, s) => (partial ? lastOf(s) : 0)),
      table: {
        columns: ['SMs', 'Full waves (all slots busy)', 'Blocks in the last wave', 'Idle slots in the last wave'],
        rows: groups.map((g) => [g.from === g.to ? `SM ${g.from}` : `SM ${g.from}–${g.to}`, r.full_waves,
          partial ? g.n : 0, partial ? r.blocks_per_sm - g.n : 0]),
      },
    };
  },

  draw(data, theme) {
    const pct = (x) => `${x.toFixed(1)}%`;
    const summary = `${data.blocks} blocks on ${data.sms} SMs × ${data.perSm}: ${data.waves} wave${data.waves === 1 ? '' : 's'}, ${pct(100 * data.utilization)} busy`;
    const pick = colours(theme);
    if (data.view === 'curve') {
      const here = { x: data.blocks, y: 100 * data.utilization };
      const fullWaveGrids = data.curve.filter((q) => q.y === 100);
      return chart(theme, {
        datasets: [
          line(pick(), { label: `Utilization (busy share of slot-time), ${data.slots} slots per wave`, data: data.curve }),
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
    // Timeline: horizontal floating bars, one row per SM.
    const labels = Array.from({ length: data.sms }, (_, s) => `SM ${s}`);
    const W = data.waves;
    const rows = (pred, span) => labels.map((_, s) => (pred(s) ? span : null));
    const last = [data.lastStart, W];
    const n = (s) => data.lastBySm[s];
    const bar = (label, values, fill, group) => series(fill, {
      label, data: values, borderWidth: 0, grouped: false, barPercentage: 1, categoryPercentage: 1, group,
    });
    const busy = pick(); // full waves and the full SMs of the last wave: every slot busy
    const datasets = [bar('Full waves: every slot busy', rows(() => data.fullWaves > 0, [0, data.lastStart]), busy, 'busy')];
    if (data.partial) {
      datasets.push(
        bar('Last wave: every slot busy', rows((s) => n(s) === data.perSm, last), busy, 'busy'),
        bar('Last wave: some slots idle', rows((s) => n(s) > 0 && n(s) < data.perSm, last), pick()),
        bar('Last wave: SM idle', rows((s) => n(s) === 0, last), theme.grid),
      );
    }
    return chart(theme, {
      type: 'bar', labels, datasets, indexAxis: 'y',
      scales: {
        x: linear(`Time (block durations): ${data.waves} wave${data.waves === 1 ? '' : 's'}, ${pct(100 * data.utilization)} busy`,
          { range: [0, W], ticks: { precision: 0 } }),
        y: category({ reverse: false, ticks: { color: theme.muted, autoSkip: true, maxTicksLimit: 12 }, grid: { display: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: {
        filter: (ctx) => ctx.raw !== null,
        callbacks: {
          label: (ctx) => {
            const s = ctx.dataIndex;
            if (ctx.datasetIndex === 0) return `${labels[s]}: ${data.fullWaves} full wave${data.fullWaves === 1 ? '' : 's'}`;
            return `${labels[s]}: ${n(s)} of ${data.perSm} slots busy in the last wave (${formatSI(100 * data.lastUtilization, '')}% of all slots)`;
          },
        },
      },
    });
  },
};
