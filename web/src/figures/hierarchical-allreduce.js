// Hierarchical all-reduce on nodes × GPUs (NVLink inside a node, InfiniBand across) against
// one flat ring whose every step waits for the slower link. calc('hierarchical-allreduce')
// per node count.
import { formatSI, logTick } from '../runtime/format.js';

const NODES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

export default {
  id: 'hierarchical-allreduce',
  title: 'Hierarchical all-reduce against a flat ring',
  caption:
    'All-reduce time against the number of nodes. The hierarchical algorithm reduce-scatters over NVLink inside each node, all-reduces only a 1/g shard per GPU over InfiniBand, then all-gathers over NVLink; the flat ring pushes 2S through the slow link and pays its latency 2(p − 1) times. Try a 10 MB message to see the latency term take over at many nodes, or raise the InfiniBand bandwidth to see the gap close.',
  params: [
    { key: 'hardware', label: 'GPU (NVLink from the table)', from: ['hierarchical-allreduce', 'hardware'],
      options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'] },
    { key: 'gpus_per_node', label: 'GPUs per node g', from: ['hierarchical-allreduce', 'gpus_per_node'], min: 2, max: 16 },
    { key: 'bytes', label: 'Buffer S', from: ['hierarchical-allreduce', 'bytes'], min: 1e5, max: 1e11, scale: 'log' },
    { key: 'inter_bandwidth_Bps', label: 'InfiniBand per GPU (per direction)', from: ['hierarchical-allreduce', 'inter_bandwidth_Bps'], min: 1e9, max: 4e11, scale: 'log' },
    { key: 'inter_latency_s', label: 'Inter-node latency', from: ['hierarchical-allreduce', 'inter_latency_s'], min: 0, max: 1e-4 },
  ],

  data(engine, p) {
    const points = NODES.map((nodes) => {
      const r = engine.calc('hierarchical-allreduce', {
        nodes, gpus_per_node: p.gpus_per_node, bytes: p.bytes, hardware: p.hardware,
        inter_bandwidth_Bps: p.inter_bandwidth_Bps, inter_latency_s: p.inter_latency_s,
      });
      return { nodes, gpus: r.ranks, time_s: r.time_s, intra_s: r.intra_time_s, inter_s: r.inter_time_s, flat_s: r.flat_ring_time_s, speedup: r.speedup, intra_bw: r.intra_bandwidth_Bps };
    });
    const table = {
      columns: ['Nodes', 'GPUs', 'Hierarchical (s)', 'Intra-node part (s)', 'Inter-node part (s)', 'Flat ring (s)', 'Speedup (x)'],
      rows: points.map((q) => [q.nodes, q.gpus, q.time_s, q.intra_s, q.inter_s, q.flat_s, q.speedup]),
    };
    return { hardware: p.hardware, gpus_per_node: p.gpus_per_node, bytes: p.bytes, intra_bandwidth_Bps: points[0].intra_bw, points, table };
  },

  draw(data, theme) {
    const line = (label, key, colour, shape, dash = []) => ({
      label, data: data.points.filter((q) => q[key] > 0).map((q) => ({ x: q.nodes, y: q[key], q })), showLine: true,
      pointStyle: shape, pointRadius: 3, borderWidth: 2, borderDash: dash, borderColor: colour, backgroundColor: colour,
    });
    const datasets = [
      line('Hierarchical all-reduce', 'time_s', theme.memory, 'circle'),
      line(`Inside nodes (NVLink ${formatSI(data.intra_bandwidth_Bps, 'B/s')} per direction)`, 'intra_s', theme.palette[2], 'triangle', [6, 3]),
      line('Across nodes (InfiniBand)', 'inter_s', theme.palette[3], 'rectRot', [2, 3]),
      line('Flat ring over every GPU', 'flat_s', theme.compute, 'rect'),
    ];
    const ys = data.points.flatMap((q) => [q.time_s, q.intra_s, q.inter_s, q.flat_s]).filter((y) => y > 0);
    return {
      type: 'scatter', data: { datasets },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: { type: 'logarithmic', min: 1, max: 512, title: { display: true, text: `Nodes (× ${data.gpus_per_node} GPUs)`, color: theme.text },
            ticks: { color: theme.muted, callback: logTick('') }, grid: { color: theme.grid } },
          y: { type: 'logarithmic', min: Math.min(...ys) / 1.5, max: Math.max(...ys) * 1.5, title: { display: true, text: 'All-reduce time (s)', color: theme.text },
            ticks: { color: theme.muted, callback: logTick('s') }, grid: { color: theme.grid } },
        },
        plugins: {
          legend: { labels: { color: theme.text, usePointStyle: true } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.raw.q.nodes} nodes (${ctx.raw.q.gpus} GPUs), ${formatSI(ctx.raw.y, 's')}` } },
        },
      },
    };
  },
};
