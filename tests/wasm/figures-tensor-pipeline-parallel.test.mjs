// The tensor-pipeline-parallel lesson's four figures on the built WASM engine: data() is finite
// and complete, draw() keeps to the Chart.js subset and the theme's colours, controls change the
// data, the numbers match the closed forms (Megatron's four all-reduces per layer; bubble
// (p − 1)/(v·m) of Narayanan et al. 2021; 1F1B holds p − s micro-batches), and invalid
// parameters are EngineErrors on the right field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, run, close, isEngineError, colours, assertChartSubset } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import tpCommRatio from '../../web/src/figures/tp-comm-ratio.js';
import ppTimeline from '../../web/src/figures/pp-schedule-timeline.js';
import ppMemory from '../../web/src/figures/pp-activation-memory.js';
import layoutSearch from '../../web/src/figures/layout-search.js';
import { modelParallel } from '../../web/src/figures/lists/model-parallel.js';

const FIGURES = [tpCommRatio, ppTimeline, ppMemory, layoutSearch];

test('the list registers the four figures by id', async () => {
  assert.deepEqual(Object.keys(modelParallel).sort(), FIGURES.map((f) => f.id).sort());
  for (const fig of FIGURES) assert.equal((await modelParallel[fig.id]()).default, fig);
});

for (const fig of FIGURES) {
  test(`${fig.id}: module shape`, () => {
    assert.equal(typeof fig.title, 'string');
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    assert.ok(specs.length > 0);
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
    assert.doesNotThrow(() => JSON.stringify(data));
  });

  test(`${fig.id}: draw keeps to the allowed Chart.js subset and theme colours`, () => {
    const cfg = fig.draw(run(fig), THEME);
    assertChartSubset(fig.id, cfg);
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
  });

  test(`${fig.id}: changing the first control changes the data`, () => {
    const [first] = resolveParams(fig, engine);
    const other = first.type === 'select' ? first.options.find((o) => o.value !== first.default).value : first.default + 1;
    assert.notDeepEqual(run(fig, { [first.key]: other }).table, run(fig).table);
  });
}

// --- tp-comm-ratio ----------------------------------------------------------------------

test('tp-comm-ratio: four all-reduces of s·b·h bf16 per layer, ratio ∝ (t − 1)/h inside a node', () => {
  const d = run(tpCommRatio, { hardware: 'h100-sxm', seq: 4096, micro_batch: 1 });
  for (const line of d.lines) {
    for (const q of line.points) {
      close(q.bytes, 2 * 4096 * q.hidden);
      close(q.sent, 4 * (2 * (q.tp - 1) / q.tp) * q.bytes);
    }
    for (let i = 1; i < line.points.length; i += 1) assert.ok(line.points[i].ratio < line.points[i - 1].ratio);
  }
  // At zero latency the ratio is (2/9)(t − 1)P/(h·B·(1 + s/(6h))); with 2 µs latency, close to it at large h.
  const h = 32768, q8 = d.lines.find((l) => l.tp === 8).points.find((q) => q.hidden === h);
  const bandwidthOnly = (2 / 9) * 7 * 989.4e12 / (h * 450e9 * (1 + 4096 / (6 * h)));
  assert.ok(q8.ratio >= bandwidthOnly, 'latency only adds');
  close(q8.ratio, bandwidthOnly, 0.05);
  close(q8.comm_s, 4 * 14 * 2e-6 + 4 * (2 * 7 / 8) * q8.bytes / 450e9, 1e-9);
  assert.equal(d.lines.find((l) => l.tp === 16).points[0].link, 'inter-node');
});

