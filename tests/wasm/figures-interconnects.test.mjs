// The interconnects lesson's three figures on the built WASM engine: the bandwidth ladder
// against the vendors' figures (NVIDIA H100 datasheet: NVLink 4 900 GB/s both ways; IBTA:
// NDR 400 Gb/s per port; PCI-SIG: 32 GT/s x16 with 128b/130b), the small fat-tree against the
// contention model's closed forms, and ring / tree / hierarchical against the alpha-beta
// formulas (2(p−1) and 2⌈log2 p⌉ steps; hierarchical 2(g−1) + 2(N−1)).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, assertChartSubset, assertSceneSubset } from './figure-harness.mjs';
import ladder from '../../web/src/figures/interconnect-ladder.js';
import topo from '../../web/src/figures/fat-tree-topology.js';
import wired, { SIZES } from '../../web/src/figures/wired-collectives.js';

const axes = (cfg) => [cfg.options.scales.x.min, cfg.options.scales.x.max, cfg.options.scales.y.min, cfg.options.scales.y.max];

test('interconnect-ladder: per direction at the defaults, one peer, the printed figures, a fixed axis, every bar named', () => {
  const d = run(ladder);
  const by = Object.fromEntries(d.rows.map((r) => [r.id, r]));
  close(by.nvlink4.value, 450e9);
  close(by['ib-ndr'].value, 50e9);
  close(by['pcie5-x16'].value, 32e9 * 16 * 128 / 130 / 8);
  close(by.nvlink4.value / by['ib-ndr'].value, 9);
  // The caption's numbers: 450 GB/s, nine NDR ports, about seven PCIe 5.0 slots; the TPU's 600 GB/s.
  close(by['pcie5-x16'].value / 1e9, 63, 0.01);
  assert.ok(Math.abs(by.nvlink4.value / by['pcie5-x16'].value - 7) < 0.2);
  close(by['tpu-v5p-ici'].value, 600e9);
  // One transfer to one peer: NVLink through NVSwitch keeps 450 GB/s; a TPU neighbour is one of
  // six links, 100 GB/s from Google's 1,200 GB/s total (the Scaling Book's table: 9e10 one-way).
  const q = run(ladder, { direction: 'peer' });
  const byQ = Object.fromEntries(q.rows.map((r) => [r.id, r]));
  close(byQ.nvlink4.value, 450e9);
  close(byQ['tpu-v5p-ici'].value, 100e9);
  close(byQ['ib-ndr'].value, 50e9);
  // As printed: scale-up summed over both directions; network ports and PCIe per direction.
  const b = run(ladder, { direction: 'both' });
  const byB = Object.fromEntries(b.rows.map((r) => [r.id, r]));
  close(byB.nvlink4.value, 900e9);
  close(byB.nvlink5.value, 1.8e12);
  close(byB['tpu-v5p-ici'].value, 1.2e12);
  close(byB['ib-ndr'].value, 50e9);
  close(byB['pcie5-x16'].value, by['pcie5-x16'].value);
  // PCIe is printed by its lane rate (PCI-SIG: GT/s per lane), and NVIDIA's H100 datasheet rounds a
  // Gen5 x16 slot to 128 GB/s both ways: the caption may not say PCIe slots are quoted per direction.
  const links = Object.fromEntries(b.rows.map((r) => [r.id, r]));
  assert.equal(links['pcie5-x16'].quoted_as, 'per direction');
  assert.doesNotMatch(ladder.caption, /PCIe slots are quoted per direction/);
  assert.match(ladder.caption, /PCIe by its lane rate in GT\/s/);
  // Each view changes some bar and leaves some other where it was.
  for (const v of [q, b]) assert.ok(v.rows.some((r, i) => r.value !== d.rows[i].value) && v.rows.some((r, i) => r.value === d.rows[i].value));
  const a = ladder.draw(d, THEME), c = ladder.draw(b, THEME), e = ladder.draw(q, THEME);
  assertChartSubset('interconnect-ladder', a);
  assert.deepEqual(axes(a).slice(0, 2), axes(c).slice(0, 2));
  assert.deepEqual(axes(a).slice(0, 2), axes(e).slice(0, 2));
  for (const r of [...b.rows, ...q.rows]) assert.ok(r.value <= a.options.scales.x.max && r.value >= a.options.scales.x.min);
  assert.equal(a.data.datasets.length, 3);
  // Every bar is named: no tick skipped on a short desktop chart.
  assert.equal(a.options.scales.y.ticks.autoSkip, false);
  assert.equal(a.data.labels.length, d.rows.length);
});

