// Collectives over real wiring: calc('fat-tree') on nodes of 8 GPUs, NVLink 4 inside and one
// NIC per GPU across. View "size": all-reduce time against message size for NCCL's flat rings
// over every GPU (one per NIC), one flat ring through a single NIC per node, a binomial tree and
// the hierarchical algorithm. View "oversubscription":
// all-reduce and all-to-all time against the leaf oversubscription, with and without rails.
import { formatSI } from '../runtime/format.js';
import { chart, log, linear, span, colours, series } from './shared/chart-config.js';

export const SIZES = Array.from({ length: 31 }, (_, i) => 10 ** (3 + i * 0.25)); // 1 kB .. 32 GB
export const OVERSUB = [1, 1.5, 2, 3, 4, 6, 8, 12, 16];

const base = (p) => ({ nodes: p.nodes, gpus_per_node: 8, nic_bandwidth_Bps: p.nic_bandwidth_Bps });

export default {
  id: 'wired-collectives',
  title: 'Collectives over real wiring: ring, tree and hierarchical; rails and oversubscription',
  caption:
    'Nodes of 8 GPUs, NVLink 4 inside and one 400 Gb/s NIC per GPU across (defaults: 64 nodes). By message size, the binomial tree wins small messages (18 network latencies); from about 1.6 MB the hierarchical algorithm (14 NVLink and 126 network latencies); from about 0.5 GB NCCL\u2019s flat rings, which send as many bytes per NIC and overlap their NVLink and NIC hops, while the hierarchical phases here run one after another. One ring through a single NIC per node (dashed) falls far behind. By oversubscription (1 GB), the rail-optimized all-reduce stays flat, the one without rails turns up once o passes 32 ports / 8 rings = 4, and the all-to-all slows from o \u2248 2 with rails, from just above 1 without.',
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'size',
      options: [{ value: 'size', label: 'Time vs message size (ring, tree, hierarchical)' }, { value: 'oversubscription', label: 'Time vs oversubscription (rails or not)' }] },
    { key: 'nodes', label: 'Nodes (× 8 GPUs)', from: ['fat-tree', 'nodes'], min: 2, max: 512, scale: 'log' },
    { key: 'nic_bandwidth_Bps', label: 'NIC per GPU (per direction)', from: ['fat-tree', 'nic_bandwidth_Bps'], min: 12.5e9, max: 100e9, scale: 'log' },
    { key: 'bytes', label: 'Message S', from: ['fat-tree', 'bytes'], min: 1e6, max: 1e10, scale: 'log', when: { view: ['oversubscription'] } },
  ],

  data(engine, p) {
    if (p.view === 'size') {
      const sweep = (q) => SIZES.map((bytes) => {
        const r = engine.calc('fat-tree', { ...base(q), bytes });
        return { bytes, ring: r.flat_ring_time_s, single: r.single_ring_time_s, tree: r.tree_time_s, hier: r.time_s };
      });
      const points = sweep(p);
      // The time axis spans the extremes of the controls, so moving them moves the curves.
      const corners = [[2, 100e9], [512, 12.5e9]].flatMap(([nodes, nic]) => sweep({ nodes, nic_bandwidth_Bps: nic }));
      const yRange = span([...points, ...corners].flatMap((q) => [q.ring, q.single, q.tree, q.hier]), { log: true, pad: 1.5 });
      const best = (q) => (q.tree < q.hier && q.tree < q.ring ? 'tree' : q.hier <= q.ring ? 'hierarchical' : 'flat rings');
      const table = {
        columns: ['Message (B)', 'Flat rings, one per NIC (s)', 'One ring, one NIC per node (s)', 'Binomial tree (s)', 'Hierarchical (s)', 'Fastest'],
        rows: points.map((q) => [q.bytes, q.ring, q.single, q.tree, q.hier, best(q)]),
      };
      return { view: 'size', nodes: p.nodes, ranks: p.nodes * 8, points, yRange, table };
    }
    const curve = (q, op, rails) => OVERSUB.map((o) => {
      const r = engine.calc('fat-tree', { ...base(q), bytes: q.bytes, op, rail_optimized: rails, oversubscription: o });
      return { o, time_s: r.time_s, bottleneck: r.bottleneck };
    });
    const lines = (q) => ({
      arRail: curve(q, 'allreduce', true), arNode: curve(q, 'allreduce', false),
      a2aRail: curve(q, 'alltoall', true), a2aNode: curve(q, 'alltoall', false),
    });
    const ls = lines(p);
    const all = (x) => Object.values(x).flat().map((q) => q.time_s);
    const corners = [[2, 100e9, 1e6], [512, 12.5e9, 1e10]].flatMap(([nodes, nic, bytes]) => all(lines({ nodes, nic_bandwidth_Bps: nic, bytes })));
    const yRange = span([...all(ls), ...corners], { log: true, pad: 1.5 });
    const table = {
      columns: ['Oversubscription', 'All-reduce, rails (s)', 'All-reduce, no rails (s)', 'All-to-all, rails (s)', 'All-to-all, no rails (s)', 'Bottleneck (all-reduce, no rails)'],
      rows: OVERSUB.map((o, i) => [o, ls.arRail[i].time_s, ls.arNode[i].time_s, ls.a2aRail[i].time_s, ls.a2aNode[i].time_s, ls.arNode[i].bottleneck]),
    };
    return { view: 'oversubscription', nodes: p.nodes, ranks: p.nodes * 8, bytes: p.bytes, lines: ls, yRange, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    if (data.view === 'size') {
      const curve = (label, key, shape, dash = []) => series(pick(), {
        label, data: data.points.filter((q) => q[key] > 0).map((q) => ({ x: q.bytes, y: q[key] })), showLine: true,
        pointStyle: shape, pointRadius: 2, borderWidth: 2, borderDash: dash,
      });
      return chart(theme, {
        datasets: [
          curve(`NCCL's flat rings over all ${data.ranks} GPUs, one per NIC`, 'ring', 'rect'),
          curve('One flat ring, one NIC per node', 'single', 'rectRot', [6, 3]),
          curve('Binomial tree over all GPUs', 'tree', 'triangle'),
          curve('Hierarchical (NVLink, ring across nodes, NVLink)', 'hier', 'circle'),
        ],
        scales: {
          x: log('All-reduce message size S (B)', { unit: 'B', range: [SIZES[0], SIZES.at(-1)] }),
          y: log(`All-reduce time on ${data.nodes} nodes (s)`, { unit: 's', range: data.yRange }),
        },
        tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.x, 'B')} in ${formatSI(ctx.raw.y, 's')}`,
      });
    }
    const curve = (label, key, shape, dash = []) => series(pick(), {
      label, data: data.lines[key].map((q) => ({ x: q.o, y: q.time_s })), showLine: true, pointStyle: shape, pointRadius: 3, borderWidth: 2, borderDash: dash,
    });
    return chart(theme, {
      datasets: [
        curve('All-reduce, rail-optimized', 'arRail', 'circle'),
        curve('All-reduce, one leaf per node group', 'arNode', 'rect', [6, 3]),
        curve('All-to-all, rail-optimized', 'a2aRail', 'triangle'),
        curve('All-to-all, one leaf per node group', 'a2aNode', 'rectRot', [6, 3]),
      ],
      scales: {
        x: linear('Leaf oversubscription o (host ports per uplink)', { range: [1, 16] }),
        y: log(`Time for ${formatSI(data.bytes, 'B')} on ${data.nodes} nodes (s)`, { unit: 's', range: data.yRange }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: o = ${ctx.raw.x}, ${formatSI(ctx.raw.y, 's')}`,
    });
  },
};
