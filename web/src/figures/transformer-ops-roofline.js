// Every op of one unfused transformer block on the roofline: each op's share of the block's
// roofline time beside its share of the FLOPs, coloured and labelled by what bounds it.
// One call to calc('transformer-ops'); the engine counts FLOPs, bytes, time and bound.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

// Readable names for the engine's op ids; an unknown id is shown as it is.
const NAMES = {
  ln1: 'Layer norm 1', qkv: 'QKV projection', scores: 'Scores QKᵀ', softmax: 'Softmax',
  attn_v: 'Attention × V', out_proj: 'Output projection', residual1: 'Residual add 1',
  ln2: 'Layer norm 2', mlp_up: 'MLP up', activation: 'Activation', mlp_down: 'MLP down',
  residual2: 'Residual add 2',
};

export default {
  id: 'transformer-ops-roofline',
  title: 'Where a transformer block spends its time',
  caption:
    'Share of one block’s roofline time taken by each op (coloured by what bounds it) beside its share of the FLOPs. In prefill, find the ops whose time share far exceeds their FLOP share; switch to decode and every op turns memory-bound, then raise the batch to bring the weight matmuls back to compute-bound.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['transformer-ops', 'hardware'] },
    { key: 'dtype', label: 'Data type', from: ['transformer-ops', 'dtype'], options: ['fp32', 'tf32', 'bf16', 'fp16', 'fp8-e4m3', 'int8'] },
    { key: 'phase', label: 'Phase', from: ['transformer-ops', 'phase'] },
    { key: 'hidden', label: 'Hidden width d', from: ['transformer-ops', 'hidden'], scale: 'log' },
    { key: 'heads', label: 'Attention heads', from: ['transformer-ops', 'heads'], scale: 'log' },
    { key: 'seq', label: 'Sequence length', from: ['transformer-ops', 'seq'], scale: 'log' },
    { key: 'batch', label: 'Batch (sequences)', from: ['transformer-ops', 'batch'], scale: 'log' },
  ],

  data(engine, p) {
    const r = engine.calc('transformer-ops', {
      hidden: p.hidden, heads: p.heads, seq: p.seq, batch: p.batch, phase: p.phase, dtype: p.dtype, hardware: p.hardware,
    });
    const ops = r.ops.map((o) => ({
      id: o.name, name: NAMES[o.name] ?? o.name, kind: o.kind, flops: o.flops, bytes: o.bytes,
      intensity: o.intensity, time_s: o.time_s, bound: o.bound, peak_flops: o.peak_flops,
      time_pct: 100 * o.share, flops_pct: (100 * o.flops) / r.total_flops,
    }));
    const table = {
      columns: ['Op', 'Kind', 'Work (FLOP)', 'Traffic (B)', 'Intensity (FLOP/B)', 'Peak used (FLOP/s)', 'Time (s)',
        'Share of time (%)', 'Share of FLOPs (%)', 'Bound'],
      rows: ops.map((o) => [o.name, o.kind, o.flops, o.bytes, o.intensity, o.peak_flops, o.time_s, o.time_pct, o.flops_pct, o.bound]),
    };
    return {
      phase: p.phase, dtype: p.dtype, ops, total_time_s: r.total_time_s, total_flops: r.total_flops,
      ridge_intensity: r.ridge_intensity, table,
    };
  },

  draw(data, theme) {
    const share = (bound) => data.ops.map((o) => (o.bound === bound ? o.time_pct : null));
    const bar = (label, values, colour, stack) => series(colour, { label, data: values, stack, borderWidth: 1, barPercentage: 0.9 });
    const pick = colours(theme);
    const datasets = [
      bar('Share of time, memory-bound', share('memory'), pick('memory'), 'time'),
      bar('Share of time, compute-bound', share('compute'), pick('compute'), 'time'),
      // FLOP share: a pale bar with a strong outline, in its own stack beside the time bar.
      { ...bar('Share of FLOPs', data.ops.map((o) => o.flops_pct), theme.grid, 'flops'), borderColor: theme.muted, borderWidth: 2 },
    ];
    const phase = data.phase === 'decode' ? 'one decode step' : 'prefill';
    return chart(theme, {
      type: 'bar', labels: data.ops.map((o) => o.name), datasets, indexAxis: 'y',
      scales: {
        x: linear(`Share of block (%) — ${phase} takes ${formatSI(data.total_time_s, 's')}`,
          { stacked: true, beginAtZero: true, ticks: { callback: (v) => `${v}%` } }),
        y: category({ stacked: true }),
      },
      legend: { usePointStyle: false },
      tooltip: {
        filter: (ctx) => ctx.raw !== null,
        callbacks: {
          label: (ctx) => {
            const o = data.ops[ctx.dataIndex];
            if (ctx.dataset.stack === 'flops') return `${o.flops_pct.toFixed(1)}% of FLOPs (${formatSI(o.flops, 'FLOP')})`;
            return `${o.time_pct.toFixed(1)}% of time (${formatSI(o.time_s, 's')}), ` +
              `intensity ${formatSI(o.intensity, 'FLOP/B')}, ${o.bound}-bound`;
          },
        },
      },
    });
  },
};
