// Two views of how many scales a tensor gets, on one seeded matrix with outlier channels (rows).
// "scales": per-tensor vs per-channel vs group-wise integer scales, six calls to
// calc('quantize') (measured form): the MSE of the whole tensor and of its ordinary rows, and
// the bits each value costs once the fp16 scales (and zero points) are counted. "formats": the
// block-scaled float formats (MX, NVFP4) beside int4 and int8 with fp16 scales, one call to
// calc('block-formats'): SQNR against bits per value, one labelled point per format.
import { chart, linear, log, category, colours, series } from './shared/chart-config.js';
import { formatShort } from '../runtime/format.js';

const fmt = formatShort;
const SCHEMES = [
  { label: 'Per tensor', granularity: 'tensor' },
  { label: 'Per row of 512', granularity: 'channel' },
  { label: 'Groups of 256', granularity: 'group', group_size: 256 },
  { label: 'Groups of 128', granularity: 'group', group_size: 128 },
  { label: 'Groups of 64', granularity: 'group', group_size: 64 },
  { label: 'Groups of 32', granularity: 'group', group_size: 32 },
];
const ROWS = 128, OUTLIER_ROWS = 4;
// Every setting (2–8 bits, outlier scale 1–100, either quantizer, seeds near the default) puts
// both MSEs between 2e-5 and 3e2: fixed, so that a control moves the bars, not the axis.
const MSE_RANGE = [1e-5, 1e3];
// Bits per value of every scheme and format drawn: 2 (per tensor) to 9 (int8 groups of 32, zero points).
const FORMAT_LABELS = {
  mxfp8: 'MXFP8', 'mxfp6-e2m3': 'MXFP6 E2M3', 'mxfp6-e3m2': 'MXFP6 E3M2', mxfp4: 'MXFP4', nvfp4: 'NVFP4',
  'int4-g32': 'int4, g32', 'int4-g16': 'int4, g16', 'int4-channel': 'int4 per row', 'int8-channel': 'int8 per row',
};

function scalesData(engine, p) {
  const bars = SCHEMES.map((s) => {
    const r = engine.calc('quantize', {
      bits: p.bits, granularity: s.granularity, ...(s.group_size ? { group_size: s.group_size } : {}),
      distribution: 'gaussian-outliers', outlier_fraction: OUTLIER_ROWS / ROWS, outlier_scale: p.outlier_scale,
      symmetric: p.symmetric, samples: 65536, cols: 512, seed: p.seed,
    });
    return { label: s.label, mse: r.mse, mse_ordinary: r.mse_ordinary, sqnr_db: r.sqnr_db, sqnr_ordinary_db: r.sqnr_ordinary_db,
      overhead_bytes: r.scale_overhead_bytes, bits_per_value: r.bits_per_value, blocks: r.blocks };
  });
  const table = {
    columns: ['Scales', 'MSE, whole tensor', 'MSE, ordinary rows', 'SQNR, ordinary rows (dB)', 'Scale bytes (B)', 'Bits per value (bit)'],
    rows: bars.map((b) => [b.label, b.mse, b.mse_ordinary, b.sqnr_ordinary_db, b.overhead_bytes, b.bits_per_value]),
  };
  return { view: 'scales', bits: p.bits, symmetric: p.symmetric, bars, table };
}

function formatsData(engine, p) {
  const r = engine.calc('block-formats', { outlier_scale: p.outlier_scale, seed: p.seed });
  const points = r.formats.map((f) => ({
    x: f.bits_per_value, y: f.sqnr_db, label: FORMAT_LABELS[f.format] ?? f.format, float: f.element.startsWith('E'), f,
  }));
  const table = {
    columns: ['Format', 'Element', 'Block (values)', 'Bits per value (bit)', 'SQNR (dB)', 'Rounded to 0'],
    rows: r.formats.map((f) => [FORMAT_LABELS[f.format] ?? f.format, f.element, f.block, f.bits_per_value, f.sqnr_db, f.zeroed_fraction]),
  };
  return { view: 'formats', points, table };
}

