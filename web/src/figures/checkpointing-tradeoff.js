// Activation checkpointing strategies as memory against recompute: no checkpointing,
// selective recomputation, keeping every k-th layer input (k = 1 ... L, Chen et al. 2016) and
// full recomputation (k = 1). One calc('activation-checkpointing') per strategy or k.
import { formatSI } from '../runtime/format.js';
import { PRESETS, presetOptions, presetOf, calcFor } from './training-fit.js';
import { chart, linear, log, colours, series } from './shared/chart-config.js';

export default {
  id: 'checkpointing-tradeoff',
  title: 'Checkpointing: activation memory against recomputation',
  caption:
    'Peak activation memory of one micro-batch (stored activations plus the segment being re-run in the backward pass) against the extra forward FLOPs, as a share of the training FLOPs. Keeping every k-th layer input costs the same third of extra work for every k, and because a transformer layer\'s activations dwarf its input, the lowest peak (the star) sits at k = 1 or 2, not at √L. Selective recomputation sits near the bottom left: most of the saving for a few percent of compute. Raise the sequence length and watch it pull further ahead; turn on FlashAttention and it coincides with storing everything.',
  params: [
    { key: 'model', label: 'Model', type: 'select', options: presetOptions(), default: 'llama2-13b' },
    { key: 'seq', label: 'Sequence length', from: ['activation-checkpointing', 'seq'], min: 128, max: 131072, default: 4096, scale: 'log' },
    { key: 'micro_batch', label: 'Micro-batch (sequences)', from: ['activation-checkpointing', 'micro_batch'], max: 64, scale: 'log' },
    { key: 'flash_attention', label: 'FlashAttention', from: ['activation-checkpointing', 'flash_attention'] },
  ],

  data(engine, p) {
    const cfg = { ...presetOf(p.model).config };
    const fields = { seq: 'seq', micro_batch: 'micro_batch', flash_attention: 'flash_attention' };
    const run = (strategy, k = 1) => calcFor(engine, 'activation-checkpointing', { ...cfg, seq: p.seq,
      micro_batch: p.micro_batch, flash_attention: p.flash_attention, strategy, k }, fields, 'model');
    const point = (name, r, k = null) => ({ name, k, peak: r.peak_bytes, stored: r.stored_bytes,
      recompute_pct: 100 * r.recompute_fraction, recompute_flops: r.recompute_flops });
    const none = point('No checkpointing', run('none'));
    const selective = point('Selective recompute', run('selective'));
    const full = point('Full recompute (k = 1)', run('full'));
    const ks = [];
    for (let k = 2; k <= cfg.layers; k++) ks.push(point(`Every ${k} layers`, run('every-k', k), k));
    const best = [full, ...ks].reduce((a, b) => (b.peak < a.peak ? b : a));
    const all = [none, selective, full, ...ks];
    const table = {
      columns: ['Strategy', 'Peak activations (B)', 'Stored after forward (B)', 'Recompute (% of training FLOPs)', 'Recompute (FLOP)'],
      rows: all.map((q) => [q.name, q.peak, q.stored, q.recompute_pct, q.recompute_flops]),
    };
    return { model: PRESETS[p.model].label, none, selective, full, ks, best, table };
  },

  draw(data, theme) {
    const pt = (q) => ({ x: q.recompute_pct, y: q.peak, q, label: q.name });
    const pick = colours(theme);
    // The named strategies are labelled on the chart; the k sweep is a cloud (hover for k).
    const ds = (label, pts, style, radius = 6, named = true) => series(pick(), { label, data: pts, pointStyle: style, pointRadius: radius,
      pointLabels: named });
    const datasets = [
      ds('No checkpointing', [pt(data.none)], 'circle', 7),
      ds('Selective recompute', [pt(data.selective)], 'triangle', 8),
      ds('Full recompute (k = 1)', [pt(data.full)], 'rect', 7),
      ds('Every k layers (k = 2 … L)', data.ks.map(pt), 'crossRot', 5, false),
      ds(`Lowest peak: ${data.best.name}`, [pt(data.best)], 'star', 10, false),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Extra compute (% of training FLOPs)', { range: [-2, 40] }),
        y: log(`Peak activation memory per micro-batch (B), ${data.model}`, { unit: 'B' }),
      },
      tooltip: (ctx) => { const q = ctx.raw.q; return `${q.name}: peak ${formatSI(q.peak, 'B')}, +${q.recompute_pct.toFixed(1)}% FLOPs`; },
    });
  },
};
