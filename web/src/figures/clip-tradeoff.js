// The clipping trade-off: quantize one seeded tensor with its range clipped to a fraction of
// max|x|; rounding error falls as the step shrinks, clipping error rises as more values are
// cut off, and the search finds the clip with the least total MSE. One call to
// calc('clip-search').
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';
import { formatShort, exponentTick } from '../runtime/format.js';

const fmt = formatShort;

export default {
  id: 'clip-tradeoff',
  simulation: true,
  title: 'Clipping: trading a few large errors for many small ones',
  caption:
    'Total MSE (solid) is the sum of rounding error inside the clipped range and clipping error of the values cut off; the marker is the clip the search picks. At 4 bits on 64 rows of Gaussian data, one of them a 5× outlier channel, the best range is under half of max|x|, for about a third of the error. Move to 8 bits and the optimum slides toward no clipping. Raise the outlier scale to 20 and per-tensor clipping can no longer help: the error is now almost all rounding error of the ordinary values, which a step sized for the outliers rounds to zero, and no clip short enough to resolve them leaves the outliers intact. That is the case for finer scales in the next figure.',
  params: [
    { key: 'bits', label: 'Bits b', from: ['clip-search', 'bits'], max: 8 },
    { key: 'distribution', label: 'Data', from: ['clip-search', 'distribution'],
      options: [{ value: 'uniform', label: 'Uniform' }, { value: 'gaussian', label: 'Gaussian' }, { value: 'laplace', label: 'Laplace' }, { value: 'gaussian-outliers', label: 'Gaussian with outlier rows' }] },
    { key: 'outlier_scale', label: 'Outlier scale (× σ)', from: ['clip-search', 'outlier_scale'], max: 50 },
    { key: 'granularity', label: 'Scales', from: ['clip-search', 'granularity'],
      options: [{ value: 'tensor', label: 'One per tensor' }, { value: 'channel', label: 'One per row' }, { value: 'group', label: 'One per group of 64' }] },
  ],

  data(engine, p) {
    const r = engine.calc('clip-search', {
      bits: p.bits, distribution: p.distribution, outlier_scale: p.outlier_scale, granularity: p.granularity,
      group_size: 64, samples: 16384, points: 40, clip_min: 0.05,
    });
    const points = r.points.map((q) => ({ clip: q.clip, mse: q.mse, rounding: q.mse_rounding, clipping: q.mse_clipping, clipped: q.clipped_fraction }));
    const table = {
      columns: ['Clip (fraction of max |x|)', 'Total MSE', 'Rounding MSE', 'Clipping MSE', 'Values clipped (fraction)'],
      rows: points.map((q) => [q.clip, q.mse, q.rounding, q.clipping, q.clipped]),
    };
    return {
      bits: p.bits, distribution: p.distribution, max_abs: r.max_abs, best_clip: r.best_clip, best_mse: r.best_mse,
      mse_no_clip: r.mse_no_clip, gain: r.mse_gain, best_clipped_fraction: r.best_clipped_fraction, points, table,
    };
  },

  draw(data, theme) {
    // A log axis cannot show zero: where no value is clipped the clipping part ends (a gap),
    // instead of plunging to the axis floor as if it were a value there.
    const pos = (v) => (v > 0 ? v : null);
    const pick = colours(theme);
    const curve = (label, key, dash) => line(pick(), { label, data: data.points.map((q) => ({ x: q.clip, y: pos(q[key]), q })), borderDash: dash, spanGaps: false });
    const ys = data.points.flatMap((q) => [q.mse, q.rounding]).filter((v) => v > 0);
    // Fixed per bit width (every data set, outlier scale up to 50 and scale choice of the
    // controls falls inside at the default seed), so raising the outlier scale moves the curves.
    const [yLo, yHi] = [Math.min(3e-10 * 4 ** (8 - data.bits), ...ys), Math.max(100, ...ys)];
    const datasets = [
      curve('Total MSE', 'mse', []),
      curve('Rounding part', 'rounding', [6, 3]),
      curve('Clipping part', 'clipping', [2, 2]),
      // The caption's marker, named on the chart.
      series(pick('text'), { label: `Best clip ${fmt(data.best_clip)} × max|x| (MSE ÷${fmt(data.gain)} vs no clipping)`,
        data: [{ x: data.best_clip, y: data.best_mse, label: `best clip ${fmt(data.best_clip)}` }], showLine: false, pointRadius: 8, pointStyle: 'star',
        borderWidth: 2, pointLabels: true }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Clip (fraction of max |x|)', { range: [0, 1] }),
        // Decades in one notation (1e-7, not 0.000001 beside it).
        y: log('Mean-squared error (value units²)', { range: [yLo, yHi], ticks: { callback: (v, i, t) => { const s = exponentTick(v, i, t); return s === '1e0' ? '1' : s; } } }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        return `clip ${fmt(q.clip)}: total ${fmt(q.mse)} = rounding ${fmt(q.rounding)} + clipping ${fmt(q.clipping)} (${fmt(100 * q.clipped)} % clipped)`;
      },
    });
  },
};
