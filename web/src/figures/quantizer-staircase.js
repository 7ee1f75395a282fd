// The transfer curve of one b-bit uniform quantizer: x → integer code q → dequantized
// x̂ = s·(q − z), with the rounding error x̂ − x (bounded by Δ/2 inside the range, growing
// without bound outside it where the code clamps). One call to calc('quantizer-staircase').
import { chart, linear, colours, series, line } from './shared/chart-config.js';
import { formatShort } from '../runtime/format.js';

// Three significant digits, exponent form for very small or large magnitudes.
const fmt = formatShort;

export default {
  id: 'quantizer-staircase',
  title: 'The uniform quantizer: scale, zero point and the Δ/2 bound',
  caption:
    'The staircase maps each input x to the nearest of 2^b levels; the dotted line is the error x̂ − x, which stays within ±Δ/2 inside the calibrated range and grows linearly once the code clamps outside it. (Rounding the zero point keeps 0 exact but can shift the grid by up to half a step, so one end of the range may sit Δ/2 off a level.) Raise the bits and watch the steps shrink by half per bit; make the range lopsided (say −0.2 to 1) and compare the asymmetric quantizer, whose zero point shifts the grid so that 0 stays exact, with the symmetric one, which wastes half its codes on values that never occur.',
  params: [
    { key: 'bits', label: 'Bits b', from: ['quantizer-staircase', 'bits'] },
    { key: 'range_min', label: 'Range minimum', from: ['quantizer-staircase', 'range_min'], min: -10, max: 10 },
    { key: 'range_max', label: 'Range maximum', from: ['quantizer-staircase', 'range_max'], min: -10, max: 10 },
    { key: 'symmetric', label: 'Symmetric (zero point 0)', from: ['quantizer-staircase', 'symmetric'] },
  ],

  data(engine, p) {
    const r = engine.calc('quantizer-staircase', {
      bits: p.bits, range_min: p.range_min, range_max: p.range_max, symmetric: p.symmetric, points: 401,
    });
    const points = r.x.map((x, i) => ({ x, q: r.q[i], x_hat: r.x_hat[i], error: r.quantization_error[i] }));
    const table = {
      columns: ['x', 'Code q', 'Dequantized x̂', 'Error x̂ − x'],
      rows: points.filter((_, i) => i % 8 === 0).map((q) => [q.x, q.q, q.x_hat, q.error]),
    };
    return {
      bits: p.bits, symmetric: p.symmetric, scale: r.scale, zero_point: r.zero_point, qmin: r.qmin, qmax: r.qmax,
      max_error: r.max_error, measured_max_error: r.max_abs_error_in_range, range_lo: r.range_lo, range_hi: r.range_hi,
      points, table,
    };
  },

  draw(data, theme) {
    const xs = data.points.map((q) => q.x);
    const [x0, x1] = [xs[0], xs.at(-1)];
    const errMax = Math.max(...data.points.map((q) => Math.abs(q.error)), data.max_error) * 1.1;
    const pick = colours(theme);
    const error = pick();
    // The ±Δ/2 bounds are the error's own limit: its colour, one legend entry.
    const bound = (sign) => line(error, {
      label: sign > 0 ? `±Δ/2 = ±${fmt(data.max_error)} (right axis)` : '−Δ/2',
      data: [{ x: data.range_lo, y: sign * data.max_error }, { x: data.range_hi, y: sign * data.max_error }],
      yAxisID: 'y1', borderWidth: 1, borderDash: [2, 3], group: 'error',
    });
    const datasets = [
      line(pick(), { label: `Dequantized x̂ (Δ = ${fmt(data.scale)}, zero point ${data.zero_point}, codes ${data.qmin}…${data.qmax})`,
        data: data.points.map((q) => ({ x: q.x, y: q.x_hat, q })) }),
      line(pick('muted'), { label: 'x̂ = x (no error)', data: [{ x: x0, y: x0 }, { x: x1, y: x1 }], borderWidth: 1, borderDash: [6, 4] }),
      line(error, { label: 'Error x̂ − x (right axis)', data: data.points.map((q) => ({ x: q.x, y: q.error, q })), yAxisID: 'y1',
        borderWidth: 1.5, borderDash: [1, 2], group: 'error' }),
      bound(1), bound(-1),
      series(pick('text'), { label: 'Calibrated range', data: [{ x: data.range_lo, y: data.range_lo }, { x: data.range_hi, y: data.range_hi }],
        showLine: false, pointRadius: 5, pointStyle: 'rectRot' }),
    ];
    const ticks = { maxRotation: 0 };
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Input x (value units)', { range: [x0, x1], ticks }),
        y: linear('Dequantized x̂ (value units)', { ticks }),
        // The range is 10% past the largest error, not a tick: its bounds get no label of their own
        // (a '0.7' crowding the '0.6' below it).
        y1: linear('Error x̂ − x (value units)', { position: 'right', range: [-errMax, errMax], ticks: { ...ticks, includeBounds: false }, grid: { drawOnChartArea: false } }),
      },
      legend: { filter: (item) => item.text !== '−Δ/2' },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        return q ? `x = ${fmt(q.x)} → q = ${q.q} → x̂ = ${fmt(q.x_hat)}, error ${fmt(q.error)}` : ctx.dataset.label;
      },
    });
  },
};
