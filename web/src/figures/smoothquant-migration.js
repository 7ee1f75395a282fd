// SmoothQuant's migration strength α executed on seeded activations with outlier channels
// (W8A8: errors of activations, weights and the product Y = XW against fp64), one call to
// calc('smoothquant'). Which phase each scheme speeds up is its own figure (quantization-phases).
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

const fmt = (x) => (x === 0 || (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e5) ? String(Number(x.toPrecision(3))) : x.toExponential(2));
// The error axis: at the default seed, every α and every outlier scale from 1 to 100 puts the
// three errors and the unsmoothed output between 3.2e-5 and 1.1e-3. Fixed, so that raising the
// outlier scale moves the curves (and the dashed baseline) rather than the axis.
const ERROR_RANGE = [1e-5, 3e-3];

export default {
  id: 'smoothquant-migration',
  simulation: true,
  title: 'SmoothQuant: moving the outliers from activations to weights',
  caption:
    'Activations with four outlier channels are quantized per tensor and weights per output channel, both to 8 bits. Dividing channel j of X by s_j = max|X_j|^α / max|W_j|^(1−α) and multiplying row j of W by it leaves XW unchanged; as α grows the activation error falls and the weight error rises, and the error of the product is smallest in between (dashed: no smoothing). Move α, and raise the outlier scale: the unsmoothed error grows with it while the smoothed one does not.',
  params: [
    { key: 'alpha', label: 'Migration strength α', from: ['smoothquant', 'alpha'] },
    { key: 'outlier_scale', label: 'Outlier scale (× σ)', from: ['smoothquant', 'outlier_scale'], max: 100, scale: 'log' },
  ],

  data(engine, p) {
    const sq = engine.calc('smoothquant', { alpha: p.alpha, outlier_scale: p.outlier_scale, points: 11 });
    const sweep = sq.points.map((q) => ({ alpha: q.alpha, act: q.activation_rel_mse, weight: q.weight_rel_mse, output: q.output_rel_mse }));
    const at = { act: sq.smoothed.activation_rel_mse, weight: sq.smoothed.weight_rel_mse, output: sq.smoothed.output_rel_mse };
    return {
      alpha: p.alpha, sweep, at,
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
