// The mixed-precision lesson's four figures on the built WASM engine: data() is finite and
// complete, draw() keeps to the Chart.js subset and the theme's colours, the first control
// changes the data, the numbers match IEEE 754 / OCP FP8 and the closed forms, and bad
// inputs are EngineErrors on the right field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, THEME_COLOURS, params, run, close, isEngineError, colours } from './figure-harness.mjs';
import { resolveParams, defaults } from '../../web/src/runtime/params.js';
import { EngineError } from '../../web/src/runtime/engine-api.js';
import explorer, { decadeTicks } from '../../web/src/figures/float-format-explorer.js';
import stagnation from '../../web/src/figures/sum-stagnation.js';
import lossScaling from '../../web/src/figures/loss-scaling-range.js';
import throughput, { phoneLabel } from '../../web/src/figures/precision-throughput.js';

const FIGURES = [explorer, stagnation, lossScaling, throughput];

for (const fig of FIGURES) {
  test(`${fig.id}: module shape and a select or slider control`, () => {
    assert.ok(fig.caption.length > 40);
    const specs = resolveParams(fig, engine);
    for (const s of specs) assert.notEqual(s.default, undefined, `${fig.id}.${s.key} has a default`);
    assert.ok(specs.some((s) => s.type === 'select' || s.type === 'number' || s.type === 'integer'));
  });

  test(`${fig.id}: data at defaults is finite, the table is rectangular`, () => {
    const { columns, rows } = run(fig).table;
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
      if (s.type !== 'category') assert.ok(s.title?.display && /\(.+\)/.test(s.title.text), `scale ${name} has units`);
    }
    for (const c of colours(cfg)) assert.ok(THEME_COLOURS.has(c), `${fig.id} uses a non-theme colour ${c}`);
  });

  test(`${fig.id}: changing the first control changes the data`, () => {
    const [first] = resolveParams(fig, engine);
    const options = (first.options ?? []).map((o) => (typeof o === 'object' ? o.value : o));
    const other = first.type === 'select' ? options.find((o) => o !== first.default) : first.default * 2;
    assert.notDeepEqual(run(fig, { [first.key]: other }).table, run(fig).table);
  });
}

test('float-format-explorer: rounds 0.1 and flags fp16 overflow', () => {
  const d = run(explorer, { value: 0.1 });
  const row = (f) => d.table.rows.find((r) => r[0].split(' ')[0] === f);
  assert.equal(row('bf16')[1], '0.10009766');
  assert.equal(row('bf16')[2], '0 01111011 1001101');
  assert.equal(row('fp16')[8], 2 ** -10);
  assert.equal(row('fp8-e4m3')[5], 448);
  assert.equal(row('fp8-e5m2')[5], 57344);
  const big = run(explorer, { value: 70000, format: 'fp16' });
  assert.equal(big.chosen.special, 'inf');
  assert.match(big.table.rows.find((r) => r[0].startsWith('fp16'))[1], /inf/);
  assert.equal(big.table.rows.find((r) => r[0].startsWith('bf16'))[1], '70144');
  assert.equal(run(explorer, { value: 470, format: 'fp8-e4m3' }).chosen.special, 'nan');
  assert.equal(run(explorer, { value: 470, format: 'fp8-e4m3', saturate: true }).chosen.rounded, 448);
  assert.match(explorer.draw(big, THEME).data.datasets.at(-1).label, /inf/);
});

test('sum-stagnation: bf16 sticks at 256, fp16 at 2048, the others stay exact', () => {
  const b = run(stagnation, { format: 'bf16', value: 1, count: 4096, distribution: 'constant' });
  assert.equal(b.stall_sum, 256);
  assert.equal(b.final.naive, 256);
  for (const k of ['fp32', 'kahan', 'pairwise']) assert.equal(b.final[k], 4096);
  assert.equal(run(stagnation, { format: 'fp16', value: 1, count: 4096 }).stall_sum, 2048);
});

test('loss-scaling-range: the closed form and the three views', () => {
  const h = run(lossScaling, { loss_scale: 1 });
  const s16 = run(lossScaling, { loss_scale: 65536 });
  assert.ok(s16.fractions.zero < h.fractions.zero / 100);
  const sum = h.histogram.reduce((a, b) => a + b.fraction, 0);
  assert.ok(sum > 0.99 && sum <= 1 + 1e-12);
  const sw = run(lossScaling, { view: 'sweep' }).sweep;
  for (let i = 1; i < sw.length; i++) assert.ok(sw[i].zero <= sw[i - 1].zero && sw[i].overflow >= sw[i - 1].overflow);
  const dyn = run(lossScaling, { view: 'dynamic' });
  assert.ok(dyn.dynamic.skipped_steps > 0);
  for (const q of dyn.dynamic.series) if (q.overflow) assert.ok(q.log2_max_grad + q.log2_scale > dyn.limits.max);
  assert.throws(() => run(lossScaling, { sigma_log2: 0 }), isEngineError('sigma_log2'));
});

