// The FlashAttention lesson's five figures on the built WASM engine: data() is finite and
// complete, draw() keeps to the Chart.js (or SVG scene) subset and the theme's colours, the first control
// changes the data, the numbers match the lesson's closed forms, and bad settings are
// EngineErrors on the right field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours, assertChartSubset, assertDrawing } from './figure-harness.mjs';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import stepper from '../../web/src/figures/online-softmax-stepper.js';
import traffic from '../../web/src/figures/flash-hbm-traffic.js';
import tiling from '../../web/src/figures/flash-tiling-causal.js';
import backward from '../../web/src/figures/attention-backward-memory.js';
import splitKv from '../../web/src/figures/split-kv-decoding.js';
import { lessOrMore } from '../../web/src/figures/flash-hbm-traffic.js';

const FIGURES = [stepper, traffic, tiling, backward, splitKv];

// A different value for a control: the next option, the other boolean, or another number.
function otherValue(spec) {
  if (spec.type === 'select') return spec.options.find((o) => o.value !== spec.default).value;
  if (spec.type === 'boolean') return !spec.default;
  return spec.default === spec.max ? spec.min : Math.min(spec.max, spec.default * 2 || 1);
}

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
      for (const cell of row) assert.ok(typeof cell === 'string' || Number.isFinite(cell), `${fig.id}: cell ${cell}`);
    }
    assert.doesNotThrow(() => JSON.stringify(data));
  });

  test(`${fig.id}: draw keeps to the allowed Chart.js or SVG subset and theme colours`, () => {
    const cfg = fig.draw(run(fig), THEME);
    assertDrawing(fig.id, cfg);
    if (cfg.type === 'svg') return;
    assert.ok(cfg.data.datasets.some((d) => d.data.length > 0));
    for (const d of cfg.data.datasets) if (d.type) assert.ok(['line', 'scatter', 'bar'].includes(d.type));
  });

  test(`${fig.id}: the first control changes the data`, () => {
    const [first] = resolveParams(fig, engine);
    const a = JSON.stringify(run(fig));
    const b = JSON.stringify(run(fig, { [first.key]: otherValue(first) }));
    assert.notEqual(a, b);
  });
}

// --- online-softmax-stepper ---------------------------------------------------------------

test('online-softmax-stepper: l is the sum of the weights, the rescale is e^(m_old − m_new)', () => {
  for (const pattern of ['random', 'rising', 'falling']) {
    for (const step of [1, 2, 4]) {
      const d = run(stepper, { pattern, step });
      const c = d.current;
      const sum = d.keys.reduce((a, q) => a + (q.weight ?? 0), 0);
      close(sum, c.l, 1e-5);
      if (c.m_old !== null) close(c.rescale, Math.exp(c.m_old - c.m_new), 1e-6);
      // Weights before the rescale times the rescale are the weights after it.
      for (const q of d.keys.filter((k) => k.before !== null)) close(q.before * c.rescale, q.weight, 1e-5);
      assert.ok(c.error < 1e-6);
    }
  }
  const rising = run(stepper, { pattern: 'rising', step: 4 });
  assert.equal(rising.rescales, rising.blocks - 1);
  const falling = run(stepper, { pattern: 'falling', step: 4 });
  assert.equal(falling.rescales, 0);
  assert.equal(falling.current.rescale, 1);
});

test('online-softmax-stepper: the step is clamped, large scores stay exact', () => {
  const d = run(stepper, { step: 64, length: 32, block: 8 });
  assert.equal(d.step, 4);
  const big = run(stepper, { scale: 1000 });
  assert.equal(big.naive_out_of_range, true);
  assert.ok(big.max_prob_error < 1e-6);
  assert.throws(() => run(stepper, { scale: 0 }), isEngineError('scale'));
  assert.throws(() => run(stepper, { block: 0 }), isEngineError('block'));
});

