// The surviving-failures lesson's three figures on the built WASM engine: what their data says,
// checked against closed forms (M_cluster = M_gpu / N; Young's √(2δM); the first-order waste and
// Daly's exponential model; bytes / min(storage, writers × per-writer)) and the published
// numbers of the Llama 3 405B run (Llama Team 2024, arXiv:2407.21783, sections 3.3.1 and 3.3.4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, assertChartSubset } from './figure-harness.mjs';
import mtbf, { GPU_COUNTS, LLAMA } from '../../web/src/figures/cluster-mtbf.js';
import goodput from '../../web/src/figures/checkpoint-goodput.js';
import save, { TECTONIC_BPS } from '../../web/src/figures/checkpoint-save-time.js';
import { tableText } from '../../web/src/runtime/table-text.js';

const YEAR = 365.25 * 86400;
const axes = (cfg) => [cfg.options.scales.x.min, cfg.options.scales.x.max, cfg.options.scales.y.min, cfg.options.scales.y.max];

test('cluster-mtbf: M_cluster = M_gpu / N on every line, and the Llama 3 run where the paper puts it', () => {
  const d = run(mtbf);
  // 419 unexpected interruptions in 54 days on 16,384 GPUs: one every 3.09 hours, 0.173 per GPU per year.
  close(d.run.cluster_mtbf_h, (54 * 24) / 419, 1e-12);
  close(d.run.failures_per_gpu_per_year, (419 / 54 / 16384) * 365.25, 1e-12);
  d.yours.forEach((r, i) => close(r.cluster_mtbf_s, YEAR / d.rate / GPU_COUNTS[i], 1e-12));
  // The Llama line passes through the run.
  const i = GPU_COUNTS.indexOf(LLAMA.gpus);
  close(d.llama[i].cluster_mtbf_h, d.run.cluster_mtbf_h, 1e-12);
  // At 1 failure per GPU per year a 16,384-GPU job fails every 32 minutes.
  close(d.yours[i].cluster_mtbf_s / 60, YEAR / 16384 / 60, 1e-12);
  assert.ok(Math.abs(d.yours[i].cluster_mtbf_s / 60 - 32.1) < 0.1);
  // Counting the 47 planned interruptions: 466 in 54 days, every 2.78 hours.
  close(run(mtbf, { planned: true }).run.cluster_mtbf_h, (54 * 24) / 466, 1e-12);
  const a = mtbf.draw(d, THEME), b = mtbf.draw(run(mtbf, { rate: 0.05 }), THEME);
  assertChartSubset('cluster-mtbf', a);
  assert.deepEqual(axes(a), axes(b));
  for (const v of [0.01, 10]) for (const r of run(mtbf, { rate: v }).yours) {
    assert.ok(r.cluster_mtbf_h >= a.options.scales.y.min && r.cluster_mtbf_h <= a.options.scales.y.max);
  }
});

test('checkpoint-goodput: both models by hand, Young\'s interval the first-order optimum, Daly\'s near the exact one', () => {
  const d = run(goodput);
  // The defaults are the worked example: M = 3.093 h (Llama 3), δ = 22.2 s, R = 10 min.
  const M = 3.093 * 3600, delta = 22.2, R = 600;
  close(d.young_interval_s, Math.sqrt(2 * delta * M), 1e-12);
  for (const q of d.points) {
    const first = 1 - (delta / q.interval_s + (q.interval_s + delta) / (2 * M) + R / M);
    close(q.goodput, Math.max(0, first), 1e-9);
    const exact = q.interval_s / (M * Math.exp(R / M) * Math.expm1((q.interval_s + delta) / M));
    assert.ok(Math.abs(q.goodput_exact - exact) < 1e-9, `${q.goodput_exact} != ${exact}`);
    assert.ok(q.goodput <= d.young.goodput + 1e-12);
    assert.ok(q.goodput_exact <= d.best_goodput_exact + 1e-12);
  }
  close(d.daly_interval_s, d.best_interval_s, 0.01);
  // An asynchronous save's 2-second stall raises the optimum and moves it left.
  const fast = run(goodput, { checkpoint_s: 2 });
  assert.ok(fast.young.goodput > d.young.goodput && fast.young_interval_s < d.young_interval_s);
  const a = goodput.draw(d, THEME), b = goodput.draw(fast, THEME);
  assertChartSubset('checkpoint-goodput', a);
  assert.deepEqual(axes(a), axes(b));
});