test('loss-scaling-range: histogram legend entries fit a phone, the max reads 2^16 not 2^16.00', () => {
  for (const format of ['fp16', 'bf16', 'fp8-e5m2', 'fp8-e4m3']) {
    for (const loss_scale of [1, 2 ** 20, 2 ** 40]) {
      const labels = lossScaling.draw(run(lossScaling, { format, loss_scale }), THEME).data.datasets.map((d) => d.label);
      // About 64 characters of legend text fit beside the key on a 390 px phone; 60 leaves a margin.
      for (const l of labels) assert.ok(l.length <= 60, `${format}: "${l}" is ${l.length} characters`);
      assert.ok(!labels.some((l) => /\.00\b/.test(l)), labels.join(' | '));
    }
  }
  const fp16 = lossScaling.draw(run(lossScaling, { format: 'fp16' }), THEME).data.datasets.map((d) => d.label);
  assert.ok(fp16.includes('Max ≈ 2^16'), fp16.join(' | '));
  // The binade axis ends 24 past the format's limits, off its tick step: the ends get no label.
  assert.equal(lossScaling.draw(run(lossScaling, {}), THEME).options.scales.x.ticks.includeBounds, false);
});

test('precision-throughput: on a phone the step-time labels break into lines that fit their slot', () => {
  for (const hardware of ['h100-sxm', 'mi300x', 'a100-sxm-80gb']) {
    const cfg = throughput.draw(run(throughput, { hardware }), THEME);
    const { callback } = cfg.options.scales.x.ticks;
    cfg.data.labels.forEach((label, i) => {
      assert.deepEqual(callback.call({ chart: { width: 1000 } }, i, i), label); // desktop: format and time
      const lines = callback.call({ chart: { width: 360 } }, i, i);
      assert.deepEqual(lines, phoneLabel(label));
      // A slot of about 50 px holds 8 characters of tick text ("fp8-e4m3").
      for (const l of lines) assert.ok(l.length <= 8, `${hardware}: "${l}" of ${JSON.stringify(label)}`);
    });
  }
});

test('float-format-explorer: the magnitude axis ticks every 20 decades on a phone', () => {
  assert.deepEqual(decadeTicks(360), [-40, -20, 0, 20, 40]);
  assert.equal(decadeTicks(700).length, 9);
  const axis = { chart: { width: 360 } };
  explorer.draw(run(explorer), THEME).options.scales.x.afterBuildTicks(axis);
  assert.deepEqual(axis.ticks.map((t) => Math.round(Math.log10(t.value))), [-40, -20, 0, 20, 40]);
});

test('precision-throughput: 16 bytes per parameter with Adam, peaks from the table', () => {
  const d = run(throughput, { hardware: 'h100-sxm', optimizer: 'adam' });
  const bf16 = d.formats.find((f) => f.compute_dtype === 'bf16');
  assert.equal(bf16.total_bytes_per_param, 16);
  assert.equal(bf16.peak_flops, engine.calc('hardware', { id: 'h100-sxm' }).peak_flops.bf16);
  assert.equal(d.formats.find((f) => f.compute_dtype === 'fp32').total_bytes_per_param, 16);
  assert.equal(run(throughput, { optimizer: 'sgd' }).formats.find((f) => f.compute_dtype === 'bf16').total_bytes_per_param, 12);
  assert.equal(run(throughput, { hardware: 'a100-sxm-80gb' }).formats.find((f) => f.compute_dtype === 'fp8-e4m3').available, false);
  assert.throws(() => run(throughput, { hardware: 'nope' }), isEngineError('hardware'));
  assert.throws(() => run(throughput, { params: -1 }), isEngineError('params'));
});

test('bad values are EngineErrors on their field', () => {
  assert.throws(() => run(explorer, { format: 'fp12' }), isEngineError('format'));
  assert.throws(() => run(explorer, { value: '1' }), isEngineError('value'));
  assert.throws(() => run(stagnation, { count: 0 }), isEngineError('count'));
});

