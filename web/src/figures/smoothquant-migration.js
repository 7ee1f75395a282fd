// Two views of where quantization pays. "migration": SmoothQuant's migration strength α
// executed on seeded activations with outlier channels (W8A8, errors of activations, weights
// and the product Y = XW against fp64), one call to calc('smoothquant'). "phases": the
// roofline time of a decode step and of a prefill (or training) step under each scheme, as a
// speedup over bf16, one call to calc('quantization-speedup').
import { formatSI } from '../runtime/format.js';
import { chart, linear, log, category, colours, series, line } from './shared/chart-config.js';

const fmt = (x) => (x === 0 || (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e5) ? String(Number(x.toPrecision(3))) : x.toExponential(2));
const SCHEME_LABEL = {
  bf16: 'bf16 (baseline)', w8a16: 'W8A16 int8 weights', w4a16: 'W4A16 int4 weights (g128)',
  'w8a8-int8': 'W8A8 int8', 'w8a8-fp8': 'W8A8 fp8',
};

export default {
  id: 'smoothquant-migration',
  simulation: true,
  title: 'SmoothQuant migration strength, and which phase each scheme speeds up',
  caption:
    'Migration: activations with a few outlier channels are quantized per tensor and weights per output channel, both to 8 bits. Dividing channel j of X by s_j = max|X_j|^α / max|W_j|^(1−α) and multiplying row j of W by it leaves XW unchanged; as α grows the activation error falls and the weight error rises, and the error of the product is smallest in between (dashed: no smoothing). Move α, and raise the outlier scale to see the gain grow. Then switch the view to phases: weight-only int4 speeds up memory-bound decode but not compute-bound prefill, while W8A8 does the opposite on chips with fast int8 or fp8; try the A100 (no fp8) and a decode batch of 256.',
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'migration',
      options: [{ value: 'migration', label: 'SmoothQuant migration (α)' }, { value: 'phases', label: 'Which phase each scheme speeds up' }] },
    { key: 'alpha', label: 'Migration strength α', from: ['smoothquant', 'alpha'] },
    { key: 'outlier_scale', label: 'Outlier scale (× σ)', from: ['smoothquant', 'outlier_scale'], max: 100, scale: 'log' },
    { key: 'hardware', label: 'Accelerator (phases)', from: ['quantization-speedup', 'hardware'] },
    { key: 'decode_batch', label: 'Decode batch (phases)', from: ['quantization-speedup', 'decode_batch'], max: 1024, scale: 'log' },
  ],

  data(engine, p) {
    const sq = engine.calc('smoothquant', { alpha: p.alpha, outlier_scale: p.outlier_scale, points: 11 });
    const sp = engine.calc('quantization-speedup', { hardware: p.hardware, decode_batch: p.decode_batch, params: 8e9, prefill_tokens: 4096 });
    const sweep = sq.points.map((q) => ({ alpha: q.alpha, act: q.activation_rel_mse, weight: q.weight_rel_mse, output: q.output_rel_mse }));
    const schemes = sp.schemes.map((s) => ({
      scheme: s.scheme, label: SCHEME_LABEL[s.scheme] ?? s.scheme, available: s.available, bits: s.bits_per_weight,
      decode: s.available ? s.decode_speedup : 0, prefill: s.available ? s.prefill_speedup : 0,
      decode_time_s: s.available ? s.decode_time_s : 0, prefill_time_s: s.available ? s.prefill_time_s : 0,
      decode_bound: s.available ? s.decode_bound : 'unavailable', prefill_bound: s.available ? s.prefill_bound : 'unavailable',
    }));
    const table = p.view === 'phases'
      ? {
        columns: ['Scheme', 'Bits per weight (bit)', 'Decode speedup (×)', 'Decode bound', 'Prefill speedup (×)', 'Prefill bound'],
        rows: schemes.map((s) => [s.label, s.bits, s.decode, s.decode_bound, s.prefill, s.prefill_bound]),
      }
      : {
        columns: ['α', 'Activation rel. MSE', 'Weight rel. MSE', 'Output rel. MSE'],
        rows: sweep.map((q) => [q.alpha, q.act, q.weight, q.output]),
      };
    return {
      view: p.view, alpha: p.alpha, hardware: sp.hardware, decode_batch: p.decode_batch, sweep,
      at: { act: sq.smoothed.activation_rel_mse, weight: sq.smoothed.weight_rel_mse, output: sq.smoothed.output_rel_mse },
      baseline: { act: sq.baseline.activation_rel_mse, weight: sq.baseline.weight_rel_mse, output: sq.baseline.output_rel_mse },
      best_alpha: sq.best_alpha, schemes, table,
    };
  },

  draw(data, theme) {
    const pick = colours(theme);
    if (data.view === 'phases') {
      const avail = data.schemes;
      return chart(theme, {
        type: 'bar',
        labels: avail.map((s) => (s.available ? s.label : `${s.label} (not on this chip)`)),
        // Decode in the memory colour and prefill in the compute colour: the bound each phase
        // usually has, which is the caption's point.
        datasets: [
          series(pick('memory'), { label: `Decode, batch ${data.decode_batch} (speedup ×)`, data: avail.map((s) => s.decode), borderWidth: 1 }),
          series(pick('compute'), { label: 'Prefill, 4096 tokens (speedup ×)', data: avail.map((s) => s.prefill), borderWidth: 1, borderDash: [4, 2] }),
        ],
        scales: {
          x: category({ ticks: { autoSkip: false, maxRotation: 40 } }),
          y: linear('Speedup over bf16 (×, roofline bound)', { min: 0 }),
        },
        tooltip: (ctx) => {
          const s = data.schemes[ctx.dataIndex];
          if (!s.available) return `${s.label}: no published peak for this format on this chip`;
          const decode = ctx.datasetIndex === 0;
          const t = decode ? s.decode_time_s : s.prefill_time_s;
          return `${decode ? 'Decode' : 'Prefill'}: ${formatSI(t, 's')} per step (${decode ? s.decode_bound : s.prefill_bound}-bound), ×${fmt(decode ? s.decode : s.prefill)}`;
        },
      });
    }
    const curve = (label, key, style) => series(pick(), {
      label, data: data.sweep.map((q) => ({ x: q.alpha, y: q[key], q })), showLine: true, pointRadius: 3, borderWidth: 2, pointStyle: style,
    });
    const ys = data.sweep.flatMap((q) => [q.act, q.weight, q.output]).concat([data.baseline.output, data.baseline.act]);
    const [yLo, yHi] = [Math.min(...ys) / 2, Math.max(...ys) * 2];
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
