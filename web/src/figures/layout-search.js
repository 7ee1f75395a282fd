// TP × PP × DP layout search: every valid factorization of the GPUs for a model, its memory per
// GPU (training-memory model, first pipeline stage) against its estimated step time, whether it
// fits in HBM, and the best layouts. One call: calc('layout', {...model, gpus, hardware, ...}).
// The layouts the caption talks about are named on the chart (point labels): the fastest that
// fits, the next two, and the one that fits with the most headroom; every other point is in the
// table behind "Show data".
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';
import { modelOptions, publishedConfig } from './shared/published-models.js';

// Published configurations (content/data/models.json, through the engine's `models` calculator).
const MODEL_IDS = ['llama-2-70b', 'llama-2-13b', 'gpt-3-175b'];
const shape = (m) => `${m.name} (${m.layers} × ${m.hidden}${m.kv_heads < m.heads ? `, GQA ${m.kv_heads}` : ''})`;
const GPUS = ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'];

export default {
  id: 'layout-search',
  title: 'Choosing a layout: TP × PP × DP',
  caption:
    'Every way to split the GPUs into tensor × pipeline × data parallel groups that Megatron can run (tensor parallelism inside a node, heads and layers divisible), placed by estimated step time and memory per GPU; t2·p8·d4 means tp = 2, pp = 8, dp = 4. Circles fit in HBM, crosses do not. Named on the chart: the star, the fastest layout that fits; the diamonds, the next two; the triangle, the layout that fits with the most headroom. Many layouts sit within a few percent of each other in time but far apart in memory; "Show data" lists every layout with its bubble and communication. Try 32 GPUs, where the 70B model only fits with deeper model parallelism, or the H200 with more memory, where less tensor parallelism becomes possible.',
  params: [
    { key: 'model', label: 'Model', type: 'select', default: 'llama-2-70b',
      options: modelOptions(MODEL_IDS, shape) },
    { key: 'gpus', label: 'GPUs', type: 'select', default: 64, options: [16, 32, 64, 128, 256, 512].map((v) => ({ value: v, label: String(v) })) },
    { key: 'hardware', label: 'Accelerator', from: ['layout', 'hardware'], options: GPUS },
    { key: 'global_batch', label: 'Global batch (sequences)', from: ['layout', 'global_batch'], min: 16, max: 4096, scale: 'log' },
    { key: 'micro_batch', label: 'Micro-batch b', from: ['layout', 'micro_batch'], max: 8 },
  ],

  data(engine, p) {
    const config = publishedConfig(engine, p.model, { withSeq: true });
    const label = modelOptions([p.model], shape)[0].label;
    const r = engine.calc('layout', { ...config, gpus: p.gpus, hardware: p.hardware, global_batch: p.global_batch, micro_batch: p.micro_batch });
    const layouts = r.layouts.map((l, rank) => ({ ...l, rank: rank + 1, name: `t${l.tp}·p${l.pp}·d${l.dp}` }));
    // Fitting layouts come first, fastest first (the engine's order).
    const fitting = layouts.filter((l) => l.fits);
    const roomiest = fitting.reduce((a, l) => (a && a.memory_per_gpu_bytes <= l.memory_per_gpu_bytes ? a : l), null);
    return {
      model: label, gpus: p.gpus, hardware: p.hardware, hbm_bytes: r.hbm_bytes, params: r.params, layouts,
      best: fitting[0] ?? null,
      runnersUp: fitting.slice(1, 3),
      roomiest: roomiest && roomiest.rank > 3 ? roomiest : null,
      table: {
        // Memory in GB: the caption sends sighted readers here, and eleven-digit byte counts do not read.
        columns: ['Rank', 'Layout', 'TP', 'PP', 'DP', 'Micro-batches per pipeline', 'Memory per GPU (GB)', 'Fits', 'Step time (s)',
          'Bubble (fraction of pipeline time)', 'TP all-reduces (s)', 'DP ranks per node', 'DP gradient exchange (s)', 'MFU'],
        rows: layouts.map((l) => [l.rank, l.name, l.tp, l.pp, l.dp, l.microbatches, l.memory_per_gpu_bytes / 1e9, l.fits ? 'yes' : 'no',
          l.step_time_s, l.bubble_fraction, l.tp_comm_s, l.dp_ranks_per_node, l.dp_comm_s, l.mfu]),
      },
    };
  },

  draw(data, theme) {
    const pt = (l) => ({ x: l.step_time_s, y: l.memory_per_gpu_bytes / 1e9, l });
    const xs = data.layouts.map((l) => l.step_time_s);
    const [xLo, xHi] = [Math.min(...xs), Math.max(...xs)];
    const gbs = data.layouts.map((l) => l.memory_per_gpu_bytes / 1e9);
    const pad = Math.max((xHi - xLo) * 0.05, xHi * 0.01);
    const pick = colours(theme);
    const datasets = [
      series(pick(), { label: 'Fits in HBM', data: data.layouts.filter((l) => l.fits).map(pt), pointStyle: 'circle', pointRadius: 5 }),
      series(pick(), { label: 'Does not fit', data: data.layouts.filter((l) => !l.fits).map(pt), pointStyle: 'crossRot', pointRadius: 7, borderWidth: 2 }),
      // The star is named on the chart: the caption points at it.
      series(pick('text'), { label: data.best ? `Best that fits: ${data.best.name}` : 'No layout fits', data: data.best ? [{ ...pt(data.best), label: `#1 ${data.best.name}` }] : [],
        pointStyle: 'star', pointRadius: 12, borderWidth: 2, pointLabels: true }),
      series(pick(), { label: 'Next fastest that fit', data: data.runnersUp.map((l) => ({ ...pt(l), label: `#${l.rank} ${l.name}` })),
        pointStyle: 'rectRot', pointRadius: 7, borderWidth: 2, pointLabels: true }),
      series(pick(), { label: 'Fits with the most headroom', data: data.roomiest ? [{ ...pt(data.roomiest), label: `#${data.roomiest.rank} ${data.roomiest.name}` }] : [],
        pointStyle: 'triangle', pointRadius: 8, borderWidth: 2, pointLabels: true }),
      // Datasheets print the capacity in binary units ("80GB" is 80 GiB); the axis is decimal GB.
      line(pick('muted'), { label: `HBM ${Math.round(data.hbm_bytes / 2 ** 30)} GiB = ${formatSI(data.hbm_bytes, 'B')}`, data: [{ x: xLo - pad, y: data.hbm_bytes / 1e9 }, { x: xHi + pad, y: data.hbm_bytes / 1e9 }],
        borderDash: [6, 4] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Estimated step time (s)', { range: [xLo - pad, xHi + pad] }),
        // A margin above and below the points, so that the labelled ones at the ends stay clear of the frame.
        y: log('Memory per GPU (GB)', { unit: '', range: [Math.min(...gbs) / 1.3, Math.max(...gbs, data.hbm_bytes / 1e9) * 1.3] }),
      },
      tooltip: (ctx) => {
        const l = ctx.raw.l;
        if (!l) return ctx.dataset.label;
        return `#${l.rank} ${l.name}: ${formatSI(l.memory_per_gpu_bytes, 'B')} per GPU, step ${l.step_time_s.toFixed(2)} s, bubble ${(100 * l.bubble_fraction).toFixed(1)}%, MFU ${(100 * l.mfu).toFixed(1)}%`;
      },
    });
  },
};
