// Bytes per parameter of the model states by optimizer (calc 'optimizer-state'): working
// weights and gradients in the weight format, an fp32 master copy when 16-bit weights keep
// one, and the optimizer's own state (SGD 0, momentum 4, Adam/AdamW 8 for fp32 m and v, 8-bit
// Adam 2 plus its block scales, Adafactor's factored second moment 4·(r + c)/(r·c)). Mixed-
// precision Adam is ZeRO's 2 + 2 + 12 = 16 bytes per parameter.
import { formatShort } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const OPTIMIZERS = [
  ['sgd', 'SGD'],
  ['momentum', 'SGD + momentum'],
  ['adam', 'Adam / AdamW'],
  ['adam-8bit', '8-bit Adam'],
  ['adafactor', 'Adafactor'],
];
const PRECISIONS = {
  mixed: { label: 'mixed precision: bf16 + fp32 master', weight_dtype: 'bf16', master_weights: true },
  fp32: { label: 'fp32 only', weight_dtype: 'fp32', master_weights: false },
  bf16: { label: 'bf16 only, no master copy', weight_dtype: 'bf16', master_weights: false },
};
// A parameter count in words: 7 billion, 350 million.
const count = (n) => (n >= 1e9 ? `${Number((n / 1e9).toPrecision(3))} billion` : `${Number((n / 1e6).toPrecision(3))} million`);
const PARTS = [['weights', 'Weights'], ['grads', 'Gradients'], ['master', 'fp32 master weights'], ['states', 'Optimizer state'], ['scales', '8-bit block scales']];