test('precision-throughput: every accelerator of its select draws, TPUs without an fp32 rate included', () => {
  const hardware = resolveParams(throughput, engine).find((s) => s.key === 'hardware');
  for (const { value } of hardware.options) {
    const d = run(throughput, { hardware: value });
    assert.ok(d.formats.some((f) => f.available), value);
    throughput.draw(d, THEME);
  }
  const tpu = run(throughput, { hardware: 'tpu-v4' });
  assert.equal(tpu.formats.find((f) => f.compute_dtype === 'fp32').available, false);
});

// Regression: every control of the throughput figure changes what is drawn. Parameters and
// tokens reach the drawing through the labels (step time at peak: 6·N·T / peak; model state:
// bytes per parameter × N), and the axes hold still over accelerators and optimizers.
test('precision-throughput: parameters and tokens change the labels, the axes are fixed', () => {
  const texts = (p) => {
    const cfg = throughput.draw(run(throughput, p), THEME);
    return [...cfg.data.labels.flat(), cfg.options.scales.y1.title.text];
  };
  const base = texts({});
  assert.notDeepEqual(texts({ params: 7e10 }), base);
  assert.notDeepEqual(texts({ tokens: 1e6 }), base);
  assert.match(base.at(-1), /112 GB of model state/);  // 16 B/param × 7e9
  const h100 = engine.calc('mixed-precision-recipe', { hardware: 'h100-sxm', compute_dtype: 'bf16' });
  assert.equal(h100.step_time_s, 6 * 7e9 * 4194304 / h100.peak_flops);
  // 178 s reads in minutes, by the one rule of web/src/runtime/format.js.
  assert.ok(base.includes(`${Number((h100.step_time_s / 60).toPrecision(3))} min`), base.join(' | '));
  const axes = (p) => { const s = throughput.draw(run(throughput, p), THEME).options.scales; return [s.y.min, s.y.max, s.y1.min, s.y1.max]; };
  assert.deepEqual(axes({ hardware: 'a100-sxm-80gb', optimizer: 'sgd' }), axes({}));
  assert.match(throughput.draw(run(throughput, { hardware: 'mi300x' }), THEME).data.labels.at(-1)[0], /fnuz/);
});

// The explorer shows precision, not only range: the ulp at the value on every format's marker
// and the chosen format's neighbours. 1000 in bf16: binade [512, 1024), ulp 2^(9−7) = 4, so the
// neighbours are 996 and 1004 (IEEE 754 spacing); fp16 there has ulp 2^-1.
test('float-format-explorer: neighbours and ulp at the value are drawn', () => {
  const d = run(explorer, { value: 1000, format: 'bf16' });
  const cfg = explorer.draw(d, THEME);
  const legend = cfg.data.datasets.map((ds) => ds.label).join(' | ');
  assert.match(legend, /neighbours 996 and 1004 \| ulp 2\^2 = 0\.4 % of the value/);
  const marker = cfg.data.datasets.find((ds) => typeof ds.pointLabels === 'function');
  const labels = marker.data.map((raw, i) => marker.pointLabels(raw, i));
  assert.equal(labels[2], '1000, ulp 2^2');   // bf16
  assert.equal(labels[3], '1000, ulp 2^-1');  // fp16
  assert.match(labels[6], /NaN/);              // E4M3FNUZ: 1000 > 240
  // The caption's tie: 464 lies halfway between 448 (S.1111.110) and the NaN code above it, and
  // round-to-nearest-even keeps the even 448 (OCP OFP8 rev. 1.0 rounds to nearest even by default).
  assert.equal(run(explorer, { value: 464, format: 'fp8-e4m3' }).chosen.rounded, 448);
  assert.equal(run(explorer, { value: 465, format: 'fp8-e4m3' }).chosen.special, 'nan');
  const fnuz = run(explorer, { value: 240, format: 'fp8-e4m3-fnuz' }).chosen;
  assert.equal(fnuz.rounded, 240);
  assert.equal(fnuz.next_up, null);
});

// Uniform addends on [0, 0.02) stall too (half the ulp at 8 in bf16 is 2^-5 > 0.02), and
// Kahan's bf16 error grows with n (its bound has an n·u² term, Goldberg 1991, Theorem 8).
test('sum-stagnation: uniform addends stall at 8 in bf16, Kahan grows with n', () => {
  const u = (count) => engine.calc('summation', { format: 'bf16', value: 0.01, count, distribution: 'uniform', seed: 1 });
  assert.equal(u(4096).naive, 8);
  const d = run(stagnation, { value: 0.01, distribution: 'uniform' });
  assert.equal(d.final.naive, 8);
  assert.match(stagnation.draw(d, THEME).data.datasets[1].label, new RegExp(`stops at 8 after ${u(4096).last_growth_step} additions`));
  // Seeds 1–6: 0.02–0.31% at 4,096 addends, 0.77–0.85% at 100,000 (the n·u² term).
  assert.ok(u(100000).rel_error_kahan > 2 * u(4096).rel_error_kahan);
});

