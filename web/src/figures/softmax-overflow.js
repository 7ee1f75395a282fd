// Softmax overflow per format and the max-subtraction fix: a pattern of logits (the top one,
// then each `spacing` below the previous) is shifted so its largest logit runs from 0 to 100,
// and the engine's `softmax-stability` (sweep) runs the naive kernel (exp, sum, divide, each
// stored in the format) and the max-subtracted kernel in fp16, bf16 and fp32.
import { formatFixed } from '../runtime/format.js';
import { chart, linear, colours, series, line } from './shared/chart-config.js';

export const FORMATS = ['fp16', 'bf16', 'fp32'];
export const X_RANGE = [0, 100];
// The fp16 close-up: top logits 0 to 15 in steps of 0.05 (one engine call per point and format).
export const ZOOM_RANGE = [0, 15];
const ZOOM_STEP = 0.05;
const ZOOM_SUM_RANGE = [0, 20];
// Where the NaN rows are drawn, above the probabilities (a NaN has no value to plot).
const NAN_Y = { fp16: 1.14, bf16: 1.1, fp32: 1.06 };
export const Y_RANGE = [0, 1.2];
export const SUM_RANGE = [0, 120];
// In the sum view bf16 and fp32 store the same sums: bf16 is drawn at even top logits and fp32
// at odd ones so that both stay visible (the table has every point).
const SHOWN = { fp16: () => true, bf16: (x) => x % 2 === 0, fp32: (x) => x % 2 === 1 };

