// Global-memory traffic of a tiled matmul C = A·B (M = N = K) against the tile width
// T = BM = BN: counted by executing the tiled loop in the engine (small sizes) and given by
// the closed form s·(M·K·ceil(N/T) + K·N·ceil(M/T) + M·N), beside the naive kernel's traffic
// and the compulsory minimum. Tiles a block cannot hold are marked: operand tiles,
// stages·(2·T·BK)·s, beyond the shared memory one block may use, or fp32 accumulators,
// ceil(T²/threads) per thread plus an overhead, beyond the registers (255 per thread, 65,536 per
// block), or on Blackwell beyond the 256 KiB of Tensor Memory its tcgen05 MMAs accumulate in.
// The largest tile that fits both is starred. All numbers from calc('tiled-matmul').
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series, line, lineLabel, offLine } from './shared/chart-config.js';

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
    'Bytes a tiled matmul moves to and from global memory as the tile width T grows, counted by running the tiled loop (hollow circles, small sizes) and from the formula (line), between the naive kernel (top) and the compulsory minimum (bottom). Each doubling of T halves the traffic until T reaches the matrix size: from there every operand is read once and the line lies flat on the compulsory minimum. Tiles a block cannot hold are crossed, each limit drawn as a dashed line in its colour: × where the fp32 accumulators exceed the registers (on the B200, the 256 KiB of Tensor Memory where Blackwell\'s tensor cores accumulate), + where the operand tiles exceed shared memory. The star is the largest tile that fits both, from the engine. Set 4 stages and a K-step of 64 and shared memory binds at T ≤ 113; give the block 1,024 threads and the register limit moves left to 181; pick the B200 and the thread count no longer matters.',
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
        fits_accumulators: r.fits_accumulators,
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
        'Fits shared memory', 'fp32 accumulator (B)', 'Accumulators held in', 'Fits accumulator storage',
        'Registers per thread', 'Fits registers', 'Intensity (FLOP/B)'],
      rows: points.map((q) => [q.t, yesNo(q.executed), q.executed ? q.counted : 'not run', q.formula,
        ref.naive_global_bytes, ref.compulsory_bytes, q.smem, ref.smem_limit_bytes, yesNo(q.fits_smem),
        q.accumulator, ref.accumulator_storage === 'tensor_memory' ? 'tensor memory' : 'registers',
        yesNo(q.fits_accumulators), q.registers, yesNo(q.fits_registers), q.intensity]),
    };
    return {
      size: p.size, bk: p.bk, stages: p.stages, dtype: p.dtype, element_bytes: s, points: points.map(({ check, ...q }) => q),
      naive: ref.naive_global_bytes, compulsory: ref.compulsory_bytes, smem_limit: ref.smem_limit_bytes,
      t_max_smem: ref.max_tile_smem, t_max_registers: ref.max_tile_registers, t_max: ref.max_tile, limiter: ref.limiter,
      t_max_acc: ref.max_tile_accumulators, storage: ref.accumulator_storage, tensor_memory: ref.tensor_memory_bytes,
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
    // Reference lines carry their names on the chart (lineLabel), not in the legend.
    const flat = (label, y, colour, dash, group) => line(colour, { label, data: [{ x: xLo, y }, { x: xHi, y }],
      borderDash: dash, group, legendHidden: true });
    const check = data.reference ? (data.reference.matches ? '; values match the naive kernel' : '; VALUES DIFFER from the naive kernel') : '';
    const at = (q) => ({ x: lx(q.t), y: q.formula, q });
    const tmem = data.storage === 'tensor_memory';
    const accName = tmem ? 'tensor memory' : 'registers';
    const overAcc = data.points.filter((q) => !q.fits_accumulators).map(at);
    const overSmem = data.points.filter((q) => !q.fits_smem).map(at);
    const [accColour, smemColour, naiveColour] = [pick('compute'), pick(), pick()];
    const muted = pick('muted');
    const y = [yLo, yHi];
    const datasets = [
      series(pick('memory'), { label: 'Formula: s·(M·K·⌈N/T⌉ + K·N·⌈M/T⌉ + M·N)', data: data.points.map(at),
        showLine: true, borderWidth: 2, pointRadius: 2, pointStyle: 'circle', order: 0 }),
      // Hollow rings (grid fill) around the formula's dots, so both show where they agree; out
      // of the legend at the closed-form sizes, where nothing runs.
      series(pick('text'), { label: `Counted by running the loop${check}`,
        data: data.points.filter((q) => q.executed).map((q) => ({ x: lx(q.t), y: q.counted, q })),
        showLine: false, pointStyle: 'circle', pointRadius: 8, borderWidth: 2, backgroundColor: theme.grid, order: 1,
        legendHidden: !data.executed }),
      // Each limit: its crosses and its vertical line share a colour and one legend entry.
      series(accColour, { label: `Accumulators exceed the ${accName}: T ≤ ${data.t_max_acc} fits`,
        data: overAcc, showLine: false, pointStyle: 'crossRot', pointRadius: 9, borderWidth: 3, group: 'acc' }),
      series(smemColour, { label: `Operands exceed shared memory: T ≤ ${data.t_max_smem} fits`, data: overSmem,
        showLine: false, pointStyle: 'cross', pointRadius: 12, borderWidth: 2, group: 'smem' }),
      series(pick(), { label: `Largest tile that fits: T = ${data.best.t}, ${formatSI(data.best.intensity, 'FLOP/B')} (${data.limiter === 'registers' ? 'registers bind' : `${data.limiter === 'smem' ? 'shared memory' : 'tensor memory'} binds`})`,
        data: [{ x: lx(data.best.t), y: data.best.formula, q: { ...data.best, fits: true, fits_registers: true, fits_smem: true } }],
        showLine: false, pointStyle: 'star', pointRadius: 11, borderWidth: 2 }),
      flat('Naive kernel', data.naive, naiveColour, [6, 4], 'naive'),
      lineLabel(naiveColour, 'naive', xLo + 0.2, offLine(data.naive, y), `naive kernel: ${formatSI(data.naive, 'B')}`),
      flat('Compulsory minimum', data.compulsory, muted, [2, 3], 'compulsory'),
      lineLabel(muted, 'compulsory', xLo + 0.2, offLine(data.compulsory, y), `compulsory: ${formatSI(data.compulsory, 'B')}`),
    ];
    const limit = (t, colour, dash, group) => {
      if (t >= data.points[0].t && t <= data.points.at(-1).t) {
        datasets.push(line(colour, { label: `limit T = ${t}`, data: [{ x: lx(t), y: yLo }, { x: lx(t), y: yHi }],
          borderDash: dash, group, legendHidden: true }));
      }
    };
    limit(data.t_max_acc, accColour, [8, 4], 'acc');
    limit(data.t_max_smem, smemColour, [3, 3], 'smem');
    return chart(theme, {
      datasets,
      legend: { filter: (item, d) => { const ds = d.datasets[item.datasetIndex]; return !ds?.labelOnly && !ds?.legendHidden; } },
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
          (data.storage === 'tensor_memory'
            ? `${formatSI(q.accumulator, 'B')} of accumulators in tensor memory${q.fits_accumulators ? '' : ' (too much)'}`
            : `${q.registers} registers per thread${q.fits_registers ? '' : ' (too many)'}`);
      },
    });
  },
};
