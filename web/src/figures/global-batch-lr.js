// The global batch (calc 'global-batch': per-device micro-batch × data-parallel devices ×
// gradient-accumulation steps, in sequences and tokens per optimizer step) placed on the
// learning-rate rules of calc 'batch-scaling': the linear rule (Goyal et al. 2017), the
// square-root rule for Adam (Malladi et al. 2022) and McCandlish et al. 2018's noise-scale
// model, all anchored at a learning rate tuned at a smaller batch; and, in the cost view, the
// steps and tokens McCandlish et al.'s model needs to reach a given loss at each batch.
import { formatCount, formatShort } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';

const VIEWS = [{ value: 'lr', label: 'Learning rate' }, { value: 'cost', label: 'Steps and tokens to a loss' }];
const X_RANGE = [2 ** 14, 2 ** 27];
// Batches of 2^18 … 2^26 tokens (256K … 64M) for the critical batch and B₀.
const POWERS = [18, 19, 20, 21, 22, 23, 24, 25, 26].map((e) => 2 ** e);

export default {
  id: 'global-batch-lr',
  title: 'Global batch: tokens per step and the learning rate',
  caption:
    'The global batch is micro-batch × devices × accumulation steps; at the defaults, 2 sequences of 4,096 tokens on 512 data-parallel replicas give 1,024 sequences, 4.19M tokens per step, the batch Llama 3 405B started with. The curves carry a learning rate tuned at 1M tokens (the circle) to other batches: the linear rule multiplies it by the batch ratio, the square-root rule by its root, and McCandlish et al.\'s model follows the linear rule well below the critical batch and levels off above it. Double the devices or the accumulation steps and the marked batch moves right along all three. In the cost view, past the critical batch each doubling saves few steps and costs nearly twice the tokens.',
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'lr', options: VIEWS },
    { key: 'per_device_batch', label: 'Micro-batch per device (sequences)', from: ['global-batch', 'per_device_batch'], default: 2, max: 64, scale: 'log' },
    { key: 'devices', label: 'Data-parallel devices', from: ['global-batch', 'devices'], default: 512, max: 16384, scale: 'log' },
    { key: 'accumulation', label: 'Gradient-accumulation steps', from: ['global-batch', 'accumulation'], default: 1, max: 64, scale: 'log' },
    { key: 'seq', label: 'Sequence length', type: 'select', default: 4096, options: [1024, 2048, 4096, 8192].map((v) => ({ value: v, label: `${v} tokens` })) },
    { key: 'critical_batch_tokens', label: 'Critical batch B_crit', type: 'select', default: 8388608, options: POWERS.map((v) => ({ value: v, label: `${formatCount(v)} tokens` })) },
    { key: 'base_lr', label: 'Learning rate lr₀ tuned at B₀', from: ['batch-scaling', 'base_lr'], min: 1e-5, max: 3e-3, scale: 'log', when: { view: ['lr'] } },
    { key: 'base_batch_tokens', label: 'Batch B₀ it was tuned at', type: 'select', default: 1048576, options: POWERS.slice(0, 5).map((v) => ({ value: v, label: `${formatCount(v)} tokens` })), when: { view: ['lr'] } },
  ],

  data(engine, p) {
    const shape = { per_device_batch: p.per_device_batch, devices: p.devices, accumulation: p.accumulation, seq: Number(p.seq) };
    const g = engine.calc('global-batch', shape);
    const base = { base_batch_tokens: Number(p.base_batch_tokens), base_lr: p.base_lr };
    const s = engine.calc('batch-scaling', { ...shape, ...base, critical_batch_tokens: Number(p.critical_batch_tokens) });
    // Each view's table holds what that view draws (the cost view does not depend on lr₀ or B₀).
    const cost = p.view === 'cost';
    const row = (q) => (cost ? [q.steps_factor, q.tokens_factor] : [q.lr_linear, q.lr_sqrt, q.lr_noise_scale]);
    const table = {
      columns: ['Batch (tokens)', ...(cost ? ['Steps / fewest', 'Tokens / fewest'] : ['Linear rule lr', 'Square-root rule lr', 'Noise-scale model lr'])],
      rows: [...s.curve.map((q) => [q.batch_tokens, ...row(q)]), [`${g.tokens} (this batch)`, ...row(s)]],
    };
    const batch = cost ? { curve: s.curve.map(({ batch_tokens, steps_factor, tokens_factor }) => ({ batch_tokens, steps_factor, tokens_factor })),
      steps_factor: s.steps_factor, tokens_factor: s.tokens_factor } : s;
    return { view: p.view, sequences: g.sequences, tokens: g.tokens, batch, base: cost ? null : base, critical: Number(p.critical_batch_tokens), table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const b = data.batch;
    const here = `${formatCount(data.tokens)} tokens (${data.sequences} sequences)`;
    const inRange = data.tokens >= X_RANGE[0] && data.tokens <= X_RANGE[1];
    const datasets = [];
    const curve = (colour, label, key, mark, group) => {
      // The engine samples the curves at powers of 2; monotone cubic interpolation draws the
      // bend of the noise-scale model smoothly between them without overshooting.
      datasets.push(line(colour, { label, group, cubicInterpolationMode: 'monotone', data: b.curve.map((q) => ({ x: q.batch_tokens, y: q[key] })) }));
      datasets.push(series(colour, { label: `${label.split(':')[0]} at this batch`, group, pointStyle: 'rectRot', pointRadius: 8, pointLabels: true,
        data: inRange ? [{ x: data.tokens, y: b[key], label: mark(b[key]) }] : [] }));
    };
    let y;
    if (data.view === 'cost') {
      curve(pick(), 'steps / fewest possible: 1 + B_crit/B', 'steps_factor', (v) => `${formatShort(v)}× the fewest steps`, 'steps');
      curve(pick(), 'tokens / fewest possible: 1 + B/B_crit', 'tokens_factor', (v) => `${formatShort(v)}× the fewest tokens`, 'tokens');
      y = log('Steps or tokens to reach a given loss (× the minimum)', { range: [1, 1024], unit: '' });
    } else {
      const lr = (name) => (v) => `${name} ${v.toExponential(1)}`;
      curve(pick(), 'linear rule: lr₀·B/B₀', 'lr_linear', lr('linear'), 'linear');
      curve(pick(), 'square-root rule (Adam): lr₀·√(B/B₀)', 'lr_sqrt', lr('√'), 'sqrt');
      curve(pick(), 'noise-scale model: lr₀·(1 + B_crit/B₀)/(1 + B_crit/B)', 'lr_noise_scale', lr('noise scale'), 'noise');
      datasets.push(series(pick('text'), { label: `tuned: lr₀ = ${formatShort(data.base.base_lr)} at B₀ = ${formatCount(data.base.base_batch_tokens)} tokens`,
        pointStyle: 'circle', pointRadius: 6, data: [{ x: data.base.base_batch_tokens, y: data.base.base_lr }] }));
      y = log('Learning rate (step size, log)', { range: [data.base.base_lr / 64, data.base.base_lr * 128], unit: '' });
    }
    datasets.push(line(pick('muted'), { label: `critical batch B_crit = ${formatCount(data.critical)} tokens`, borderDash: [3, 3],
      data: [{ x: data.critical, y: y.min }, { x: data.critical, y: y.max }] }));
    return chart(theme, {
      datasets,
      legend: { filter: (item) => !item.text.endsWith('at this batch') },
      scales: { x: log(`Global batch B (tokens per step; this one ${here})`, { range: X_RANGE, unit: '' }), y },
      tooltip: (ctx) => `${ctx.dataset.label}: B = ${formatCount(ctx.raw.x)} tokens, ${formatShort(ctx.raw.y)}`,
    });
  },
};