// The lesson reads two things off the figure at a scale of 1000: the online pass's final error
// (the last row of the table) and that the textbook e^x overflowed. Both are in the x-axis title.
test('online-softmax-stepper: the figure shows the final error and the textbook overflow', () => {
  const big = run(stepper, { scale: 1000, step: 1 });
  const [, final, naive] = stepper.draw(big, THEME).options.scales.x.title.text;
  assert.match(final, /^All 4 blocks: online o\/l = .+, error \d\.\de-\d+ vs fp64$/);
  assert.match(naive, /^textbook e\^x overflows fp32 \(a score above 88\.7 gives ∞\)$/);
  assert.ok(big.output_error < 1e-6);
  // The table's last row divides the fp32 o by l in double and compares with the fp64 softmax;
  // the output is that quotient rounded to fp32 (within half an fp32 ulp), compared the same way.
  const [estimate, exactPrefix, tableError] = big.table.rows.at(-1).slice(8);
  close(exactPrefix, big.exact_output, 1e-12);
  close(tableError, Math.abs(estimate - big.exact_output), 1e-6);
  close(big.output_error, Math.abs(big.output - big.exact_output), 1e-6);
  assert.ok(Math.abs(estimate - big.output) <= 2 ** (Math.floor(Math.log2(Math.abs(big.output))) - 24));
  assert.equal(tableError.toExponential(1), big.output_error.toExponential(1)); // the lesson: the same to two digits
  close(Number(final.match(/error (\S+) vs/)[1]), big.output_error, 0.05);
  // Small scores: the textbook formula is fine, and the figure says so.
  const [, , calm] = stepper.draw(run(stepper, { scale: 4 }), THEME).options.scales.x.title.text;
  assert.equal(calm, 'textbook e^x stays in fp32 range');
  // Large negative scores only: every e^x underflows to 0 (0/0), not an overflow.
  const under = run(stepper, { scale: 1000, pattern: 'falling' });
  assert.equal(under.naive_out_of_range, true);
});

// --- flash-hbm-traffic ------------------------------------------------------------------

test('flash-hbm-traffic: standard traffic is (4N² + 4Nd)·s; executed points equal the closed form', () => {
  for (const [dtype, s] of [['bf16', 2], ['fp32', 4]]) {
    const d = run(traffic, { dtype });
    for (const q of d.points) close(q.standard, (4 * q.seq * q.seq + 4 * q.seq * 64) * s);
    const executed = d.points.filter((q) => q.executed);
    assert.deepEqual(executed.map((q) => q.seq), [64, 128]); // N²(d + 8) <= 2^21 with d = 64
    for (const q of executed) {
      assert.equal(q.flash, q.formula_flash);
      assert.ok(q.error < 2e-6);
    }
  }
});

test('flash-hbm-traffic: doubling M halves FlashAttention traffic at long N, standard does not move', () => {
  const a = run(traffic, { sram_bytes: 65536 }).points.at(-1);
  const b = run(traffic, { sram_bytes: 131072 }).points.at(-1);
  close(a.flash / b.flash, 2, 0.03);
  assert.equal(a.standard, b.standard);
  // The advantage is about M/(3d²): with d = 256 and 227 KiB of bf16 it is gone.
  assert.ok(run(traffic, { head_dim: 256 }).long_ratio < 1);
  assert.ok(run(traffic, { head_dim: 64 }).long_ratio > 5);
  assert.throws(() => run(traffic, { sram_bytes: 100 }), isEngineError('sram_bytes'));
});

test('flash-hbm-traffic: the SRAM starts at the 227 KiB of one H100 block, as in the lesson', () => {
  const [sram] = resolveParams(traffic, engine);
  assert.equal(sram.default, 232448); // CUDA C++ Programming Guide, cc 9.0: 227 KiB per block
  assert.equal(sram.default, engine.calc('hardware', { id: 'h100-sxm' }).max_smem_per_block_bytes);
});

test('flash-hbm-traffic: the legend says "more" when FlashAttention moves more, and gives FlashAttention-2 its bytes', () => {
  assert.equal(lessOrMore(8.49), '8.49× less');
  assert.equal(lessOrMore(1 / 2.0), '2× more');
  const wide = run(traffic, { head_dim: 256 });
  const labels = traffic.draw(wide, THEME).data.datasets.map((x) => x.label);
  assert.match(labels[1], /^FlashAttention, .* \(\d(\.\d+)?× more than standard at 1M\)$/);
  assert.ok(!labels.some((l) => / m×/.test(l)), labels.join(' | '));
  // FlashAttention-2's loop order: the same N²d²/M growth with about 2/3 of the bytes at long N
  // ((3Nd + 4N)/(2Nd) = 1.5 + 2/d), whatever the head dimension.
  for (const head_dim of [64, 256]) {
    const d = run(traffic, { head_dim });
    close(d.long_fa2_ratio, 1.5 + 2 / head_dim, 0.01);
    for (const q of d.points) assert.ok(q.fa2 < q.flash);
  }
  const labels64 = traffic.draw(run(traffic), THEME).data.datasets.map((x) => x.label);
  assert.match(labels64[2], /^FlashAttention-2 loop order \(1\.5\d× less than FlashAttention at 1M\)$/);
});

