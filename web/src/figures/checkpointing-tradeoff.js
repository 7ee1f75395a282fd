// Activation checkpointing as a curve over the segment length k (Chen et al. 2016): keeping
// every k-th layer input stores ceil(L/k) inputs and re-runs one k-layer segment at a time,
// so the peak falls and then rises with k, while the extra compute stays one forward pass.
// No checkpointing and selective recomputation do not depend on k: flat reference lines.
// One calc('activation-checkpointing') per k and per reference strategy.
import { formatSI } from '../runtime/format.js';
import { PRESETS, presetOptions, presetOf, calcFor } from './training-fit.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

// The y axis spans the shortest sequence with FlashAttention and full recomputation to the
// longest without either, at the chosen micro-batch (everything scales with it), so moving
// the sequence length or FlashAttention moves the curves, not the axis.
const SEQ_RANGE = [128, 131072];

export default {
  id: 'checkpointing-tradeoff',
  title: 'Checkpointing: peak activation memory against the segment length k',
  caption:
    'Peak activation memory of one micro-batch (the stored layer inputs plus the one segment being re-run in the backward pass) as the segment length k goes from 1 (full recomputation) to every layer (one checkpoint). Every k costs the same extra forward pass, a third of the training FLOPs, and because a transformer layer\'s activations dwarf its input the lowest peak (the star) sits at k = 1 or 2, not at √L. The flat lines do not depend on k: storing everything, and selective recomputation, which costs a few percent. Raise the sequence length and watch selective pull away from storing everything; turn on FlashAttention and the two lines meet.',
  params: [
    { key: 'model', label: 'Model', type: 'select', options: presetOptions(), default: 'llama2-13b' },
    { key: 'seq', label: 'Sequence length', from: ['activation-checkpointing', 'seq'], min: SEQ_RANGE[0], max: SEQ_RANGE[1], default: 4096, scale: 'log' },
    { key: 'micro_batch', label: 'Micro-batch (sequences)', from: ['activation-checkpointing', 'micro_batch'], max: 64, scale: 'log' },
    { key: 'flash_attention', label: 'FlashAttention', from: ['activation-checkpointing', 'flash_attention'] },
  ],

  data(engine, p) {
    const cfg = { ...presetOf(p.model).config };
    const fields = { seq: 'seq', micro_batch: 'micro_batch', flash_attention: 'flash_attention' };
    const run = (strategy, k = 1, over = {}) => calcFor(engine, 'activation-checkpointing', { ...cfg, seq: p.seq,
      micro_batch: p.micro_batch, flash_attention: p.flash_attention, strategy, k, ...over }, fields, 'model');
    const point = (name, r, k = null) => ({ name, k, peak: r.peak_bytes, stored: r.stored_bytes,
      recompute_pct: 100 * r.recompute_fraction, recompute_flops: r.recompute_flops });
    const none = point('No checkpointing', run('none'));
    const selective = point('Selective recompute', run('selective'));
    const ks = [];
    for (let k = 1; k <= cfg.layers; k++) ks.push(point(k === 1 ? 'Full recompute (k = 1)' : `Every ${k} layers`, run('every-k', k), k));
    const best = ks.reduce((a, b) => (b.peak < a.peak ? b : a));
    const yRange = [
      run('full', 1, { seq: SEQ_RANGE[0], flash_attention: true }).stored_bytes,
      run('none', 1, { seq: SEQ_RANGE[1], flash_attention: false }).peak_bytes,
    ];
    const all = [none, selective, ...ks];
    const table = {
      columns: ['Strategy', 'Segment length k', 'Peak activations (B)', 'Stored after forward (B)', 'Recompute (% of training FLOPs)', 'Recompute (FLOP)'],
      rows: all.map((q) => [q.name, q.k ?? '–', q.peak, q.stored, q.recompute_pct, q.recompute_flops]),
    };
    return { model: PRESETS[p.model].label, layers: cfg.layers, none, selective, ks, best, yRange, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const pct = (q) => `+${q.recompute_pct.toFixed(q.recompute_pct < 1 && q.recompute_pct > 0 ? 1 : 0)}% FLOPs`;
    // The flat strategies span the whole k axis; their labels sit at its left end, above the
    // curve's low start and clear of where it approaches "no checkpointing" at large k.
    const flat = (q) => [{ x: 1, y: q.peak, q, label: `${q.name} (${pct(q)})` }, { x: data.layers, y: q.peak, q }];
    // With FlashAttention selective recomputation has nothing left to recompute: the two lines
    // coincide, and one label names both.
    const same = Math.abs(data.selective.peak - data.none.peak) <= 1e-9 * data.none.peak;
    const noneLabel = same ? (_raw, i) => (i === 0 ? `No checkpointing = selective (${pct(data.none)})` : '') : true;
    const datasets = [
      series(pick(), { label: `Every k layers (${pct(data.ks[0])} for every k)`, data: data.ks.map((q) => ({ x: q.k, y: q.peak, q })),
        showLine: true, pointStyle: 'crossRot', pointRadius: 4, borderWidth: 2 }),
      line(pick(), { label: `No checkpointing (${pct(data.none)})`, data: flat(data.none), borderDash: [6, 3], pointLabels: noneLabel }),
      line(pick(), { label: `Selective recompute (${pct(data.selective)})`, data: flat(data.selective), borderDash: [2, 3], pointLabels: !same }),
      series(pick(), { label: `Lowest peak: k = ${data.best.k}`, data: [{ x: data.best.k, y: data.best.peak, q: data.best, label: `k = ${data.best.k}` }],
        pointStyle: 'star', pointRadius: 10, pointLabels: true }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Segment length k (layers re-run together)', { range: [1, data.layers], ticks: { precision: 0 } }),
        y: log(`Peak activation memory per micro-batch (B), ${data.model}`, { unit: 'B', range: data.yRange }),
      },
      tooltip: (ctx) => { const q = ctx.raw.q; return `${q.name}: peak ${formatSI(q.peak, 'B')}, ${pct(q)}`; },
    });
  },
};
