// Activation bytes stored by one transformer layer against sequence length (Korthikanti et
// al. 2022): the 34·s·b·h linear part and the 5·a·s²·b attention part, with and without
// FlashAttention / selective recomputation, and with full recomputation. One call of
// calc('training-memory') per point (about 40 per redraw).
import { formatSI } from '../runtime/format.js';
import { PRESETS, presetOptions, presetOf, calcFor } from './training-fit.js';
import { chart, log, colours, series } from './shared/chart-config.js';

const SEQS = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
const CASES = [
  { key: 'none', label: 'Store everything', input: { recompute: 'none', flash_attention: false } },
  { key: 'flash', label: 'FlashAttention or selective recompute (no s² term)', input: { recompute: 'selective', flash_attention: false } },
  { key: 'full', label: 'Full recompute (layer input only)', input: { recompute: 'full', flash_attention: false } },
];

export default {
  id: 'activation-memory-vs-seq',
  title: 'Activation bytes per layer against sequence length',
  caption:
    'Bytes one layer stores for the backward pass, per micro-batch, on log-log axes (the MLP terms follow each model\'s MLP: a 4h GeLU for GPT, SwiGLU for Llama). Without FlashAttention the attention scores grow as s² and overtake everything else at a few thousand tokens (for GPT-3 at 2,048 tokens they are already 80 of every 114 bytes); dropping them leaves a line that grows only as s. Set the tensor-parallel degree to 8: only part of each curve shrinks (norms, dropout masks and the inputs of the QKV and first MLP matmuls stay whole on every GPU); turn on sequence parallelism as well and every curve drops by exactly 8 against the fixed axes.',
  params: [
    { key: 'model', label: 'Model', type: 'select', options: presetOptions(), default: 'gpt3-175b' },
    { key: 'micro_batch', label: 'Micro-batch (sequences)', from: ['training-memory', 'micro_batch'], max: 64, scale: 'log' },
    { key: 'tp', label: 'Tensor-parallel degree', type: 'select', options: ['1', '2', '4', '8'], default: '1' },
    { key: 'sequence_parallel', label: 'Sequence parallelism', from: ['training-memory', 'sequence_parallel'] },
  ],

  data(engine, p) {
    const preset = presetOf(p.model);
    const fields = { micro_batch: 'micro_batch', tp: 'tp', sequence_parallel: 'sequence_parallel' };
    const series = CASES.map((c) => ({
      ...c,
      points: SEQS.map((seq) => {
        const r = calcFor(engine, 'training-memory', { ...preset.config, seq, micro_batch: p.micro_batch, tp: Number(p.tp),
          sequence_parallel: p.sequence_parallel, ...c.input }, fields, 'model');
        return { seq, bytes: r.activations_per_layer_bytes };
      }),
    }));
    // The y axis holds still over the tensor-parallel degree and sequence parallelism, the
    // controls the caption asks to move: from the full-recompute input at the shortest
    // sequence split 8 ways (sequence parallelism divides it by t) to storing everything at
    // the longest sequence on one GPU.
    const one = (seq, recompute) => calcFor(engine, 'training-memory', { ...preset.config, seq, micro_batch: p.micro_batch,
      recompute, flash_attention: false }, fields, 'model').activations_per_layer_bytes;
    const yRange = [one(SEQS[0], 'full') / 8 / 1.5, one(SEQS.at(-1), 'none') * 1.5];
    const table = {
      columns: ['Sequence length (tokens)', ...CASES.map((c) => `${c.label} (B)`)],
      rows: SEQS.map((s, i) => [s, ...series.map((x) => x.points[i].bytes)]),
    };
    return { model: PRESETS[p.model].label, series, yRange, table };
  },

  draw(data, theme) {
    const styles = [['circle', []], ['triangle', [6, 3]], ['rect', [2, 3]]];
    const pick = colours(theme);
    const datasets = data.series.map((s, i) => series(pick(), {
      label: s.label, data: s.points.map((q) => ({ x: q.seq, y: q.bytes })), showLine: true,
      pointStyle: styles[i][0], pointRadius: 3, borderDash: styles[i][1], borderWidth: 2,
    }));
    return chart(theme, {
      datasets,
      scales: {
        x: log('Sequence length s (tokens)', { unit: '', range: [SEQS[0], SEQS.at(-1)] }),
        y: log(`Activations per layer (B), ${data.model}`, { unit: 'B', range: data.yRange }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: s = ${ctx.raw.x}, ${formatSI(ctx.raw.y, 'B')}`,
    });
  },
};
