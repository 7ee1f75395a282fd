// Throughput and memory of the mixed-precision recipe per compute format: the dense tensor
// peak and the compute-bound step time from the hardware table, and the bytes per parameter
// (working weights, gradients, fp32 master copy, fp32 optimizer state) from
// calc('mixed-precision-recipe').
import { formatSI } from '../runtime/format.js';

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
    const stackPart = (label, key, colour, i) => ({ label, data: data.formats.map((f) => f[key]), yAxisID: 'y1', stack: 'bytes',
      backgroundColor: colour, borderColor: theme.text, borderWidth: 1, borderDash: i % 2 ? [3, 3] : [] });
    return {
      type: 'bar',
      data: { labels, datasets: [
        { label: 'Dense peak (left axis)', data: data.formats.map((f) => (f.available ? f.peak_flops : 0)), yAxisID: 'y', stack: 'peak',
          backgroundColor: theme.muted, borderColor: theme.text, borderWidth: 2 },
        stackPart('Working weights (right)', 'weight_bytes_per_param', theme.memory, 0),
        stackPart('Gradients (right)', 'grad_bytes_per_param', theme.compute, 1),
        stackPart('fp32 master weights (right)', 'master_bytes_per_param', theme.palette[2], 2),
        stackPart(`fp32 optimizer state, ${data.optimizer} (right)`, 'optimizer_bytes_per_param', theme.palette[3], 3),
      ] },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: { type: 'category', stacked: true, ticks: { color: theme.text }, grid: { color: theme.grid } },
          y: { type: 'linear', position: 'left', stacked: false, title: { display: true, text: 'Dense peak (FLOP/s)', color: theme.text },
            ticks: { color: theme.muted, callback: (v) => formatSI(v, 'FLOP/s') }, grid: { color: theme.grid } },
          y1: { type: 'linear', position: 'right', stacked: true, min: 0, title: { display: true, text: 'Bytes per parameter (B)', color: theme.text },
            ticks: { color: theme.muted }, grid: { drawOnChartArea: false } },
        },
        plugins: {
          legend: { labels: { color: theme.text } },
          tooltip: { callbacks: { label: (ctx) => (ctx.dataset.yAxisID === 'y'
            ? `${formatSI(ctx.raw, 'FLOP/s')}, step ${formatSI(data.formats[ctx.dataIndex].step_time_s ?? NaN, 's')}`
            : `${ctx.dataset.label}: ${ctx.raw} B/param`) } },
        },
      },
    };
  },
};
