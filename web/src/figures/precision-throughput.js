// Throughput and memory of the mixed-precision recipe per compute format: the dense tensor
// peak and the compute-bound step time from the hardware table, and the bytes per parameter
// (working weights, gradients, fp32 master copy, fp32 optimizer state) from
// calc('mixed-precision-recipe').
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

export default {
  id: 'precision-throughput',
  title: 'Throughput and bytes per format',
  caption:
    'For each compute format, the accelerator’s dense peak (bars on the left axis) and the bytes each parameter costs with the mixed-precision recipe (stacked bars on the right axis). Going from fp32 to bf16 multiplies the peak by about fifteen on an H100, yet the bytes per parameter stay at 16 with Adam because the fp32 master weights and optimizer state remain. Switch to SGD, or to an A100, which has no fp8 rate.',
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
    const labels = data.formats.map((f) => (f.available ? f.compute_dtype : `${f.compute_dtype} (no rate)`));
    const pick = colours(theme);
    const stackPart = (label, key, colour, i) => series(colour, { label, data: data.formats.map((f) => f[key]), yAxisID: 'y1', stack: 'bytes',
      borderColor: theme.text, borderWidth: 1, borderDash: i % 2 ? [3, 3] : [] });
    return chart(theme, {
      type: 'bar', labels,
      datasets: [
        series(pick('muted'), { label: 'Dense peak (left axis)', data: data.formats.map((f) => (f.available ? f.peak_flops : 0)), yAxisID: 'y', stack: 'peak',
          borderColor: theme.text, borderWidth: 2 }),
        stackPart('Working weights (right)', 'weight_bytes_per_param', pick('memory'), 0),
        stackPart('Gradients (right)', 'grad_bytes_per_param', pick('compute'), 1),
        stackPart('fp32 master weights (right)', 'master_bytes_per_param', pick(), 2),
        stackPart(`fp32 optimizer state, ${data.optimizer} (right)`, 'optimizer_bytes_per_param', pick(), 3),
      ],
      scales: {
        x: category({ stacked: true }),
        y: linear('Dense peak (FLOP/s)', { position: 'left', stacked: false, ticks: { callback: (v) => formatSI(v, 'FLOP/s') } }),
        y1: linear('Bytes per parameter (B)', { position: 'right', stacked: true, min: 0, grid: { drawOnChartArea: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => (ctx.dataset.yAxisID === 'y'
        ? `${formatSI(ctx.raw, 'FLOP/s')}, step ${formatSI(data.formats[ctx.dataIndex].step_time_s ?? NaN, 's')}`
        : `${ctx.dataset.label}: ${ctx.raw} B/param`),
    });
  },
};