// --- flash-tiling-causal ----------------------------------------------------------------

test('flash-tiling-causal: square tiles skip T(T−1)/2 above the diagonal', () => {
  const d = run(tiling); // N = 256, d = 32, 4 KiB bf16: M = 2048, B_c = B_r = 16, T = 16
  assert.equal(d.block_rows, 16);
  assert.equal(d.block_cols, 16);
  assert.equal(d.skipped, (16 * 15) / 2);
  assert.equal(d.computed, (16 * 17) / 2);
  const small = run(tiling, { seq: 128 }); // executed at this size: N²(d + 8) <= 2^21
  assert.ok(small.executed && small.error < 2e-6);
  const none = run(tiling, { causal: false });
  assert.equal(none.skipped, 0);
  assert.equal(none.computed, 256);
  // Progress 0: nothing done; 100: everything computed, the last tile current.
  assert.equal(run(tiling, { progress: 0 }).tiles.filter((t) => t.state === 'done' || t.state === 'current').length, 0);
  const end = run(tiling, { progress: 100 });
  assert.equal(end.tiles.filter((t) => t.state === 'pending').length, 0);
  assert.equal(end.current.order, end.computed - 1);
  // The loop order: K/V blocks outer, so the order never goes back to an earlier column.
  const order = end.tiles.filter((t) => t.order >= 0).sort((x, y) => x.order - y.order);
  for (let k = 1; k < order.length; k++) assert.ok(order[k].j >= order[k - 1].j);
});

test('flash-tiling-causal: the data table has one row per K/V block, and its counts add up to the map', () => {
  const d = run(tiling); // T = 16 square tiles, causal: column j computes Q blocks j..15, skips 0..j-1
  assert.equal(d.table.rows.length, 16);
  d.table.rows.forEach(([j, keys, computed, diagonal, skipped], k) => {
    assert.equal(j, k);
    assert.equal(keys, `${16 * k}–${16 * k + 15}`);
    assert.equal(computed, k === 15 ? '15' : `${k}–15`);
    assert.equal(diagonal, String(k));
    assert.equal(skipped, k === 0 ? 'none' : k === 1 ? '0' : `0–${k - 1}`);
  });
  assert.equal(d.table.rows.reduce((a, r) => a + r[6], 0), d.done);
  assert.equal(d.table.rows.filter((r) => r[7] !== '').length, 1);
  assert.equal(d.table.rows.find((r) => r[7] !== '')[7], `Q block ${d.current.i}`);
  const wide = run(tiling, { head_dim: 64, causal: false, progress: 100 }); // 32 × 32 tiles
  assert.equal(wide.table.rows.length, 32);
  assert.deepEqual(wide.table.rows.at(-1).slice(2, 8), ['0–31', 'none', 'none', '993–1024', 32, 'Q block 31']);
});

