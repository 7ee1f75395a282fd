// Throughput and memory of the mixed-precision recipe per compute format: the dense tensor
// peak and the compute-bound step time from the hardware table, and the bytes per parameter
// (working weights, gradients, fp32 master copy, fp32 optimizer state) from
// calc('mixed-precision-recipe'). Parameters and tokens per step reach the drawing through the
// labels: the step time at peak under each format's name, the model state in the byte axis title.
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, category, colours, series } from './shared/chart-config.js';

// Fixed axes over every accelerator of the table (L4's 30 TFLOP/s fp32 to B200's 4.5 PFLOP/s
// fp8) and both optimizers (at most 16 B/param), so switching moves the bars, not the axes.
const PEAK_RANGE = [1e13, 1e16];
const BYTES_RANGE = [0, 18];

// A step time as a reader says it: ms or s, then minutes, hours, days (format.js).
const duration = (s) => formatSI(s, 's');

// Below this chart width (px) the category labels go on short lines (phoneLabel).
const PHONE_WIDTH = 480;
export function phoneLabel([format, time]) {
  const name = format.endsWith('-fnuz') ? [format.slice(0, -5), 'fnuz'] : [format];
  return [...name, ...time.split(' ')];
}

export default {
  id: 'precision-throughput',
  title: 'Throughput and bytes per format',
  caption:
    'For each compute format, the accelerator’s dense peak (bars on the left, log axis), with the compute-bound step time it allows for the chosen parameters and tokens per step under the format’s name, and the bytes each parameter costs with the mixed-precision recipe (stacked bars on the right axis), whose title gives the model state they add up to. Going from fp32 to bf16 multiplies the peak by about fifteen on an H100 and divides the step time by as much, yet the bytes per parameter stay the same with Adam because the fp32 master weights and optimizer state remain. Switch to SGD, or to an A100, which has no fp8 rate; on MI300X the fp8 rate is for the FNUZ variant of E4M3.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['mixed-precision-recipe', 'hardware'] },
    { key: 'optimizer', label: 'Optimizer', from: ['mixed-precision-recipe', 'optimizer'] },
    { key: 'params', label: 'Parameters', from: ['mixed-precision-recipe', 'params'], scale: 'log', min: 1e6 },
    { key: 'tokens', label: 'Tokens per step', from: ['mixed-precision-recipe', 'tokens'], scale: 'log' },
  ],

  data(engine, p) {
    const r = engine.calc('mixed-precision-recipe', { hardware: p.hardware, optimizer: p.optimizer, params: p.params, tokens: p.tokens, compute_dtype: 'bf16' });
    const rows = r.formats.map((f) => [f.compute_dtype, f.available ? f.peak_flops : 'not in table',
      f.available ? f.step_time_s : 'not in table', f.speedup_vs_fp32 ?? '–', f.weight_bytes_per_param, f.grad_bytes_per_param,
      f.master_bytes_per_param, f.optimizer_bytes_per_param, f.total_bytes_per_param, f.model_state_bytes]);
    return {
      hardware: r.hardware, optimizer: r.optimizer, formats: r.formats,
      table: { columns: ['Compute format', 'Peak (FLOP/s)', 'Step time at peak (s)', 'Speed-up over fp32', 'Weights (B/param)',
        'Gradients (B/param)', 'fp32 master (B/param)', 'Optimizer state (B/param)', 'Total (B/param)', 'Total (B)'], rows },
    };
  },

  draw(data, theme) {
    const fnuz = data.hardware === 'mi300x';  // MI300 implements FNUZ FP8, not OCP (AMD HIP docs)
    const name = (d) => (fnuz && d === 'fp8-e4m3' ? 'fp8-e4m3-fnuz' : d);
    // Two-line category labels: the format, and the compute-bound step time its peak allows.
    const labels = data.formats.map((f) => (f.available ? [name(f.compute_dtype), duration(f.step_time_s)]
      : [name(f.compute_dtype), '(no rate)']));
    const state = formatSI(data.formats[0].model_state_bytes, 'B');  // the same for every format
    const pick = colours(theme);
    const stackPart = (label, key, colour, i) => series(colour, { label, data: data.formats.map((f) => f[key]), yAxisID: 'y1', stack: 'bytes',
      borderColor: theme.text, borderWidth: 1, borderDash: i % 2 ? [3, 3] : [] });
    return chart(theme, {
      type: 'bar', labels,
      datasets: [
        series(pick('muted'), { label: 'Dense peak (left axis)', data: data.formats.map((f) => (f.available ? f.peak_flops : null)), yAxisID: 'y', stack: 'peak',
          borderColor: theme.text, borderWidth: 2 }),
        stackPart('Working weights (right)', 'weight_bytes_per_param', pick('memory'), 0),
        stackPart('Gradients (right)', 'grad_bytes_per_param', pick('compute'), 1),
        stackPart('fp32 master weights (right)', 'master_bytes_per_param', pick(), 2),
        stackPart(`fp32 optimizer state, ${data.optimizer} (right)`, 'optimizer_bytes_per_param', pick(), 3),
      ],
      scales: {
        // Every format named, unrotated: the step time under each is read against its neighbours.
        // A phone's slot is about 50 px, narrower than "43.9 min": there the number and its unit
        // (and an FNUZ suffix) take lines of their own, so neighbouring labels do not run together.
        x: category({ stacked: true, title: 'Compute format, and step time at its peak', ticks: { autoSkip: false, maxRotation: 0,
          callback(value, i) { return this.chart.width < PHONE_WIDTH ? phoneLabel(labels[i]) : labels[i]; } } }),
        y: log('Dense peak (FLOP/s, log scale)', { position: 'left', stacked: false, range: PEAK_RANGE, unit: 'FLOP/s' }),
        y1: linear(`Bytes per parameter (B): ${state} of model state`, { position: 'right', stacked: true, range: BYTES_RANGE, grid: { drawOnChartArea: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => (ctx.dataset.yAxisID === 'y'
        ? `${formatSI(ctx.raw, 'FLOP/s')}, step ${formatSI(data.formats[ctx.dataIndex].step_time_s ?? NaN, 's')}`
        : `${ctx.dataset.label}: ${ctx.raw} B/param`),
    });
  },
};