// The sweep's verdict counts skipped steps: at the old per-value best, 2^21, nearly every
// step of 1e8 gradients overflows; the line now sits at the largest scale skipping at most
// 1 % of steps, 2^16, inside the range the dynamic view's scaler moves in.
test('loss-scaling-range: the sweep marks the largest scale that rarely skips a step', () => {
  const d = run(lossScaling, { view: 'sweep' });
  assert.equal(d.safe.log2_scale, 16);
  assert.ok(d.sweep.find((q) => q.log2_scale === 21).step_overflow > 0.99);
  const labels = lossScaling.draw(d, THEME).data.datasets.map((x) => x.label);
  assert.ok(labels.some((l) => /^Best: 2\^16, largest skipping ≤ 1% of steps/.test(l)), labels.join(' | '));
  assert.ok(!labels.some((l) => /Fewest lost/.test(l)));
  assert.ok(labels.some((l) => /^Steps skipped/.test(l)));
  const dyn = run(lossScaling, { view: 'dynamic' }).dynamic;
  assert.ok(dyn.min_scale <= 2 ** d.safe.log2_scale && 2 ** d.safe.log2_scale <= dyn.max_scale);
});

// FP8 view: per-tensor scaling loses most elements to the subnormal range or zero once
// outlier channels sit 10 binades up; 128×128 blocks, 1×128 tiles and MX blocks of 32 lose
// fewer in that order. Its controls move the data; the axes are fixed.
test('loss-scaling-range: the FP8 view orders the four scale groupings', () => {
  const d = run(lossScaling, { view: 'fp8' });
  const lost = d.fp8.schemes.map((s) => s.lost_fraction);
  for (let i = 0; i < 3; i++) assert.ok(lost[i] > lost[i + 1], `${lost}`);
  const cfg = lossScaling.draw(d, THEME);
  assert.deepEqual([cfg.options.scales.x.min, cfg.options.scales.x.max, cfg.options.scales.y.min, cfg.options.scales.y.max], [0, 20, 0, 100]);
  assert.notDeepEqual(run(lossScaling, { view: 'fp8', outlier_log2: 4 }).table, d.table);
  assert.notDeepEqual(run(lossScaling, { view: 'fp8', outlier_channels: 32 }).table, d.table);
  assert.notDeepEqual(run(lossScaling, { view: 'fp8', fp8_format: 'fp8-e5m2' }).table, d.table);
});

// The error view shows what the sum view cannot: Kahan's bf16 error at 100,000 uniform
// addends, about 0.8 %, far above the view's floor; both views label log ticks plainly
// (no "1,000.000", no 50,000 next to 100,000).
test('sum-stagnation: the relative-error view makes Kahan\'s drift visible', () => {
  const d = run(stagnation, { value: 0.01, distribution: 'uniform', count: 100000, view: 'error' });
  const cfg = stagnation.draw(d, THEME);
  const kahan = cfg.data.datasets.find((x) => x.label.startsWith('Kahan'));
  assert.match(kahan.label, /final error 0\.[5-9]\d?%/);
  assert.ok(kahan.data.at(-1).y > 0.5 && kahan.data.at(-1).y < 1.5);
  assert.equal(cfg.options.scales.y.min, 1e-5);
  assert.notDeepEqual(d.table, run(stagnation, { value: 0.01, distribution: 'uniform', count: 100000 }).table);
  for (const view of ['sum', 'error']) {
    const scales = stagnation.draw(run(stagnation, { count: 100000, view }), THEME).options.scales;
    const ticks = (axis, values) => values.map((v, i) => axis.ticks.callback(v, i, values.map((value) => ({ value }))));
    const xs = [1, 2, 5, 10, 20, 50, 100, 1000, 10000, 50000, 100000];
    const labels = ticks(scales.x, xs);
    assert.equal(labels[xs.indexOf(50000)], '');
    assert.equal(labels[xs.indexOf(100000)], '100 k');
    assert.ok(!ticks(scales.y, [0.005, 500, 1000]).some((t) => /\.000/.test(t)));
  }
});
