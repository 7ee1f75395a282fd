// Memory of the materialized attention score matrix against sequence length, for one layer,
// all from calc 'attention-scores': S = QKᵀ (seq² · heads · batch elements in the dtype), S
// together with its softmax P (with_probabilities_bytes), and what FlashAttention keeps
// instead: the logsumexp of each query row, n numbers per head in fp32 (logsumexp_bytes);
// beside the accelerator's HBM (the hardware table). Log-log axes over fixed ranges, so that
// moving the heads, the batch or the dtype moves the lines, not the axes.
import { formatSI, formatDecimal, formatQuantity } from '../runtime/format.js';
import { chart, log, colours, series } from './shared/chart-config.js';

const SEQS = Array.from({ length: 13 }, (_, i) => 2 ** (8 + i)); // 256 .. 1,048,576
const DTYPES = ['fp32', 'bf16', 'fp8-e4m3'];
const X_RANGE = [SEQS[0], SEQS.at(-1)];
// The y range holds every line at every setting: the logsumexp at n = 256 for one head and one
// sequence (1,024 B), S + P at n = 2^20 for 128 heads, 64 sequences in fp32 (2^56 ≈ 7.2e16 B).
const Y_RANGE = [1e3, 1e17];

export default {
  id: 'score-matrix-memory',
  title: 'The n × n score matrix against HBM',
  caption:
    'Bytes of one layer’s score matrices when attention materializes them: S = QKᵀ and its softmax P, one n × n matrix each per head and sequence, growing as n². The dotted line is the accelerator’s HBM; the marked point is the longest sequence whose S and P still fit in it, with nothing else in memory. FlashAttention never writes S or P to HBM: FlashAttention-2 keeps one logsumexp per query row (the first version two numbers, the maximum and the sum), which grows as n. Raise the heads or the batch and watch the crossing move left; switch the dtype; change the accelerator. The axes stay fixed.',
  params: [
    { key: 'heads', label: 'Heads per layer', from: ['attention-scores', 'heads'], min: 1, max: 128, default: 32, scale: 'log' },
    { key: 'batch', label: 'Sequences in the batch', from: ['attention-scores', 'batch'], min: 1, max: 64, default: 1, scale: 'log' },
    { key: 'dtype', label: 'Data type of S and P', from: ['attention-scores', 'dtype'], options: DTYPES, default: 'bf16' },
    // Through a field named 'hardware', so the select shows each accelerator's name, not its id.
    { key: 'hardware', label: 'Accelerator', from: ['attention-backward-memory', 'hardware'], default: 'h100-sxm' },
  ],

  data(engine, p) {
    const { name, hbm_bytes: hbm } = engine.calc('hardware', { id: p.hardware });
    const at = (seq) => {
      const s = engine.calc('attention-scores', { seq, heads: p.heads, batch: p.batch, dtype: p.dtype });
      return { seq, s: s.bytes, p: s.with_probabilities_bytes - s.bytes, sp: s.with_probabilities_bytes, lse: s.logsumexp_bytes, hbm };
    };
    const points = SEQS.map(at);
    // The longest n whose S and P fit: S + P = 2 · heads · batch · size · n², from the engine's
    // bytes at n = 1, checked at n and n + 1.
    const perSquare = at(1).sp;
    let fit = Math.floor(Math.sqrt(hbm / perSquare));
    while (fit > 1 && at(fit).sp > hbm) fit -= 1;
    while (at(fit + 1).sp <= hbm) fit += 1;
    const fitPoint = at(fit);
    const table = {
      columns: ['Sequence length n (tokens)', 'S = QKᵀ (B)', 'P = softmax(S) (B)', 'S and P (B)', 'FlashAttention-2 logsumexp (B)',
        'S and P ÷ HBM', 'S and P ÷ logsumexp'],
      rows: points.map((q) => [q.seq, q.s, q.p, q.sp, q.lse, q.sp / q.hbm, q.sp / q.lse]),
    };
    return { heads: p.heads, batch: p.batch, dtype: p.dtype, hardware: p.hardware, name, hbm, points, fit, fit_point: fitPoint, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const pts = (key) => data.points.map((q) => ({ x: q.seq, y: q[key], q }));
    const curve = (label, points, colour, style, extra = {}) => series(colour, {
      label, data: points, showLine: true, borderWidth: 2, pointStyle: style, pointRadius: 3, ...extra,
    });
    const lastLabel = (text) => (_raw, i) => (i === data.points.length - 1 ? text : '');
    const last = data.points.at(-1);
    const datasets = [
      curve('S = QKᵀ', pts('s'), pick('memory'), 'rect',
        { pointLabels: lastLabel(`S: ${formatSI(last.s, 'B')}`) }),
      curve('S and P (standard attention)', pts('sp'), pick(), 'circle',
        { pointLabels: lastLabel(`S + P: ${formatSI(last.sp, 'B')}`) }),
      curve('FlashAttention-2: logsumexp, n per head (fp32)', pts('lse'), pick('compute'), 'triangle',
        { pointLabels: lastLabel(`logsumexp: ${formatSI(last.lse, 'B')}`) }),
      curve(`HBM of the ${data.name}: ${formatQuantity(data.hbm, 'GiB', 0)}`,
        [{ x: X_RANGE[0], y: data.hbm }, { x: X_RANGE[1], y: data.hbm }], pick('muted'), 'line',
        { borderDash: [2, 3], pointRadius: 0 }),
      series(pick('text'), {
        label: 'Longest n whose S and P fit in HBM', data: [{ x: data.fit, y: data.fit_point.sp }], pointStyle: 'crossRot', pointRadius: 7,
        borderWidth: 2, pointLabels: () => `S and P fit up to n = ${formatDecimal(data.fit, 0)}`,
      }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Sequence length n (tokens)', { unit: '', range: X_RANGE }),
        y: log(`One layer, ${data.heads} heads × ${data.batch} ${data.batch === 1 ? 'sequence' : 'sequences'}, ${data.dtype} (B)`, { unit: 'B', range: Y_RANGE }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        return `n = ${formatDecimal(q.seq, 0)}: S ${formatSI(q.s, 'B')}, S and P ${formatSI(q.sp, 'B')}, logsumexp ${formatSI(q.lse, 'B')}`;
      },
    });
  },
};
