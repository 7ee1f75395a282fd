// Global-memory traffic of a tiled matmul C = A·B (M = N = K) against the tile width
// T = BM = BN: counted by executing the tiled loop in the engine (small sizes) and given by
// the closed form s·(M·K·ceil(N/T) + K·N·ceil(M/T) + M·N), beside the naive kernel's traffic
// and the compulsory minimum. Tiles whose shared memory, stages·(2·T·BK)·s, exceeds what one
// block may use on the GPU are marked. All numbers from calc('tiled-matmul').
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

const TILES = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const CHECKED_TILE = 32; // the call that also runs the naive kernel and compares values
const SIZES = [
  { value: 48, label: '48 (executed)' },
  { value: 100, label: '100 (executed; tiles do not divide it)' },
  { value: 128, label: '128 (executed)' },
  { value: 4096, label: '4,096 (closed form)' },
  { value: 16384, label: '16,384 (closed form)' },
];
// GPUs whose table row has a shared-memory size.
const GPUS = ['a100-sxm-80gb', 'h100-sxm', 'h100-pcie', 'h200-sxm', 'b200', 'mi300x', 'l4'];
// The calculator's fields -> this figure's controls (for error messages).
const FIELD = { m: 'size', n: 'size', k: 'size' };

export default {
  id: 'tiled-matmul-traffic',
  simulation: true, // executes kernels: redraw budget 50 ms
  title: 'Tiled matmul: global-memory traffic against tile size',
  caption:
    'Bytes a tiled matmul moves to and from global memory as the tile width T grows, counted by running the tiled loop (hollow circles, small sizes) and from the formula (line), between the naive kernel (top) and the compulsory minimum (bottom). Each doubling of T halves the traffic until the tiles outgrow shared memory (crosses, right of the dashed limit). Raise the stages to 3 and switch to the A100: the limit moves left.',
  params: [
    { key: 'hardware', label: 'GPU', from: ['tiled-matmul', 'hardware'], options: GPUS },
    { key: 'size', label: 'Matrix size M = N = K', type: 'select', default: 128, options: SIZES },
    { key: 'bk', label: 'K-step BK', type: 'select', default: 32,
      options: [8, 16, 32, 64, 128].map((v) => ({ value: v, label: String(v) })) },
    { key: 'stages', label: 'Pipeline stages', from: ['tiled-matmul', 'stages'], max: 4 },
    { key: 'dtype', label: 'Data type', from: ['tiled-matmul', 'dtype'], options: ['fp32', 'bf16', 'fp8-e4m3'] },
  ],

  data(engine, p) {
    const run = (t, reference) => {
      try {
        return engine.calc('tiled-matmul', {
          m: p.size, n: p.size, k: p.size, bm: t, bn: t, bk: p.bk, stages: p.stages, dtype: p.dtype,
          hardware: p.hardware, reference,
        });
      } catch (e) {
        if (e && FIELD[e.field]) e.field = FIELD[e.field];
        throw e;
      }
    };
    const points = TILES.map((t) => {
      const r = run(t, t === CHECKED_TILE);
      return {
        t, executed: r.executed, counted: r.executed ? r.global_bytes : null, formula: r.formula.global_bytes,
        matches: r.executed ? r.counts_match_formula : null, smem: r.smem_per_block_bytes, fits: r.fits_smem,
        intensity: r.tiled_intensity, check: t === CHECKED_TILE ? r : null,
      };
    });
    const ref = points.find((q) => q.check).check;
    const s = ref.element_bytes;
    // Largest T whose tiles fit: stages · (2·T·BK) · s <= limit.
    const tMax = Math.floor(ref.smem_limit_bytes / (p.stages * 2 * p.bk * s));
    const table = {
      columns: ['Tile T = BM = BN', 'Executed', 'Counted global bytes (B)', 'Formula global bytes (B)',
        'Naive kernel bytes (B)', 'Compulsory bytes (B)', 'Shared memory per block (B)', 'Shared-memory limit (B)',
        'Fits shared memory', 'Intensity (FLOP/B)'],
      rows: points.map((q) => [q.t, q.executed ? 'yes' : 'no', q.executed ? q.counted : 'not run', q.formula,
        ref.naive_global_bytes, ref.compulsory_bytes, q.smem, ref.smem_limit_bytes, q.fits ? 'yes' : 'no', q.intensity]),
    };
    return {
      size: p.size, bk: p.bk, stages: p.stages, dtype: p.dtype, element_bytes: s, points: points.map(({ check, ...q }) => q),
      naive: ref.naive_global_bytes, compulsory: ref.compulsory_bytes, smem_limit: ref.smem_limit_bytes, t_max: tMax,
      smem_per_sm: ref.smem_limit_source === 'smem_per_sm_bytes',
      executed: ref.executed, all_counts_match: points.every((q) => q.matches !== false),
      reference: ref.executed ? { max_abs_error: ref.max_abs_error, tolerance: ref.tolerance, matches: ref.matches_reference } : null,
      table,
    };
  },

  draw(data, theme) {
    const lx = (t) => Math.log2(t);
    const fits = data.points.filter((q) => q.fits), over = data.points.filter((q) => !q.fits);
    const ys = [data.naive, data.compulsory, ...data.points.map((q) => q.formula)];
    const [yLo, yHi] = [Math.min(...ys) / 2, Math.max(...ys) * 2];
    const xLo = lx(data.points[0].t), xHi = lx(data.points.at(-1).t);
    const pick = colours(theme);
    const flat = (label, y, colour, dash) => line(colour, { label, data: [{ x: xLo, y }, { x: xHi, y }], borderDash: dash });
    const check = data.reference ? (data.reference.matches ? '; values match the naive kernel' : '; VALUES DIFFER from the naive kernel') : '';
    const datasets = [
      series(pick('memory'), { label: 'Formula: s·(M·K·⌈N/T⌉ + K·N·⌈M/T⌉ + M·N)', data: data.points.map((q) => ({ x: lx(q.t), y: q.formula, q })),
        showLine: true, borderWidth: 2, pointRadius: 2, pointStyle: 'circle', order: 0 }),
      // Hollow rings (grid fill) around the formula's dots, so both show where they agree.
      series(pick('text'), { label: `Counted by running the loop${check}`,
        data: data.points.filter((q) => q.executed).map((q) => ({ x: lx(q.t), y: q.counted, q })),
        showLine: false, pointStyle: 'circle', pointRadius: 8, borderWidth: 2, backgroundColor: theme.grid, order: 1 }),
      series(pick('compute'), { label: 'Tiles exceed shared memory', data: over.map((q) => ({ x: lx(q.t), y: q.formula, q })),
        showLine: false, pointStyle: 'crossRot', pointRadius: 9, borderWidth: 3 }),
      flat(`Naive kernel: ${formatSI(data.naive, 'B')}`, data.naive, pick(), [6, 4]),
      flat(`Compulsory minimum: ${formatSI(data.compulsory, 'B')}`, data.compulsory, pick('muted'), [2, 3]),
    ];
    const limit = pick();
    if (data.t_max >= data.points[0].t && data.t_max <= data.points.at(-1).t) {
      datasets.push(line(limit, {
        label: `Shared-memory limit: T ≤ ${data.t_max} (${Math.round(data.smem_limit / 1024)} KiB per ${data.smem_per_sm ? 'SM' : 'block'})`,
        data: [{ x: lx(data.t_max), y: yLo }, { x: lx(data.t_max), y: yHi }], borderDash: [8, 4],
      }));
    } else if (fits.length === data.points.length) {
      datasets.push({ ...flat(`Every tile shown fits (limit T ≤ ${data.t_max})`, yLo, limit, [8, 4]), data: [] });
    }
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Tile width T = BM = BN (elements, log scale)', { range: [xLo - 0.3, xHi + 0.3],
          // One tick per tile width (a power of two), whatever Chart.js would pick.
          afterBuildTicks: (axis) => { axis.ticks = data.points.map((q) => ({ value: lx(q.t) })); },
          ticks: { callback: (v) => String(2 ** Math.round(v)) } }),
        y: log('Global-memory traffic (B)', { unit: 'B', range: [yLo, yHi] }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        const how = ctx.datasetIndex === 1 ? 'counted' : 'formula';
        return `T = ${q.t}: ${formatSI(ctx.raw.y, 'B')} (${how}), ${formatSI(q.intensity, 'FLOP/B')}, ` +
          `${formatSI(q.smem, 'B')} of shared memory${q.fits ? '' : ' — too much'}`;
      },
    });
  },
};
