// What attention keeps for its backward pass, against sequence length: the N×N probabilities
// P (standard) against the logsumexp L, N numbers per head (FlashAttention), beside the Q, K,
// V, O both keep and the accelerator's HBM; and the FLOPs of recomputing S = Q·Kᵀ. All from
// calc('attention-backward-memory'); one extra call executes both backward passes on a small
// head and reports how far apart their gradients are.
import { formatSI, formatQuantity, formatFixed } from '../runtime/format.js';
import { chart, log, colours, series } from './shared/chart-config.js';

const sci = (x) => (x === 0 ? '0' : x.toExponential(1));
const SEQS = Array.from({ length: 11 }, (_, i) => 2 ** (9 + i)); // 512 .. 524,288

export default {
  id: 'attention-backward-memory',
  simulation: true, // executes kernels: redraw budget 50 ms
  title: 'Backward pass: store P or recompute it',
  caption:
    'Memory the backward pass needs from the forward pass, summed over layers, heads and batch: the stored probabilities P grow as N² and pass the HBM capacity at a few thousand tokens, while the logsumexp grows as N. The dashed line (right axis) is the price: the FLOPs of recomputing Q·Kᵀ. Change the accelerator and the layer count and find the sequence length where storing P stops fitting.',
  params: [
    { key: 'dtype', label: 'Data type', from: ['attention-backward-memory', 'dtype'], options: ['fp32', 'bf16', 'fp8-e4m3'] },
    { key: 'layers', label: 'Layers', from: ['attention-backward-memory', 'layers'], min: 1, max: 128, default: 32 },
    { key: 'heads', label: 'Heads per layer', from: ['attention-backward-memory', 'heads'], min: 1, max: 128, scale: 'log' },
    { key: 'batch', label: 'Sequences in the batch', from: ['attention-backward-memory', 'batch'], min: 1, max: 64, scale: 'log' },
    { key: 'head_dim', label: 'Head dimension d', type: 'select', default: 128,
      options: [64, 128, 256].map((v) => ({ value: v, label: String(v) })) },
    { key: 'hardware', label: 'Accelerator', from: ['attention-backward-memory', 'hardware'] },
  ],

  data(engine, p) {
    const base = { head_dim: p.head_dim, heads: p.heads, batch: p.batch, layers: p.layers, dtype: p.dtype, hardware: p.hardware };
    const points = SEQS.map((seq) => {
      const r = engine.calc('attention-backward-memory', { ...base, seq, execute: false });
      return {
        seq, store_p: r.store_p_bytes, lse: r.logsumexp_bytes, qkvo: r.qkvo_bytes, extra_flops: r.extra_flops,
        recompute_s: r.recompute_time_s, read_p_s: r.read_p_time_s, hbm: r.hbm_capacity_bytes, fraction: r.store_p_fraction_of_hbm,
      };
    });
    // Execute both backward passes on one small head (the engine's cap: N²(d + 8) <= 2^19).
    const small = 2 ** Math.floor(Math.log2(Math.sqrt(2 ** 19 / (p.head_dim + 8))));
    const check = engine.calc('attention-backward-memory', { ...base, seq: small, heads: 1, batch: 1, layers: 1 });
    const overflow = points.find((q) => q.store_p > q.hbm);
    const table = {
      columns: ['N', 'Stored P (B)', 'Logsumexp L (B)', 'Q, K, V, O (B)', 'P ÷ HBM capacity', 'Extra FLOPs to recompute',
        'Recompute time (s)', 'Time to read P once (s)'],
      rows: points.map((q) => [q.seq, q.store_p, q.lse, q.qkvo, q.fraction, q.extra_flops, q.recompute_s, q.read_p_s]),
    };
    return {
      points, hbm: points[0].hbm, overflow_seq: overflow ? overflow.seq : null, check_seq: small,
      check_diff: check.grad_max_abs_diff, check_executed: check.executed, table,
    };
  },

  draw(data, theme) {
    const pts = (key) => data.points.map((q) => ({ x: q.seq, y: q[key], q }));
    const curve = (label, points, colour, style, extra = {}) => series(colour, {
      label, data: points, showLine: true, borderWidth: 2, pointStyle: style, pointRadius: 4, yAxisID: 'y', ...extra,
    });
    const first = data.points[0].seq, last = data.points.at(-1).seq;
    const pick = colours(theme);
    const datasets = [
      curve(`Stored P${data.overflow_seq ? ` (> HBM from N = ${formatFixed(data.overflow_seq, 0)})` : ''}`,
        pts('store_p'), pick('memory'), 'rect'),
      curve(data.check_executed ? `Logsumexp L (grads match to ${sci(data.check_diff)})` : 'Logsumexp L (backward passes run only for d ≤ 128)',
        pts('lse'), pick('compute'), 'triangle'),
      curve('Q, K, V, O (both keep)', pts('qkvo'), pick(), 'circle', { pointRadius: 3 }),
      curve(`HBM capacity ${formatQuantity(data.hbm, 'GiB', 0)}`, [{ x: first, y: data.hbm }, { x: last, y: data.hbm }], pick('muted'), 'line',
        { borderDash: [2, 3], pointRadius: 0 }),
      curve('Extra FLOPs to recompute (right axis)', pts('extra_flops'), pick(), 'crossRot',
        { yAxisID: 'y1', borderDash: [6, 3], pointRadius: 4 }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Sequence length N (tokens)', { unit: '' }),
        y: log('Kept for the backward pass (B)', { unit: 'B', position: 'left' }),
        y1: log('Extra FLOPs (FLOP)', { unit: 'FLOP', position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        return `N = ${q.seq}: P ${formatSI(q.store_p, 'B')}, L ${formatSI(q.lse, 'B')}, recompute ` +
          `${formatSI(q.extra_flops, 'FLOP')} (${formatSI(q.recompute_s, 's')}) vs reading P ${formatSI(q.read_p_s, 's')}`;
      },
    });
  },
};
