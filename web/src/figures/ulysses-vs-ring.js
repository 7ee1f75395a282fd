// DeepSpeed-Ulysses against ring attention (forward pass of one attention layer): bytes each
// GPU sends, against the number of GPUs or the sequence length. Ulysses (calc 'ulysses') sends
// (p−1)/p of s/p·(2H + 2H_kv)·d values per GPU; ring attention (calc 'ring-attention') passes
// its K/V block of s/p tokens p−1 times. Where H is not divisible by p, Ulysses cannot run and
// its point is missing.
import { formatSI } from '../runtime/format.js';
import { chart, log, colours, series } from './shared/chart-config.js';

const MODELS = {
  'llama3-8b': { label: 'Llama-3 8B: 32 heads, 8 KV heads', heads: 32, kv_heads: 8 },
  'mha-32': { label: 'MHA: 32 heads, 32 KV heads', heads: 32, kv_heads: 32 },
  'llama3-70b': { label: 'Llama-3 70B: 64 heads, 8 KV heads', heads: 64, kv_heads: 8 },
  'heads-40': { label: '40 heads, 8 KV heads', heads: 40, kv_heads: 8, gpus: [2, 4, 5, 8, 10, 16, 20, 32, 40, 64] },
};
// Powers of two; a model whose head count has other divisors sweeps those too (40 heads: 5,
// 10, 20 and 40 GPUs), so that the degrees Ulysses allows are drawn, not only the ones it refuses.
const GPUS = [2, 4, 8, 16, 32, 64];
const SEQS = [16384, 32768, 65536, 131072, 262144, 524288, 1048576];
// The sequence select adds 160K tokens (5 × 32K), which 5, 10, 20 and 40 GPUs divide.
const SEQ_OPTIONS = [...SEQS.slice(0, 4), 163840, ...SEQS.slice(4)];
const Y_RANGE = [1e6, 1e11];
const tokens = (n) => (n >= 1048576 ? `${n / 1048576}M` : `${n / 1024}K`);

