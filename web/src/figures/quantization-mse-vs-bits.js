// Measured mean-squared error of quantize→dequantize on a seeded matrix for every bit width
// from 2 to 16, beside the rounding-noise model Δ²/12 (each block's step averaged over the
// elements). One call to calc('quantization-mse-vs-bits').
import { logTick } from '../runtime/format.js';

const fmt = (x) => (x === 0 || (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e5) ? String(Number(x.toPrecision(3))) : x.toExponential(2));

export default {
  id: 'quantization-mse-vs-bits',
  simulation: true,
  title: 'Every bit divides the error by four',
  caption:
    'Measured MSE of quantizing 65,536 seeded values (points) against the Δ²/12 model (line), on a log scale: each extra bit halves the step and quarters the error, about 6 dB of SQNR per bit. On uniform data the two agree closely. Switch to Laplace or to Gaussian with outlier channels: the model still describes the rounding, but the large values stretch the range, so the error at every width is higher; then switch the scales to per-channel and watch most of that loss disappear.',
  params: [
    { key: 'distribution', label: 'Data', from: ['quantization-mse-vs-bits', 'distribution'] },
    { key: 'granularity', label: 'Scales', from: ['quantization-mse-vs-bits', 'granularity'] },
    { key: 'symmetric', label: 'Symmetric (zero point 0)', from: ['quantization-mse-vs-bits', 'symmetric'] },
    { key: 'seed', label: 'Seed', from: ['quantization-mse-vs-bits', 'seed'], max: 1000 },
  ],

  data(engine, p) {
    const r = engine.calc('quantization-mse-vs-bits', {
      distribution: p.distribution, granularity: p.granularity, symmetric: p.symmetric, seed: p.seed,
      samples: 65536, cols: 256, group_size: 64, bits_min: 2, bits_max: 16,
    });
    const points = r.points.map((q) => ({ bits: q.bits, mse: q.mse, model: q.mse_predicted, sqnr_db: q.sqnr_db, ratio: q.ratio_to_model }));
    const table = {
      columns: ['Bits', 'Measured MSE', 'Model Δ²/12', 'Measured ÷ model', 'SQNR (dB)'],
      rows: points.map((q) => [q.bits, q.mse, q.model, q.ratio, q.sqnr_db]),
    };
    return { distribution: p.distribution, granularity: p.granularity, elements: r.elements, points, table };
  },

  draw(data, theme) {
    const datasets = [
      { label: 'Measured MSE (quantize → dequantize)', data: data.points.map((q) => ({ x: q.bits, y: q.mse, q })),
        showLine: false, pointRadius: 5, pointStyle: 'circle', borderColor: theme.palette[0], backgroundColor: theme.palette[0] },
      { label: 'Rounding model Δ²/12', data: data.points.map((q) => ({ x: q.bits, y: q.model, q })), showLine: true,
        pointRadius: 0, borderWidth: 2, borderDash: [6, 3], pointStyle: 'line', borderColor: theme.palette[1], backgroundColor: theme.palette[1] },
    ];
    return {
      type: 'scatter',
      data: { datasets },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: { type: 'linear', min: 2, max: 16, title: { display: true, text: 'Bits per value (bit)', color: theme.text },
            ticks: { color: theme.muted, stepSize: 1 }, grid: { color: theme.grid } },
          y: { type: 'logarithmic', title: { display: true, text: 'Mean-squared error (value units²)', color: theme.text },
            ticks: { color: theme.muted, callback: logTick('') }, grid: { color: theme.grid } },
        },
        plugins: {
          legend: { labels: { color: theme.text, usePointStyle: true } },
          tooltip: {
            callbacks: {
              label: (ctx) => {
                const q = ctx.raw.q;
                return `${q.bits} bits: measured ${fmt(q.mse)}, model ${fmt(q.model)} (×${fmt(q.ratio)}), SQNR ${fmt(q.sqnr_db)} dB`;
              },
            },
          },
        },
      },
    };
  },
};
