// Global-memory traffic of a tiled matmul C = A·B (M = N = K) against the tile width
// T = BM = BN: counted by executing the tiled loop in the engine (small sizes) and given by
// the closed form s·(M·K·ceil(N/T) + K·N·ceil(M/T) + M·N), beside the naive kernel's traffic
// and the compulsory minimum. Tiles a block cannot hold are marked: operand tiles,
// stages·(2·T·BK)·s, beyond the shared memory one block may use, or fp32 accumulators,
// ceil(T²/threads) per thread plus an overhead, beyond the registers (255 per thread, 65,536 per
// block). The largest tile that fits both is starred. All numbers from calc('tiled-matmul').
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
// GPUs whose table row has shared-memory and register limits (NVIDIA's).
const GPUS = ['a100-sxm-80gb', 'h100-sxm', 'h100-pcie', 'h200-sxm', 'b200', 'l4'];
// The calculator's fields -> this figure's controls (for error messages).
const FIELD = { m: 'size', n: 'size', k: 'size', threads_per_block: 'threads' };

export default {
  id: 'tiled-matmul-traffic',
  simulation: true, // executes kernels: redraw budget 50 ms
  title: 'Tiled matmul: global-memory traffic against tile size',
  caption:
    'Bytes a tiled matmul moves to and from global memory as the tile width T grows, counted by running the tiled loop (hollow circles, small sizes) and from the formula (line), between the naive kernel (top) and the compulsory minimum (bottom). Each doubling of T halves the traffic until T reaches the matrix size: from there every operand is read once and the line lies flat on the compulsory minimum. Tiles a block cannot hold are crossed: their fp32 accumulators exceed the registers (right of the register limit) or their operand tiles exceed shared memory. The star is the largest tile that fits both, from the engine. Raise the stages to 4 and shared memory binds instead of registers; give the block 1,024 threads and the register file, not the per-thread limit, binds.',
  params: [
    { key: 'hardware', label: 'GPU', from: ['tiled-matmul', 'hardware'], options: GPUS },
    { key: 'size', label: 'Matrix size M = N = K', type: 'select', default: 128, options: SIZES },
    { key: 'bk', label: 'K-step BK', type: 'select', default: 32,
      options: [8, 16, 32, 64, 128].map((v) => ({ value: v, label: String(v) })) },
    { key: 'stages', label: 'Pipeline stages', from: ['tiled-matmul', 'stages'], max: 4 },
    { key: 'threads', label: 'Threads per block', type: 'select', default: 256,
      options: [128, 256, 512, 1024].map((v) => ({ value: v, label: String(v) })) },
    { key: 'dtype', label: 'Data type', from: ['tiled-matmul', 'dtype'], options: ['fp32', 'bf16', 'fp8-e4m3'] },
  ],

  data(engine, p) {
    const run = (t, reference) => {
      try {
        return engine.calc('tiled-matmul', {
          m: p.size, n: p.size, k: p.size, bm: t, bn: t, bk: p.bk, stages: p.stages, dtype: p.dtype,
          threads_per_block: p.threads, hardware: p.hardware, reference,
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
        matches: r.executed ? r.counts_match_formula : null, smem: r.smem_per_block_bytes, fits_smem: r.fits_smem,
        registers: r.registers_per_thread, accumulator: r.accumulator_bytes, fits_registers: r.fits_registers,
        fits: r.fits, intensity: r.tiled_intensity, check: t === CHECKED_TILE ? r : null,
      };
    });
    const ref = points.find((q) => q.check).check;
    const s = ref.element_bytes;
    // The largest square tile that fits both budgets, from the engine, and its traffic.
    const best = run(ref.max_tile, false);
    const yesNo = (b) => (b ? 'yes' : 'no');
    const table = {
      columns: ['Tile T = BM = BN', 'Executed', 'Counted global bytes (B)', 'Formula global bytes (B)',
        'Naive kernel bytes (B)', 'Compulsory bytes (B)', 'Shared memory per block (B)', 'Shared-memory limit (B)',
        'Fits shared memory', 'fp32 accumulator (B)', 'Registers per thread', 'Fits registers', 'Intensity (FLOP/B)'],
      rows: points.map((q) => [q.t, yesNo(q.executed), q.executed ? q.counted : 'not run', q.formula,
        ref.naive_global_bytes, ref.compulsory_bytes, q.smem, ref.smem_limit_bytes, yesNo(q.fits_smem),
        q.accumulator, q.registers, yesNo(q.fits_registers), q.intensity]),
    };
    return {
      size: p.size, bk: p.bk, stages: p.stages, dtype: p.dtype, element_bytes: s, points: points.map(({ check, ...q }) => q),
      naive: ref.naive_global_bytes, compulsory: ref.compulsory_bytes, smem_limit: ref.smem_limit_bytes,
      t_max_smem: ref.max_tile_smem, t_max_registers: ref.max_tile_registers, t_max: ref.max_tile, limiter: ref.limiter,
      register_file: ref.register_file_bytes, threads: p.threads,
      best: { t: ref.max_tile, formula: best.formula.global_bytes, intensity: best.tiled_intensity },
      smem_per_sm: ref.smem_limit_source === 'smem_per_sm_bytes',
      executed: ref.executed, all_counts_match: points.every((q) => q.matches !== false),
      reference: ref.executed ? { max_abs_error: ref.max_abs_error, tolerance: ref.tolerance, matches: ref.matches_reference } : null,
      table,
    };
  },

  draw(data, theme) {
    const lx = (t) => Math.log2(t);
    const ys = [data.naive, data.compulsory, ...data.points.map((q) => q.formula)];
    const [yLo, yHi] = [Math.min(...ys) / 2, Math.max(...ys) * 2];
    const xLo = lx(data.points[0].t), xHi = lx(data.points.at(-1).t);
    const pick = colours(theme);
    const flat = (label, y, colour, dash) => line(colour, { label, data: [{ x: xLo, y }, { x: xHi, y }], borderDash: dash });
    const check = data.reference ? (data.reference.matches ? '; values match the naive kernel' : '; VALUES DIFFER from the naive kernel') : '';
    const at = (q) => ({ x: lx(q.t), y: q.formula, q });
    // A kind of overflow no tile of this setting has keeps its legend entry, saying so.
    const none = (label, points) => (points.length ? label : `${label}: none here`);
    const overRegisters = data.points.filter((q) => !q.fits_registers).map(at);
    const overSmem = data.points.filter((q) => !q.fits_smem).map(at);
    const datasets = [
      series(pick('memory'), { label: 'Formula: s·(M·K·⌈N/T⌉ + K·N·⌈M/T⌉ + M·N)', data: data.points.map(at),
        showLine: true, borderWidth: 2, pointRadius: 2, pointStyle: 'circle', order: 0 }),
      // Hollow rings (grid fill) around the formula's dots, so both show where they agree.
      series(pick('text'), { label: `Counted by running the loop${check}`,
        data: data.points.filter((q) => q.executed).map((q) => ({ x: lx(q.t), y: q.counted, q })),
        showLine: false, pointStyle: 'circle', pointRadius: 8, borderWidth: 2, backgroundColor: theme.grid, order: 1 }),
      series(pick('compute'), { label: none(`Accumulators exceed the registers (${Math.round(data.register_file / 1024)} KiB per block)`, overRegisters),
        data: overRegisters, showLine: false, pointStyle: 'crossRot', pointRadius: 9, borderWidth: 3 }),
      series(pick(), { label: none('Operand tiles exceed shared memory', overSmem), data: overSmem,
        showLine: false, pointStyle: 'cross', pointRadius: 12, borderWidth: 2 }),
      series(pick(), { label: `Largest tile that fits: T = ${data.best.t} (${data.limiter === 'smem' ? 'shared memory' : 'registers'} bind)`,
        data: [{ x: lx(data.best.t), y: data.best.formula, q: { ...data.best, fits: true, fits_registers: true, fits_smem: true },
          label: `T = ${data.best.t}: ${formatSI(data.best.intensity, 'FLOP/B')}` }],
        showLine: false, pointStyle: 'star', pointRadius: 11, borderWidth: 2, pointLabels: true }),
      flat(`Naive kernel: ${formatSI(data.naive, 'B')}`, data.naive, pick(), [6, 4]),
      flat(`Compulsory minimum: ${formatSI(data.compulsory, 'B')}`, data.compulsory, pick('muted'), [2, 3]),
    ];
    const limit = (t, label, colour, dash) => {
      const inRange = t >= data.points[0].t && t <= data.points.at(-1).t;
      datasets.push(inRange
        ? line(colour, { label, data: [{ x: lx(t), y: yLo }, { x: lx(t), y: yHi }], borderDash: dash })
        : { ...flat(`${label}, beyond the axis`, yLo, colour, dash), data: [] });
    };
    limit(data.t_max_registers, `Register limit: T ≤ ${data.t_max_registers} (${data.threads} threads)`, pick(), [8, 4]);
    limit(data.t_max_smem, `Shared-memory limit: T ≤ ${data.t_max_smem} (${Math.round(data.smem_limit / 1024)} KiB per ${data.smem_per_sm ? 'SM' : 'block'})`, pick(), [3, 3]);
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
        if (q.smem === undefined) return `T = ${q.t}: ${formatSI(ctx.raw.y, 'B')}, ${formatSI(q.intensity, 'FLOP/B')} (largest tile that fits)`;
        return `T = ${q.t}: ${formatSI(ctx.raw.y, 'B')} (${how}), ${formatSI(q.intensity, 'FLOP/B')}, ` +
          `${formatSI(q.smem, 'B')} of shared memory${q.fits_smem ? '' : ' (too much)'}, ` +
          `${q.registers} registers per thread${q.fits_registers ? '' : ' (too many)'}`;
      },
    });
  },
};
