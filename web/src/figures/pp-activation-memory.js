// Activations each pipeline stage holds at its peak, in micro-batches of a whole stage, under
// GPipe, 1F1B and interleaved 1F1B: calc('pipeline').peak_inflight_per_stage of the executed
// schedules (interleaved: chunk activations in flight divided by v).
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const MAX_MICROBATCHES = 64;
const SCHEDULES = [
  { schedule: 'gpipe', label: 'GPipe', border: 1 },
  { schedule: '1f1b', label: '1F1B', border: 2 },
  { schedule: 'interleaved-1f1b', label: 'Interleaved 1F1B', border: 3 },
];

export default {
  id: 'pp-activation-memory',
  title: 'Pipeline activation memory per schedule',
  caption:
    'The peak number of micro-batches whose activations each stage holds (one micro-batch = the activations of all the stage\'s layers). GPipe keeps all m on every stage, so its memory grows with the very number you raise to shrink the bubble; 1F1B caps stage s at p − s, whatever m is. Interleaving cuts the bubble but holds more on every stage: with v = 2, (p − 1)/2 micro-batches more on each, so stage 0 still holds the most while the last stages hold several times what 1F1B holds (at p = 8: 11.5 instead of 8 on stage 0, 4.5 instead of 1 on stage 7). From m = 2p up, raise the micro-batches and watch only the GPipe bars grow against the fixed axis (below that, m also caps the other schedules); set micro-batches to a value that is not a multiple of the stages and interleaving drops out.',
  simulation: true,
  params: [
    { key: 'stages', label: 'Stages p', type: 'integer', min: 2, max: 16, default: 8 },
    { key: 'microbatches', label: 'Micro-batches m', type: 'integer', min: 1, max: MAX_MICROBATCHES, default: 16 },
    { key: 'chunks', label: 'Chunks per stage v (interleaved)', type: 'integer', min: 2, max: 4, default: 2 },
  ],

  data(engine, p) {
    const series = SCHEDULES.map((s) => {
      const interleaved = s.schedule === 'interleaved-1f1b';
      if (interleaved && p.microbatches % p.stages !== 0) {
        return { ...s, perStage: null, note: `needs m a multiple of p (${p.stages})` };
      }
      const r = engine.calc('pipeline', {
        schedule: s.schedule, stages: p.stages, microbatches: p.microbatches, chunks: interleaved ? p.chunks : 1,
        forward_s: 1e-3, backward_s: 2e-3,
      });
      return { ...s, perStage: r.peak_inflight_per_stage, bubble_ratio: r.bubble_ratio };
    });
    const rows = Array.from({ length: p.stages }, (_, st) => [st, ...series.map((s) => (s.perStage ? s.perStage[st] : 'n/a'))]);
    return {
      stages: p.stages, microbatches: p.microbatches, chunks: p.chunks, series,
      table: { columns: ['Stage', 'GPipe (micro-batches)', '1F1B (micro-batches)', `Interleaved, v = ${p.chunks} (micro-batches)`], rows },
    };
  },

  draw(data, theme) {
    const labels = Array.from({ length: data.stages }, (_, s) => `Stage ${s}`);
    const pick = colours(theme);
    const datasets = data.series.map((s) => series(pick(), {
      label: s.perStage
        ? `${s.label} (bubble ${s.bubble_ratio.toFixed(3)} × ideal)`
        : `${s.label}: ${s.note}`,
      data: s.perStage ? s.perStage : [],
      borderColor: theme.text, borderWidth: s.border,
    }));
    // Up to the most micro-batches the control allows (GPipe holds all m), so that raising m
    // grows the GPipe bars against a fixed axis while the others stay put.
    const top = Math.max(MAX_MICROBATCHES, ...data.series.flatMap((s) => s.perStage ?? []));
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ labels }),
        y: linear('Activations held at peak (micro-batches)', { range: [0, top], ticks: { stepSize: 8 } }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${data.series[ctx.datasetIndex].label}: ${ctx.parsed.y} micro-batches in flight`,
    });
  },
};
