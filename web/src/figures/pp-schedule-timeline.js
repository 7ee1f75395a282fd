// Pipeline schedules as executed timelines: one row per stage, one floating bar per forward (F)
// or backward (B) op of a micro-batch (and model chunk), from calc('pipeline', ...), which runs
// the schedule against its dependencies. Forward 1 ms and backward 2 ms per micro-batch per stage.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const FORWARD_S = 1e-3;
const BACKWARD_S = 2e-3;

export default {
  id: 'pp-schedule-timeline',
  title: 'Pipeline schedules, executed',
  caption:
    'Each row is one GPU (pipeline stage); tall bars are forward passes and thin bars backward passes of one micro-batch (hover for its number), gaps are the bubble. GPipe runs every forward, then every backward; 1F1B starts backward passes as soon as the last stage can, so each stage holds fewer micro-batches, but its bubble is the same (p − 1)/m. Raise the micro-batches to shrink the bubble, then pick interleaved 1F1B and raise the chunks: the bubble shrinks by v, at the cost of v times as many stage-to-stage messages. Each stage sends one message at a time, so set a message time of 0.5 ms (0.0005 s): 1F1B waits for a gradient in every cycle and interleaving with v = 2 pulls further ahead, but with v = 4 its messages, sent after chunks of only 0.25 ms, queue and it falls behind 1F1B. Interleaving here follows Megatron\'s default order and refuses micro-batch counts that are not a multiple of the stages.',
  simulation: true,
  params: [
    { key: 'schedule', label: 'Schedule', from: ['pipeline', 'schedule'] },
    { key: 'stages', label: 'Stages p', type: 'integer', min: 2, max: 8, default: 4 },
    { key: 'microbatches', label: 'Micro-batches m', type: 'integer', min: 1, max: 32, default: 8 },
    { key: 'chunks', label: 'Chunks per stage v (interleaved)', type: 'integer', min: 1, max: 4, default: 2, when: { schedule: ['interleaved-1f1b'] } },
    { key: 'p2p_s', label: 'Message time between stages', type: 'number', unit: 's', min: 0, max: 1e-3, default: 0 },
  ],

  data(engine, p) {
    const interleaved = p.schedule === 'interleaved-1f1b';
    const r = engine.calc('pipeline', {
      schedule: p.schedule, stages: p.stages, microbatches: p.microbatches, chunks: interleaved ? p.chunks : 1,
      forward_s: FORWARD_S, backward_s: BACKWARD_S, p2p_s: p.p2p_s,
    });
    const ops = r.timeline;
    return {
      schedule: p.schedule, stages: p.stages, microbatches: p.microbatches, chunks: interleaved ? p.chunks : 1,
      step_time_s: r.step_time_s, ideal_time_s: r.ideal_time_s, bubble_fraction: r.bubble_fraction, bubble_ratio: r.bubble_ratio,
      bubble_ratio_formula: r.bubble_ratio_formula, peak_inflight: r.peak_inflight_microbatches, ops,
      table: {
        columns: ['Stage', 'Micro-batch', 'Chunk', 'Pass', 'Start (s)', 'End (s)'],
        rows: ops.map((o) => [o.stage, o.microbatch, o.chunk, o.kind === 'F' ? 'forward' : 'backward', o.start_s, o.end_s]),
      },
    };
  },

  draw(data, theme) {
    const labels = Array.from({ length: data.stages }, (_, s) => `Stage ${s}`);
    const pick = colours(theme);
    // One colour per chunk when interleaved (forward and backward told apart by bar height),
    // else one for forward and one for backward.
    const interleaved = data.chunks > 1;
    const byChunk = interleaved ? Array.from({ length: data.chunks }, () => pick()) : [];
    const byPass = interleaved ? {} : { F: pick(), B: pick() };
    const datasets = [];
    for (let c = 0; c < data.chunks; c += 1) {
      for (const kind of ['F', 'B']) {
        const chunkText = interleaved ? `, chunk ${c}` : '';
        datasets.push(series(interleaved ? byChunk[c] : byPass[kind], {
          label: `${kind === 'F' ? 'Forward (tall)' : 'Backward (thin)'}${chunkText}`,
          data: data.ops.filter((o) => o.kind === kind && o.chunk === c)
            .map((o) => ({ x: [o.start_s * 1e3, o.end_s * 1e3], y: `Stage ${o.stage}`, o })),
          borderColor: theme.text, borderWidth: kind === 'F' ? 1 : 2,
          barPercentage: kind === 'F' ? 0.95 : 0.5, categoryPercentage: 0.9, grouped: false,
          ...(interleaved ? { group: `chunk ${c}` } : {}),
        }));
      }
    }
    const pct = (x) => `${(100 * x).toFixed(1)}%`;
    // The chunks control only applies to interleaving: the other schedules' formula has no v.
    const formula = interleaved ? '(p − 1)/(v·m)' : '(p − 1)/m';
    const summary = `step ${formatSI(data.step_time_s, 's')}, bubble ${pct(data.bubble_fraction)} of the step, ${data.bubble_ratio.toFixed(3)} × the ideal (${formula} = ${data.bubble_ratio_formula.toFixed(3)})`;
    return chart(theme, {
      type: 'bar', indexAxis: 'y', labels, datasets,
      scales: {
        x: linear(`Time (ms): ${summary}`, { min: 0 }),
        y: category({ labels }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => {
        const o = ctx.raw.o;
        const chunk = data.chunks > 1 ? ` (chunk ${o.chunk})` : '';
        return `${o.kind === 'F' ? 'Forward' : 'Backward'} of micro-batch ${o.microbatch}${chunk} on stage ${o.stage}: ${(o.start_s * 1e3).toFixed(2)}–${(o.end_s * 1e3).toFixed(2)} ms`;
      },
    });
  },
};