function scalesDraw(data, theme) {
  // Two-line category labels: the scheme and its bill, so the bill is read beside each pair of bars.
  const labels = data.bars.map((b) => [b.label, `${fmt(b.bits_per_value)} bit/value`]);
  const pick = colours(theme);
  const bar = (label, key) => series(pick(), { type: 'bar', label, data: data.bars.map((b) => b[key]), borderWidth: 1, order: 2 });
  const datasets = [
    bar('MSE of the whole tensor', 'mse'),
    bar(`MSE of the ${ROWS - OUTLIER_ROWS} ordinary rows`, 'mse_ordinary'),
  ];
  return chart(theme, {
    type: 'bar', labels, datasets,
    scales: {
      x: category({ ticks: { autoSkip: false, maxRotation: 40 } }),
      y: log('Mean-squared error (value units²)', { unit: '', range: MSE_RANGE }),
    },
    tooltip: (ctx) => {
      const b = data.bars[ctx.dataIndex];
      return `${b.label}: MSE ${fmt(b.mse)} whole tensor, ${fmt(b.mse_ordinary)} ordinary rows (SQNR ${fmt(b.sqnr_ordinary_db)} dB); ${b.blocks} scales = ${b.overhead_bytes} B, ${fmt(b.bits_per_value)} bits per value`;
    },
  });
}

function formatsDraw(data, theme) {
  const pick = colours(theme);
  const group = (label, keep, style) => series(pick(), {
    label, data: data.points.filter(keep), pointStyle: style, pointRadius: 6, pointLabels: true,
  });
  return chart(theme, {
    datasets: [
      group('Block-scaled floats (MX, NVFP4)', (q) => q.float, 'rectRot'),
      group('Integers with fp16 scales', (q) => !q.float, 'circle'),
    ],
    scales: {
      x: linear('Stored bits per value, scales included (bit)', { range: [3.5, 9] }),
      y: linear('SQNR (dB)', { range: [10, 50] }),
    },
    tooltip: (ctx) => {
      const q = ctx.raw;
      return `${q.label} (${q.f.element}, blocks of ${q.f.block}): ${fmt(q.x)} bits per value, SQNR ${fmt(q.y)} dB`;
    },
  });
}

export default {
  id: 'quantization-granularity',
  simulation: true,
  title: 'One scale per tensor, per channel or per group, and block-scaled formats',
  caption:
    'A 128 × 512 Gaussian matrix in which 4 rows (channels) are outliers. Scales view: 4-bit integers with one fp16 scale per tensor, per row or per group of consecutive values; bars give the measured MSE of the whole tensor and of its 124 ordinary rows (log scale), and each label gives the bits stored per value, scales included. One shared scale lets the outlier rows set the step for everybody, and the ordinary rows round to zero; a scale per row gives them back their own step for 1/32 of a bit per value. Raise the outlier scale to 100: the whole-tensor error hardly moves between schemes, because it is now the outlier rows\' own rounding error, while the ordinary rows\' error still falls about fifty-fold. Formats view: SQNR against bits per value for the MX formats (blocks of 32, power-of-two scales) and NVFP4 (blocks of 16, E4M3 scales) beside int4 and int8 with fp16 scales. NVFP4 lands on int4 with groups of 32 at the same 4.5 bits, MXFP4 a little lower for a quarter bit less; at 6 bits the extra mantissa bit of E2M3 is worth about 6 dB over E3M2. Every point has its own scale per block or row, so the outlier scale hardly moves any of them.',
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'scales',
      options: [{ value: 'scales', label: 'Integer scales: per tensor, row, group' }, { value: 'formats', label: 'Block-scaled formats (MX, NVFP4)' }] },
    { key: 'bits', label: 'Bits b', type: 'integer', min: 2, max: 8, default: 4, when: { view: ['scales'] } },
    { key: 'outlier_scale', label: 'Outlier scale (× σ)', type: 'number', min: 1, max: 100, default: 20, scale: 'log' },
    { key: 'symmetric', label: 'Symmetric (zero point 0)', type: 'boolean', default: true, when: { view: ['scales'] } },
    { key: 'seed', label: 'Seed', type: 'integer', min: 0, max: 1000, default: 1 },
  ],

  data(engine, p) {
    return p.view === 'formats' ? formatsData(engine, p) : scalesData(engine, p);
  },

  draw(data, theme) {
    return data.view === 'formats' ? formatsDraw(data, theme) : scalesDraw(data, theme);
  },
};
