// Model-state memory per GPU for ZeRO stages 0–3 against the data-parallel degree, with the
// selected accelerator's HBM as a line: one calc('zero') per degree (it returns all stages).
import { formatSI } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';

const DPS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const PARAMS = [1e8, 1e13]; // the parameter control's range
const PAPER_DP = 64; // ZeRO's Figure 1: Ψ = 7.5B on 64 GPUs
const NAMES = ['Stage 0: plain data parallelism', 'Stage 1: optimizer states sharded', 'Stage 2: + gradients', 'Stage 3: + parameters'];
const STYLES = [['circle', []], ['triangle', [6, 3]], ['rect', [2, 2]], ['rectRot', [10, 4]]];

export default {
  id: 'zero-memory-per-gpu',
  title: 'Memory per GPU under ZeRO stages 0–3',
  caption:
    'Bytes of weights, gradients and optimizer states each GPU holds (mixed-precision training, activations excluded) as the data-parallel degree grows. Stages 1 and 2 level off at the unsharded 4Ψ and 2Ψ bytes; only stage 3 keeps falling as 16Ψ/N. At the default 7.5B parameters stage 0 lies above the HBM line at every degree: adding GPUs never helps it. Lower the parameter count until stage 0 fits, then raise it again and watch the smallest degree at which each stage fits (in the legend) move to more GPUs.',
  params: [
    { key: 'params', label: 'Parameters Ψ', type: 'number', min: PARAMS[0], max: PARAMS[1], default: 7.5e9, scale: 'log' },
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
    // The memory axis spans every parameter count of the control (stage 3 of the smallest model
    // on the most GPUs up to stage 0 of the largest on one), so that raising Ψ moves the
    // curves up past the HBM line instead of moving the axis.
    const states = (params, dp, s) => engine.calc('zero', { params, dp, optimizer: p.optimizer, hardware: p.hardware }).stages[s].model_states_bytes;
    const range = span([states(PARAMS[0], DPS.at(-1), 3), states(PARAMS[1], 1, 0), hbm], { log: true, pad: 2 });
    return { params: p.params, hbm, series, fitsAt, range, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    // Each stage's bytes named at N = 64, the degree of the paper's Figure 1 that the lesson quotes.
    const atPaper = (q) => (q.x === PAPER_DP ? formatSI(q.y, 'B') : '');
    const datasets = data.series.map((pts, s) => series(pick(), {
      label: `${NAMES[s]}${data.fitsAt[s] ? ` (fits from ${data.fitsAt[s]} GPUs)` : ' (never fits)'}`,
      data: pts, showLine: true, pointStyle: STYLES[s][0], pointRadius: 4, borderDash: STYLES[s][1], borderWidth: 2, pointLabels: atPaper,
    }));
    datasets.push(line(pick('text'), { label: `HBM ${formatSI(data.hbm, 'B')}`, data: [{ x: 1, y: data.hbm }, { x: 4096, y: data.hbm }],
      borderDash: [3, 3] }));
    return chart(theme, {
      datasets,
      scales: {
        x: log('Data-parallel degree N (GPUs)', { unit: '', range: [1, 4096] }),
        y: log('Model states per GPU (B)', { unit: 'B', range: data.range }),
      },
      tooltip: (ctx) => `${ctx.dataset.label.split(' (')[0]}, N = ${ctx.raw.x}: ${formatSI(ctx.raw.y, 'B')}`,
    });
  },
};
