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

test('interconnect-ladder: per direction at the defaults, the printed figures both ways, a fixed axis', () => {
  const d = run(ladder);
  const by = Object.fromEntries(d.rows.map((r) => [r.id, r]));
  close(by.nvlink4.value, 450e9);
  close(by['ib-ndr'].value, 50e9);
  close(by['pcie5-x16'].value, 32e9 * 16 * 128 / 130 / 8);
  close(by.nvlink4.value / by['ib-ndr'].value, 9);
  const b = run(ladder, { direction: 'both' });
  const byB = Object.fromEntries(b.rows.map((r) => [r.id, r]));
  close(byB.nvlink4.value, 900e9);
  close(byB.nvlink5.value, 1.8e12);
  close(byB['tpu-v5p-ici'].value, 1.2e12);
  const a = ladder.draw(d, THEME), c = ladder.draw(b, THEME);
  assertChartSubset('interconnect-ladder', a);
  assert.deepEqual(axes(a).slice(0, 2), axes(c).slice(0, 2));
  for (const r of b.rows) assert.ok(r.value <= a.options.scales.x.max && r.value >= a.options.scales.x.min);
  assert.equal(a.data.datasets.length, 3);
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

test('wired-collectives: ring, tree and hierarchical by hand; the crossover the caption names', () => {
  const d = run(wired);
  assert.equal(d.ranks, 512);
  const a = 5e-6, B = 50e9, p = 512;
  d.points.forEach((q) => {
    close(q.ring, 2 * (p - 1) * (a + q.bytes / p / B));
    close(q.tree, 18 * (a + q.bytes / B));
    close(q.hier, 14 * (2e-6 + q.bytes / 8 / 450e9) + 126 * (5e-6 + q.bytes / 512 / B));
  });
  // Tree fastest at 1 kB, hierarchical from about 1.6 MB up (568 µs of latency saved / 0.35 ns per byte).
  assert.ok(d.points[0].tree < d.points[0].hier && d.points[0].tree < d.points[0].ring);
  const first = d.points.findIndex((q) => q.hier < q.tree);
  assert.ok(SIZES[first] > 1e6 && SIZES[first] < 3e6, `crossover at ${SIZES[first]}`);
  for (const q of d.points.slice(first)) assert.ok(q.hier < q.tree && q.hier < q.ring);
  const c = wired.draw(d, THEME), c2 = wired.draw(run(wired, { nodes: 8 }), THEME);
  assertChartSubset('wired-collectives', c);
  assert.deepEqual(axes(c), axes(c2));

  const v = run(wired, { view: 'oversubscription' });
  const times = (k) => v.lines[k].map((q) => q.time_s);
  // Rails: flat; no rails: flat to o = 4 then rising; all-to-all rising from o = 2.
  for (const t of times('arRail')) close(t, times('arRail')[0]);
  const o = [1, 1.5, 2, 3, 4, 6, 8, 12, 16];
  times('arNode').forEach((t, i) => (o[i] <= 4 ? close(t, times('arNode')[0]) : assert.ok(t > times('arNode')[0])));
  const a2a = times('a2aRail');
  close(a2a[1], a2a[0]);
  assert.ok(a2a[3] > a2a[2] && a2a[2] > a2a[0] * 0.999);
  const e = wired.draw(v, THEME), e2 = wired.draw(run(wired, { view: 'oversubscription', nodes: 256, bytes: 1e8 }), THEME);
  assertChartSubset('wired-collectives', e);
  assert.deepEqual(axes(e), axes(e2));
});
