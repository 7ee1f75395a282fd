// HBM traffic of one attention head against sequence length: standard attention (writes and
// reads the N×N scores and probabilities), FlashAttention's Algorithm 1 with the block sizes
// its SRAM allows, and FlashAttention-2's loop order (queries outer: no O, l, m round trips). Both come from calc('flash-attention'): counted by executing the
// kernels where the size allows (the markers), by the closed form of the same count beyond.
import { formatSI } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';

// N from 64 to 2^20: powers of two (executed when small) and the points between them.
const [SRAM_MIN, SRAM_MAX] = [4096, 1048576];
const SEQS = Array.from({ length: 29 }, (_, i) => Math.round(64 * 2 ** (i / 2)));
// The lesson's SRAM: the 227 KiB of shared memory one thread block may use on an H100 (CUDA C++
// Programming Guide, compute capability 9.0: 228 KiB per SM, 227 KiB per block).
const H100_BLOCK_SMEM = 232448;
const HEAD_DIMS = [16, 32, 64, 128, 256];
// "8.5× less" or "2.0× more": standard ÷ flash read the right way round.
export const lessOrMore = (ratio) => (ratio >= 1 ? `${formatSI(ratio, '', 3)}× less` : `${formatSI(1 / ratio, '', 3)}× more`);

export default {
  id: 'flash-hbm-traffic',
  simulation: true, // executes kernels: redraw budget 50 ms
  title: 'HBM traffic: standard attention against FlashAttention',
  caption:
    'Bytes one attention head moves between HBM and the chip, against sequence length. Standard attention grows as N² whatever the SRAM; FlashAttention as N²d²/M, and FlashAttention-2’s loop order the same way with about two thirds of its bytes. Markers are counts from executing both kernels, lines the closed forms. The SRAM starts at the 227 KiB one H100 thread block may use. Double it and watch the FlashAttention lines drop by half at long sequences; raise the head dimension to 256 and see the advantage, about M/(3d²), vanish.',
  params: [
    { key: 'sram_bytes', label: 'On-chip SRAM M per thread block', from: ['flash-attention', 'sram_bytes'], min: SRAM_MIN, max: SRAM_MAX,
      default: H100_BLOCK_SMEM, scale: 'log' },
    { key: 'head_dim', label: 'Head dimension d', type: 'select', default: 64,
      options: HEAD_DIMS.map((v) => ({ value: v, label: String(v) })) },
    { key: 'dtype', label: 'Data type', from: ['flash-attention', 'dtype'], options: ['fp32', 'bf16', 'fp8-e4m3'] },
    { key: 'causal', label: 'Causal mask', from: ['flash-attention', 'causal'] },
  ],

  data(engine, p) {
    const points = SEQS.map((seq) => {
      const power = Number.isInteger(Math.log2(seq));
      const r = engine.calc('flash-attention', {
        seq, head_dim: p.head_dim, sram_bytes: p.sram_bytes, dtype: p.dtype, causal: p.causal, execute: power,
      });
      return {
        seq, executed: r.executed, standard: r.standard_hbm_bytes, flash: r.flash_hbm_bytes,
        formula_flash: r.formula_flash_hbm_bytes, ratio: r.hbm_ratio, scores: r.score_matrix_bytes,
        error: r.executed ? r.max_abs_error : null, block_rows: r.block_rows, block_cols: r.block_cols,
        passes: r.col_blocks, fa2: r.fa2_hbm_bytes,
      };
    });
    const last = points.at(-1);
    // The y axis holds the lines at every SRAM size and head dimension (flash traffic only falls
    // as M grows and only rises with d), so changing M or d moves the lines, not the axis.
    // Causal masking only skips tiles, so the unmasked counts bound both settings.
    const flashAt = (seq, sram_bytes, head_dim) => engine.calc('flash-attention', {
      seq, head_dim, sram_bytes, dtype: p.dtype, causal: false, execute: false,
    });
    const [dLo, dHi] = [HEAD_DIMS[0], HEAD_DIMS.at(-1)];
    const low = flashAt(SEQS[0], SRAM_MAX, dLo), high = flashAt(SEQS.at(-1), SRAM_MIN, dHi);
    const yRange = span([...points.flatMap((q) => [q.standard, q.flash, q.fa2, q.scores]),
      low.flash_hbm_bytes, low.fa2_hbm_bytes, low.score_matrix_bytes, high.flash_hbm_bytes, high.standard_hbm_bytes],
    { log: true, pad: 1.5 });
    const table = {
      columns: ['N', 'Standard (B)', 'FlashAttention (B)', 'FlashAttention-2 order (B)', 'Standard ÷ Flash', 'Executed',
        'Max |O_flash − O_naive|', 'B_r', 'B_c', 'Passes T_c'],
      rows: points.map((q) => [q.seq, q.standard, q.flash, q.fa2, q.ratio, q.executed ? 'yes' : 'no (closed form)',
        q.error ?? '–', q.block_rows, q.block_cols, q.passes]),
    };
    return { points, table, yRange, head_dim: p.head_dim, sram_bytes: p.sram_bytes, long_ratio: last.ratio,
      long_fa2_ratio: last.flash / last.fa2, blocks: [last.block_rows, last.block_cols] };
  },

  draw(data, theme) {
    const pts = (key, filter = () => true) => data.points.filter(filter).map((q) => ({ x: q.seq, y: q[key], q }));
    const curve = (label, points, colour, extra) => line(colour, { label, data: points, pointHoverRadius: 3, ...extra });
    // The executed counts are marks on their own formula's curve: the same colour (group).
    const marks = (label, points, colour, style, group) => series(colour, {
      label, data: points, showLine: false, pointStyle: style, pointRadius: 6, borderWidth: 2, group,
    });
    const executed = (q) => q.executed;
    const pick = colours(theme);
    const [standard, flash] = [pick('memory'), pick('compute')];
    const datasets = [
      curve('Standard attention: 4N² + 4Nd elements', pts('standard'), standard, { group: 'standard' }),
      curve(`FlashAttention, ${data.blocks[0]} × ${data.blocks[1]} tiles (${lessOrMore(data.long_ratio)} than standard at 1M)`,
        pts('flash'), flash, { group: 'flash' }),
      curve(`FlashAttention-2 loop order (${lessOrMore(data.long_fa2_ratio)} than FlashAttention at 1M)`, pts('fa2'), pick(),
        { borderDash: [8, 3] }),
      curve('N×N score matrix alone', pts('scores'), pick('muted'), { borderDash: [5, 4] }),
      marks('Standard, executed count', pts('standard', executed), standard, 'rect', 'standard'),
      marks('FlashAttention, executed count', pts('flash', executed), flash, 'triangle', 'flash'),
    ];
    return chart(theme, {
      datasets,
      scales: { x: log('Sequence length N (tokens)', { unit: '' }), y: log('HBM traffic per head (B)', { unit: 'B', range: data.yRange }) },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        return `N = ${q.seq}: standard ${formatSI(q.standard, 'B')}, flash ${formatSI(q.flash, 'B')} ` +
          `(${lessOrMore(q.ratio)}), FlashAttention-2 order ${formatSI(q.fa2, 'B')}` +
          `${q.executed ? `, executed, max error ${q.error.toExponential(1)}` : ''}`;
      },
    });
  },
};
