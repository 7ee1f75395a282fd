// A small two-level fat-tree drawn link by link: nodes of 4 GPUs, each GPU with its own NIC,
// leaf switches of 4 host ports and 4/o uplinks, one uplink from each leaf to each spine.
// Rail-optimized: NIC l of every node on the leaf of rail l; otherwise a node's NICs on one
// leaf. The numbers under the drawing are calc('fat-tree') for this small cluster.
import { formatSI } from '../runtime/format.js';
import { sizeOf, fontFor, text, textWidth, legendNodes, scene } from './shared/svg-scene.js';

export const MINI = { gpus_per_node: 4, leaf_ports: 4 };

function wrap(s, width, size) {
  const lines = [];
  let line = '';
  for (const word of s.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) { lines.push(line); line = word; } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

export default {
  id: 'fat-tree-topology',
  title: 'Fat-tree and rail-optimized wiring, with oversubscribed uplinks',
  caption:
    'Eight nodes of 4 GPUs; every GPU has its own NIC (coloured by its local index, its rail), every leaf switch has 4 host ports and 4/o uplinks, one to each spine. At the defaults (rails, o = 1) the 4 GPUs with the same index on nodes 0\u20133 share a leaf, so the inter-node ring of each rail leaves a leaf only once per direction. Raise the oversubscription to 4: the spines shrink to one and the bisection falls fourfold, yet the all-reduce time under the drawing does not move, because one ring per leaf needs only one uplink. Now turn rails off: each node hangs from its own leaf, all 4 rings leave it together, and with o = 2 or 4 the uplinks become the bottleneck. Switch to all-to-all, whose traffic goes everywhere, to see it slow down with o even with rails.',
  params: [
    { key: 'rail_optimized', label: 'Wiring', type: 'select', default: 'rails',
      options: [{ value: 'rails', label: 'Rail-optimized (NIC l to the leaf of rail l)' }, { value: 'node', label: 'One leaf per node group (no rails)' }] },
    { key: 'oversubscription', label: 'Oversubscription o (host ports : uplinks)', type: 'select', default: '1',
      options: [{ value: '1', label: '1:1 (full bisection)' }, { value: '2', label: '2:1' }, { value: '4', label: '4:1' }] },
    { key: 'nodes', label: 'Nodes', type: 'select', default: '8', options: [{ value: '4', label: '4 nodes' }, { value: '8', label: '8 nodes' }] },
    { key: 'op', label: 'Collective', from: ['fat-tree', 'op'],
      options: [{ value: 'allreduce', label: 'All-reduce (hierarchical)' }, { value: 'alltoall', label: 'All-to-all (rail-aligned)' }] },
  ],

  data(engine, p) {
    const rails = p.rail_optimized === 'rails';
    const o = Number(p.oversubscription), nodes = Number(p.nodes);
    const g = MINI.gpus_per_node, P = MINI.leaf_ports;
    const r = engine.calc('fat-tree', { nodes, ...MINI, oversubscription: o, rail_optimized: rails, op: p.op, bytes: 1e9 });
    const full = engine.calc('fat-tree', { nodes, ...MINI, oversubscription: 1, rail_optimized: rails, op: p.op, bytes: 1e9 });
    // Leaves and which leaf each NIC plugs into.
    const leaves = [];
    const nic = [];
    if (rails) {
      for (let grp = 0; grp < r.leaf_groups; grp++) for (let l = 0; l < g; l++) leaves.push({ group: grp, rail: l });
      for (let n = 0; n < nodes; n++) nic.push(Array.from({ length: g }, (_, l) => Math.floor(n / r.nodes_per_leaf) * g + l));
    } else {
      for (let grp = 0; grp < r.leaf_groups; grp++) leaves.push({ group: grp, rail: null });
      for (let n = 0; n < nodes; n++) nic.push(Array.from({ length: g }, () => Math.floor(n / r.nodes_per_leaf)));
    }
    const spines = r.leaf_groups > 1 ? P / o : 0;
    const table = {
      columns: ['Quantity', 'Value'],
      rows: [
        ['GPUs', r.ranks], ['Leaf switches', leaves.length], ['Spine switches', spines], ['Nodes per leaf (per rail)', r.nodes_per_leaf],
        ['Bisection, one direction (B/s)', r.bisection_Bps], ['Share of inter-node traffic crossing the spine', r.cross_spine_fraction],
        ['Spine slowdown s', r.spine_slowdown], ['Inter-node bandwidth per GPU (B/s)', r.inter_bandwidth_Bps],
        [`${p.op} time for 1 GB (s)`, r.time_s], ['Same at o = 1 (s)', full.time_s], ['Bottleneck', r.bottleneck],
      ],
    };
    return { rails, o, nodes, g, P, op: p.op, leaves, nic, spines, r, full, table };
  },

  draw(data, theme) {
    const { width, height } = sizeOf(theme);
    const size = fontFor(width);
    const pad = 6;
    const nodes = [];
    const railColour = (l) => theme.palette[l % theme.palette.length];
    const legend = Array.from({ length: data.g }, (_, l) => ({ label: `NIC of GPU ${l}${data.rails ? ` (rail ${l})` : ''}`, stroke: railColour(l) }));
    legend.push({ label: 'Leaf-to-spine uplink', stroke: theme.muted });
    const top = legendNodes(legend, pad, pad, width - 2 * pad, size, theme.text);
    nodes.push(...top.nodes);
    const r = data.r;
    const opName = data.op === 'allreduce' ? 'All-reduce' : 'All-to-all';
    const summary = [
      `${opName} of 1 GB: ${formatSI(r.time_s, 's')} (${formatSI(data.full.time_s, 's')} at o = 1), bottleneck: ${r.bottleneck}.`,
      `Bisection ${formatSI(r.bisection_Bps, 'B/s')} each way; ${(100 * r.cross_spine_fraction).toFixed(0)}% of inter-node traffic crosses the spine; each GPU's NIC runs at ${formatSI(r.inter_bandwidth_Bps, 'B/s')} (slowdown ${r.spine_slowdown.toFixed(2)}).`,
    ].flatMap((s) => wrap(s, width - 2 * pad, size));
    const footerH = summary.length * size * 1.4 + size * 0.6;
    const y0 = pad + top.height + size * 0.5;
    const avail = height - y0 - footerH;
    const spineY = y0 + size, leafY = y0 + avail * 0.38, nodeY = y0 + avail * 0.66, nodeH = avail * 0.3;
    const boxH = Math.max(size * 1.5, Math.min(26, avail * 0.1));
    // Nodes with their GPUs.
    const nodeW = (width - 2 * pad) / data.nodes;
    const gpuX = (n, l) => pad + n * nodeW + (l + 0.5) * (nodeW - 8) / data.g + 4;
    for (let n = 0; n < data.nodes; n++) {
      nodes.push({ kind: 'rect', x: pad + n * nodeW + 2, y: nodeY, w: nodeW - 4, h: nodeH, fill: 'none', stroke: theme.text, strokeWidth: 1, rx: 3,
        tip: `Node ${n}: ${data.g} GPUs joined by NVLink` });
      nodes.push(text(pad + (n + 0.5) * nodeW, nodeY + nodeH - size * 0.4, textWidth(`node ${n}`, size) < nodeW - 10 ? `node ${n}` : `n${n}`, size, theme.text, { anchor: 'middle' }));
      for (let l = 0; l < data.g; l++) {
        const gw = Math.min(18, (nodeW - 8) / data.g - 3);
        nodes.push({ kind: 'rect', x: gpuX(n, l) - gw / 2, y: nodeY + 6, w: gw, h: Math.max(10, nodeH * 0.35), fill: railColour(l), opacity: 0.7,
          tip: `Node ${n}, GPU ${l}: NIC to leaf ${data.nic[n][l]}` });
      }
      // NVLink inside the node.
      nodes.push({ kind: 'line', x1: gpuX(n, 0), y1: nodeY + 6 + Math.max(10, nodeH * 0.35) + 4, x2: gpuX(n, data.g - 1), y2: nodeY + 6 + Math.max(10, nodeH * 0.35) + 4, stroke: theme.text, strokeWidth: 3 });
    }
    // Leaves.
    const L = data.leaves.length;
    const leafW = (width - 2 * pad) / L;
    const leafX = (k) => pad + (k + 0.5) * leafW;
    data.leaves.forEach((lf, k) => {
      const w = Math.max(10, leafW - 6);
      nodes.push({ kind: 'rect', x: leafX(k) - w / 2, y: leafY, w, h: boxH, fill: lf.rail === null ? theme.grid : railColour(lf.rail), opacity: lf.rail === null ? undefined : 0.3,
        stroke: theme.text, strokeWidth: 1, rx: 2, tip: `Leaf ${k}${lf.rail === null ? '' : ` (rail ${lf.rail})`}: ${data.P} host ports, ${data.P / data.o} uplinks` });
      if (textWidth(`L${k}`, size) < w - 2) nodes.push(text(leafX(k), leafY + boxH / 2 + size * 0.35, `L${k}`, size, theme.text, { anchor: 'middle' }));
    });
    // NIC cables.
    for (let n = 0; n < data.nodes; n++) for (let l = 0; l < data.g; l++) {
      nodes.push({ kind: 'line', x1: gpuX(n, l), y1: nodeY + 6, x2: leafX(data.nic[n][l]), y2: leafY + boxH, stroke: railColour(l), strokeWidth: 1.5 });
    }
    // Spines and uplinks.
    if (data.spines > 0) {
      const spineW = (width - 2 * pad) / data.spines;
      const spineX = (s) => pad + (s + 0.5) * spineW;
      for (let k = 0; k < L; k++) for (let s = 0; s < data.spines; s++) {
        nodes.push({ kind: 'line', x1: leafX(k), y1: leafY, x2: spineX(s), y2: spineY + boxH, stroke: theme.muted, strokeWidth: 1.5 });
      }
      for (let s = 0; s < data.spines; s++) {
        const w = Math.min(spineW - 8, 90);
        nodes.push({ kind: 'rect', x: spineX(s) - w / 2, y: spineY, w, h: boxH, fill: theme.grid, stroke: theme.text, strokeWidth: 1, rx: 2,
          tip: `Spine ${s}: one uplink from each of the ${L} leaves` });
        nodes.push(text(spineX(s), spineY + boxH / 2 + size * 0.35, `spine ${s}`, size, theme.text, { anchor: 'middle' }));
      }
    } else {
      nodes.push(text(width / 2, spineY + boxH / 2 + size * 0.35, 'One leaf per rail holds every node: no spine is crossed', size, theme.muted, { anchor: 'middle' }));
    }
    let y = height - footerH + size * 1.1;
    for (const l of summary) { nodes.push(text(pad, y, l, size, theme.text)); y += size * 1.4; }
    const clean = nodes.map((n) => Object.fromEntries(Object.entries(n).filter(([, v]) => v !== undefined)));
    return scene({ width, height, label: `${data.rails ? 'Rail-optimized' : 'Node-per-leaf'} fat-tree of ${data.nodes} nodes at ${data.o}:1 oversubscription: ${opName.toLowerCase()} of 1 GB in ${formatSI(r.time_s, 's')}`,
      nodes: clean, legend });
  },
};
