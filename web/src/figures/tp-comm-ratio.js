// Megatron tensor parallelism of one layer: the column-then-row split needs four all-reduces of
// the s·b·h activations per layer and micro-batch (two forward, two backward); their time (a ring
// inside a node, the hierarchical algorithm across nodes) over compute time, against the model
// width h, one line per TP degree. Every point is
// calc('tensor-parallel', {hidden, seq, micro_batch, tp, hardware}).
import { formatSI } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';

const HIDDEN = [1024, 1536, 2048, 3072, 4096, 5120, 6144, 8192, 10240, 12288, 16384, 20480, 25600, 32768];
const DEGREES = [2, 4, 8, 16];
const GPUS = ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'];

export default {
  id: 'tp-comm-ratio',
  title: 'Tensor parallelism: all-reduce time against compute',
  caption:
    'Each GPU holds a column slice of W_QKV and of the first MLP matrix and a row slice of the output and second MLP matrices, so a layer needs two all-reduces forward and two backward. The lines show their time (latency included) divided by the layer\'s compute time on one GPU, against the model width. Wider models amortise the all-reduces (the ratio falls as 1/h); more GPUs per layer raise it as t − 1. Compare t = 8 with t = 16, which spans two 8-GPU nodes: its all-reduce keeps the whole NVLink ring of a node and adds a phase across nodes on every GPU\'s InfiniBand adapter, while the compute per GPU halves. Then switch the accelerator: a faster chip with the same links makes communication relatively dearer. The micro-batch and the sequence length move the lines only a little: the bytes and the FLOPs both grow with the tokens, so more tokens only spread the fixed latency of each ring step thinner (and a longer sequence adds attention FLOPs).',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['tensor-parallel', 'hardware'], options: GPUS },
    { key: 'seq', label: 'Sequence length s', type: 'select', unit: 'tokens', default: 4096,
      options: [1024, 2048, 4096, 8192, 16384].map((v) => ({ value: v, label: String(v) })) },
    { key: 'micro_batch', label: 'Micro-batch b', from: ['tensor-parallel', 'micro_batch'], max: 16 },
  ],

  data(engine, p) {
    const lines = DEGREES.map((tp) => ({
      tp,
      points: HIDDEN.map((hidden) => {
        const r = engine.calc('tensor-parallel', { hidden, tp, seq: p.seq, micro_batch: p.micro_batch, hardware: p.hardware });
        return { hidden, tp, ratio: r.ratio, comm_s: r.comm_time_s, compute_s: r.compute_time_s, bytes: r.allreduce_bytes,
          sent: r.sent_bytes_per_gpu, link: r.link, nodes: r.nodes, intra_s: r.comm_intra_s, inter_s: r.comm_inter_s,
          qkv: r.qkv_cols_per_gpu, mlp: r.mlp_cols_per_gpu };
      }),
    }));
    // The ratio axis spans every accelerator of the list at this sequence and micro-batch (the
    // ratio falls with h and rises with t, so the corners bound it): switching the chip then
    // moves the lines, not the axis.
    const ratio = (hidden, tp, hardware) => engine.calc('tensor-parallel', { hidden, tp, seq: p.seq, micro_batch: p.micro_batch, hardware }).ratio;
    const corners = GPUS.flatMap((h) => [ratio(HIDDEN.at(-1), DEGREES[0], h), ratio(HIDDEN[0], DEGREES.at(-1), h)]);
    const range = span([...corners, ...lines.flatMap((l) => l.points.map((q) => q.ratio)), 1], { log: true, pad: 1.5 });
    const rows = lines.flatMap((l) => l.points.map((q) => [q.hidden, q.tp, q.nodes, q.qkv, q.mlp, q.bytes, q.sent, q.intra_s, q.inter_s,
      q.comm_s, q.compute_s, q.ratio]));
    return {
      hardware: p.hardware, seq: p.seq, micro_batch: p.micro_batch, lines, range,
      table: {
        columns: ['Width h', 'TP degree t', 'Nodes', 'W_QKV columns per GPU', 'MLP columns per GPU', 'All-reduce buffer (B)',
          'Sent per GPU per layer (B)', 'All-reduces on NVLink (s)', 'All-reduces on InfiniBand (s)', 'All-reduce time (s)',
          'Compute time (s)', 'Comm / compute'],
        rows,
      },
    };
  },

  draw(data, theme) {
    const styles = ['circle', 'rect', 'triangle', 'crossRot'];
    const dashes = [[], [6, 3], [2, 2], [10, 4]];
    const pick = colours(theme);
    const datasets = data.lines.map((l, i) => series(pick(), {
      label: `t = ${l.tp}${l.points[0].nodes > 1 ? ` (${l.points[0].nodes} nodes: NVLink + InfiniBand)` : ' (NVLink)'}`,
      data: l.points.map((q) => ({ x: q.hidden, y: q.ratio, q })),
      showLine: true, pointStyle: styles[i], pointRadius: 3, borderWidth: 2, borderDash: dashes[i],
    }));
    datasets.push(line(pick('muted'), {
      label: 'Communication = compute', data: [{ x: HIDDEN[0], y: 1 }, { x: HIDDEN[HIDDEN.length - 1], y: 1 }], borderWidth: 1, borderDash: [3, 3],
    }));
    return chart(theme, {
      datasets,
      scales: {
        // Every labelled tick kept (2 k, 5 k, 10 k, 20 k): Chart.js's auto-skip left one on a phone.
        x: log('Model width h (elements)', { unit: '', range: [HIDDEN[0], HIDDEN[HIDDEN.length - 1]], ticks: { autoSkip: false } }),
        y: log('All-reduce time / compute time (ratio)', { unit: '', range: data.range }),
      },
      tooltip: (ctx) => {
        const q = ctx.raw.q;
        if (!q) return ctx.dataset.label;
        const across = q.inter_s > 0 ? ` (${formatSI(q.inter_s, 's')} across nodes)` : '';
        return `h = ${q.hidden}, t = ${q.tp}: all-reduces ${formatSI(q.comm_s, 's')}${across}, compute ${formatSI(q.compute_s, 's')}, ratio ${q.ratio.toFixed(3)}`;
      },
    });
  },
};
