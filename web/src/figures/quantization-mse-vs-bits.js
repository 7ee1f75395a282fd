// Measured mean-squared error of quantize→dequantize on a seeded matrix for every bit width
// from 2 to 16, beside the rounding-noise model Δ²/12 (each block's step averaged over the
// elements). One call to calc('quantization-mse-vs-bits').
import { chart, linear, log, span, colours, series, line } from './shared/chart-config.js';
import { formatShort, exponentTick } from '../runtime/format.js';

// The MSE axis: at the default seed, every data set, scale choice and zero-point setting from
// 2 to 16 bits falls between 2e-10 and 360 value units² (measured and model). Fixed (widened
// if a seed goes beyond), so that switching the data or the scales moves the points, not the axis.
const MSE_SPAN = [1e-10, 1e3];
const fmt = formatShort;
const BITS = Array.from({ length: 15 }, (_, i) => i + 2);
const MSE_TICK = (v, i, ticks) => { const t = exponentTick(v, i, ticks); return t === '1e0' ? '1' : t; };

export default {
  id: 'quantization-mse-vs-bits',
  simulation: true,
  title: 'Every bit divides the error by four',
  caption:
    'Measured MSE of quantizing 65,536 seeded values (points) against the Δ²/12 model (dashed), on a log scale: each extra bit halves the step and quarters the error, about 6 dB of SQNR per bit. On uniform data the two agree closely. Switch to Gaussian with outlier channels: at 6 bits and more the model still holds, only higher, because the outliers stretch the range. What decides is the step in units of the ordinary values\' σ (the column Step Δ/σ in Show data): the model holds while it is under about 2σ, even at 6 bits where 70% of the values round to zero. At 5 and 4 bits the step is 4σ to 10σ, and the measured error flattens near 1, the power of the ordinary values: they round to zero and their error is the value itself (dotted line: the part of the MSE from values rounded to zero). At 3 and 2 bits it rises again, to about 2 and 7, as the outliers\' own rounding error grows, still far below the model. Switch the scales to per-channel and the ordinary rows get their own step.',
  params: [
    { key: 'distribution', label: 'Data', from: ['quantization-mse-vs-bits', 'distribution'],
      options: [{ value: 'uniform', label: 'Uniform' }, { value: 'gaussian', label: 'Gaussian' }, { value: 'laplace', label: 'Laplace' }, { value: 'gaussian-outliers', label: 'Gaussian with outlier rows' }] },
    { key: 'granularity', label: 'Scales', from: ['quantization-mse-vs-bits', 'granularity'],
      options: [{ value: 'tensor', label: 'One per tensor' }, { value: 'channel', label: 'One per row' }, { value: 'group', label: 'One per group of 64' }] },
    { key: 'symmetric', label: 'Symmetric (zero point 0)', from: ['quantization-mse-vs-bits', 'symmetric'] },
    { key: 'seed', label: 'Seed', from: ['quantization-mse-vs-bits', 'seed'], max: 1000 },
  ],

  data(engine, p) {
    const r = engine.calc('quantization-mse-vs-bits', {
      distribution: p.distribution, granularity: p.granularity, symmetric: p.symmetric, seed: p.seed,
      samples: 65536, cols: 256, group_size: 64, bits_min: 2, bits_max: 16,
    });
    const points = r.points.map((q) => ({
      bits: q.bits, step: q.step_rms, mse: q.mse, model: q.mse_predicted, sqnr_db: q.sqnr_db, ratio: q.ratio_to_model, zeroed: q.zeroed_fraction, mse_zeroed: q.mse_zeroed,
    }));
    const table = {
      columns: ['Bits', 'Step Δ/σ', 'Measured MSE', 'Model Δ²/12', 'Measured ÷ model', 'SQNR (dB)', 'Values rounded to 0 (fraction)', 'MSE from them'],
      rows: points.map((q) => [q.bits, q.step, q.mse, q.model, q.ratio, q.sqnr_db, q.zeroed, q.mse_zeroed]),
    };
    return { distribution: p.distribution, granularity: p.granularity, elements: r.elements, points, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const datasets = [
      series(pick(), { label: 'Measured MSE (quantize → dequantize)', data: data.points.map((q) => ({ x: q.bits, y: q.mse, q })),
        showLine: false, pointRadius: 5, pointStyle: 'circle' }),
      line(pick(), { label: 'Rounding model Δ²/12', data: data.points.map((q) => ({ x: q.bits, y: q.model, q })), borderDash: [6, 3] }),
      // The plateau's cause: the values a wide step rounds to 0 contribute their own x². A log
      // axis cannot show 0, so widths where nothing rounds to 0 (or it is negligible) are gaps.
      line(pick(), { label: 'Part from values rounded to 0', data: data.points.map((q) => ({ x: q.bits, y: q.mse_zeroed > 1e-10 ? q.mse_zeroed : null, q })),
        borderDash: [2, 3], spanGaps: false }),
    ];
    const range = span([...MSE_SPAN, ...data.points.flatMap((q) => [q.mse, q.model])], { log: true });
    return chart(theme, {
      datasets,
      scales: {
        // Half a bit of margin each side, so the points at 2 and 16 bits are drawn whole.
        x: linear('Bits per value (bit)', { range: [1.5, 16.5], afterBuildTicks: (axis) => { axis.ticks = BITS.map((value) => ({ value })); } }),
        // Thirteen decades in one notation (1e-10 … 1e3), not decimals that switch to exponents at 1e-7.
        y: log('Mean-squared error (value units²)', { range, ticks: { callback: MSE_TICK } }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        return `${q.bits} bits: measured ${fmt(q.mse)}, model ${fmt(q.model)} (×${fmt(q.ratio)}), SQNR ${fmt(q.sqnr_db)} dB; ${fmt(100 * q.zeroed)} % of values rounded to 0`;
      },
    });
  },
};