test('flash-tiling-causal: the tile map has a tile per block pair in its state, the diagonal, axes and legend', () => {
  const d = run(tiling, { progress: 40 });
  const scene = tiling.draw(d, THEME);
  assert.equal(scene.type, 'svg');
  assert.deepEqual(scene.grid && [scene.grid.rows, scene.grid.cols], [16, 16]);
  const tiles = scene.nodes.filter((n) => n.cell);
  assert.equal(tiles.length, 256);
  // Each state has its own look: done solid, current in the compute colour with a border,
  // pending pale, skipped empty; as many tiles of each as the data has.
  const look = (state) => tiles.filter((n, k) => d.tiles[k].state === state);
  assert.ok(look('done').every((n) => n.fill === THEME.palette[0] && n.opacity === undefined));
  assert.deepEqual(look('current').map((n) => [n.fill, n.stroke]), [[THEME.compute, THEME.text]]);
  assert.ok(look('pending').every((n) => n.fill === THEME.palette[0] && n.opacity < 0.5));
  assert.equal(look('skipped').length, 120);
  assert.ok(look('skipped').every((n) => n.fill === 'none'));
  // Above the diagonal (key block > query block) exactly the skipped tiles.
  for (const n of tiles) assert.equal(n.cell[1] > n.cell[0], d.tiles.find((t) => t.i === n.cell[0] && t.j === n.cell[1]).state === 'skipped');
  // The tile of Q block 3, K/V block 1 (keys 16–31, queries 48–63) is square, below its column's top.
  const t31 = tiles.find((n) => n.cell[0] === 3 && n.cell[1] === 1);
  const t00 = tiles.find((n) => n.cell[0] === 0 && n.cell[1] === 0);
  close(t31.w, t31.h, 1e-9);
  close(t31.x - t00.x, t31.w + 1, 1e-6); // one tile to the right (1 px apart)
  close(t31.y - t00.y, 3 * (t31.h + 1), 1e-6);
  assert.match(t31.tip, /K\/V block 1 \(keys 16–31\), Q block 3 \(queries 48–63\); done$/);
  const [diagonal] = scene.nodes.filter((n) => n.kind === 'line' && n.x1 === t00.x - 0.5);
  assert.ok(diagonal && !diagonal.dash, 'a solid diagonal from the top-left corner');
  close(diagonal.x2 - diagonal.x1, diagonal.y2 - diagonal.y1, 1e-9);
  assert.match(scene.axes.x.title, /^Key index \(tokens/);
  assert.equal(scene.axes.y.title, 'Query index (tokens)');
  assert.deepEqual(scene.legend.map((l) => l.label), [`Computed (${d.done} of 136 tiles)`,
    `Now: K/V block ${d.current.j}, Q block ${d.current.i}`, 'Still to compute', 'Skipped: 120 tiles above the diagonal', 'Diagonal (causal mask)']);
  // Without the mask: no skipped tile, no skipped entry, a dashed diagonal.
  const open = tiling.draw(run(tiling, { causal: false }), THEME);
  assert.equal(open.nodes.filter((n) => n.cell && n.fill === 'none').length, 0);
  assert.ok(!open.legend.some((l) => /Skipped/.test(l.label)));
  // A sequence that is not a multiple of the block: the last row and column are narrower.
  const odd = tiling.draw(run(tiling, { seq: 100 }), THEME); // 7 blocks: 6 of 16 tokens, one of 4
  const last = odd.nodes.find((n) => n.cell && n.cell[0] === 6 && n.cell[1] === 6);
  const first = odd.nodes.find((n) => n.cell && n.cell[0] === 0 && n.cell[1] === 0);
  close((last.w + 1) / (first.w + 1), 4 / 16, 1e-9);
  // A phone-sized box keeps the text at 11 px.
  assert.equal(tiling.draw(d, { ...THEME, width: 360, height: 384 }).minFont, 11);
});

test('flash-tiling-causal: too many tiles is an error on the SRAM control', () => {
  assert.throws(() => run(tiling, { seq: 1024, sram_bytes: 1024, head_dim: 8 }), isEngineError('sram_bytes'));
});

// --- attention-backward-memory ------------------------------------------------------------

test('attention-backward-memory: P is N²·s per head and layer, L is 4N; the check executes', () => {
  const d = run(backward);
  const copies = 32 * 32 * 1; // layers × heads × batch at the defaults
  for (const q of d.points) {
    close(q.store_p, copies * q.seq * q.seq * 2);
    close(q.lse, copies * q.seq * 4);
    close(q.extra_flops, copies * 2 * q.seq * q.seq * 128);
    assert.ok(q.recompute_s < q.read_p_s); // d = 128 is below the H100's bf16 ridge
  }
  assert.equal(d.overflow_seq, 8192); // 32·32·8192²·2 B = 128 GiB > 80 GiB
  assert.ok(d.check_executed);
  assert.ok(d.check_diff < 1e-5);
  assert.throws(() => run(backward, { hardware: 'nope' }), isEngineError('hardware'));
});

// --- split-kv-decoding ----------------------------------------------------------------------

test('split-kv-decoding: splits pay until the blocks saturate HBM, then stop paying', () => {
  const d = run(splitKv); // 8 KV heads, batch 1, 8k context, H100: 2 blocks per SM, 32 KiB in flight each
  assert.equal(d.sms, 132);
  assert.equal(d.blocks_per_sm, 2);
  assert.equal(d.saturating_splits, 5); // ⌈3.35 TB/s · 374 ns / 32 KiB⌉ = 39 blocks
  assert.ok(d.series[3].fraction_of_peak < 1 && d.series[4].fraction_of_peak === 1);
  // Little's law below the knee: 8 blocks at 32 KiB / 374 ns each.
  close(d.series[0].wave_bandwidth_Bps, 8 * 32768 / 374e-9, 1e-12);
  const gain = d.no_split_s / d.best.time_s;
  assert.ok(gain > 2.5 && gain < 4, `gain ${gain}`);
  // Past the knee the curve is flat within 10 %: no wave sawtooth.
  for (const q of d.series.slice(4)) assert.ok(q.time_s < 1.1 * d.series[4].time_s, `s = ${q.splits}`);
  assert.ok(d.executed && d.merge_diff < 1e-6);
  const busy = run(splitKv, { batch: 64 });
  assert.equal(busy.best.splits, 1);
  assert.match(splitKv.draw(busy, THEME).data.datasets[0].label, /best s = 1: .*, splitting does not pay\)$/);
  assert.match(splitKv.draw(d, THEME).data.datasets[0].label, /best s = 5: 16\.4 µs, 3\.1× faster than s = 1\)$/);
  assert.throws(() => run(splitKv, { context: 64, splits: 128 }), isEngineError('splits'));
  assert.throws(() => run(splitKv, { hardware: 'nope' }), isEngineError('hardware'));
});

