// Activation memory that backpropagation keeps for an L-layer MLP, against depth: every layer's
// input and pre-activation kept (no checkpointing), only every k-th layer input kept and one
// k-layer segment re-run at a time, and k = ceil(√L) (Chen et al. 2016, arXiv:1604.06174).
// One calc('backprop-memory') returns the three strategies at depth L and the peak against
// depth 1 … L; a second, with k = L, gives the largest peak any k reaches at this depth, the
// top of the y axis, so that moving k moves the curve and not the axis. Log-log axes: storing
// everything rises with slope 1, k = ⌈√L⌉ with slope ½.
import { formatSI } from '../runtime/format.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';

// The x axis ends this factor beyond depth L (room for the star at L and the end labels).
const X_ROOM = 1.4;
const pct = (f) => `${Math.round(100 * f)}%`;

// "Every 16 layers", and "Every layer" for k = 1 (a checkpoint at every layer input).
export const everyK = (k) => (k === 1 ? 'Every layer' : `Every ${k} layers`);

export default {
  id: 'backprop-memory-depth',
  title: 'Activation memory kept for backward against depth',
  caption:
    'Peak activation memory of one training step of an MLP (each layer keeps its input and its pre-activation, b × w values each) as the network gets deeper, on log-log axes. The batch counts rows, as a language model does: 32 sequences of 4,096 tokens are b = 131,072. Without checkpointing memory grows in proportion to depth (slope 1); the grey line, the weights themselves, shows how far the activations outgrow them. Keeping only every k-th layer input and re-running one k-layer segment at a time grows far more slowly, and k = ⌈√L⌉ grows as √L (half the slope); both cost one extra forward pass, a third more training FLOPs, whatever k is. Up to depth k the network is a single segment and the dashed curve equals storing everything. Move k: a small k stores many checkpoints, a large one re-runs long segments, and the star marks the best k at depth L. Width, batch and data type shift the activation curves alike.',
  params: [
    { key: 'layers', label: 'Depth L', from: ['backprop-memory', 'layers'], min: 2, max: 1024, default: 64, scale: 'log' },
    { key: 'k', label: 'Checkpoint every k layers', from: ['backprop-memory', 'k'], max: 256, default: 16, scale: 'log' },
    { key: 'width', label: 'Width w', from: ['backprop-memory', 'width'], min: 64, max: 65536, scale: 'log' },
    { key: 'batch', label: 'Batch b (rows: sequences × tokens)', from: ['backprop-memory', 'batch'], max: 1048576, default: 131072, scale: 'log' },
    { key: 'dtype', label: 'Activation data type', from: ['backprop-memory', 'dtype'] },
  ],

  data(engine, p) {
    const input = { layers: p.layers, width: p.width, batch: p.batch, dtype: p.dtype };
    const r = engine.calc('backprop-memory', { ...input, k: p.k });
    const worst = engine.calc('backprop-memory', { ...input, k: p.layers }).every_k.peak_bytes;
    const strategies = [
      { key: 'none', name: 'No checkpointing', ...r.none },
      { key: 'every_k', name: everyK(r.every_k.k), ...r.every_k },
      { key: 'sqrt', name: `k = ⌈√L⌉ = ${r.sqrt.k}`, ...r.sqrt },
    ];
    const table = {
      columns: ['Depth L', 'No checkpointing (B)', `${everyK(r.every_k.k)} (B)`, `k = ⌈√L⌉ (B)`, 'Weights (B)'],
      rows: r.curve.map((c) => [c.layers, c.none_bytes, c.every_k_bytes, c.sqrt_bytes, c.layers * (r.weight_bytes / p.layers)]),
    };
    return {
      layers: p.layers, k: p.k, layer_bytes: r.layer_bytes, checkpoint_bytes: r.checkpoint_bytes,
      forward_flops: r.forward_flops, training_flops: r.training_flops, best_k: r.best_k, best_peak_bytes: r.best_peak_bytes,
      weight_bytes: r.weight_bytes, perLayerWeight: r.weight_bytes / p.layers,
      curve: r.curve, strategies, yMax: Math.max(worst, r.none.peak_bytes, r.weight_bytes), table,
    };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const at = (key) => data.strategies.find((s) => s.key === key);
    const cost = (s) => (s.recompute_fraction > 0 ? `+${pct(s.recompute_fraction)} FLOPs` : 'no extra FLOPs');
    // Where the every-k and √L peaks coincide at depth L (k = ⌈√L⌉, or the same ceilings), one
    // end label names both.
    const same = at('every_k').peak_bytes === at('sqrt').peak_bytes;
    const endLabel = (s) => (s.key === 'sqrt' && same ? null
      : s.key === 'every_k' && same ? `${s.name} and ${at('sqrt').name}: ${formatSI(s.peak_bytes, 'B')}`
        : `${s.name}: ${formatSI(s.peak_bytes, 'B')}`);
    const curve = (key, field, colour, extra = {}) => {
      const s = at(key);
      const last = data.curve.length - 1;
      const end = endLabel(s);
      return line(colour, {
        label: `${s.name}: ${formatSI(s.peak_bytes, 'B')} at L = ${data.layers}, ${cost(s)}`,
        data: data.curve.map((c, i) => ({ x: c.layers, y: c[field], ...(i === last && end ? { label: end } : {}) })),
        pointLabels: true, ...extra,
      });
    };
    const datasets = [
      curve('none', 'none_bytes', pick()),
      curve('every_k', 'every_k_bytes', pick(), { borderDash: [6, 3] }),
      curve('sqrt', 'sqrt_bytes', pick(), { borderDash: [2, 2] }),
      line(pick('muted'), {
        label: `Weights (L·w² values): ${formatSI(data.weight_bytes, 'B')} at L = ${data.layers}`,
        data: data.curve.map((c) => ({ x: c.layers, y: c.layers * data.perLayerWeight })),
        borderWidth: 1,
      }),
      series(pick(), {
        label: `Best k at L = ${data.layers}: k = ${data.best_k}, ${formatSI(data.best_peak_bytes, 'B')}`,
        data: [{ x: data.layers, y: data.best_peak_bytes, label: `best k = ${data.best_k}` }],
        pointStyle: 'star', pointRadius: 9, pointLabels: true,
      }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        // A little room right of depth L: the star and the curves' end labels stay inside the plot.
        x: log('Depth L (layers, log scale)', { unit: '', range: [data.curve[0].layers, data.layers * X_ROOM] }),
        y: log('Peak activation memory (B, log scale)', { unit: 'B', range: [Math.min(data.layer_bytes, data.perLayerWeight) / 1.5, data.yMax * 1.5] }),
      },
      tooltip: (ctx) => `${ctx.dataset.label.split(':')[0]}: ${formatSI(ctx.raw.y, 'B')} at L = ${ctx.raw.x}`,
    });
  },
};
