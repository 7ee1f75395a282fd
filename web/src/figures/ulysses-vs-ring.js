// DeepSpeed-Ulysses against ring attention (forward pass of one attention layer): bytes each
// GPU sends, against the number of GPUs or the sequence length. Ulysses (calc 'ulysses') sends
// (P−1)/P of N/P·(2H + 2H_kv)·d values per GPU; ring attention (calc 'ring-attention') passes
// its K/V block of N/P tokens p−1 times. Where H is not divisible by P, Ulysses cannot run and
// its point is missing.
import { formatSI } from '../runtime/format.js';
import { chart, log, colours, series } from './shared/chart-config.js';

const MODELS = {
  'llama3-8b': { label: 'Llama-3 8B: 32 heads, 8 KV heads', heads: 32, kv_heads: 8 },
  'mha-32': { label: 'MHA: 32 heads, 32 KV heads', heads: 32, kv_heads: 32 },
  'llama3-70b': { label: 'Llama-3 70B: 64 heads, 8 KV heads', heads: 64, kv_heads: 8 },
  'heads-40': { label: '40 heads, 8 KV heads', heads: 40, kv_heads: 8 },
};
const GPUS = [2, 4, 8, 16, 32, 64];
const SEQS = [16384, 32768, 65536, 131072, 262144, 524288, 1048576];
const Y_RANGE = [1e6, 1e11];
const tokens = (n) => (n >= 1048576 ? `${n / 1048576}M` : `${n / 1024}K`);

export default {
  id: 'ulysses-vs-ring',
  title: 'DeepSpeed-Ulysses all-to-all against ring attention',
  caption:
    'Bytes each GPU sends in the forward pass of one attention layer (log scale). Against GPUs, Ulysses falls as 1/P while ring attention stays put near the whole K/V of the sequence, so with enough heads Ulysses moves less. Choose 40 heads: from 16 GPUs Ulysses cannot split the heads and its points vanish. Switch to the sequence-length view to see both grow linearly with N.',
  params: [
    { key: 'x', label: 'Horizontal axis', type: 'select', options: [{ value: 'gpus', label: 'GPUs P (sequence fixed)' }, { value: 'seq', label: 'Sequence length N (GPUs fixed)' }], default: 'gpus' },
    { key: 'model', label: 'Attention heads', type: 'select', options: Object.entries(MODELS).map(([value, m]) => ({ value, label: m.label })), default: 'llama3-8b' },
    { key: 'seq', label: 'Sequence length N (tokens)', type: 'select', options: SEQS.map(String), default: '131072', when: { x: ['gpus'] } },
    { key: 'gpus', label: 'GPUs P', type: 'select', options: ['4', '8', '16', '32'], default: '8', when: { x: ['seq'] } },
    { key: 'hardware', label: 'Accelerator', from: ['ulysses', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'] },
  ],

  data(engine, p) {
    const m = MODELS[p.model];
    const point = (seq, ranks) => {
      const ringIn = { seq, ranks, heads: m.heads, kv_heads: m.kv_heads, head_dim: 128, hardware: p.hardware,
        partition: 'contiguous', tile: Math.min(seq / ranks, 16384) };
      const ring = engine.calc('ring-attention', ringIn);
      let u = null, reason = '';
      try {
        u = engine.calc('ulysses', { seq, ranks, heads: m.heads, kv_heads: m.kv_heads, head_dim: 128, hardware: p.hardware });
      } catch (e) {
        if (!e || (e.field !== 'ranks' && e.field !== 'kv_heads')) throw e;
        reason = e.message;
      }
      return { seq, ranks, ring_bytes: ring.kv_bytes_sent_per_rank, ring_s: ring.comm_time_s,
        ulysses_bytes: u ? u.ulysses_bytes_per_rank : null, ulysses_s: u ? u.ulysses_time_s : null,
        kv_replicated: u ? u.kv_replicated : false, reason };
    };
    const points = p.x === 'gpus' ? GPUS.map((P) => point(Number(p.seq), P)) : SEQS.map((N) => point(N, Number(p.gpus)));
    const blocked = points.filter((q) => q.ulysses_bytes === null).map((q) => (p.x === 'gpus' ? q.ranks : q.seq));
    const table = {
      columns: ['GPUs P', 'Sequence N (tokens)', 'Ulysses (B per GPU)', 'Ring attention (B per GPU)', 'Ulysses time (s)', 'Ring transfers (s)', 'Note'],
      rows: points.map((q) => [q.ranks, q.seq, q.ulysses_bytes ?? 'impossible', q.ring_bytes, q.ulysses_s ?? 'impossible', q.ring_s,
        q.reason || (q.kv_replicated ? 'K/V heads replicated' : '')]),
    };
    return { x: p.x, heads: m.heads, kv_heads: m.kv_heads, points, blocked, table };
  },

  draw(data, theme) {
    const xKey = data.x === 'gpus' ? 'ranks' : 'seq';
    const uly = data.points.filter((q) => q.ulysses_bytes !== null).map((q) => ({ x: q[xKey], y: q.ulysses_bytes, q }));
    const ring = data.points.map((q) => ({ x: q[xKey], y: q.ring_bytes, q }));
    const note = data.blocked.length ? ` — impossible at ${data.x === 'gpus' ? 'P' : 'N'} = ${data.blocked.join(', ')} (${data.heads} heads)` : '';
    const pick = colours(theme);
    // The whole sweep on the axis, so that Ulysses' missing points leave a visible gap.
    const xs = data.x === 'gpus' ? GPUS : SEQS;
    return chart(theme, {
      datasets: [
        series(pick(), { label: `DeepSpeed-Ulysses, 4 all-to-alls${note}`, data: uly, showLine: true, pointStyle: 'circle', pointRadius: 4, borderWidth: 2 }),
        series(pick(), { label: 'Ring attention, K/V passed p−1 times', data: ring, showLine: true, pointStyle: 'rect', pointRadius: 4, borderWidth: 2,
          borderDash: [6, 3] }),
      ],
      scales: {
        // One labelled tick per swept value (powers of two fall between the decades a log
        // axis labels by default).
        x: log(data.x === 'gpus' ? 'GPUs P (count)' : 'Sequence length N (tokens; K = 1,024)', {
          range: [xs[0] / 1.25, xs.at(-1) * 1.25],
          afterBuildTicks: (axis) => { axis.ticks = xs.map((value) => ({ value })); },
          ticks: { autoSkip: false, callback: (v) => (data.x === 'gpus' ? String(v) : tokens(v)) },
        }),
        // Fixed over every setting (5 MB for Ulysses at 16K tokens on 64 GPUs to 17 GB for the
        // ring at 1M tokens with 32 KV heads), one label per decade.
        y: log('Sent per GPU per layer, forward (B)', { unit: 'B', range: Y_RANGE }),
      },
      tooltip: (ctx) => `${ctx.dataset.label.split(',')[0]}: ${formatSI(ctx.raw.y, 'B')} (P = ${ctx.raw.q.ranks}, N = ${ctx.raw.q.seq})`,
    });
  },
};
