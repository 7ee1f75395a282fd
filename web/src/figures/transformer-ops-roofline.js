// Every op of one unfused transformer block on the roofline: each op's share of the block's
// roofline time beside its share of the FLOPs, coloured and labelled by what bounds it; or
// every op placed on the roofline itself, under the roof of the units that run it (matmuls:
// the dtype's tensor-core peak; elementwise ops: the fp32 CUDA-core peak, the rule of the
// roofline-plot figure too). One call to calc('transformer-ops'); the engine counts FLOPs,
// bytes, time, the peak each op runs at, and its bound.
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, category, colours, series, line } from './shared/chart-config.js';
import { roofNames, mergeCloseLabels } from './shared/compute-roofs.js';

// Readable names for the engine's op ids; an unknown id is shown as it is.
const NAMES = {
  ln1: 'Layer norm 1', qkv: 'QKV projection', scores: 'Scores QKᵀ', softmax: 'Softmax',
  attn_v: 'Attention × V', out_proj: 'Output projection', residual1: 'Residual add 1',
  ln2: 'Layer norm 2', mlp_up: 'MLP up', activation: 'Activation', mlp_down: 'MLP down',
  residual2: 'Residual add 2',
};

// Families that a shared label names as one when all their members sit on one spot.
const FAMILIES = {
  'Weight matmuls': [NAMES.qkv, NAMES.out_proj, NAMES.mlp_up, NAMES.mlp_down],
  'Attention matmuls': [NAMES.scores, NAMES.attn_v],
  'Layer norms': [NAMES.ln1, NAMES.ln2],
  'Residual adds': [NAMES.residual1, NAMES.residual2],
};

export default {
  id: 'transformer-ops-roofline',
  title: 'Where a transformer block spends its time',
  caption:
    'Share of one block’s roofline time taken by each op (coloured by what bounds it) beside its share of the FLOPs. Matmuls run at the tensor-core peak, elementwise ops at the far lower CUDA-core (vector) peak; the second view draws both roofs with every op under its own (for the TPUs the table gives only the matrix unit’s rate, so every op sits under that one roof, which their vector unit may not reach). In prefill, find the ops whose time share far exceeds their FLOP share; switch to decode and every op turns memory-bound, then raise the batch to bring the weight matmuls back to compute-bound.',
  params: [
    {
      key: 'view', label: 'View', type: 'select', default: 'shares',
      options: [
        { value: 'shares', label: 'Share of time and of FLOPs per op' },
        { value: 'roofline', label: 'Every op on the roofline, both roofs' },
      ],
    },
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
    const peakOf = (kind) => ops.find((o) => o.kind === kind)?.peak_flops;
    return {
      view: p.view, phase: p.phase, dtype: p.dtype, ops, total_time_s: r.total_time_s, total_flops: r.total_flops,
      ridge_intensity: r.ridge_intensity, bandwidth: r.bandwidth_Bps, tensorPeak: peakOf('matmul'),
      vectorPeak: peakOf('elementwise'), table, names: roofNames(engine.calc('hardware', { id: p.hardware }).vendor),
    };
  },

  draw(data, theme) {
    if (data.view === 'roofline') return drawRoofline(data, theme);
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

// The ops as points on log-log roofline axes, under the two flat roofs.
function drawRoofline(data, theme) {
  // A kernel's colour is its roof's: memory- or compute-bound (group names that meaning).
  const pick = colours(theme);
  const [memory, compute] = [pick('memory'), pick('compute')];
  const xs = data.ops.map((o) => o.intensity);
  const lo = Math.min(0.01, ...xs) / 2, hi = Math.max(1e4, ...xs) * 2;
  const B = data.bandwidth, P = data.tensorPeak, V = data.vectorPeak;
  // Ops whose markers coincide (QKᵀ and attention × V; MLP up and down) share one label.
  const labelled = mergeCloseLabels(data.ops.map((o) => ({ x: o.intensity, y: Math.min(o.peak_flops, o.intensity * B), o, label: o.name })),
    1.3, FAMILIES);
  const pts = (pred) => labelled.filter((q) => pred(q.o));
  const datasets = [
    line(memory, { label: `Memory roof: ${formatSI(B, 'B/s')} × intensity`, data: [{ x: lo, y: lo * B }, { x: P / B, y: P }], group: 'memory' }),
    line(compute, { label: V && V < P ? `${data.names.matrix} roof: ${formatSI(P, 'FLOP/s')} (${data.dtype}), matmuls`
      : data.dtype === 'fp32' ? `Compute roof: ${formatSI(P, 'FLOP/s')} (fp32), every op (vector units)`
        : `${data.names.matrix} roof: ${formatSI(P, 'FLOP/s')} (${data.dtype}), every op (no separate vector rate in the table)`, data: [{ x: P / B, y: P }, { x: hi, y: P }], group: 'compute' }),
  ];
  if (V && V < P) {
    datasets.push(line(pick(), { label: `${data.names.vector} roof: ${formatSI(V, 'FLOP/s')} fp32, elementwise ops`, data: [{ x: V / B, y: V }, { x: hi, y: V }],
      borderDash: [8, 4] }));
  }
  datasets.push(
    series(memory, { label: 'Memory-bound ops', data: pts((o) => o.bound === 'memory'), pointStyle: 'circle', pointRadius: 6, pointLabels: true, group: 'memory' }),
    series(compute, { label: 'Compute-bound ops', data: pts((o) => o.bound === 'compute'), pointStyle: 'rectRot', pointRadius: 7, pointLabels: true, group: 'compute' }),
  );
  return chart(theme, {
    datasets,
    scales: {
      x: log('Arithmetic intensity (FLOP/B)', { unit: '', range: [lo, hi] }),
      // Room above the flat roof, so the matmuls' labels can sit clear of every roof line.
      y: log('Attainable performance (FLOP/s)', { unit: 'FLOP/s', range: [lo * B / 2, 10 * P] }),
    },
    tooltip: (ctx) => {
      const o = ctx.raw.o;
      if (!o) return `${ctx.dataset.label}: ${formatSI(ctx.raw.y, 'FLOP/s')} at ${formatSI(ctx.raw.x, 'FLOP/B')}`;
      return `${o.name} (${o.kind === 'matmul' ? data.names.matrixUnits : data.names.vectorUnits.replace(' (vector)', '')}): ${formatSI(o.intensity, 'FLOP/B')}, ` +
        `${formatSI(o.time_s, 's')}, ${o.bound}-bound`;
    },
  });
}

