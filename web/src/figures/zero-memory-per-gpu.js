// Model-state memory per GPU for ZeRO stages 0–3 against the data-parallel degree, with the
// selected accelerator's HBM as a line: one calc('zero') per degree (it returns all stages).
import { formatSI, logTick } from '../runtime/format.js';

const DPS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const NAMES = ['Stage 0: plain data parallelism', 'Stage 1: optimizer states sharded', 'Stage 2: + gradients', 'Stage 3: + parameters'];
const STYLES = [['circle', []], ['triangle', [6, 3]], ['rect', [2, 2]], ['rectRot', [10, 4]]];

export default {
  id: 'zero-memory-per-gpu',
  title: 'Memory per GPU under ZeRO stages 0–3',
  caption:
    'Bytes of weights, gradients and optimizer states each GPU holds (mixed-precision training, activations excluded) as the data-parallel degree grows. Stages 1 and 2 level off at the unsharded 4Ψ and 2Ψ bytes; only stage 3 keeps falling as 16Ψ/N. Raise the parameter count until stage 0 no longer fits the HBM line, then find the smallest degree at which each stage fits.',
  params: [
    { key: 'params', label: 'Parameters Ψ', type: 'number', min: 1e8, max: 1e13, default: 7.5e9, scale: 'log' },
    { key: 'optimizer', label: 'Optimizer', from: ['zero', 'optimizer'] },
    // Chips with a scale-up link in the table ('zero' also times the collectives).
    { key: 'hardware', label: 'Accelerator (HBM line)', from: ['zero', 'hardware'],
      options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x', 'tpu-v4', 'tpu-v5e', 'tpu-v5p', 'h100-pcie'] },
  ],

  data(engine, p) {
    const rows = DPS.map((dp) => ({ dp, stages: engine.calc('zero', { params: p.params, dp, optimizer: p.optimizer, hardware: p.hardware }).stages }));
    // After the zero calls, which validate `hardware` under its own name.
    const hbm = engine.calc('hardware', { id: p.hardware }).hbm_bytes;
    const series = [0, 1, 2, 3].map((s) => rows.map((r) => ({ x: r.dp, y: r.stages[s].model_states_bytes })));
    const fitsAt = series.map((pts) => pts.find((q) => q.y <= hbm)?.x ?? null);
    const table = {
      columns: ['Data-parallel degree', 'Stage 0 (B)', 'Stage 1 (B)', 'Stage 2 (B)', 'Stage 3 (B)'],
      rows: rows.map((r) => [r.dp, ...r.stages.map((z) => z.model_states_bytes)]),
    };
    return { params: p.params, hbm, series, fitsAt, table };
  },

  draw(data, theme) {
    const colours = [theme.memory, theme.compute, theme.palette[2], theme.palette[4]];
    const datasets = data.series.map((pts, s) => ({
      label: `${NAMES[s]}${data.fitsAt[s] ? ` (fits from ${data.fitsAt[s]} GPUs)` : ' (never fits)'}`,
      data: pts, showLine: true, pointStyle: STYLES[s][0], pointRadius: 4, borderDash: STYLES[s][1], borderWidth: 2,
      borderColor: colours[s], backgroundColor: colours[s],
    }));
    datasets.push({ label: `HBM ${formatSI(data.hbm, 'B')}`, data: [{ x: 1, y: data.hbm }, { x: 4096, y: data.hbm }], showLine: true,
      pointRadius: 0, pointStyle: 'line', borderWidth: 2, borderDash: [3, 3], borderColor: theme.text, backgroundColor: theme.text });
    const axis = (text, unit, extra) => ({ type: 'logarithmic', title: { display: true, text, color: theme.text },
      ticks: { color: theme.muted, maxRotation: 0, callback: logTick(unit) }, grid: { color: theme.grid }, ...extra });
    return {
      type: 'scatter',
      data: { datasets },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: { x: axis('Data-parallel degree N (GPUs)', '', { min: 1, max: 4096 }), y: axis('Model states per GPU (B)', 'B') },
        plugins: {
          legend: { labels: { color: theme.text, usePointStyle: true } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label.split(' (')[0]}, N = ${ctx.raw.x}: ${formatSI(ctx.raw.y, 'B')}` } },
        },
      },
    };
  },
};
