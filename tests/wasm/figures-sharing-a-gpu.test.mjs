// The sharing-a-gpu lesson's three figures on the built WASM engine: what their data says,
// checked against NVIDIA's MIG tables (MIG User Guide, Supported MIG Profiles; SMs as
// nvidia-smi mig -lgip lists them) and the closed forms of the sharing model (exclusive n·T,
// MPS T·max(1, n·f), MIG ⌈n/K⌉·T·f/min(f, s), utilization n·f·T / makespan).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, assertDrawing } from './figure-harness.mjs';
import mig, { LAYOUTS } from '../../web/src/figures/mig-partitions.js';
import throughput, { JOBS, JOB_TIME_S } from '../../web/src/figures/sharing-throughput.js';
import utilization, { FRACTIONS } from '../../web/src/figures/sharing-utilization.js';

const axes = (cfg) => [cfg.options.scales.x.min, cfg.options.scales.x.max, cfg.options.scales.y.min, cfg.options.scales.y.max];

test('mig-partitions: 4g + 3g fill an H100 (124 of 132 SMs), 3g + 3g + 1g runs out of memory slices', () => {
  const d = run(mig);
  assert.equal(d.valid, true);
  assert.deepEqual(d.names, ['4g.40gb', '3g.40gb']);
  assert.equal(d.sms_used, 64 + 60);
  assert.deepEqual(d.instances.map((q) => q.start), [0, 4]);
  const bad = run(mig, { layout: '3g,3g,1g' });
  assert.equal(bad.valid, false);
  assert.equal(bad.compute_used, 7);
  assert.equal(bad.memory_used, 9);
  assert.match(bad.reason, /memory slices/);
  // Seven 1g instances: 112 of 132 SMs on an H100, 98 of 108 on an A100; the H200's names.
  assert.equal(run(mig, { layout: '1gme,1g,1g,1g,1g,1g,1g' }).sms_used, 112);
  assert.equal(run(mig, { hardware: 'a100-sxm-80gb', layout: '1gme,1g,1g,1g,1g,1g,1g' }).sms_used, 98);
  assert.deepEqual(run(mig, { hardware: 'h200-sxm', layout: '4g,2g,1g' }).names, ['4g.71gb', '2g.35gb', '1g.18gb']);
  // Every layout the select offers is labelled as the engine judges it.
  for (const l of LAYOUTS) {
    const r = run(mig, { layout: l.value });
    assert.equal(r.valid, l.label.includes('(fits)'), l.value);
    assertDrawing('mig-partitions', mig.draw(r, THEME));
  }
});

test('sharing-throughput: exclusive 1/T, MPS T·max(1, n·f), MIG ⌈n/7⌉·T on 1g instances, as the caption says', () => {
  const d = run(throughput);
  const [ex, ts, mps, mg] = d.curves;
  const f = d.f;
  close(f, 0.1, 1e-12);
  JOBS.forEach((n, i) => {
    close(ex.points[i].throughput_jobs_per_s, 1 / JOB_TIME_S, 1e-12);
    if (n <= 48) close(mps.points[i].makespan_s, JOB_TIME_S * Math.max(1, n * f), 1e-12);  // 48 MPS clients at most
    close(mg.points[i].makespan_s, Math.ceil(n / 7) * JOB_TIME_S, 1e-12);
    assert.ok(ts.points[i].throughput_jobs_per_s <= ex.points[i].throughput_jobs_per_s + 1e-9);
  });
  // MPS levels off at 1,000 jobs/s from n = 10; 7 MIG instances reach 700 jobs/s at n = 7.
  close(mps.points[JOBS.indexOf(10)].throughput_jobs_per_s, 1000, 1e-12);
  close(mg.points[JOBS.indexOf(7)].throughput_jobs_per_s, 700, 1e-12);
  const a = throughput.draw(d, THEME), b = throughput.draw(run(throughput, { job_sm_fraction: 0.5 }), THEME);
  assertDrawing('sharing-throughput', a);
  assert.deepEqual(axes(a), axes(b));
  for (const over of [{}, { view: 'latency' }, { job_sm_fraction: 0.05 }, { view: 'latency', job_sm_fraction: 1, context_switch_s: 1e-3 }]) {
    const r = run(throughput, over);
    const cfg = throughput.draw(r, THEME);
    for (const ds of cfg.data.datasets) for (const pt of ds.data) assert.ok(pt.y >= cfg.options.scales.y.min && pt.y <= cfg.options.scales.y.max, `${JSON.stringify(over)} ${ds.label} ${pt.y}`);
  }
});

test('sharing-utilization: exclusive U = f, MPS min(1, n·f), MIG flattens at the SMs its instances hold', () => {
  const d = run(utilization);
  const [ex, ts, mps, mg] = d.curves;
  FRACTIONS.forEach((f, i) => {
    close(ex.points[i].utilization, f, 1e-12);
    close(mps.points[i].utilization, Math.min(1, d.jobs * f), 1e-12);
    assert.ok(ts.points[i].utilization <= f + 1e-12);
    assert.ok(mg.points[i].utilization <= 112 / 132 + 1e-12);
  });
  close(d.mig_share, 112 / 132, 1e-12);
  close(mg.points.at(-1).utilization, 112 / 132, 1e-12);
  const a = utilization.draw(d, THEME), b = utilization.draw(run(utilization, { jobs: 4 }), THEME);
  assertDrawing('sharing-utilization', a);
  assert.deepEqual(axes(a), axes(b));
});

// The texts a chart's point labels print, per dataset (empty texts left out).
const labelTexts = (cfg) => cfg.data.datasets.map((ds) => ds.data.map((pt, i) => ds.pointLabels(pt, i)).filter(Boolean));

test('sharing figures name a value where curves meet once, not as "10% 10%" or "100 jobs/s" twice', () => {
  // Utilization at f = 10%: exclusive 10%, time-slicing 9.6% (also "10%"), MPS 100%, MIG 70%.
  assert.deepEqual(labelTexts(utilization.draw(run(utilization), THEME)), [['10%'], [], ['100%'], ['70%']]);
  // Throughput at f = 1, n = 64: exclusive and MPS both 100 jobs/s, time-slicing 96, MIG 78 (7 × 1g).
  assert.deepEqual(labelTexts(throughput.draw(run(throughput, { job_sm_fraction: 1 }), THEME)),
    [['100 jobs/s'], ['96 jobs/s'], [], ['78 jobs/s']]);
  // Where the curves end apart (the defaults, f = 10%), each keeps its label.
  assert.equal(labelTexts(throughput.draw(run(throughput), THEME)).filter((t) => t.length === 1).length, 4);
});

test('sharing figures: Show data prints each column alike, in the units the axes use', () => {
  const t = run(throughput).table;
  assert.deepEqual(t.rows[JOBS.indexOf(10)], ['10', '100.0', '96.2', '1,000.0', '500.0']);
  const l = run(throughput, { view: 'latency' }).table;
  assert.match(l.columns[1], /\(ms\)/);
  assert.deepEqual(l.rows[JOBS.indexOf(28)].slice(0, 3), ['28', '145.0', '264.2']);
  const u = run(utilization).table;
  assert.deepEqual(u.rows[FRACTIONS.indexOf(0.1)], ['10.0', '10.0', '9.6', '100.0', '70.0']);
  assert.deepEqual(u.rows.at(-1), ['100.0', '100.0', '96.2', '100.0', '84.8']);
});