test('tp-comm-ratio: t = 16 spans two nodes, t = 8\'s NVLink ring plus a step on every GPU\'s NIC', () => {
  // Hierarchical all-reduce (collectives lesson; comm/cost_model.hpp): the NVLink phases are the
  // t = 8 ring's, the NIC phases 2(N − 1) steps of S/(gN) at 50 GB/s each, α = 5 µs.
  const d = run(tpCommRatio, { hardware: 'h100-sxm', seq: 4096, micro_batch: 1 });
  const at = (tp) => d.lines.find((l) => l.tp === tp).points.find((q) => q.hidden === 8192);
  const [q8, q16] = [at(8), at(16)];
  assert.equal(q16.nodes, 2);
  close(q16.intra_s, q8.comm_s, 1e-12);
  close(q16.inter_s, 4 * 2 * (5e-6 + q16.bytes / 16 / 50e9), 1e-9);
  close(q16.comm_s, q16.intra_s + q16.inter_s, 1e-12);
  close(q16.ratio, 1.378, 1e-3);  // a flat ring at one 50 GB/s NIC gave 7.88
  const cfg = tpCommRatio.draw(d, THEME);
  assert.ok(cfg.data.datasets.some((ds) => ds.label === 't = 16 (2 nodes: NVLink + InfiniBand)'));
});

test('tp-comm-ratio: unknown hardware is an EngineError on hardware', () => {
  assert.throws(() => run(tpCommRatio, { hardware: 'nope' }), isEngineError('hardware'));
});

// --- pp-schedule-timeline -------------------------------------------------------------

test('pp-schedule-timeline: bubble equals (p − 1)/(v·m) at zero message time', () => {
  for (const [schedule, stages, microbatches, chunks] of [['gpipe', 4, 8, 1], ['1f1b', 8, 32, 1], ['1f1b', 3, 5, 1],
    ['interleaved-1f1b', 4, 8, 2], ['interleaved-1f1b', 4, 16, 4], ['interleaved-1f1b', 2, 6, 3]]) {
    const d = run(ppTimeline, { schedule, stages, microbatches, chunks, p2p_s: 0 });
    const v = schedule === 'interleaved-1f1b' ? chunks : 1;
    close(d.bubble_ratio, (stages - 1) / (v * microbatches), 1e-9);
    close(d.step_time_s, (microbatches + (stages - 1) / v) * 3e-3, 1e-9);
    assert.equal(d.ops.length, 2 * stages * microbatches * v);
  }
});

test('pp-schedule-timeline: no stage runs two ops at once; messages lengthen the step', () => {
  const d = run(ppTimeline, { schedule: 'interleaved-1f1b', stages: 4, microbatches: 8, chunks: 2, p2p_s: 2e-4 });
  for (let s = 0; s < 4; s += 1) {
    const ops = d.ops.filter((o) => o.stage === s).sort((a, b) => a.start_s - b.start_s);
    for (let i = 1; i < ops.length; i += 1) assert.ok(ops[i].start_s >= ops[i - 1].end_s - 1e-12);
  }
  assert.ok(d.step_time_s > run(ppTimeline, { schedule: 'interleaved-1f1b', stages: 4, microbatches: 8, chunks: 2 }).step_time_s);
  // Thin backward bars and tall forward bars.
  const cfg = ppTimeline.draw(d, THEME);
  assert.equal(cfg.options.indexAxis, 'y');
  assert.ok(cfg.data.datasets.every((ds) => ds.data.every((b) => Array.isArray(b.x) && b.x[1] > b.x[0])));
});

test('pp-schedule-timeline: interleaving with m not a multiple of p is an EngineError on microbatches', () => {
  assert.throws(() => run(ppTimeline, { schedule: 'interleaved-1f1b', stages: 4, microbatches: 6 }), isEngineError('microbatches'));
  assert.throws(() => run(ppTimeline, { p2p_s: -1 }), isEngineError('p2p_s'));
});

// --- pp-activation-memory ---------------------------------------------------------------

test('pp-activation-memory: GPipe holds m, 1F1B holds p − s, interleaving a little more on stage 0', () => {
  const d = run(ppMemory, { stages: 8, microbatches: 16, chunks: 2 });
  const [gpipe, onef, inter] = d.series;
  for (let s = 0; s < 8; s += 1) {
    assert.equal(gpipe.perStage[s], 16);
    assert.equal(onef.perStage[s], 8 - s);
  }
  close(inter.perStage[0], (2 * 7 + 8 + 1) / 2);
  assert.ok(inter.perStage[0] > onef.perStage[0]);
  const odd = run(ppMemory, { stages: 8, microbatches: 12 });
  assert.equal(odd.series[2].perStage, null);
  assert.ok(odd.table.rows.every((r) => r[3] === 'n/a'));
});

