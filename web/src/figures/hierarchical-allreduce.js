// Hierarchical all-reduce on nodes × GPUs (the GPU's scale-up link inside a node, InfiniBand
// across) against one flat ring through one adapter per node (the naive baseline) and NCCL's
// flat rings, one per adapter, with the phases one after another and pipelined (the slower
// phase alone); all-to-all: the two-phase routed
// exchange against the direct one. calc('hierarchical-allreduce') per node count.
import { formatSI } from '../runtime/format.js';
import { chart, log, span, colours, series } from './shared/chart-config.js';

const NODES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const HARDWARE = ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'];

export default {
  id: 'hierarchical-allreduce',
  title: 'Across nodes: the hierarchical all-reduce (or all-to-all) against flat rings',
  caption:
    'Time against the number of nodes. The all-reduce reduce-scatters inside each node over its scale-up link (NVLink; Infinity Fabric on the MI300X), all-reduces a 1/g shard per GPU over InfiniBand, then all-gathers; its circles run the phases one after another; the wide band under the phase curves is the bound with them pipelined, the slower phase alone. The squares are one ring through one adapter per node, the naive baseline: 2S through the slow link, latency paid 2(p − 1) times. The crosses are what NCCL runs: one flat ring per adapter, each carrying S/g. Try a 10 MB buffer to see latency take over at many nodes. Switch to all-to-all and change g: its part across nodes stays put, and the direct exchange puts the same bytes through each adapter, so routing only saves messages.',
  params: [
    { key: 'op', label: 'Collective', from: ['hierarchical-allreduce', 'op'],
      options: [{ value: 'allreduce', label: 'All-reduce' }, { value: 'alltoall', label: 'All-to-all (no reduction)' }] },
    { key: 'hardware', label: 'GPU (its scale-up link from the table)', from: ['hierarchical-allreduce', 'hardware'],
      options: HARDWARE },
    { key: 'gpus_per_node', label: 'GPUs per node g', from: ['hierarchical-allreduce', 'gpus_per_node'], min: 2, max: 16 },
    { key: 'bytes', label: 'Buffer S', from: ['hierarchical-allreduce', 'bytes'], min: 1e5, max: 1e11, scale: 'log' },
    { key: 'inter_bandwidth_Bps', label: 'InfiniBand bandwidth per GPU (per direction)', from: ['hierarchical-allreduce', 'inter_bandwidth_Bps'], min: 1e9, max: 4e11, scale: 'log' },
    { key: 'inter_latency_s', label: 'Inter-node latency', from: ['hierarchical-allreduce', 'inter_latency_s'], min: 0, max: 1e-4 },
  ],

  data(engine, p) {
    const sweep = (hardware, op = p.op) => NODES.map((nodes) => {
      const r = engine.calc('hierarchical-allreduce', {
        op, nodes, gpus_per_node: p.gpus_per_node, bytes: p.bytes, hardware,
        inter_bandwidth_Bps: p.inter_bandwidth_Bps, inter_latency_s: p.inter_latency_s,
      });
      return { nodes, gpus: r.ranks, time_s: r.time_s, intra_s: r.intra_time_s, inter_s: r.inter_time_s, flat_s: r.flat_ring_time_s, nccl_s: r.nccl_rings_time_s, overlapped_s: r.overlapped_time_s, speedup: r.speedup, intra_bw: r.intra_bandwidth_Bps };
    });
    const points = sweep(p.hardware);
    // The time axis spans every GPU of the list at these settings, so that switching the GPU
    // moves the curves (the B200's faster NVLink halves the intra-node part), not the axis.
    const times = (pts) => pts.flatMap((q) => [q.time_s, q.intra_s, q.inter_s, q.flat_s, q.nccl_s, q.overlapped_s]);
    // ... and both collectives, so that switching to all-to-all shows its network part grow.
    // Every time falls as NVLink gets faster and nothing else depends on the GPU, so the GPUs
    // with the slowest and the fastest NVLink bound the range (half the calls of all five).
    const nvlink = (h) => engine.calc('hierarchical-allreduce', { nodes: 1, hardware: h }).intra_bandwidth_Bps;
    const bySpeed = [...HARDWARE].sort((a, b) => nvlink(a) - nvlink(b));
    const others = [bySpeed[0], bySpeed.at(-1)].flatMap((h) => {
      try {
        return ['allreduce', 'alltoall'].flatMap((op) => times(sweep(h, op)));
      } catch {
        return []; // a GPU these settings do not fit adds nothing to the range
      }
    });
    const yRange = span([...times(points), ...others].filter((y) => y > 0), { log: true, pad: 1.5 });
    const table = {
      columns: ['Nodes', 'GPUs', 'Hierarchical (s)', 'Intra-node part (s)', 'Inter-node part (s)', 'Phases overlapped (s)', 'Flat (s)', 'Speedup (x)', 'NCCL rings (s)'],
      rows: points.map((q) => [q.nodes, q.gpus, q.time_s, q.intra_s, q.inter_s, q.overlapped_s, q.flat_s, q.speedup, q.nccl_s]),
    };
    // The MI300X joins its 8 GPUs by Infinity Fabric, 7 point-to-point links, not by NVLink.
    const link = p.hardware === 'mi300x' ? 'Infinity Fabric' : 'NVLink';
    return { op: p.op, hardware: p.hardware, link, gpus_per_node: p.gpus_per_node, bytes: p.bytes, intra_bandwidth_Bps: points[0].intra_bw, points, yRange, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const curve = (label, key, shape, dash = [], extra = {}) => series(pick(), {
      label, data: data.points.filter((q) => q[key] > 0).map((q) => ({ x: q.nodes, y: q[key], q })), showLine: true,
      pointStyle: shape, pointRadius: 3, borderWidth: 2, borderDash: dash, ...extra,
    });
    const a2a = data.op === 'alltoall';
    const datasets = [
      curve(a2a ? 'Routed all-to-all (two phases in turn)' : 'Hierarchical all-reduce (phases in turn)', 'time_s', 'circle'),
      // The upper envelope of the two phase curves: a wide band drawn behind them (order 1).
      curve('Phases pipelined (the slower phase alone)', 'overlapped_s', 'line', [], { borderWidth: 7, pointRadius: 0, order: 1 }),
      curve(`Inside nodes (${data.link} ${formatSI(data.intra_bandwidth_Bps, 'B/s')} per direction)`, 'intra_s', 'triangle', [6, 3]),
      curve('Across nodes (InfiniBand)', 'inter_s', 'rectRot', [2, 3]),
      curve(a2a ? 'Direct exchange (no routing)' : 'One flat ring through one adapter (naive)', 'flat_s', 'rect'),
      // NCCL's all-to-all is the direct exchange itself, so its rings are drawn for the all-reduce only.
      ...(a2a ? [] : [curve('NCCL: one flat ring per adapter', 'nccl_s', 'crossRot')]),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log(`Nodes (× ${data.gpus_per_node} GPUs)`, { unit: '', range: [1, 512] }),
        y: log(`${a2a ? 'All-to-all' : 'All-reduce'} time (s)`, { unit: 's', range: data.yRange }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.raw.q.nodes} nodes (${ctx.raw.q.gpus} GPUs), ${formatSI(ctx.raw.y, 's')}`,
    });
  },
};