export default {
  id: 'ulysses-vs-ring',
  title: 'DeepSpeed-Ulysses all-to-all against ring attention',
  caption:
    'Bytes each GPU sends in the forward pass of one attention layer (log scale). Against GPUs, Ulysses falls as 1/p while ring attention stays put near the whole K/V of the sequence, so Ulysses moves less once there are enough GPUs: p > 1 + H/H_kv, beyond 5 GPUs for Llama-3 8B\'s 32 query and 8 KV heads, beyond 2 with multi-head attention. Choose 40 heads: Ulysses cannot split them over 16, 32 or 64 GPUs and those points vanish. Pick 160K tokens to add 5, 10, 20 and 40 GPUs, the other degrees that divide 40 query heads: only 40 works, because the 8 KV heads can be neither split over nor repeated evenly onto 5, 10 or 20 GPUs. Switch to the sequence-length view to see both grow linearly with s.',
  params: [
    { key: 'x', label: 'Horizontal axis', type: 'select', options: [{ value: 'gpus', label: 'GPUs p (sequence fixed)' }, { value: 'seq', label: 'Sequence length s (GPUs fixed)' }], default: 'gpus' },
    { key: 'model', label: 'Attention heads', type: 'select', options: Object.entries(MODELS).map(([value, m]) => ({ value, label: m.label })), default: 'llama3-8b' },
    { key: 'seq', label: 'Sequence length s (tokens)', type: 'select', options: SEQ_OPTIONS.map((n) => ({ value: String(n), label: `${n.toLocaleString('en-US')} (${tokens(n)})` })), default: '131072', when: { x: ['gpus'] } },
    { key: 'gpus', label: 'GPUs p', type: 'select', options: ['4', '8', '16', '32'], default: '8', when: { x: ['seq'] } },
    { key: 'hardware', label: 'Accelerator', from: ['ulysses', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'] },
  ],

  data(engine, p) {
    const m = MODELS[p.model];
    const point = (seq, ranks) => {
      const ringIn = { seq, ranks, heads: m.heads, kv_heads: m.kv_heads, head_dim: 128, hardware: p.hardware,
        partition: 'contiguous', tile: Math.min((seq / ranks) & -(seq / ranks), 16384) }; // a power-of-two tile that divides the block
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
    // Degrees that split the sequence into whole blocks (160K tokens for 5, 10, 20 and 40 GPUs).
    const gpus = (m.gpus ?? GPUS).filter((P) => p.x !== 'gpus' || Number(p.seq) % P === 0);
    const points = p.x === 'gpus' ? gpus.map((P) => point(Number(p.seq), P)) : SEQS.map((N) => point(N, Number(p.gpus)));
    const blocked = points.filter((q) => q.ulysses_bytes === null).map((q) => (p.x === 'gpus' ? q.ranks : q.seq));
    const table = {
      columns: ['GPUs p', 'Sequence s (tokens)', 'Ulysses (B per GPU)', 'Ring attention (B per GPU)', 'Ulysses time (s)', 'Ring transfers (s)', 'Note'],
      rows: points.map((q) => [q.ranks, q.seq, q.ulysses_bytes ?? 'impossible', q.ring_bytes, q.ulysses_s ?? 'impossible', q.ring_s,
        q.reason || (q.kv_replicated ? 'K/V heads replicated' : '')]),
    };
    return { x: p.x, heads: m.heads, kv_heads: m.kv_heads, gpus, points, blocked, table };
  },

  draw(data, theme) {
    const xKey = data.x === 'gpus' ? 'ranks' : 'seq';
    const uly = data.points.filter((q) => q.ulysses_bytes !== null).map((q) => ({ x: q[xKey], y: q.ulysses_bytes, q }));
    const ring = data.points.map((q) => ({ x: q[xKey], y: q.ring_bytes, q }));
    // Short enough for a phone's legend line: the heads are in the select above.
    const uLabel = data.blocked.length ? `Ulysses, impossible at ${data.x === 'gpus' ? 'p' : 's'} = ${data.blocked.join(', ')}` : 'DeepSpeed-Ulysses, 4 all-to-alls';
    const pick = colours(theme);
    // The whole sweep on the axis, so that Ulysses' missing points leave a visible gap.
    const xs = data.x === 'gpus' ? data.gpus : SEQS;
    return chart(theme, {
      datasets: [
        series(pick(), { label: uLabel, data: uly, showLine: true, pointStyle: 'circle', pointRadius: 4, borderWidth: 2 }),
        series(pick(), { label: 'Ring attention, K/V passed p−1 times', data: ring, showLine: true, pointStyle: 'rect', pointRadius: 4, borderWidth: 2,
          borderDash: [6, 3] }),
      ],
      scales: {
        // One labelled tick per swept value (powers of two fall between the decades a log
        // axis labels by default).
        x: log(data.x === 'gpus' ? 'GPUs p (count)' : 'Sequence length s (tokens; K = 1,024)', {
          range: [xs[0] / 1.25, xs.at(-1) * 1.25],
          afterBuildTicks: (axis) => { axis.ticks = xs.map((value) => ({ value })); },
          ticks: { autoSkip: false, callback: (v) => (data.x === 'gpus' ? String(v) : tokens(v)) },
        }),
        // Fixed over every setting (5 MB for Ulysses at 16K tokens on 64 GPUs to 17 GB for the
        // ring at 1M tokens with 32 KV heads), one label per decade.
        y: log('Sent per GPU per layer, forward (B)', { unit: 'B', range: Y_RANGE }),
      },
      tooltip: (ctx) => `${ctx.datasetIndex === 0 ? 'Ulysses' : 'Ring attention'}: ${formatSI(ctx.raw.y, 'B')} (p = ${ctx.raw.q.ranks}, s = ${ctx.raw.q.seq})`,
    });
  },
};