test('pp-activation-memory: from m = 2p up only the GPipe bars grow, as the caption says', () => {
  // 1F1B holds min(p − s, m) and interleaving its longer warm-up, both fixed once m ≥ 2p;
  // GPipe holds all m (Narayanan et al. 2021, section 2.2).
  for (const [stages, chunks] of [[8, 2], [4, 4], [16, 2]]) {
    const at = (m) => run(ppMemory, { stages, chunks, microbatches: m }).series;
    const base = at(2 * stages);
    for (let m = 2 * stages; m <= 64; m += stages) {
      const [gpipe, onef, inter] = at(m);
      assert.ok(gpipe.perStage.every((x) => x === m), `GPipe holds m = ${m}`);
      assert.deepEqual(onef.perStage, base[1].perStage, `1F1B at p = ${stages}, m = ${m}`);
      assert.deepEqual(inter.perStage, base[2].perStage, `interleaved at p = ${stages}, v = ${chunks}, m = ${m}`);
    }
  }
  assert.match(ppMemory.caption, /From m = 2p up/);
});

test('pp-activation-memory: a stage count out of range is an EngineError on stages', () => {
  assert.throws(() => run(ppMemory, { stages: 0 }), isEngineError('stages'));
});

// --- layout-search ----------------------------------------------------------------------

test('layout-search: 70B on 64 H100s lists valid layouts, the best fits, ranking follows step time', () => {
  const d = run(layoutSearch);
  assert.ok(d.layouts.length > 10);
  for (const l of d.layouts) {
    assert.equal(l.tp * l.pp * l.dp, 64);
    assert.ok(l.tp <= 8 && 80 % l.pp === 0);
    assert.equal(l.fits, l.memory_per_gpu_bytes <= d.hbm_bytes);
  }
  assert.ok(d.best && d.best.fits && d.best.rank === 1);
  const fitting = d.layouts.filter((l) => l.fits);
  for (let i = 1; i < fitting.length; i += 1) assert.ok(fitting[i].step_time_s >= fitting[i - 1].step_time_s);
  assert.ok(d.layouts.some((l) => !l.fits));
});

test('layout-search: the layouts the caption names carry their names on the chart', () => {
  // The star (fastest that fits), the diamonds (the next two) and the triangle (the fitting
  // layout with the least memory), each labelled "#rank name"; the caption sends the reader
  // to "Show data" for the rest, not to a table only screen readers see.
  const d = run(layoutSearch);
  const sets = layoutSearch.draw(d, THEME).data.datasets;
  const labels = (style) => {
    const ds = sets.find((x) => x.pointStyle === style);
    assert.ok(ds.pointLabels, `${style} points are labelled`);
    return ds.data.map((q) => q.label);
  };
  const fitting = d.layouts.filter((l) => l.fits);
  assert.deepEqual(labels('star'), [`#1 ${fitting[0].name}`]);
  assert.deepEqual(labels('rectRot'), fitting.slice(1, 3).map((l) => `#${l.rank} ${l.name}`));
  const roomiest = fitting.reduce((a, l) => (l.memory_per_gpu_bytes < a.memory_per_gpu_bytes ? l : a));
  assert.deepEqual(labels('triangle'), [`#${roomiest.rank} ${roomiest.name}`]);
  assert.equal(roomiest.name, 't8·p8·d1');
  assert.match(layoutSearch.caption, /"Show data"/);
  assert.doesNotMatch(layoutSearch.caption, /look at the table/);
});

test('layout-search: a data-parallel group across nodes has 8/t ranks on each', () => {
  const d = run(layoutSearch);
  for (const l of d.layouts) assert.equal(l.dp_ranks_per_node, Math.min(l.dp, 8 / l.tp), l.name);
});

