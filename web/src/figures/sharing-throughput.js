// Throughput and mean latency of a batch of small jobs sharing one GPU, against how many jobs
// there are, for the four ways of sharing it: exclusive, time-slicing, MPS and MIG instances.
// Each point is one calc('gpu-sharing') (a discrete-event simulation; all jobs waiting at t = 0,
// each 10 ms alone on the GPU and able to keep a share f of its SMs busy).
import { formatFixed, formatSI, formatDecimal } from '../runtime/format.js';
import { chart, linear, log, colours, line } from './shared/chart-config.js';

export const JOBS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64];
export const JOB_TIME_S = 0.01;
export const MODES = [
  { mode: 'exclusive', label: 'Exclusive: one job at a time' },
  { mode: 'time-slicing', label: 'Time-slicing' },
  { mode: 'mps', label: 'MPS' },
  { mode: 'mig', label: 'MIG' },
];
const VIEWS = [{ value: 'throughput', label: 'Throughput' }, { value: 'latency', label: 'Mean latency' }];
const RANGES = { throughput: [10, 3000], latency: [0.005, 2] };

// The texts of labels drawn at one x, one per curve: a text an earlier curve already shows
// there is left out (''), so curves that meet (exclusive use and MPS at f = 1) are named
// once, not as "100 100".
export function labelOnce(texts) {
  return texts.map((t, k) => (texts.indexOf(t) < k ? '' : t));
}

export default {
  id: 'sharing-throughput',
  title: 'Small jobs on one GPU: throughput and latency of four ways to share it',
  simulation: true,
  caption:
    'n jobs wait at once; each runs 10 ms alone on the GPU and keeps only f of its SMs busy (10% at the defaults). Exclusive use runs them one after another: 100 jobs per second, whatever n is. Time-slicing also runs one context at a time and adds a context switch after every preempted slice, so it finishes slightly fewer. MPS runs the kernels side by side and climbs until the jobs ask for the whole GPU (n·f = 1, here 10 jobs, 1,000 jobs per second) and stays there until n passes 48, the most clients MPS serves at once, when the rest start to wait. MIG runs one job per instance: seven 1g instances reach 700 jobs per second at 7 jobs and step with every further 7. Raise f towards 50% and MPS loses its edge, since two jobs fill the GPU; switch to mean latency to see time-slicing keep every job waiting until near the end.',
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'throughput', options: VIEWS },
    { key: 'job_sm_fraction', label: 'Share of the SMs one job keeps busy f', from: ['gpu-sharing', 'job_sm_fraction'], min: 0.05, max: 1 },
    { key: 'context_switch_s', label: 'Context switch c (time-slicing)', from: ['gpu-sharing', 'context_switch_s'], min: 0, max: 1e-3 },
    { key: 'timeslice_s', label: 'Time slice q (time-slicing)', type: 'select', default: 0.002,
      options: [0.0005, 0.001, 0.002, 0.005].map((v) => ({ value: v, label: `${v * 1e3} ms` })) },
    { key: 'hardware', label: 'GPU (MIG profiles)', from: ['gpu-sharing', 'hardware'] },
    { key: 'mig_profile', label: 'MIG instance size', from: ['gpu-sharing', 'mig_profile'] },
  ],

  data(engine, p) {
    const common = { job_sm_fraction: p.job_sm_fraction, job_time_s: JOB_TIME_S, context_switch_s: p.context_switch_s,
      timeslice_s: Number(p.timeslice_s), hardware: p.hardware, mig_profile: p.mig_profile };
    const curves = MODES.map(({ mode, label }) => ({ mode, label,
      points: JOBS.map((jobs) => ({ jobs, ...engine.calc('gpu-sharing', { ...common, mode, jobs }) })) }));
    const mig = curves[3].points[0];
    const key = p.view === 'latency' ? 'mean_latency_s' : 'throughput_jobs_per_s';
    // Show data prints every cell of a column alike: jobs/s or ms to 0.1 (100.0, 96.2, 1,000.0).
    const cell = (v) => formatDecimal(p.view === 'latency' ? 1e3 * v : v, 1);
    const table = {
      columns: ['Jobs n', ...MODES.map((m) => `${m.mode} ${p.view === 'latency' ? 'mean latency (ms)' : 'throughput (jobs/s)'}`)],
      rows: JOBS.map((n, i) => [String(n), ...curves.map((c) => cell(c.points[i][key]))]),
    };
    return { view: p.view, f: p.job_sm_fraction, mig_instance: mig.mig_instance, mig_lanes: mig.lanes, curves, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const latency = data.view === 'latency';
    const key = latency ? 'mean_latency_s' : 'throughput_jobs_per_s';
    const fmt = (v) => (latency ? formatSI(v, 's') : `${formatFixed(v, 0)} jobs/s`);
    const ends = labelOnce(data.curves.map((c) => fmt(c.points.at(-1)[key])));
    const datasets = data.curves.map((c, k) => {
      const label = c.mode === 'mig' ? `MIG: ${data.mig_lanes} × ${data.mig_instance}` : c.label;
      return line(pick(), { label, borderWidth: c.mode === 'time-slicing' ? 2 : 3, borderDash: c.mode === 'time-slicing' ? [6, 4] : undefined,
        pointLabels: (raw, i) => (i === c.points.length - 1 ? ends[k] : ''),
        data: c.points.map((q) => ({ x: q.jobs, y: q[key] })) });
    });
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Jobs waiting at once n (jobs)', { range: [0, 66] }),
        y: log(latency ? 'Mean latency: wait + run (s, log)' : 'Throughput (jobs per second, log)', { unit: latency ? 's' : '', range: RANGES[data.view] }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: n = ${ctx.raw.x}, ${fmt(ctx.raw.y)}`,
    });
  },
};
