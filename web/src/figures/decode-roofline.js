// Decode throughput and time per output token against batch size: each step streams every
// weight once plus the batch's KV cache, so tokens/s grows almost linearly with the batch
// while the step stays memory-bound, then flattens at the compute roof. One call to
// calc('decode-curve') (the whole series, the crossover batch and the batch that fits).
import { formatSI } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';
import { modelParam, modelConfig } from './kv-cache-capacity.js';

export default {
  id: 'decode-roofline',
  title: 'Decode on the roofline: tokens/s and TPOT against batch',
  caption:
    'Decode throughput (left axis) and time per output token (right axis) as more sequences share each step. Memory-bound points are circles, compute-bound points triangles. At the default 256-token context, find the batch where the step turns compute-bound; then lengthen the context and watch the crossover vanish as the KV cache dominates the bytes, and the largest batch that fits in memory slide left.',
  params: [
    modelParam('llama-3-8b'),
    { key: 'hardware', label: 'Accelerator', from: ['decode-curve', 'hardware'] },
    { key: 'weight_dtype', label: 'Weight type', from: ['decode-curve', 'weight_dtype'], options: ['bf16', 'fp8-e4m3', 'int8', 'int4'] },
    { key: 'context', label: 'Context per sequence', from: ['decode-curve', 'context'], min: 128, max: 131072, default: 256, scale: 'log' },
  ],

  data(engine, p) {
    const r = engine.calc('decode-curve', { ...modelConfig(engine, p.model), weight_dtype: p.weight_dtype, kv_dtype: 'bf16', context: p.context, max_batch: 1024, hardware: p.hardware });
    const points = r.series;
    const table = {
      columns: ['Batch (sequences)', 'Tokens/s', 'TPOT (s)', 'Memory time (s)', 'Compute time (s)', 'Bound'],
      rows: points.map((q) => [q.batch, q.tokens_per_s, q.tpot_s, q.memory_time_s, q.compute_time_s, q.bound]),
    };
    return { points, crossover_batch: r.crossover_batch, max_batch_fits: r.max_batch_fits, weight_bytes: r.weight_bytes, kv_bytes_per_token: r.kv_bytes_per_token, table };
  },

  draw(data, theme) {
    const pts = (bound, field) => data.points.filter((q) => q.bound === bound).map((q) => ({ x: q.batch, y: q[field], q }));
    const tps = data.points.map((q) => q.tokens_per_s);
    const [lo, hi] = [Math.min(...tps), Math.max(...tps)];
    const vline = (colour, x, label, dash) => line(colour, { label, data: x >= 1 && x <= 1024 ? [{ x, y: lo }, { x, y: hi }] : [], yAxisID: 'y', borderDash: dash });
    const c = data.crossover_batch, f = data.max_batch_fits;
    const pick = colours(theme);
    const datasets = [
      series(pick('memory'), { label: 'Tokens/s, memory-bound', data: pts('memory', 'tokens_per_s'), yAxisID: 'y', showLine: true, pointStyle: 'circle', pointRadius: 3, borderWidth: 2 }),
      series(pick('compute'), { label: 'Tokens/s, compute-bound', data: pts('compute', 'tokens_per_s'), yAxisID: 'y', showLine: true, pointStyle: 'triangle', pointRadius: 4, borderWidth: 2 }),
      series(pick(), { label: 'TPOT (right axis)', data: data.points.map((q) => ({ x: q.batch, y: q.tpot_s, q })), yAxisID: 'y1', showLine: true, pointStyle: 'rect', pointRadius: 2,
        borderWidth: 2, borderDash: [6, 3] }),
      vline(pick('text'), c, c ? `Turns compute-bound at batch ${c}` : 'Memory-bound up to batch 1,024', [8, 4]),
      vline(pick('muted'), f, f > 1024 ? 'Memory holds more than 1,024 sequences' : f >= 1 ? `Memory (90% of HBM) holds ${f} sequences` : 'Weights leave no room for a KV cache', [2, 3]),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Batch (sequences decoded together)', { unit: '', range: [1, 1024] }),
        y: log('Throughput (tokens/s)', { unit: '', position: 'left' }),
        y1: log('Time per output token (s)', { unit: 's', position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        return q ? `batch ${q.batch}: ${formatSI(q.tokens_per_s, 'tokens/s')}, TPOT ${formatSI(q.tpot_s, 's')}, ${q.bound}-bound` : ctx.dataset.label;
      },
    });
  },
};
