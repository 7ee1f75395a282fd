// The collectives lesson's four figures on the built WASM engine: data() is finite and
// complete, draw() keeps to the Chart.js subset and theme colours, the first control changes
// the data, the numbers match the alpha-beta closed forms, and bad parameters are EngineErrors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import { formatSI } from '../../web/src/runtime/format.js';
import collectiveSteps from '../../web/src/figures/collective-steps.js';
import timeVsSize from '../../web/src/figures/collective-time-vs-size.js';
import ringBytes from '../../web/src/figures/ring-allreduce-bytes.js';
import hierarchical from '../../web/src/figures/hierarchical-allreduce.js';
import { collectives } from '../../web/src/figures/lists/collectives.js';

const FIGURES = [collectiveSteps, timeVsSize, ringBytes, hierarchical];

test('the list registers the four figures', () => {
  assert.deepEqual(Object.keys(collectives).sort(), FIGURES.map((f) => f.id).sort());
});

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.equal(typeof fig.title, 'string');
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.ok(specs.some((s) => s.type === 'select' || s.type === 'integer' || s.type === 'number'));
    for (const s of specs) assert.notEqual(s.default, undefined, `${fig.id}.${s.key} has a default`);
  });

  test(`${fig.id}: data at defaults is finite, the table is rectangular`, () => {
    const data = run(fig);
    const { columns, rows } = data.table;
    assert.ok(columns.length > 1 && rows.length > 0);
    for (const row of rows) {
      assert.equal(row.length, columns.length);
      for (const cell of row) assert.ok(typeof cell === 'string' || Number.isFinite(cell), `cell ${cell}`);
    }
  });

  test(`${fig.id}: draw keeps to the allowed Chart.js subset and theme colours`, () => {
    const cfg = fig.draw(run(fig), THEME);
    assert.ok(['line', 'scatter', 'bar'].includes(cfg.type));
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
    assert.equal(cfg.options.animation, false);
    assert.equal(cfg.options.maintainAspectRatio, false);
    assert.equal(cfg.options.responsive, true);
    for (const [name, s] of Object.entries(cfg.options.scales)) {
      assert.ok(['linear', 'logarithmic', 'category'].includes(s.type), `scale ${name}: ${s.type}`);
      assert.ok(s.title?.display && /\(.+\)/.test(s.title.text), `scale ${name} has a title with units`);
    }
    for (const c of colours(cfg)) assert.ok(THEME_COLOURS.has(c), `${fig.id} uses a non-theme colour ${c}`);
  });

  test(`${fig.id}: changing the first control changes the data`, () => {
    const spec = resolveParams(fig, engine)[0];
    const other = spec.options.map((o) => o.value).find((v) => v !== spec.default);
    assert.notDeepEqual(run(fig, { [spec.key]: other }).table, run(fig).table);
  });
}

test('collective-steps: ring all-reduce replays 2(p−1) steps to the direct result', () => {
  for (const ranks of [2, 5, 8, 16]) {
    const last = run(collectiveSteps, { ranks, step: 40 });
    assert.equal(last.steps, 2 * (ranks - 1));
    assert.equal(last.equals_direct, true);
    assert.ok(last.cells.every((c) => c.state === 'complete'));
    close(last.bytes_sent_per_rank, (2 * (ranks - 1) / ranks) * last.bytes);
    const start = run(collectiveSteps, { ranks, step: 0 });
    assert.ok(start.cells.every((c) => c.state === 'own'));
  }
  // After the reduce-scatter half of an 8-rank ring, each rank holds exactly one full chunk.
  const half = run(collectiveSteps, { ranks: 8, step: 7 });
  for (let r = 0; r < 8; r++) assert.equal(half.cells.filter((c) => c.rank === r && c.state === 'complete').length, 1);
});

test('collective-steps: every op and algorithm the engine allows runs and matches the model', () => {
  for (const op of ['allreduce', 'reducescatter', 'allgather', 'broadcast', 'reduce', 'alltoall']) {
    for (const algorithm of ['ring', 'tree', 'recursive-doubling', 'halving-doubling', 'hierarchical']) {
      let data;
      try {
        data = run(collectiveSteps, { op, algorithm, ranks: 8, step: 40 });
      } catch (e) {
        assert.ok(isEngineError('algorithm')(e), `${op}/${algorithm}: ${e.message}`);
        continue;
      }
      assert.equal(data.equals_direct, true, `${op}/${algorithm}`);
      assert.equal(data.steps, data.model.steps, `${op}/${algorithm}`);
      close(data.bytes_sent_per_rank, data.model.bytes_sent_per_rank);
    }
  }
  assert.throws(() => run(collectiveSteps, { algorithm: 'recursive-doubling', ranks: 6 }), isEngineError('algorithm'));
  assert.throws(() => run(collectiveSteps, { ranks: 40 }), isEngineError('ranks'));
});

