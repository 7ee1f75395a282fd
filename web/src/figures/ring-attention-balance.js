// Ring attention (Liu et al. 2023). View "work": the unmasked attention tiles each rank
// computes under a causal mask, counted by executing the block schedule (calc
// 'ring-attention'), for contiguous blocks and for zig-zag chunks. View "overlap": per ring
// step, the time to compute one block pair against the time to pass the next K/V block, as the
// block grows; the crossing is the smallest block that hides communication.
import { formatSI, formatFixed } from '../runtime/format.js';
import { chart, linear, log, category, span, colours, series, line } from './shared/chart-config.js';

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
    { key: 'ranks', label: 'GPUs in the ring p', type: 'select', options: ['2', '4', '8', '16', '32'], default: '8', when: { view: ['work'] } },
    { key: 'seq', label: 'Sequence length', type: 'select', options: ['16384', '65536', '131072', '524288', '1048576'], default: '131072', when: { view: ['work'] } },
    { key: 'kv_heads', label: 'Key/value heads (32 query heads)', type: 'select', options: Object.entries(KV).map(([value, label]) => ({ value, label })), default: '32', when: { view: ['overlap'] } },
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
    // The time axis holds the transfer of every KV-head choice (it grows with the KV heads: 1
    // and 32 bound it) at the smallest and largest block, so that switching to fewer KV heads
    // moves the transfer line down and the crossing left against fixed axes.
    const ends = ['1', '32'].flatMap((kv) => [BLOCKS[0], BLOCKS.at(-1)].map((c) => calc(engine, { ...base, kv_heads: Number(kv), seq: c * ranks,
      tile: Math.min(c, 1024), partition: 'contiguous' })));
    const yRange = span([...ends.flatMap((r) => [r.step_compute_s, r.step_comm_s]), ...points.flatMap((q) => [q.compute_s, q.comm_s])], { log: true, pad: 1.5 });
    return {
      view: 'overlap', ranks, points, yRange, min_block: r0.min_block_tokens, min_block_bandwidth: r0.min_block_tokens_bandwidth,
      table: { columns: ['Block per GPU (tokens)', 'Compute per step (s)', 'K/V transfer per step (s)', 'Transfer hidden'],
        rows: points.map((q) => [q.block, q.compute_s, q.comm_s, q.overlapped ? 'yes' : 'no']) },
    };
  },

  draw(data, theme) {
    const pick = colours(theme);
    if (data.view === 'work') {
      const c = data.contiguous, z = data.zigzag;
      return chart(theme, {
        type: 'bar',
        labels: c.flops.map((_, i) => `rank ${i}`),
        datasets: [
          series(pick(), { label: `Contiguous: max/mean ${c.imbalance.toFixed(2)}, ring time ${formatSI(c.time_s, 's')}`, data: c.flops,
            borderColor: theme.text, borderWidth: 1 }),
          series(pick(), { label: `Zig-zag: max/mean ${z.imbalance.toFixed(2)}, ring time ${formatSI(z.time_s, 's')} (no mask: ${formatSI(data.full_time_s, 's')})`,
            data: z.flops, borderColor: theme.text, borderWidth: 1 }),
        ],
        scales: {
          x: category({ title: 'GPU of the ring' }),
          y: linear('Attention work per GPU (FLOP)', { min: 0, ticks: { callback: (v) => formatSI(v, 'FLOP') } }),
        },
        tooltip: (ctx) => `${ctx.dataset.label.split(':')[0]}: ${formatSI(ctx.raw, 'FLOP')}`,
      });
    }
    const pts = (key) => data.points.map((q) => ({ x: q.block, y: q[key] }));
    const ys = data.points.flatMap((q) => [q.compute_s, q.comm_s]);
    const [lo, hi] = [Math.min(...ys), Math.max(...ys)];
    return chart(theme, {
      datasets: [
        series(pick('compute'), { label: 'Compute one block pair (∝ c²)', data: pts('compute_s'), showLine: true, pointStyle: 'circle', pointRadius: 3,
          borderWidth: 2 }),
        series(pick(), { label: 'Send the next K/V block (α + bytes/B)', data: pts('comm_s'), showLine: true, pointStyle: 'rect', pointRadius: 3,
          borderWidth: 2, borderDash: [6, 3] }),
        line(pick('text'), { label: `Smallest block that hides the transfer: ${formatFixed(Math.round(data.min_block), 0)} tokens`,
          data: [{ x: data.min_block, y: lo }, { x: data.min_block, y: hi }], borderDash: [2, 3] }),
      ],
      scales: {
        x: log('Block per GPU, s/p (tokens)', { unit: '', range: [BLOCKS[0], BLOCKS.at(-1)] }),
        y: log('Time per ring step (s)', { unit: 's', range: data.yRange }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.y, 's')} at ${ctx.raw.x} tokens`,
    });
  },
};