test('checkpoint-save-time: 405B × 14 B = 5.67 TB; the writers bound the write until storage does; async stalls for the copy', () => {
  const d = run(save);
  // 405.85e9 parameters (the engine's count of Llama 3.1 405B) × 14 bytes.
  close(d.bytes, 405853388800 * 14, 1e-12);
  for (const r of d.sync) {
    close(r.write_bandwidth_Bps, Math.min(r.bw, 128 * 2e9), 1e-12);
    close(r.stall_s, d.bytes / r.write_bandwidth_Bps, 1e-12);
  }
  for (const r of d.asyn) {
    close(r.stall_s, d.bytes / 128 / 25e9, 1e-12);
    close(r.save_time_s, r.stall_s + d.bytes / Math.min(r.bw, 256e9), 1e-12);
  }
  // At Tectonic's 2 TB/s (Llama 3 paper, section 3.3.1) the 128 writers are the bound: 22.2 s.
  assert.equal(d.tectonic.bottleneck, 'writers');
  close(d.tectonic.stall_s, d.bytes / 256e9, 1e-12);
  assert.ok(TECTONIC_BPS === 2e12);
  // 1,024 writers: storage becomes the bound at 2 TB/s.
  assert.equal(run(save, { writers: 1024 }).tectonic.bottleneck, 'storage');
  const a = save.draw(d, THEME), b = save.draw(run(save, { model: 'llama-3-8b', writers: 16384, copy: 60 }), THEME);
  assertChartSubset('checkpoint-save-time', a);
  assert.deepEqual([a.options.scales.y.min, a.options.scales.y.max], [b.options.scales.y.min, b.options.scales.y.max]);
  for (const ds of [...a.data.datasets, ...b.data.datasets]) for (const p of ds.data) {
    assert.ok(p.y >= a.options.scales.y.min && p.y <= a.options.scales.y.max, `${ds.label}: ${p.y}`);
  }
});

test('surviving-failures figures: rates without SI prefixes, the worked example by default, the sync line visible', () => {
  // A rate below 1 reads 0.173, not "173 m" (milli).
  const low = run(mtbf, { rate: 0.173 });
  const cfg = mtbf.draw(low, THEME);
  assert.ok(cfg.data.datasets[0].label.includes('0.173 failures per GPU per year'), cfg.data.datasets[0].label);
  assert.ok(low.table.columns[1].includes('0.173 /GPU/yr'));
  assert.deepEqual(tableText(run(mtbf).table)[0], ['8', '1,096', '0.0219', '6,335']);
  for (const c of low.table.columns) assert.ok(!/\d m /.test(c), c);
  // The labelled dot is the caption's 16,384 GPUs, every 32 minutes at 1 failure per GPU per year.
  const dot = mtbf.draw(run(mtbf), THEME).data.datasets.at(-1).data[0];
  assert.equal(dot.x, 16384);
  assert.ok(dot.label.includes('32 min'), dot.label);
  // checkpoint-goodput opens on the worked example: Daly's interval 11.5 min at 88.9% (exact model),
  // the number the lesson quotes; the table is in percent.
  const g = run(goodput);
  const daly = goodput.draw(g, THEME).data.datasets.at(-1).data[0];
  assert.ok(daly.label.startsWith('Daly: 11.5 min, 88.9%'), daly.label);
  assert.ok(g.table.columns[1].endsWith('(%)'));
  for (const row of g.table.rows) assert.ok(Number(row[2]) >= 0 && Number(row[2]) <= 100);
  assert.ok(Math.max(...g.table.rows.map((row) => Number(row[2]))) > 80);
  // checkpoint-save-time: the synchronous line is drawn wider than the dashed async line over it,
  // and bandwidths are given in GB/s.
  const s = save.draw(run(save), THEME).data.datasets;
  assert.ok(s[0].borderWidth > 2 * (s[1].borderWidth ?? 2));
  const d = run(save, { per_writer: 4 });
  close(d.tectonic.write_bandwidth_Bps, 128 * 4e9, 1e-12);
  assert.equal(run(save).table.rows[0][0], '10');
  // "Show data" prints what the chart reads, not four padded digits: 5.4% restarts, not 5.400.
  const gText = tableText(g.table);
  assert.deepEqual(gText[0].slice(1), ['0.0', '29.4', '222.0', '0.1', '5.4']);
  assert.deepEqual(tableText(run(save).table)[0], ['10', '10', 'storage', '568', '1.78', '570']);
  assert.deepEqual(tableText(g.table).at(-1), ['300,000', '0.0', '0.0', '0.0', '1,347', '5.4']);
});