export default {
  id: 'softmax-overflow',
  title: 'Softmax overflow and the max-subtraction fix, per format',
  caption:
    'All logits are shifted up together, which leaves the exact softmax unchanged. The naive kernel (e^x stored in the format, summed, divided) needs Σ e^x, whose logarithm is log Z: it rises one for one with the top logit, and the stored sum stops where log Z passes ln of the format\'s largest value, 11.09 for fp16 (65,504) and 88.72 for bf16 and fp32. The max-subtracted kernel sums e^(x − max) instead, which stays between 1 and the number of logits. Switch to the result view: the naive fp16 kernel returns 0 for every token once its sum overflows, NaN once e^x of the top logit does, and the max-subtracted kernel never fails. Choose the fp16 close-up to see the order: right answers, then a row of zeros once the sum passes 65,504, then NaN (drawn as crosses above the plot\'s probabilities) once e^x of the top logit itself does. Raise the number of logits or narrow their spacing and the zeros start further left.',
  simulation: true,
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'sum', options: [
      { value: 'sum', label: 'Sum of exponentials (log Z)' },
      { value: 'result', label: 'Probability of the top token' },
    ] },
    { key: 'count', label: 'Logits', type: 'select', default: 8,
      options: [1, 2, 8, 32, 64].map((v) => ({ value: v, label: String(v) })) },
    { key: 'spacing', label: 'Gap between consecutive logits', type: 'select', default: 1,
      options: [0.1, 0.5, 1, 2].map((v) => ({ value: v, label: String(v) })) },
    { key: 'range', label: 'Top logits shown', type: 'select', default: 'all', options: [
      { value: 'all', label: '0 to 100, every 0.5' },
      { value: 'fp16', label: '0 to 15, every 0.05 (fp16 close-up)' },
    ] },
  ],

  data(engine, p) {
    const zoom = p.range === 'fp16';
    const pattern = { count: Number(p.count), spacing: Number(p.spacing) };
    const runs = FORMATS.map((format) => {
      const r = engine.calc('softmax-stability', { max_logit: 0, ...pattern, format, sweep: true });
      const sweep = zoom ? closeUp(engine, pattern, format) : r.sweep;
      return { format, threshold: r.overflow_threshold, sumThreshold: r.sum_overflow_threshold, sweep };
    });
    const byFormat = Object.fromEntries(runs.map((r) => [r.format, r]));
    const table = {
      columns: ['Top logit', 'Exact p(top)', 'Max-subtracted, fp16', ...FORMATS.map((f) => `Naive, ${f}`)],
      rows: runs[0].sweep.map((q, i) => [q.max_logit, q.exact_top, q.stable_top,
        ...FORMATS.map((f) => {
          const s = byFormat[f].sweep[i];
          return s.naive_top === null ? 'overflow (NaN)' : s.naive_top;
        })]),
    };
    if (p.view === 'sum') {
      table.columns = ['Top logit', 'Exact log Z = ln Σ e^x', 'ln Σ e^(x − max), max-subtracted (fp32)', ...FORMATS.map((f) => `ln of the naive ${f} sum`)];
      table.rows = runs[0].sweep.map((q, i) => [q.max_logit, q.log_z, q.stable_log_sum,
        ...FORMATS.map((f) => byFormat[f].sweep[i].naive_log_sum ?? 'overflow (inf)')]);
    }
    return { view: p.view, zoom, count: Number(p.count), spacing: Number(p.spacing), runs, table };
  },

  draw(data, theme) {
    if (data.view === 'sum') return drawSum(data, theme);
    const pick = colours(theme);
    const fp16 = data.runs[0];
    const datasets = [
      line(pick('muted'), { label: 'Exact softmax', data: fp16.sweep.map((q) => ({ x: q.max_logit, y: q.exact_top })), borderWidth: 5, order: 10 }),
      line(pick('text'), { label: 'Max-subtracted kernel (fp16 output; bf16 and fp32 alike)',
        data: fp16.sweep.map((q) => ({ x: q.max_logit, y: q.stable_top })), borderWidth: 2, order: 5 }),
    ];
    const shapes = { fp16: 'circle', bf16: 'rect', fp32: 'triangle' };
    for (const r of data.runs) {
      const colour = pick();
      const pts = r.sweep.filter((q) => q.naive_top !== null);
      const firstZero = pts.find((q) => q.sum_overflow);
      datasets.push(series(colour, {
        label: `Naive, ${r.format}`, group: r.format, pointStyle: shapes[r.format], pointRadius: data.zoom ? 2 : 3,
        data: pts.map((q) => ({ x: q.max_logit, y: q.naive_top,
          label: q === firstZero && (r.format === 'fp16' || !data.zoom) ? `${r.format}: sum overflows, p = 0 from ${formatFixed(q.max_logit, data.zoom ? 2 : 1)}` : undefined })),
        pointLabels: (raw) => raw.label ?? '',
      }));
      // The rows with an overflowed exponential: the top entry is inf/inf = NaN (the others are
      // finite/inf = 0), drawn as crosses in a band above the probabilities.
      const nan = r.sweep.filter((q) => q.exp_overflow);
      datasets.push(series(colour, {
        label: `Naive, ${r.format}: NaN (e^x overflowed)`, group: r.format, pointStyle: 'crossRot', pointRadius: data.zoom ? 3 : 4, borderWidth: 1.5,
        data: nan.map((q, i) => ({ x: q.max_logit, y: NAN_Y[r.format],
          label: i === 0 && (r.format === 'fp16' || !data.zoom) ? `${r.format}: NaN from ${formatFixed(q.max_logit, data.zoom ? 2 : 1)}` : undefined })),
        pointLabels: (raw) => raw.label ?? '',
      }));
      const xMax = data.zoom ? ZOOM_RANGE[1] : X_RANGE[1];
      datasets.push(line(colour, {
        label: `${r.format}: e^x overflows above ${formatFixed(r.threshold, 2)}`, group: r.format, borderDash: [6, 3], borderWidth: 1.5,
        data: r.threshold > xMax ? [] : [{ x: r.threshold, y: 0 }, { x: r.threshold, y: 1.05, label: `${r.format} ${formatFixed(r.threshold, 2)}` }],
        pointLabels: (raw) => raw.label ?? '',
      }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Largest logit (nats; the others follow it)', { range: data.zoom ? ZOOM_RANGE : X_RANGE }),
        y: linear('Probability of the top token (fraction; NaN above 1)', { range: Y_RANGE, ticks: { stepSize: 0.2 } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: top logit ${formatFixed(ctx.raw.x, 1)}, p = ${formatFixed(ctx.raw.y, 4)}`,
    });
  },
};

const SHAPES = { fp16: 'circle', bf16: 'rect', fp32: 'triangle' };

// The sum view: ln of the naive kernel's stored sum (on the exact log Z line until it overflows),
// each format's ln(max), and the max-subtracted kernel's ln Σ e^(x − max).
function drawSum(data, theme) {
  const pick = colours(theme);
  const fp16 = data.runs[0];
  const datasets = [
    line(pick('muted'), { label: 'Exact log Z = ln Σ e^x', data: fp16.sweep.map((q) => ({ x: q.max_logit, y: q.log_z })), borderWidth: 5, order: 10 }),
    line(pick('text'), { label: 'Max-subtracted: ln Σ e^(x − max) (fp32 sum)',
      data: fp16.sweep.map((q, i) => ({ x: q.max_logit, y: q.stable_log_sum,
        label: i === fp16.sweep.length - 1 ? `${formatFixed(q.stable_log_sum, 2)}` : undefined })),
      pointLabels: (raw) => raw.label ?? '' }),
  ];
  for (const r of data.runs) {
    const colour = pick();
    const finite = r.sweep.filter((q) => q.naive_log_sum !== null);
    const last = finite[finite.length - 1];
    const shown = data.zoom ? (q, i) => r.format === 'fp16' || i % 4 === (r.format === 'bf16' ? 0 : 2) : (q) => SHOWN[r.format](q.max_logit);
    const pts = finite.filter((q, i) => q === last || shown(q, i));
    datasets.push(series(colour, {
      label: `Naive ${r.format}: ln of the stored sum`, group: r.format, pointStyle: SHAPES[r.format], pointRadius: r.format === 'fp16' ? 3 : 4,
      data: pts.map((q) => ({ x: q.max_logit, y: q.naive_log_sum,
        label: q === last && r.format !== 'fp32' && (r.format === 'fp16' || !data.zoom)
          ? `${r.format}: last finite sum at top logit ${formatFixed(q.max_logit, data.zoom ? 2 : 1)}` : undefined })),
      pointLabels: (raw) => raw.label ?? '',
    }));
    datasets.push(line(colour, {
      label: `${r.format}: ln(max) = ${formatFixed(r.threshold, 2)}`, group: r.format, borderDash: [6, 3], borderWidth: 1.5,
      data: [{ x: 0, y: r.threshold }, { x: 100, y: r.threshold }],
    }));
  }
  return chart(theme, {
    datasets,
    scales: {
      x: linear('Largest logit (nats; the others follow it)', { range: data.zoom ? ZOOM_RANGE : X_RANGE }),
      y: linear('ln of the sum of exponentials (nats)', { range: data.zoom ? ZOOM_SUM_RANGE : SUM_RANGE, ticks: { stepSize: data.zoom ? 5 : 20 } }),
    },
    tooltip: (ctx) => `${ctx.dataset.label}: top logit ${formatFixed(ctx.raw.x, 1)}, ${formatFixed(ctx.raw.y, 3)}`,
  });
}

// The close-up's points, in the sweep's fields, from one engine call per top logit.
function closeUp(engine, pattern, format) {
  const points = [];
  for (let i = 0; i * ZOOM_STEP <= ZOOM_RANGE[1] + 1e-9; i++) {
    const r = engine.calc('softmax-stability', { max_logit: Math.round(i * ZOOM_STEP * 100) / 100, ...pattern, format });
    points.push({
      max_logit: Math.round(i * ZOOM_STEP * 100) / 100, naive_top: r.naive ? r.naive[0] : null, stable_top: r.stable[0], exact_top: r.exact[0],
      exp_overflow: r.exp_overflow, sum_overflow: r.sum_overflow, log_z: r.log_z, stable_log_sum: r.log_z - r.max_logit,
      naive_log_sum: r.naive_sum !== null && r.naive_sum > 0 ? Math.log(r.naive_sum) : null,
    });
  }
  return points;
}
