// Per-tensor vs per-channel vs group-wise scales on one seeded matrix with outlier channels
// (rows): measured MSE of quantize→dequantize and the bits each value costs once the fp16
// scales (and zero points) are counted. Six calls to calc('quantize'), measured form.
import { chart, linear, log, category, colours, series } from './shared/chart-config.js';
import { formatShort } from '../runtime/format.js';

const fmt = formatShort;
const SCHEMES = [
  { label: 'Per tensor', granularity: 'tensor' },
  { label: 'Per channel (row of 512)', granularity: 'channel' },
  { label: 'Groups of 256', granularity: 'group', group_size: 256 },
  { label: 'Groups of 128', granularity: 'group', group_size: 128 },
  { label: 'Groups of 64', granularity: 'group', group_size: 64 },
  { label: 'Groups of 32', granularity: 'group', group_size: 32 },
];

export default {
  id: 'quantization-granularity',
  simulation: true,
  title: 'One scale per tensor, per channel or per group',
  caption:
    'A 128 × 512 Gaussian matrix in which 4 rows (channels) are outliers, quantized with one fp16 scale per tensor, per row or per group of consecutive values. Bars: measured MSE (log scale, left); dots: bits stored per value including the scales (right). At 4 bits one shared scale lets the outlier rows set the step for everybody; a scale per row removes most of the error for 1/32 of a bit per value, and groups of 128 (as in GPTQ and AWQ) go a little further for 1/8 of a bit. Raise the outlier scale, or turn on zero points, and watch the bill.',
  params: [
    { key: 'bits', label: 'Bits b', type: 'integer', min: 2, max: 8, default: 4 },
    { key: 'outlier_scale', label: 'Outlier scale (× σ)', type: 'number', min: 1, max: 100, default: 20, scale: 'log' },
    { key: 'symmetric', label: 'Symmetric (zero point 0)', type: 'boolean', default: true },
    { key: 'seed', label: 'Seed', type: 'integer', min: 0, max: 1000, default: 1 },
  ],

  data(engine, p) {
    const bars = SCHEMES.map((s) => {
      const r = engine.calc('quantize', {
        bits: p.bits, granularity: s.granularity, ...(s.group_size ? { group_size: s.group_size } : {}),
        distribution: 'gaussian-outliers', outlier_fraction: 4 / 128, outlier_scale: p.outlier_scale,
        symmetric: p.symmetric, samples: 65536, cols: 512, seed: p.seed,
      });
      return { label: s.label, mse: r.mse, sqnr_db: r.sqnr_db, overhead_bytes: r.scale_overhead_bytes, bits_per_value: r.bits_per_value, blocks: r.blocks };
    });
    const table = {
      columns: ['Scales', 'MSE', 'SQNR (dB)', 'Scale bytes (B)', 'Bits per value (bit)'],
      rows: bars.map((b) => [b.label, b.mse, b.sqnr_db, b.overhead_bytes, b.bits_per_value]),
    };
    return { bits: p.bits, symmetric: p.symmetric, bars, table };
  },

  draw(data, theme) {
    const labels = data.bars.map((b) => b.label);
    const pick = colours(theme);
    const datasets = [
      series(pick(), { type: 'bar', label: 'MSE (left, log)', data: data.bars.map((b) => b.mse), yAxisID: 'y', borderWidth: 1 }),
      series(pick('text'), { type: 'line', label: 'Bits per value incl. scales (right)', data: data.bars.map((b) => b.bits_per_value), yAxisID: 'y1',
        showLine: false, pointRadius: 7, pointStyle: 'rectRot' }),
    ];
    const bpv = data.bars.map((b) => b.bits_per_value);
    const pad = (Math.max(...bpv) - data.bits) * 0.15 + 0.02; // keep the 4.0002-bit dot off the axis
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ ticks: { autoSkip: false, maxRotation: 40 } }),
        y: log('Mean-squared error (value units²)', { unit: '' }),
        y1: linear('Stored bits per value (bit)', { position: 'right', range: [data.bits - pad, Math.max(...bpv) + pad], grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => {
        const b = data.bars[ctx.dataIndex];
        return `${b.label}: MSE ${fmt(b.mse)} (SQNR ${fmt(b.sqnr_db)} dB), ${b.blocks} scales = ${b.overhead_bytes} B, ${fmt(b.bits_per_value)} bits per value`;
      },
    });
  },
};