// The caption asks the reader to raise the batch: the time axis (relative to the bandwidth
// floor) and the bandwidth axis hold still as the batch and the chosen splits move, and hold the
// data at every setting. The time axis fits the worst ratio of the current context, accelerator
// and heads (at batch 1): 1–10× at the defaults, where the curve spans 1–5×, not 1–100×.
test('split-kv-decoding: axes keep their range as the controls move', () => {
  const rangeAt = (over) => {
    const cfg = splitKv.draw(run(splitKv, over), THEME);
    const { y, y1 } = cfg.options.scales;
    for (const ds of cfg.data.datasets) {
      const axis = ds.yAxisID === 'y1' ? y1 : y;
      for (const p of ds.data) assert.ok(p.y >= axis.min && p.y <= axis.max, `${ds.label}: ${p.y} at ${JSON.stringify(over)}`);
    }
    return [y.min, y.max, y1.min, y1.max];
  };
  for (const base of [{}, { heads: 1 }, { heads: 128 }, { context: 1024 }, { context: 1048576 }, { hardware: 'a100-sxm-80gb' },
    { hardware: 'h200-sxm' }, { heads: 1, context: 1048576 }]) {
    const ranges = [{}, { batch: 4 }, { batch: 64 }, { batch: 256 }, { splits: 1 }, { splits: 128 }]
      .map((over) => rangeAt({ ...base, ...over }));
    for (const r of ranges) assert.deepEqual(r, ranges[0], JSON.stringify(base));
    assert.deepEqual(ranges[0].slice(2), [0, 110]);
  }
  assert.deepEqual(rangeAt({}), [1, 10, 0, 110]);
  assert.equal(rangeAt({ heads: 1, context: 1048576 })[1], 50); // 38× unsplit
});

// The saturation marker is named in the legend; a label beside it sat on the saturated line.
test('split-kv-decoding: the saturation marker carries no label on the chart', () => {
  const cfg = splitKv.draw(run(splitKv), THEME);
  const knee = cfg.data.datasets.find((d) => /HBM saturated from s = 5/.test(d.label));
  assert.ok(knee && knee.data.length === 1 && !knee.pointLabels && knee.data[0].label === undefined);
});

// The caption asks to compare head dimensions (64 against 256) and SRAM sizes: the traffic axis
// holds still across both (it moved from 10 TB to 1 PB at the top when d went to 256).
test('flash-hbm-traffic: the y axis stays fixed across head dimension and SRAM', () => {
  const axis = (over) => traffic.draw(run(traffic, over), THEME).options.scales.y;
  const base = axis({});
  for (const over of [{ head_dim: 16 }, { head_dim: 128 }, { head_dim: 256 }, { sram_bytes: 4096 }, { sram_bytes: 1048576 },
    { head_dim: 256, sram_bytes: 4096 }, { causal: true }]) {
    const y = axis(over);
    assert.deepEqual([y.min, y.max], [base.min, base.max], JSON.stringify(over));
    const data = run(traffic, over);
    for (const q of data.points) for (const v of [q.standard, q.flash, q.fa2]) assert.ok(v >= y.min && v <= y.max);
  }
});