export default {
  id: 'optimizer-state-bytes',
  title: 'Bytes per parameter of the model states, by optimizer',
  caption:
    'What training keeps per parameter besides activations: weights, gradients, an fp32 master copy, and the optimizer’s state, stacked, with the total on each bar. In mixed precision Adam comes to 16 bytes, three quarters of it fp32 master weights and the two moments; 8-bit Adam keeps its moments in 2 bytes, Adafactor factors the second moment of each 4,096 × 4,096 matrix into a row and a column. Switch to fp32 and see Adam still at 16 (no separate master copy, but 4-byte weights and gradients); switch to gigabytes, set the parameter count to your model, and compare the bars with one GPU’s memory (the dashed line): at 7 billion parameters mixed-precision Adam’s model states alone do not fit on an 80 GiB H100.',
  params: [
    { key: 'precision', label: 'Number formats', type: 'select', options: Object.entries(PRECISIONS).map(([value, q]) => ({ value, label: q.label })), default: 'mixed' },
    { key: 'view', label: 'Show', type: 'select', options: [{ value: 'param', label: 'bytes per parameter' }, { value: 'total', label: 'GB for the whole model' }], default: 'param' },
    { key: 'billions', label: 'Parameters (billions)', type: 'number', unit: '', min: 0.1, max: 1000, default: 7, scale: 'log', when: { view: ['total'] } },
    { key: 'hardware', label: 'GPU memory line', type: 'select', options: [{ value: 'h100-sxm', label: 'H100 SXM (80 GiB)' }, { value: 'h200-sxm', label: 'H200 SXM (141 GiB)' }], default: 'h100-sxm', when: { view: ['total'] } },
  ],

  data(engine, p) {
    p = { ...p, params: p.billions * 1e9 };
    const run = (optimizer, precision, params) => engine.calc('optimizer-state', { optimizer, params, weight_dtype: PRECISIONS[precision].weight_dtype,
      master_weights: PRECISIONS[precision].master_weights, hardware: p.hardware });
    const bars = OPTIMIZERS.map(([optimizer, name]) => {
      const r = run(optimizer, p.precision, p.params);
      const parts = { ...r.breakdown, scales: r.block_scale_bytes_per_param };
      const per = r.bytes_per_param + r.block_scale_bytes_per_param;
      return { optimizer, name, parts, bytes_per_param: per, total_bytes: r.total_bytes + r.block_scale_bytes_per_param * p.params };
    });
    // The y axis: the largest bar over every number format, so switching formats moves the bars.
    const top = Math.max(...Object.keys(PRECISIONS).flatMap((q) => OPTIMIZERS.map(([o]) => {
      const r = run(o, q, p.params);
      return r.bytes_per_param + r.block_scale_bytes_per_param;
    })));
    // The whole model's bytes only in the view that shows them (the parameter count is hidden in the other).
    const whole = p.view === 'total';
    const table = {
      columns: ['Optimizer', ...PARTS.map(([, l]) => `${l} (B/param)`), 'Total (B/param)', ...(whole ? [`Total for ${count(p.params)} parameters (B)`] : [])],
      rows: bars.map((b) => [b.name, ...PARTS.map(([k]) => b.parts[k]), b.bytes_per_param, ...(whole ? [b.total_bytes] : [])]),
    };
    const hbm = run('sgd', p.precision, p.params).hbm_bytes;
    return { view: p.view, precision: p.precision, params: p.params, hardware: p.hardware, hbm, bars, top, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const perParam = data.view === 'param';
    const scale = perParam ? 1 : data.params / 1e9;
    const patterns = [[], [6, 3], [2, 2], [], [1, 1]];
    // Adafactor's state is a few thousandths of a byte: its total keeps four digits (8.002, not
    // 8) rather than round the state away, and stays short enough to sit over its own bar.
    const tiny = (b) => b.parts.states > 0 && b.parts.states < 0.01;
    const digits = (b, v) => (tiny(b) ? Number(v.toPrecision(4)).toString() : formatShort(v));
    const total = (b) => (perParam ? `${digits(b, b.bytes_per_param)} B` : `${digits(b, b.total_bytes / 1e9)} GB`);
    const datasets = PARTS.map(([key, label], i) => series(pick(), {
      label, stack: 'states', borderColor: theme.text, borderWidth: 1, borderDash: patterns[i],
      data: data.bars.map((b) => b.parts[key] * scale),
    }));
    // Each bar's total, written just above it (points drawn at the top plus a small gap).
    const gap = 0.04 * data.top * scale;
    datasets.push({ ...series(pick('muted'), { label: 'Total', data: data.bars.map((b) => b.bytes_per_param * scale + gap) }),
      type: 'line', stack: 'totals', showLine: false, pointRadius: 0, pointHoverRadius: 0, noLegend: true,
      pointLabels: (_raw, j) => total(data.bars[j]) });
    // The whole-model view: one GPU's memory as a line across the bars.
    const hbmGB = data.hbm / 1e9;
    if (!perParam) {
      datasets.push({ ...series(pick('compute'), { label: `One ${data.hardware === 'h200-sxm' ? 'H200' : 'H100'}'s memory: ${formatShort(hbmGB)} GB`,
        data: data.bars.map(() => hbmGB) }), type: 'line', stack: 'hbm', borderDash: [6, 4], borderWidth: 2, pointRadius: 0, pointHoverRadius: 0 });
    }
    // A round top: the next multiple of a 1-2-5 step above the tallest bar (and the line).
    const high = Math.max(1.15 * data.top * scale, perParam ? 0 : 1.1 * hbmGB);
    const unit = 10 ** Math.floor(Math.log10(high));
    const top = [1, 2, 2.5, 5, 10].map((m) => m * unit).find((v) => v >= high);
    return chart(theme, {
      type: 'bar', labels: data.bars.map((b) => b.name), datasets,
      scales: {
        x: category({ title: `Optimizer (${PRECISIONS[data.precision].label})`, stacked: true }),
        y: linear(perParam ? 'Model states per parameter (B)' : `Model states of ${count(data.params)} parameters (GB)`,
          { stacked: true, range: [0, top] }),
      },
      legend: { usePointStyle: false, filter: (item, d) => !d.datasets[item.datasetIndex].noLegend },
      tooltip: (ctx) => (ctx.dataset.noLegend ? `Total: ${total(data.bars[ctx.dataIndex])}`
        : `${ctx.dataset.label}: ${formatShort(ctx.raw)} ${perParam ? 'B/param' : 'GB'} (bar total ${total(data.bars[ctx.dataIndex])})`),
    });
  },
};
