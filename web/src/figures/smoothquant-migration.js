// Two views of where quantization pays, each with its own controls (a control's `views` hides
// it in the other view). "migration": SmoothQuant's migration strength α executed on seeded
// activations with outlier channels (W8A8: errors of activations, weights and the product
// Y = XW against fp64), one call to calc('smoothquant'). "phases": which phase each scheme
// speeds up (shared/quantization-phases.js), one call to calc('quantization-speedup').
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';
import { phasesData, phasesDraw } from './shared/quantization-phases.js';
import { formatShort } from '../runtime/format.js';

const fmt = formatShort;
// The error axis: at the default seed, every α and every outlier scale from 1 to 100 puts the
// three errors and the unsmoothed output between 3.2e-5 and 1.1e-3. Fixed, so that raising the
// outlier scale moves the curves (and the dashed baseline) rather than the axis.
const ERROR_RANGE = [1e-5, 3e-3];

export default {
  id: 'smoothquant-migration',
  simulation: true,
  title: 'SmoothQuant migration strength, and which phase each scheme speeds up',
  caption:
    'Migration view: activations with four outlier channels are quantized per tensor and weights per output channel, both to 8 bits. Dividing channel j of X by s_j = max|X_j|^α / max|W_j|^(1−α) and multiplying row j of W by it leaves XW unchanged; as α grows the activation error falls and the weight error rises, and the error of the product is smallest in between (dashed: no smoothing). Move α, and lower the outlier scale towards 1: the unsmoothed error falls towards the smoothed one, which hardly moves. Phases view: the roofline speedup over bf16 of one decode step and one 4,096-token prefill step of an 8B-parameter model, each bar labelled with its bound (mem: memory-bound, comp: compute-bound). Small-batch decode is memory-bound, so every scheme with 8- or 4-bit weights speeds it up by its ratio of bytes, W8A8 as much as W8A16. Prefill is compute-bound, so only W8A8 speeds it up, by the ratio of its int8 or fp8 peak to the bf16 peak. Try the A100 (no fp8), the TPU v4 (int8 at the bf16 rate: no prefill gain) and a decode batch of 512, where decode turns compute-bound too.',
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'migration',
      options: [{ value: 'migration', label: 'SmoothQuant migration (α)' }, { value: 'phases', label: 'Which phase each scheme speeds up' }] },
    { key: 'alpha', label: 'Migration strength α', from: ['smoothquant', 'alpha'], when: { view: ['migration'] } },
    { key: 'outlier_scale', label: 'Outlier scale (× σ)', from: ['smoothquant', 'outlier_scale'], max: 100, scale: 'log', when: { view: ['migration'] } },
    { key: 'hardware', label: 'Accelerator', from: ['quantization-speedup', 'hardware'], when: { view: ['phases'] } },
    { key: 'decode_batch', label: 'Decode batch', from: ['quantization-speedup', 'decode_batch'], max: 1024, scale: 'log', when: { view: ['phases'] } },
  ],

  data(engine, p) {
    if (p.view === 'phases') return { view: 'phases', ...phasesData(engine, p) };
    const sq = engine.calc('smoothquant', { alpha: p.alpha, outlier_scale: p.outlier_scale, points: 11 });
    const sweep = sq.points.map((q) => ({ alpha: q.alpha, act: q.activation_rel_mse, weight: q.weight_rel_mse, output: q.output_rel_mse }));
    const at = { act: sq.smoothed.activation_rel_mse, weight: sq.smoothed.weight_rel_mse, output: sq.smoothed.output_rel_mse };
    return {
      view: 'migration', alpha: p.alpha, sweep, at,
      baseline: { act: sq.baseline.activation_rel_mse, weight: sq.baseline.weight_rel_mse, output: sq.baseline.output_rel_mse },
      best_alpha: sq.best_alpha,
      table: {
        columns: ['α', 'Activation rel. MSE', 'Weight rel. MSE', 'Output rel. MSE'],
        rows: [...sweep.map((q) => [q.alpha, q.act, q.weight, q.output]),
          [`${p.alpha} (chosen)`, at.act, at.weight, at.output]],
      },
    };
  },

  draw(data, theme) {
    if (data.view === 'phases') return phasesDraw(data, theme);
    const pick = colours(theme);
    const curve = (label, key, style) => series(pick(), {
      label, data: data.sweep.map((q) => ({ x: q.alpha, y: q[key], q })), showLine: true, pointRadius: 3, borderWidth: 2, pointStyle: style,
    });
    const ys = data.sweep.flatMap((q) => [q.act, q.weight, q.output]).concat([data.baseline.output]);
    const [yLo, yHi] = [Math.min(ERROR_RANGE[0], ...ys), Math.max(ERROR_RANGE[1], ...ys)];
    return chart(theme, {
      datasets: [
        curve('Activation error (per tensor)', 'act', 'circle'),
        curve('Weight error (per output channel)', 'weight', 'triangle'),
        curve('Output error of Y = XW', 'output', 'rect'),
        line(pick('muted'), { label: `Output error without smoothing (${fmt(data.baseline.output)})`, data: [{ x: 0, y: data.baseline.output }, { x: 1, y: data.baseline.output }],
          borderWidth: 1, borderDash: [6, 4] }),
        line(pick('text'), { label: `α = ${fmt(data.alpha)}: output error ${fmt(data.at.output)}`, data: [{ x: data.alpha, y: yLo }, { x: data.alpha, y: yHi }],
          borderDash: [2, 3] }),
      ],
      scales: {
        x: linear('Migration strength α (dimensionless)', { range: [0, 1] }),
        y: log('Relative MSE (‖error‖² ÷ ‖value‖²)', { unit: '', range: [yLo, yHi] }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        return q ? `α = ${fmt(q.alpha)}: activations ${fmt(q.act)}, weights ${fmt(q.weight)}, output ${fmt(q.output)}` : ctx.dataset.label;
      },
    });
  },
};
