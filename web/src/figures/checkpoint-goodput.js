// Goodput against the checkpoint interval τ for a job that fails every M on average, writes a
// checkpoint in δ and restarts in R: the first-order model 1 − [δ/τ + (τ + δ)/(2M) + R/M]
// (Young 1974) and Daly's (2006) complete model for exponential failures, with Young's and
// Daly's intervals marked. One `checkpoint-goodput` call (a calculator beyond API.md).
import { formatSI, formatFixed, formatDecimal } from '../runtime/format.js';
import { chart, log, linear, colours, series, line } from './shared/chart-config.js';

export const X_RANGE = [10, 3e5];  // seconds of work between checkpoints
const POINTS = 121;
// A table cell as text: `n` significant digits, no padding, separators from 1,000 up.
const digits = (v, n) => { const r = Number(v.toPrecision(n)); return r >= 1000 ? formatDecimal(r, 0) : String(r); };
const duration = (s) => (s >= 3600 ? `${formatFixed(s / 3600, 1)} h` : s >= 60 ? `${formatFixed(s / 60, 1)} min` : `${formatFixed(s, 0)} s`);

export default {
  id: 'checkpoint-goodput',
  title: 'Checkpoint interval and goodput: the Young/Daly optimum',
  caption:
    'Checkpoint too often and the job spends its time writing checkpoints (left); too rarely and each failure throws away a long stretch of work (right). Between them is a flat-topped optimum near Young\u2019s √(2δM). Defaults: the lesson\u2019s worked example, the Llama 3 run\u2019s 3.09-hour MTBF, a 22-second synchronous checkpoint and a 10-minute restart; the diamond is Daly\u2019s interval with the exact model\u2019s goodput. The first-order model (solid) and Daly\u2019s exact model for exponential failures (dashed) agree near the optimum and part most on the left, where the first-order sum charges δ/τ for checkpoints although they take only δ/(τ + δ) of the wall clock. Shrink the checkpoint time to 2 s, what an asynchronous save stalls, and the peak rises and moves left; raise the restart time and the whole curve drops, wherever the checkpoints are.',
  params: [
    { key: 'mtbf_h', label: 'Job MTBF M (hours)', type: 'number', min: 0.25, max: 48, default: 3.093, scale: 'log' },
    { key: 'checkpoint_s', label: 'Checkpoint time δ (stall)', type: 'number', unit: 's', min: 1, max: 1800, default: 22.2, scale: 'log' },
    { key: 'restart_s', label: 'Restart time R', type: 'number', unit: 's', min: 0, max: 3600, default: 600 },
  ],

  data(engine, p) {
    const mtbf = Number(p.mtbf_h) * 3600;
    const r = engine.calc('checkpoint-goodput', {
      mtbf_s: mtbf, checkpoint_s: Number(p.checkpoint_s), restart_s: Number(p.restart_s),
      interval_min_s: X_RANGE[0], interval_max_s: X_RANGE[1], points: POINTS,
    });
    const [young, daly] = engine.calc('checkpoint-goodput', {
      mtbf_s: mtbf, checkpoint_s: Number(p.checkpoint_s), restart_s: Number(p.restart_s),
      intervals_s: [r.young_interval_s, r.daly_interval_s],
    }).points;
    const table = {
      columns: ['Interval τ (s)', 'Goodput, first order (%)', 'Goodput, Daly exact (%)', 'Checkpointing δ/τ (%)', 'Rework (τ+δ)/2M (%)', 'Restarts R/M (%)'],
      // Cells as text at the precision the chart reads (three digits, percent to 0.1), so the
      // table does not pad them to four digits ("5.400").
      rows: r.points.filter((_, i) => i % 6 === 0).map((q) => [digits(q.interval_s, 3),
        ...[q.goodput, q.goodput_exact, q.checkpoint_fraction, q.rework_fraction, q.restart_fraction].map((f) => (100 * f >= 1000 ? formatDecimal(100 * f, 0) : (100 * f).toFixed(1)))]),
    };
    return { ...r, young, daly, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const pct = (q, k) => ({ x: q.interval_s, y: 100 * q[k] });
    const datasets = [
      line(pick(), { label: 'First-order model (Young)', data: data.points.map((q) => pct(q, 'goodput')), borderWidth: 3 }),
      line(pick(), { label: 'Daly\u2019s model for exponential failures', data: data.points.map((q) => pct(q, 'goodput_exact')), borderDash: [6, 4] }),
      series(pick('compute'), { label: 'Young\u2019s interval √(2δM), first order', pointStyle: 'triangle', pointRadius: 8,
        data: [pct(data.young, 'goodput')] }),
      series(pick('text'), { label: 'Daly\u2019s interval, exact model', pointStyle: 'rectRot', pointRadius: 7, pointLabels: true,
        data: [{ ...pct(data.daly, 'goodput_exact'), label: `Daly: ${duration(data.daly_interval_s)}, ${formatFixed(100 * data.daly.goodput_exact, 1)}% (Young: ${duration(data.young_interval_s)})` }] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('Work between checkpoints τ (seconds, log)', { unit: '', range: X_RANGE }),
        y: linear('Goodput: share of time doing new work (%)', { range: [0, 100] }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: τ ${duration(ctx.raw.x)}, ${ctx.raw.y.toFixed(1)}%`,
    });
  },
};
