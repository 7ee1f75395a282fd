// Split-KV decoding (Flash-Decoding): time of one decode step's attention against the number
// of splits of the KV cache, from the engine's latency model (resident thread blocks, each
// streaming at its bytes in flight over the HBM latency, all of them capped by HBM; waves; the
// merge kernel), with the share of HBM bandwidth the first wave draws, and the executed
// logsumexp merge of the chosen split count against one pass. One call to calc('split-kv').
// Time is drawn against the bandwidth floor (every K and V byte once at full bandwidth), so
// the axis holds still while the batch, heads and context scale the bytes.
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

const MAX_SPLITS = 128;
// Time ÷ floor (1 is streaming at full bandwidth). The axis runs to the first of these above the
// worst ratio the current context, accelerator and heads reach at any batch (batch 1, the fewest
// blocks), so it holds still while the batch and the chosen splits move.
const RATIO_TOPS = [2, 5, 10, 20, 50, 100, 200, 500];
const RATIO_TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500];
const sci = (x) => (x === 0 ? '0' : x.toExponential(1));
const times = (x) => `${formatSI(x, '', 2)}×`;

export default {
  id: 'split-kv-decoding',
  simulation: true, // executes kernels: redraw budget 50 ms
  title: 'Split-KV decoding: splits against latency',
  caption:
    'One decode step attends one query per head to the whole KV cache. A thread block streams its keys only as fast as the bytes it keeps in flight allow (Little’s law), so with few heads and a small batch the unsplit kernel leaves HBM mostly idle. Splitting the keys into s chunks adds blocks until their bytes in flight saturate HBM; past that knee the time stays near the bandwidth floor and grows slowly with the merge. Raise the batch and watch splitting stop paying.',
  params: [
    { key: 'context', label: 'Context (cached tokens)', from: ['split-kv', 'context'], min: 1024, max: 1048576, scale: 'log' },
    { key: 'hardware', label: 'Accelerator', from: ['split-kv', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h100-pcie', 'h200-sxm'] },
    { key: 'heads', label: 'KV heads', from: ['split-kv', 'heads'], min: 1, max: 128, scale: 'log' },
    { key: 'batch', label: 'Batch (sequences)', from: ['split-kv', 'batch'], min: 1, max: 256, scale: 'log' },
    { key: 'splits', label: 'Chosen splits s', from: ['split-kv', 'splits'], min: 1, max: MAX_SPLITS },
  ],

  data(engine, p) {
    const inputs = { context: p.context, hardware: p.hardware, heads: p.heads, batch: p.batch, splits: p.splits,
      max_splits: MAX_SPLITS, head_dim: 128, dtype: 'bf16' };
    const r = engine.calc('split-kv', inputs);
    const worstOf = (x) => Math.max(...x.series.map((q) => q.time_s / x.ideal_time_s));
    const single = p.batch === 1 ? r : engine.calc('split-kv', { ...inputs, batch: 1, splits: 1, execute: false });
    const worst = Math.max(worstOf(r), worstOf(single));
    const table = {
      columns: ['Splits s', 'Time (s)', 'Split kernel (s)', 'Merge kernel (s)', 'Time ÷ floor', 'Blocks', 'Waves',
        'Resident blocks (first wave)', 'HBM bandwidth drawn (B/s)'],
      rows: r.series.map((q) => [q.splits, q.time_s, q.main_time_s, q.merge_time_s, q.time_s / r.ideal_time_s,
        q.blocks, q.waves, q.resident_blocks, q.wave_bandwidth_Bps]),
    };
    return {
      series: r.series, chosen: { splits: r.splits, time_s: r.time_s, blocks: r.blocks, waves: r.waves },
      best: { splits: r.best_splits, time_s: r.best_time_s }, no_split_s: r.no_split_time_s, ideal_s: r.ideal_time_s,
      saturating_splits: r.saturating_splits, blocks_per_sm: r.blocks_per_sm, bandwidth: r.bandwidth_Bps,
      sms: r.sms, executed: r.executed, merge_diff: r.executed ? r.merge_max_abs_diff : null,
      merge_error: r.executed ? r.merged_error_fp64 : null, table,
      ratio_top: RATIO_TOPS.find((t) => t >= 1.1 * worst) ?? RATIO_TOPS.at(-1),
    };
  },

  draw(data, theme) {
    const floor = data.ideal_s;
    const ratio = (key) => data.series.map((q) => ({ x: q.splits, y: q[key] / floor, q }));
    const curve = (label, points, colour, style, extra = {}) => series(colour, {
      label, data: points, showLine: true, borderWidth: 2, pointStyle: style, pointRadius: 0, pointHoverRadius: 4, yAxisID: 'y', ...extra,
    });
    const merge = data.executed ? `merge exact to ${sci(data.merge_diff)}` : 'merge not executed at this size';
    const pick = colours(theme);
    const knee = data.series[Math.min(data.saturating_splits, data.series.length) - 1];
    const last = data.series.length;
    const datasets = [
      curve(`Attention time (best s = ${data.best.splits}: ${formatSI(data.best.time_s, 's')}, ` +
        `${data.best.splits === 1 ? 'splitting does not pay' : `${times(data.no_split_s / data.best.time_s)} faster than s = 1`})`,
      ratio('time_s'), pick('compute'), 'circle'),
      curve('Split kernel alone (no merge)', ratio('main_time_s'), pick('memory'), 'rect', { borderWidth: 1.5, borderDash: [6, 3] }),
      line(pick('muted'), { label: `Bandwidth floor: ${formatSI(floor, 's')} (every K, V byte once at full bandwidth)`,
        data: [{ x: 1, y: 1 }, { x: last, y: 1 }], borderDash: [1, 3], yAxisID: 'y' }),
      series(pick('text'), { label: `s = ${data.chosen.splits}: ${formatSI(data.chosen.time_s, 's')}, ${merge}`,
        data: [{ x: data.chosen.splits, y: data.chosen.time_s / floor }], showLine: false, pointStyle: 'star', pointRadius: 10,
        borderWidth: 2, yAxisID: 'y' }),
      line(pick(), { label: 'HBM bandwidth drawn by the first wave (right axis)',
        data: data.series.map((q) => ({ x: q.splits, y: 100 * q.fraction_of_peak, q })), borderWidth: 1.5, yAxisID: 'y1' }),
      // Named in the legend only: a label beside the marker sat on the saturated line.
      series(pick(), { label: `HBM saturated from s = ${data.saturating_splits}`, showLine: false, pointStyle: 'triangle',
        pointRadius: 6, yAxisID: 'y1',
        data: knee && data.saturating_splits <= last ? [{ x: knee.splits, y: 100 * knee.fraction_of_peak }] : [] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        // Log: the knee sits at a few splits, the merge's slow rise at a hundred.
        x: log('Splits s of the KV cache (chunks, log scale)', { range: [1, last],
          ticks: { callback: (v) => ([1, 2, 5, 10, 20, 50, 100].includes(v) ? String(v) : '') } }),
        y: log('Time ÷ bandwidth floor (×, log scale)', { position: 'left', range: [1, data.ratio_top],
          // 1, 2, 5, 10, ... up to the top (and 1.5 on the shortest axis), whatever Chart.js would pick.
          afterBuildTicks: (axis) => {
            axis.ticks = [...RATIO_TICKS, ...(data.ratio_top <= 2 ? [1.5] : [])]
              .filter((v) => v <= data.ratio_top).sort((a, b) => a - b).map((value) => ({ value }));
          },
          ticks: { callback: (v) => `${v}×` } }),
        // To 110 %: the saturated line runs below the frame, not along it.
        y1: linear('HBM bandwidth drawn (% of peak)', { position: 'right', range: [0, 110], grid: { drawOnChartArea: false },
          ticks: { stepSize: 20, callback: (v) => (v <= 100 ? String(v) : '') } }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        return `s = ${q.splits}: ${formatSI(q.time_s, 's')} (split ${formatSI(q.main_time_s, 's')}, merge ` +
          `${formatSI(q.merge_time_s, 's')}), ${q.blocks} blocks, ${q.waves} wave${q.waves > 1 ? 's' : ''}, ` +
          `${formatSI(q.wave_bandwidth_Bps, 'B/s')} drawn`;
      },
    });
  },
};
