// Mean time between failures of a synchronous job against its GPU count, M_cluster = M_gpu / N
// (independent exponential failures), at a chosen per-GPU rate and at the rate the Llama 3
// 405B run implies (Llama Team 2024, arXiv:2407.21783, section 3.3.4: 419 unexpected
// interruptions, 466 in all, in a 54-day snapshot on 16,384 H100s). One `cluster-failures`
// call per GPU count and line.
import { formatSI, formatFixed, formatDecimal } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';

export const GPU_COUNTS = Array.from({ length: 15 }, (_, i) => 8 * 2 ** i);  // 8 … 131,072
export const LLAMA = { gpus: 16384, days: 54, unexpected: 419, all: 466 };
export const Y_RANGE = [1e-3, 2e5];  // hours: 10 failures/GPU/yr at 131,072 GPUs … 0.01 at 8

// A rate as a reader writes it: 0.173, 1, 2.5 (no SI prefix: 0.173 is not '173 m').
export const rateText = (r) => String(Number(r.toPrecision(3)));
// A table cell as text: `n` significant digits, no padding, separators from 1,000 up.
const digits = (v, n) => { const r = Number(v.toPrecision(n)); return r >= 1000 ? formatDecimal(r, 0) : String(r); };
const hours = (h) => (h >= 100 ? `${formatSI(h, '')} h` : h >= 1 ? `${formatFixed(h, 1)} h` : `${formatFixed(h * 60, 0)} min`);

export default {
  id: 'cluster-mtbf',
  title: 'How often a large job fails: mean time between failures against GPU count',
  caption:
    'A synchronous job stops when any one of its GPUs fails, so with independent failures its mean time between failures is one GPU\u2019s divided by the GPU count: a straight line of slope −1 on these log–log axes. The triangle is the Llama 3 405B run: 419 unexpected interruptions in 54 days on 16,384 H100s, one every 3.1 hours, which is 0.17 failures per GPU per year (the dashed line through it). The dot marks 16,384 GPUs at your rate: at the default 1 failure per GPU per year that job fails every half hour. Move the rate to move the solid line; tick the box to count the 47 planned interruptions as well.',
  params: [
    { key: 'rate', label: 'Your per-GPU rate (failures per GPU per year)', type: 'number', min: 0.01, max: 10, default: 1, scale: 'log' },
    { key: 'planned', label: 'Count the 47 planned interruptions too', type: 'boolean', default: false },
  ],

  data(engine, p) {
    const rate = Number(p.rate);
    const failures = p.planned ? LLAMA.all : LLAMA.unexpected;
    const run = engine.calc('cluster-failures', { gpus: LLAMA.gpus, failures, days: LLAMA.days });
    const at = (gpus, perYear) => engine.calc('cluster-failures', { gpus, failures_per_gpu_per_year: perYear });
    const yours = GPU_COUNTS.map((n) => at(n, rate));
    const llama = GPU_COUNTS.map((n) => at(n, run.failures_per_gpu_per_year));
    const table = {
      columns: ['GPUs', `MTBF at ${rateText(rate)} /GPU/yr (h)`, 'Failures per day', `MTBF at Llama 3's ${run.failures_per_gpu_per_year.toFixed(3)} /GPU/yr (h)`],
      // As text, four digits at most and no padding (the table would print 0.0219 as 0.02190).
      rows: GPU_COUNTS.map((n, i) => [n, ...[yours[i].cluster_mtbf_h, yours[i].failures_per_day, llama[i].cluster_mtbf_h]
        .map((v) => digits(v, 4))]),
    };
    return { rate, failures, run, yours, llama, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const pts = (rows) => rows.map((r) => ({ x: r.gpus, y: r.cluster_mtbf_h }));
    const mid = data.yours[GPU_COUNTS.indexOf(LLAMA.gpus)];  // the caption's 16,384 GPUs
    const datasets = [
      line(pick(), { label: `Your rate: ${rateText(data.rate)} failure${data.rate === 1 ? '' : 's'} per GPU per year`, data: pts(data.yours), borderWidth: 3 }),
      line(pick(), { label: `Llama 3's implied rate: ${data.run.failures_per_gpu_per_year.toFixed(3)} per GPU per year`, data: pts(data.llama), borderDash: [6, 4] }),
      line(pick('muted'), { label: 'One day', data: [{ x: GPU_COUNTS[0], y: 24 }, { x: GPU_COUNTS.at(-1), y: 24 }], borderWidth: 1 }),
      series(pick('compute'), { label: `Llama 3 405B run (${data.failures} interruptions in ${LLAMA.days} days)`, pointStyle: 'triangle', pointRadius: 9, pointLabels: true,
        data: [{ x: LLAMA.gpus, y: data.run.cluster_mtbf_h, label: `Llama 3: every ${hours(data.run.cluster_mtbf_h)}` }] }),
      series(pick('text'), { label: 'Your rate at 16,384 GPUs', pointRadius: 5, pointLabels: true,
        data: [{ x: mid.gpus, y: mid.cluster_mtbf_h, label: `Yours: every ${hours(mid.cluster_mtbf_h)}` }] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log('GPUs in the job (log)', { unit: '', range: [GPU_COUNTS[0], GPU_COUNTS.at(-1)] }),
        y: log('Mean time between job failures (hours, log)', { unit: '', range: Y_RANGE }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.x, '')} GPUs, ${ctx.raw.y.toPrecision(3)} h`,
    });
  },
};