// The lesson's formula with the figure's step numbers (1, 2, …): in step s of the reduce-scatter
// rank r adds chunk (r − s) mod p to rank r + 1 (at "after step 3", rank 0 sends chunk 5); in
// step s of the all-gather it copies chunk (r − s + 1) mod p, starting with the one it owns.
test('collective-steps: the ring sends the chunks the lesson\'s formula names, steps counted from 1', () => {
  const p = 8;
  for (let s = 1; s <= 2 * (p - 1); s++) {
    const d = run(collectiveSteps, { op: 'allreduce', algorithm: 'ring', ranks: p, step: s });
    assert.equal(d.messages.length, p);
    for (const m of d.messages) {
      const r = m.src;
      const chunk = s < p ? (((r - s) % p) + p) % p : (((r - (s - (p - 1)) + 1) % p) + p) % p;
      assert.equal(m.dst, (r + 1) % p);
      assert.deepEqual(m.chunks, [chunk], `step ${s}, rank ${r}`);
      assert.equal(m.reduce, s < p);
    }
  }
  const row0 = run(collectiveSteps, { ranks: 8, step: 3 }).table.rows[0];
  assert.match(row0[1], /adds chunk 5 to rank 1/);
});

test('collective-time-vs-size: closed forms and the recursive-doubling crossover', () => {
  const d = run(timeVsSize, { ranks: 16, latency_s: 5e-6, bandwidth_Bps: 5e10 });
  const ring = d.series.find((s) => s.algorithm === 'ring');
  for (const q of ring.points) close(q.time_s, 30 * (5e-6 + q.bytes / 16 / 5e10));
  const rd = d.crossovers.find((c) => c.algorithm === 'recursive-doubling');
  close(rd.bytes, (26 * 5e-6 * 5e10) / (4 - 30 / 16));
  assert.ok(!run(timeVsSize, { ranks: 12 }).series.some((s) => s.algorithm === 'recursive-doubling'));
  assert.ok(run(timeVsSize, { ranks: 64 }).crossovers.find((c) => c.algorithm === 'recursive-doubling').bytes > rd.bytes);
  assert.throws(() => run(timeVsSize, { bandwidth_Bps: 0 }), isEngineError('bandwidth_Bps'));
});

test('collective-time-vs-size: each crossover line carries its size at its top', () => {
  const d = run(timeVsSize);
  const lines = timeVsSize.draw(d, THEME).data.datasets.filter((ds) => ds.label.startsWith('Crossover'));
  assert.ok(lines.length >= 2);
  for (const ds of lines) {
    assert.ok(ds.pointLabels);
    const c = d.crossovers.find((x) => ds.label.includes(x.algorithm === 'tree' ? 'tree' : 'doubling'));
    assert.deepEqual(ds.data.map((q) => q.label), [undefined, formatSI(c.bytes, 'B')]);
  }
});

test('ring-allreduce-bytes: 2(p−1)/p, counted equals model, busbw = B at zero latency', () => {
  const d = run(ringBytes, { latency_s: 0, bandwidth_Bps: 1e11 });
  for (const q of d.model) {
    close(q.sent_per_S, (2 * (q.ranks - 1)) / q.ranks);
    close(q.busbw, 1e11, 1e-9);
  }
  for (const q of d.executed) {
    assert.ok(q.ok);
    close(q.sent_per_S, q.model_per_S);
  }
  const ag = run(ringBytes, { op: 'allgather' });
  for (const q of ag.model) close(q.sent_per_S, (q.ranks - 1) / q.ranks);
  assert.throws(() => run(ringBytes, { bytes: -5 }), isEngineError('bytes'));
});

