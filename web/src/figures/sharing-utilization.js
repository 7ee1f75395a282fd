// Utilization (busy SMs over all SMs, averaged until the last job ends) against the share of
// the SMs one job can keep busy, for the four ways of sharing a GPU. Each point is one
// calc('gpu-sharing'): n jobs waiting at t = 0, each 10 ms alone on the GPU.
import { formatFixed, formatDecimal } from '../runtime/format.js';
import { chart, linear, colours, line } from './shared/chart-config.js';
import { MODES, JOB_TIME_S, labelOnce } from './sharing-throughput.js';

export const FRACTIONS = [0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

export default {
  id: 'sharing-utilization',
  title: 'How busy the GPU is, against the size of each job',
  simulation: true,
  caption:
    'x: the share f of the SMs one job keeps busy when it has the GPU to itself; y: the share of the GPU\u2019s SMs busy on average while 28 such jobs run. Exclusive use is the diagonal: the GPU is exactly as busy as one job makes it. Time-slicing sits just under it, lowered by its context switches. MPS packs jobs side by side and keeps the SMs full as long as the jobs together ask for at least a GPU (n·f ≥ 1). MIG with 1g instances tracks 7f while a job fits its instance, then flattens at the SMs the instances hold (112 of 132 on an H100, 85%). Move the jobs to 4 and MPS falls to 4f for small jobs; pick 2g or 3g instances and MIG flattens higher but wastes a whole instance on each small job.',
  params: [
    { key: 'jobs', label: 'Jobs waiting at once n', from: ['gpu-sharing', 'jobs'], min: 1, max: 64 },
    { key: 'context_switch_s', label: 'Context switch c (time-slicing)', from: ['gpu-sharing', 'context_switch_s'], min: 0, max: 1e-3 },
    { key: 'hardware', label: 'GPU (MIG profiles)', from: ['gpu-sharing', 'hardware'] },
    { key: 'mig_profile', label: 'MIG instance size', from: ['gpu-sharing', 'mig_profile'] },
  ],

  data(engine, p) {
    const common = { jobs: p.jobs, job_time_s: JOB_TIME_S, context_switch_s: p.context_switch_s, hardware: p.hardware,
      mig_profile: p.mig_profile };
    const curves = MODES.map(({ mode, label }) => ({ mode, label,
      points: FRACTIONS.map((f) => ({ f, ...engine.calc('gpu-sharing', { ...common, mode, job_sm_fraction: f }) })) }));
    const mig = curves[3].points[0];
    // In percent to 0.1, as the axes read (10.0, 9.6, 84.8), not fractions padded to four digits.
    const pct = (v) => formatDecimal(100 * v, 1);
    const table = {
      columns: ['Job SM share f (%)', ...MODES.map((m) => `${m.mode} utilization (%)`)],
      rows: FRACTIONS.map((f, i) => [pct(f), ...curves.map((c) => pct(c.points[i].utilization))]),
    };
    return { jobs: p.jobs, mig_instance: mig.mig_instance, mig_lanes: mig.lanes, mig_share: mig.lanes * mig.lane_sm_fraction, curves, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const at = FRACTIONS.indexOf(0.1);
    const texts = labelOnce(data.curves.map((c) => `${formatFixed(100 * c.points[at].utilization, 0)}%`));
    const datasets = data.curves.map((c, k) => line(pick(), {
      label: c.mode === 'mig' ? `MIG: ${data.mig_lanes} × ${data.mig_instance}` : c.label,
      borderWidth: c.mode === 'time-slicing' ? 2 : 3, borderDash: c.mode === 'time-slicing' ? [6, 4] : undefined,
      pointLabels: (raw, i) => (i === at ? texts[k] : ''),
      data: c.points.map((q) => ({ x: 100 * q.f, y: 100 * q.utilization })),
    }));
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Share of the SMs one job keeps busy f (%)', { range: [0, 100] }),
        y: linear(`SMs busy while ${data.jobs} jobs run (%)`, { range: [0, 100] }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: f = ${formatFixed(ctx.raw.x, 0)}%, ${formatFixed(ctx.raw.y, 1)}% busy`,
    });
  },
};
