// Split-KV decoding (Flash-Decoding): time of one decode step's attention against the number
// of splits of the KV cache, from the engine's latency model (thread blocks on SMs, waves,
// the merge kernel), with the SMs that the first wave keeps busy, and the executed logsumexp
// merge of the chosen split count against one pass. One call to calc('split-kv').
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

const MAX_SPLITS = 128;
const sci = (x) => (x === 0 ? '0' : x.toExponential(1));

export default {
  id: 'split-kv-decoding',
  simulation: true, // executes kernels: redraw budget 50 ms
  title: 'Split-KV decoding: splits against latency',
  caption:
    'One decode step attends one query per head to the whole KV cache. With few heads and a small batch, one thread block per head leaves most SMs idle; splitting the keys into s chunks fills them, at the cost of a merge. Find the knee where batch × heads × s reaches the SM count, the sawtooth of extra waves past it, and the slow rise when the merge grows; raise the batch and watch splitting stop paying.',
  params: [
    { key: 'context', label: 'Context (cached tokens)', from: ['split-kv', 'context'], min: 1024, max: 1048576, scale: 'log' },
    { key: 'hardware', label: 'Accelerator', from: ['split-kv', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x', 'l4'] },
    { key: 'heads', label: 'KV heads', from: ['split-kv', 'heads'], min: 1, max: 128, scale: 'log' },
    { key: 'batch', label: 'Batch (sequences)', from: ['split-kv', 'batch'], min: 1, max: 256, scale: 'log' },
    { key: 'splits', label: 'Chosen splits s', from: ['split-kv', 'splits'], min: 1, max: MAX_SPLITS },
  ],

  data(engine, p) {
    const r = engine.calc('split-kv', {
      context: p.context, hardware: p.hardware, heads: p.heads, batch: p.batch, splits: p.splits,
      max_splits: MAX_SPLITS, head_dim: 128, dtype: 'bf16',
    });
    const table = {
      columns: ['Splits s', 'Time (s)', 'Split kernel (s)', 'Merge kernel (s)', 'Blocks', 'Waves', 'Busy SMs (first wave)'],
      rows: r.series.map((q) => [q.splits, q.time_s, q.main_time_s, q.merge_time_s, q.blocks, q.waves, q.active_sms]),
    };
    return {
      series: r.series, chosen: { splits: r.splits, time_s: r.time_s, blocks: r.blocks, waves: r.waves },
      best: { splits: r.best_splits, time_s: r.best_time_s }, no_split_s: r.no_split_time_s, ideal_s: r.ideal_time_s,
      sms: r.sms, executed: r.executed, merge_diff: r.executed ? r.merge_max_abs_diff : null,
      merge_error: r.executed ? r.merged_error_fp64 : null, table,
    };
  },

  draw(data, theme) {
    const us = (s) => s * 1e6;
    const pts = (key) => data.series.map((q) => ({ x: q.splits, y: us(q[key]), q }));
    const curve = (label, points, colour, style, extra = {}) => series(colour, {
      label, data: points, showLine: true, borderWidth: 2, pointStyle: style, pointRadius: 0, pointHoverRadius: 4, yAxisID: 'y', ...extra,
    });
    const merge = data.executed ? `merge exact to ${sci(data.merge_diff)}` : 'merge not executed at this size';
    const pick = colours(theme);
    const datasets = [
      curve(`Attention time (best s = ${data.best.splits}, ${formatSI(data.no_split_s / data.best.time_s, '', 3)}× vs s = 1)`,
        pts('time_s'), pick('compute'), 'circle'),
      curve('Split kernel', pts('main_time_s'), pick('memory'), 'rect', { borderWidth: 1.5, borderDash: [6, 3] }),
      curve('Merge kernel', pts('merge_time_s'), pick(), 'triangle', { borderWidth: 1.5, borderDash: [2, 3] }),
      curve(`Bandwidth floor: ${formatSI(data.ideal_s, 's')}`,
        [{ x: 1, y: us(data.ideal_s) }, { x: data.series.length, y: us(data.ideal_s) }], pick('muted'), 'line', { borderDash: [1, 3] }),
      series(pick('text'), { label: `s = ${data.chosen.splits}: ${formatSI(data.chosen.time_s, 's')}, ${merge}`,
        data: [{ x: data.chosen.splits, y: us(data.chosen.time_s) }], showLine: false, pointStyle: 'star', pointRadius: 10,
        borderWidth: 2, yAxisID: 'y' }),
      line(pick(), { label: 'Busy SMs (right axis)', data: data.series.map((q) => ({ x: q.splits, y: q.active_sms, q })),
        stepped: true, borderWidth: 1.5, yAxisID: 'y1' }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Splits s of the KV cache (chunks)', { range: [1, data.series.length], ticks: { maxRotation: 0 } }),
        y: log('Time of one decode step’s attention (µs)', { position: 'left',
          ticks: { callback: (v) => (Number.isInteger(Math.log10(v)) || [2, 5].includes(v / 10 ** Math.floor(Math.log10(v))) ? formatSI(v, '') : '') } }),
        y1: linear('Busy SMs (count)', { position: 'right', range: [0, data.sms], grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        return `s = ${q.splits}: ${formatSI(q.time_s, 's')} (split ${formatSI(q.main_time_s, 's')}, merge ` +
          `${formatSI(q.merge_time_s, 's')}), ${q.blocks} blocks, ${q.waves} wave${q.waves > 1 ? 's' : ''}, ${q.active_sms} SMs busy`;
      },
    });
  },
};
