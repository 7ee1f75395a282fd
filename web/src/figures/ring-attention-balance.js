// Ring attention (Liu et al. 2023). View "work": the unmasked attention tiles each rank
// computes under a causal mask, counted by executing the block schedule (calc
// 'ring-attention'), for contiguous blocks and for zig-zag chunks. View "overlap": per ring
// step, the time to compute one block pair against the time to pass the next K/V block, as the
// block grows; the crossing is the smallest block that hides communication.
import { formatSI, formatFixed, logTick } from '../runtime/format.js';

const BLOCKS = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
const KV = { '32': 'MHA: 32 KV heads', '8': 'GQA: 8 KV heads', '4': 'GQA: 4 KV heads', '1': 'MQA: 1 KV head' };

const calc = (engine, input) => engine.calc('ring-attention', input);

export default {
  id: 'ring-attention-balance',
  simulation: true,
  title: 'Ring attention: causal work per rank and the overlap condition',
  caption:
    'Work view: attention FLOPs each GPU computes in one causal forward pass. With contiguous blocks the last rank does almost all of its block pairs and the first only the diagonal, so the ring waits for the busiest rank; zig-zag chunks (rank i holds chunks i and 2p−1−i) give every rank the same count. Overlap view: per ring step, block compute grows as c² and the K/V transfer as c; right of the crossing the transfer hides behind compute. Switch to 8 KV heads and watch the crossing move left.',
  params: [
    { key: 'view', label: 'View', type: 'select', options: [{ value: 'work', label: 'Work per rank (causal)' }, { value: 'overlap', label: 'Compute vs transfer per step' }], default: 'work' },
    { key: 'ranks', label: 'GPUs in the ring p', type: 'select', options: ['2', '4', '8', '16', '32'], default: '8' },
    { key: 'seq', label: 'Sequence length (work view)', type: 'select', options: ['16384', '65536', '131072', '524288', '1048576'], default: '131072' },
    { key: 'kv_heads', label: 'Key/value heads (32 query heads)', type: 'select', options: Object.entries(KV).map(([value, label]) => ({ value, label })), default: '32' },
    { key: 'hardware', label: 'Accelerator', from: ['ring-attention', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'] },
  ],

  data(engine, p) {
    const ranks = Number(p.ranks), seq = Number(p.seq), kv_heads = Number(p.kv_heads);
    const base = { ranks, heads: 32, kv_heads, head_dim: 128, hardware: p.hardware, causal: true };
    if (p.view === 'work') {
      const cont = calc(engine, { ...base, seq, partition: 'contiguous' });
      const zig = calc(engine, { ...base, seq, partition: 'zigzag' });
      const full = calc(engine, { ...base, seq, partition: 'contiguous', causal: false });
      const rows = cont.flops_per_rank.map((f, i) => [i, f, zig.flops_per_rank[i]]);
      return {
        view: 'work', ranks, seq,
        contiguous: { flops: cont.flops_per_rank, imbalance: cont.imbalance, time_s: cont.time_s, method: cont.method },
        zigzag: { flops: zig.flops_per_rank, imbalance: zig.imbalance, time_s: zig.time_s },
        full_time_s: full.time_s,
        table: { columns: ['Rank', 'Contiguous blocks (FLOP)', 'Zig-zag chunks (FLOP)'], rows },
      };
    }
    const points = BLOCKS.map((c) => {
      const tile = Math.min(c, 1024);
      const r = calc(engine, { ...base, seq: c * ranks, tile, partition: 'contiguous' });
      return { block: c, compute_s: r.step_compute_s, comm_s: r.step_comm_s, overlapped: r.overlapped };
    });
    const r0 = calc(engine, { ...base, seq: 1024 * ranks, tile: 1024 });
    return {
      view: 'overlap', ranks, points, min_block: r0.min_block_tokens, min_block_bandwidth: r0.min_block_tokens_bandwidth,
      table: { columns: ['Block per GPU (tokens)', 'Compute per step (s)', 'K/V transfer per step (s)', 'Transfer hidden'],
        rows: points.map((q) => [q.block, q.compute_s, q.comm_s, q.overlapped ? 'yes' : 'no']) },
    };
  },

  draw(data, theme) {
    const legend = { labels: { color: theme.text, usePointStyle: true } };
    if (data.view === 'work') {
      const c = data.contiguous, z = data.zigzag;
      return {
        type: 'bar',
        data: {
          labels: c.flops.map((_, i) => `rank ${i}`),
          datasets: [
            { label: `Contiguous: max/mean ${c.imbalance.toFixed(2)}, ring time ${formatSI(c.time_s, 's')}`, data: c.flops,
              backgroundColor: theme.palette[0], borderColor: theme.text, borderWidth: 1 },
            { label: `Zig-zag: max/mean ${z.imbalance.toFixed(2)}, ring time ${formatSI(z.time_s, 's')} (no mask: ${formatSI(data.full_time_s, 's')})`,
              data: z.flops, backgroundColor: theme.palette[1], borderColor: theme.text, borderWidth: 1 },
          ],
        },
        options: {
          responsive: true, maintainAspectRatio: false, animation: false,
          scales: {
            x: { type: 'category', title: { display: true, text: 'GPU of the ring', color: theme.text }, ticks: { color: theme.muted }, grid: { color: theme.grid } },
            y: { type: 'linear', min: 0, title: { display: true, text: 'Attention work per GPU (FLOP)', color: theme.text },
              ticks: { color: theme.muted, callback: (v) => formatSI(v, 'FLOP') }, grid: { color: theme.grid } },
          },
          plugins: { legend, tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label.split(':')[0]}: ${formatSI(ctx.raw, 'FLOP')}` } } },
        },
      };
    }
    const pts = (key) => data.points.map((q) => ({ x: q.block, y: q[key] }));
    const ys = data.points.flatMap((q) => [q.compute_s, q.comm_s]);
    const [lo, hi] = [Math.min(...ys), Math.max(...ys)];
    return {
      type: 'scatter',
      data: {
        datasets: [
          { label: 'Compute one block pair (∝ c²)', data: pts('compute_s'), showLine: true, pointStyle: 'circle', pointRadius: 3,
            borderWidth: 2, borderColor: theme.compute, backgroundColor: theme.compute },
          { label: 'Send the next K/V block (α + bytes/B)', data: pts('comm_s'), showLine: true, pointStyle: 'rect', pointRadius: 3,
            borderWidth: 2, borderDash: [6, 3], borderColor: theme.memory, backgroundColor: theme.memory },
          { label: `Smallest block that hides the transfer: ${formatFixed(Math.round(data.min_block), 0)} tokens`,
            data: [{ x: data.min_block, y: lo }, { x: data.min_block, y: hi }], showLine: true, pointStyle: 'line', pointRadius: 0,
            borderWidth: 2, borderDash: [2, 3], borderColor: theme.text, backgroundColor: theme.text },
        ],
      },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: { type: 'logarithmic', title: { display: true, text: 'Block per GPU, s/p (tokens)', color: theme.text }, ticks: { color: theme.muted, callback: logTick('') }, grid: { color: theme.grid } },
          y: { type: 'logarithmic', title: { display: true, text: 'Time per ring step (s)', color: theme.text }, ticks: { color: theme.muted, callback: logTick('s') }, grid: { color: theme.grid } },
        },
        plugins: { legend, tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.y, 's')} at ${ctx.raw.x} tokens` } } },
      },
    };
  },
};