test('layout-search: more memory per GPU lets more layouts fit', () => {
  const h100 = run(layoutSearch, { hardware: 'h100-sxm' }).layouts.filter((l) => l.fits).length;
  const h200 = run(layoutSearch, { hardware: 'h200-sxm' }).layouts.filter((l) => l.fits).length;
  assert.ok(h200 > h100);
});

test('layout-search: unknown hardware is an EngineError on hardware', () => {
  assert.throws(() => run(layoutSearch, { hardware: 'nope' }), isEngineError('hardware'));
});

// --- messages, interleaving's memory, units ----------------------------------------------

test('pp-schedule-timeline: at the caption\'s 0.5 ms messages, v = 2 pulls further ahead of 1F1B and v = 4 falls behind', () => {
  const at = (schedule, chunks, p2p_s) => run(ppTimeline, { schedule, stages: 4, microbatches: 8, chunks, p2p_s }).step_time_s;
  const lead = (chunks, p2p) => at('1f1b', 1, p2p) - at('interleaved-1f1b', chunks, p2p);
  assert.ok(lead(2, 5e-4) > lead(2, 0), '1F1B waits for a gradient every cycle; v = 2 hides it');
  assert.ok(lead(4, 0) > 0 && lead(4, 5e-4) < 0, 'v = 4 messages queue on the link');
  assert.match(ppTimeline.caption, /0\.5 ms/);
  assert.ok(ppTimeline.params.find((q) => q.key === 'p2p_s').max >= 5e-4);
});

test('pp-schedule-timeline: the bubble formula on the axis has v only for interleaving', () => {
  const title = (schedule, chunks) => ppTimeline.draw(run(ppTimeline, { schedule, chunks, stages: 4, microbatches: 8 }), THEME)
    .options.scales.x.title.text;
  assert.match(title('1f1b', 2), /\(p − 1\)\/m = 0\.375/);
  assert.doesNotMatch(title('1f1b', 2), /v·m/);
  assert.match(title('interleaved-1f1b', 2), /\(p − 1\)\/\(v·m\) = 0\.188/);
});

test('pp-activation-memory: interleaving (v = 2) adds (p − 1)/2 on every stage, most in proportion on the last', () => {
  for (const stages of [4, 8, 16]) {
    const [, onef, inter] = run(ppMemory, { stages, microbatches: 2 * stages, chunks: 2 }).series;
    const extra = inter.perStage.map((x, s) => x - onef.perStage[s]);
    assert.ok(extra.every((x) => x === (stages - 1) / 2), `p = ${stages}: ${extra}`);
    const relative = inter.perStage.map((x, s) => x / onef.perStage[s]);
    assert.equal(Math.max(...relative), relative[stages - 1]);
  }
  assert.doesNotMatch(ppMemory.caption, /a little more on the first stages/);
  assert.match(ppMemory.caption, /4\.5 instead of 1 on stage 7/);
});

test('layout-search: the HBM line names the datasheet\'s binary size beside the decimal axis', () => {
  const d = run(layoutSearch, { hardware: 'h100-sxm' });
  const hbm = layoutSearch.draw(d, THEME).data.datasets.find((s) => /^HBM/.test(s.label));
  assert.equal(hbm.label, 'HBM 80 GiB = 85.9 GB');
  assert.ok(d.table.rows.every((r) => r[9] === 0 || r[9] > 1e-6), 'no rounding residue as a bubble');
});

test('pp-schedule-timeline: the chunks control shows only for interleaved 1F1B, the one schedule it changes', () => {
  const chunks = ppTimeline.params.find((p) => p.key === 'chunks');
  assert.deepEqual(chunks.when, { schedule: ['interleaved-1f1b'] });
  const step = (schedule, v) => run(ppTimeline, { schedule, stages: 4, microbatches: 8, chunks: v }).step_time_s;
  assert.equal(step('1f1b', 2), step('1f1b', 4));
  assert.notEqual(step('interleaved-1f1b', 2), step('interleaved-1f1b', 4));
});