test('fat-tree-topology: spines, leaves and the caption\'s claims', () => {
  const d = run(topo);
  assert.equal(d.leaves.length, 8); // 2 groups × 4 rails
  assert.equal(d.spines, 4);
  assertSceneSubset('fat-tree-topology', topo.draw(d, THEME));
  // Rails: o = 4 leaves one spine and a quarter of the bisection, the all-reduce time unchanged.
  const o4 = run(topo, { oversubscription: '4' });
  assert.equal(o4.spines, 1);
  close(o4.r.bisection_Bps, d.r.bisection_Bps / 4);
  close(o4.r.time_s, d.r.time_s);
  // No rails: o = 1 is NIC-bound, o = 2 and 4 spine-bound.
  const n1 = run(topo, { rail_optimized: 'node' });
  assert.equal(n1.r.bottleneck, 'nic');
  for (const o of ['2', '4']) {
    const n = run(topo, { rail_optimized: 'node', oversubscription: o });
    assert.equal(n.r.bottleneck, 'spine');
    close(n.r.spine_slowdown, 4 * Number(o) / 4);
    assert.ok(n.r.time_s > n1.r.time_s);
  }
  // All-to-all slows with o even with rails: c = (8 − 4)/7 of the partners beyond the leaf.
  const a1 = run(topo, { op: 'alltoall' }), a2 = run(topo, { op: 'alltoall', oversubscription: '2' });
  close(a2.r.spine_slowdown, (4 / 7) * 2);
  assert.ok(a2.r.time_s > a1.r.time_s);
  // Four nodes with rails: one leaf per rail, no spine.
  assert.equal(run(topo, { nodes: '4' }).spines, 0);
  assertSceneSubset('fat-tree-topology', topo.draw(run(topo, { nodes: '4', rail_optimized: 'node', oversubscription: '2' }), THEME));
});

test('wired-collectives: flat rings, one ring, tree and hierarchical by hand; the crossovers the caption names', () => {
  const d = run(wired);
  assert.equal(d.ranks, 512);
  const a = 5e-6, B = 50e9, p = 512;
  // NCCL's flat rings: 8 rings of S/8, 2·511 steps; network latency on the 126 steps that cross
  // nodes, NVLink's 2 µs on the other 896; the NIC's chunk S/4096 against NVLink's 7 chunks.
  const lat = 126 * a + 896 * 2e-6;
  d.points.forEach((q) => {
    close(q.ring, lat + 1022 * Math.max(q.bytes / 4096 / B, 7 * q.bytes / 4096 / 450e9));
    close(q.single, lat + 1022 * q.bytes / 512 / B);
    close(q.tree, 18 * (a + q.bytes / B));
    close(q.hier, 14 * (2e-6 + q.bytes / 8 / 450e9) + 126 * (5e-6 + q.bytes / 512 / B));
  });
  // Tree fastest at 1 kB, hierarchical from about 1.6 MB (568 µs of latency saved / 0.35 ns per
  // byte), the flat rings from about 0.5 GB (1.76 ms of latency / 3.8 ps per byte of overlap).
  assert.ok(d.points[0].tree < d.points[0].hier && d.points[0].tree < d.points[0].ring);
  const first = d.points.findIndex((q) => q.hier < q.tree);
  assert.ok(SIZES[first] > 1e6 && SIZES[first] < 3e6, `crossover at ${SIZES[first]}`);
  const flat = d.points.findIndex((q) => q.ring < q.hier);
  assert.ok(SIZES[flat] > 3e8 && SIZES[flat] < 8e8, `flat rings ahead from ${SIZES[flat]}`);
  for (const q of d.points.slice(first, flat)) assert.ok(q.hier < q.tree && q.hier < q.ring);
  for (const q of d.points.slice(flat)) assert.ok(q.ring < q.hier && q.ring < q.tree);
  // One NIC per node: eight times the NIC bytes, far behind for large messages.
  const last = d.points.at(-1);
  assert.ok(last.single > 5 * last.ring && last.single > last.hier);
  const c = wired.draw(d, THEME), c2 = wired.draw(run(wired, { nodes: 8 }), THEME);
  assertChartSubset('wired-collectives', c);
  assert.deepEqual(axes(c), axes(c2));

  const v = run(wired, { view: 'oversubscription' });
  const times = (k) => v.lines[k].map((q) => q.time_s);
  // Rails: flat; no rails: flat to o = 4 then rising; all-to-all rising from o = 2 with rails
  // (c = 32/63), from o = 1.5 without (c = 60/63).
  for (const t of times('arRail')) close(t, times('arRail')[0]);
  const o = [1, 1.5, 2, 3, 4, 6, 8, 12, 16];
  times('arNode').forEach((t, i) => (o[i] <= 4 ? close(t, times('arNode')[0]) : assert.ok(t > times('arNode')[0])));
  const a2a = times('a2aRail');
  close(a2a[1], a2a[0]);
  assert.ok(a2a[3] > a2a[2] && a2a[2] > a2a[0] * 0.999);
  const a2aNode = times('a2aNode');
  assert.ok(a2aNode[1] > a2aNode[0] * 1.2);
  const e = wired.draw(v, THEME), e2 = wired.draw(run(wired, { view: 'oversubscription', nodes: 256, bytes: 1e8 }), THEME);
  assertChartSubset('wired-collectives', e);
  assert.deepEqual(axes(e), axes(e2));
});