test('hierarchical-allreduce: the table NVLink halved, phases add up, hierarchical wins across nodes', () => {
  const hw = engine.calc('hardware', { id: 'h100-sxm' });
  const d = run(hierarchical, { hardware: 'h100-sxm', inter_latency_s: 0 });
  close(d.intra_bandwidth_Bps, hw.scaleup_bandwidth_Bps / 2);
  for (const q of d.points) {
    close(q.time_s, q.intra_s + q.inter_s);
    if (q.nodes > 1) assert.ok(q.flat_s > q.time_s);
  }
  assert.equal(d.points[0].inter_s, 0);
  assert.throws(() => run(hierarchical, { hardware: 'nope' }), isEngineError('hardware'));
  assert.throws(() => run(hierarchical, { inter_bandwidth_Bps: 0 }), isEngineError('inter_bandwidth_Bps'));
});

// NCCL runs flat rings, one per adapter (NVIDIA/nccl issues #471, #530), not one ring through
// one adapter: the figure draws them, between the sequential hierarchical time and the naive ring
// for big buffers, and above the hierarchical time for small buffers on many nodes (latency).
test('hierarchical-allreduce: NCCL\'s flat rings, one per adapter, are drawn beside the naive ring', () => {
  const d = run(hierarchical, { hardware: 'h100-sxm', bytes: 14e9 });
  const four = d.points.find((q) => q.nodes === 4);
  assert.ok(four.nccl_s < four.time_s && four.nccl_s > four.overlapped_s && four.flat_s > 7 * four.nccl_s);
  const small = run(hierarchical, { hardware: 'h100-sxm', bytes: 1e6 }).points.find((q) => q.nodes === 64);
  assert.ok(small.nccl_s > 2 * small.time_s);
  const labels = (data) => hierarchical.draw(data, { ...THEME, width: 1280, height: 500 }).data.datasets.map((x) => x.label);
  assert.ok(labels(d).includes('NCCL: one flat ring per adapter'));
  assert.ok(labels(d).some((l) => /one flat ring through one adapter \(naive\)/i.test(l)));
  assert.ok(!labels(run(hierarchical, { op: 'alltoall' })).some((l) => l.startsWith('NCCL')));
  assert.equal(d.table.columns.at(-1), 'NCCL rings (s)');
});

test('hierarchical-allreduce: across nodes the all-to-all part does not shrink with GPUs per node, the all-reduce part does', () => {
  const at = (op, g) => run(hierarchical, { op, gpus_per_node: g, inter_latency_s: 0 }).points.find((q) => q.nodes === 8);
  close(at('alltoall', 8).inter_s, at('alltoall', 2).inter_s);
  close(at('allreduce', 8).inter_s, at('allreduce', 2).inter_s / 4);
  // Each GPU sends (N − 1)/N · S over its NIC: 7/8 of 1 GB at 50 GB/s on 8 nodes.
  const d = run(hierarchical, { op: 'alltoall', bytes: 1e9, inter_bandwidth_Bps: 50e9, inter_latency_s: 0 });
  close(d.points.find((q) => q.nodes === 8).inter_s, (7 / 8) * 1e9 / 50e9);
});

// The count of contributing ranks is drawn on every non-empty marker (its plugin run on a
// recording context), in the theme's text colour; the written chunks' frames lie under them.
test('collective-steps: every non-empty cell shows its count without a hover', () => {
  const data = run(collectiveSteps, { ranks: 8, step: 3 });
  const cfg = collectiveSteps.draw(data, { ...THEME, width: 390, height: 300 });
  const plugin = cfg.plugins.find((p) => p.id === 'cellCounts');
  const texts = [];
  const ctx = new Proxy({ fillText: (t, x, y) => texts.push({ t, x, y }) }, { get: (o, k) => o[k] ?? (() => {}), set: () => true });
  const chart = {
    ctx, data: cfg.data, options: cfg.options, isDatasetVisible: () => true,
    getDatasetMeta: (i) => ({ data: cfg.data.datasets[i].data.map((q) => ({ x: q.x, y: q.y })) }),
  };
  plugin.afterDatasetsDraw(chart);
  const filled = data.cells.filter((c) => c.inputs > 0);
  assert.equal(texts.length, filled.length);
  for (const c of filled) assert.ok(texts.some((t) => t.x === c.chunk && t.y === c.rank && t.t === String(c.inputs)), `cell ${c.rank},${c.chunk}`);
  assert.equal(cfg.options.plugins.cellCounts.color, THEME.text);
  assert.ok(cfg.options.plugins.cellCounts.size >= 8);
  assert.match(cfg.data.datasets.at(-1).label, /^Written in step 3/);
  assert.ok(data.cells.some((c) => c.inputs > 1), 'partial sums with several inputs at step 3');
});
