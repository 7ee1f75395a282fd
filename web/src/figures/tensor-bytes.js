// Bytes of one real tensor, a batch of logits [batch, sequence, vocabulary], in every number
// format the engine knows: elements × bytes per element. One calc('tensor-layout') per dtype
// (its elements, element_bytes and bytes); the bars are its `bytes`, on a linear axis (bar
// lengths in the ratio of the element sizes) or on a log axis fixed over every setting.
import { formatSI, formatDecimal } from '../runtime/format.js';
import { chart, log, linear, category, colours, series } from './shared/chart-config.js';

// The formats drawn, widest first (tf32 is stored in 4 bytes, as fp32, so it is left out).
const DTYPES = ['fp64', 'fp32', 'bf16', 'fp16', 'fp8-e4m3', 'int8', 'int4'];
// The fixed range of the bytes axis: the smallest and the largest tensor the controls can make, so that moving
// a control moves the bars, not the axis.
const LIMITS = { batch: [1, 64], seq: [256, 16384], vocab: [1000, 262144] };

export default {
  id: 'tensor-bytes',
  title: 'Bytes of a logits tensor in each number format',
  caption:
    'The logits a language model produces for one batch, a tensor of shape [batch, sequence, vocabulary], stored in each format: elements × bytes per element. On the linear axis (from 0 to a round number past the fp64 bar of the current setting) each halving of the element size halves the bar: int4 is a sixteenth of fp64. Switch the axis to logarithmic to compare settings: it stays fixed over every setting, so doubling the batch or the sequence doubles every value and moves every bar end right by the same step, and each halving of the element size is one equal step left. Switch to a 128k vocabulary and see why the logits of long sequences are measured in gigabytes.',
  params: [
    { key: 'batch', label: 'Batch (sequences)', type: 'integer', min: LIMITS.batch[0], max: LIMITS.batch[1], default: 8, scale: 'log' },
    { key: 'seq', label: 'Sequence length (tokens)', type: 'integer', min: LIMITS.seq[0], max: LIMITS.seq[1], default: 2048, scale: 'log' },
    { key: 'vocab', label: 'Vocabulary (tokens)', type: 'integer', min: LIMITS.vocab[0], max: LIMITS.vocab[1], default: 50257, scale: 'log' },
    { key: 'highlight', label: 'Highlighted format', from: ['tensor-layout', 'dtype'], options: DTYPES, default: 'fp32' },
    { key: 'axis', label: 'Bytes axis', type: 'select', default: 'linear',
      options: [{ value: 'linear', label: 'Linear (compare formats)' }, { value: 'log', label: 'Logarithmic, fixed (compare settings)' }] },
  ],

  data(engine, p) {
    const shape = [p.batch, p.seq, p.vocab];
    const bars = DTYPES.map((dtype) => {
      const r = engine.calc('tensor-layout', { shape, dtype });
      return { dtype, elements: r.elements, element_bytes: r.element_bytes, bytes: r.bytes };
    });
    const bytesAt = (dims, dtype) => engine.calc('tensor-layout', { shape: dims, dtype }).bytes;
    const range = [bytesAt([LIMITS.batch[0], LIMITS.seq[0], LIMITS.vocab[0]], 'int4') / 2,
      bytesAt([LIMITS.batch[1], LIMITS.seq[1], LIMITS.vocab[1]], 'fp64') * 4];
    const table = {
      columns: ['Format', 'Elements', 'Bytes per element (B)', 'Tensor (B)'],
      rows: bars.map((b) => [b.dtype, b.elements, b.element_bytes, b.bytes]),
    };
    // Linear: from 0 to a round number past the widest bar (fp64), with room for its label; it
    // follows the setting.
    const need = bars[0].bytes * 1.2;
    const decade = 10 ** Math.floor(Math.log10(need));
    const linearRange = [0, [1, 2, 2.5, 5, 10].find((m) => m * decade >= need) * decade];
    return { shape, highlight: p.highlight, axis: p.axis, bars, elements: bars[0].elements,
      range: p.axis === 'log' ? range : linearRange, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const [plain, marked] = [pick(), pick('compute')];
    const shape = `[${data.shape.map((d) => formatDecimal(d)).join(', ')}]`;
    const label = (b) => formatSI(b.bytes, 'B');
    const datasets = [
      series(plain, { label: `Logits ${shape}: ${formatDecimal(data.elements)} elements`, stack: 'bytes',
        data: data.bars.map((b) => (b.dtype === data.highlight ? null : b.bytes)),
        pointLabels: (raw, i) => (raw === null ? '' : label(data.bars[i])) }),
      series(marked, { label: `${data.highlight}: ${label(data.bars.find((b) => b.dtype === data.highlight))}, ${data.bars.find((b) => b.dtype === data.highlight).element_bytes} B per element`, stack: 'bytes',
        data: data.bars.map((b) => (b.dtype === data.highlight ? b.bytes : null)),
        pointLabels: (raw, i) => (raw === null ? '' : label(data.bars[i])) }),
    ];
    return chart(theme, {
      // Horizontal bars: each label sits at its bar's end, clear of its neighbours.
      type: 'bar', indexAxis: 'y', labels: data.bars.map((b) => `${b.dtype} (${b.element_bytes} B)`), datasets,
      scales: {
        y: category({ title: 'Number format (bytes per element)', stacked: true }),
        x: data.axis === 'log' ? log('Bytes of the tensor (B, logarithmic, fixed)', { unit: 'B', range: data.range })
          : linear('Bytes of the tensor (B)', { range: data.range, ticks: { callback: (v) => formatSI(v, 'B'), maxTicksLimit: 6 } }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${ctx.label}: ${formatSI(ctx.raw, 'B')}`,
    });
  },
};
