// Time to first token against time per output token as the prompt grows: prefill pushes the
// whole prompt through the weights in one pass (compute-bound past the crossover prompt the
// engine reports), decode re-reads the weights and KV cache for every token. Each point is one
// calc('decode') with context = prompt, so a prefill and a decode step move the same bytes:
// prefill's memory roof is the decode step's, drawn once as TPOT's memory-bound part.
import { formatSI, formatFixed, logTick } from '../runtime/format.js';

// Time ticks in seconds throughout: 100 s, not the 1.67 min an SI formatter writes.
const secondsTick = logTick('s');
export const timeTick = (v, i, ticks) => {
  const label = secondsTick(v, i, ticks);
  return label && v >= 60 ? `${formatFixed(v, 0)} s` : label;
};
import { chart, log, span, colours, series, line } from './shared/chart-config.js';
import { modelParam, modelConfig } from './kv-cache-capacity.js';

// 16 to 32,768 tokens: short chat turns (memory-bound prefill) to long documents.
const PROMPTS = Array.from({ length: 23 }, (_, i) => Math.round(16 * 2 ** (i / 2)));
const MAX_BATCH = 256;

export default {
  id: 'ttft-tpot',
  title: 'Prefill and decode: TTFT against TPOT',
  caption:
    'Roofline time to first token (prefill of the prompt) and time per output token (one decode step at that context) against prompt length, each phase\'s compute roof dashed. Prefill moves the same bytes as a decode step at that context, so its memory roof is the TPOT curve: left of the dotted line the prompt is too short for prefill to be compute-bound and TTFT lies on TPOT; right of it TTFT climbs along its compute roof. Raise the batch and see the crossover move to shorter prompts and TTFT grow in proportion, while TPOT barely moves until the KV cache dominates.',
  params: [
    modelParam('llama-3-8b'),
    { key: 'hardware', label: 'Accelerator', from: ['decode', 'hardware'] },
    { key: 'batch', label: 'Batch (sequences)', from: ['decode', 'batch'], max: MAX_BATCH, scale: 'log' },
    { key: 'weight_dtype', label: 'Weight type', from: ['decode', 'weight_dtype'], options: ['bf16', 'fp8-e4m3', 'int8', 'int4'] },
  ],

  data(engine, p) {
    const cfg = modelConfig(engine, p.model);
    const decode = (n, batch) => engine.calc('decode', { ...cfg, weight_dtype: p.weight_dtype, batch, prompt: n, context: n, hardware: p.hardware });
    const points = PROMPTS.map((n) => {
      const r = decode(n, p.batch);
      return {
        prompt: n, ttft_s: r.ttft_s, tpot_s: r.tpot_s, crossover: r.prefill_crossover_prompt,
        prefill_memory_s: r.prefill.bytes / r.bandwidth_Bps, prefill_compute_s: r.prefill.flops / r.peak_flops,
        decode_memory_s: r.decode_step.bytes / r.bandwidth_Bps, decode_compute_s: r.decode_step.flops / r.peak_flops,
        prefill_bound: r.prefill_bound, decode_bound: r.bound,
      };
    });
    const table = {
      columns: ['Prompt (tokens)', 'TTFT (s)', 'TPOT (s)', 'Prefill compute time (s)', 'Prefill memory time (s)', 'Decode compute time (s)', 'Prefill bound', 'Decode bound'],
      rows: points.map((q) => [q.prompt, q.ttft_s, q.tpot_s, q.prefill_compute_s, q.prefill_memory_s, q.decode_compute_s, q.prefill_bound, q.decode_bound]),
    };
    // The shortest compute-bound prompt at this batch (the same for every point).
    const crossover = points[0].crossover;
    // The time axis spans every batch of the control (the shortest prompt at batch 1, the
    // longest at the largest batch), so that raising the batch shows TTFT grow.
    const [small, large] = [decode(PROMPTS[0], 1), decode(PROMPTS.at(-1), MAX_BATCH)];
    const times = (r) => [r.ttft_s, r.tpot_s, r.prefill.compute_time_s, r.prefill.memory_time_s, r.decode_step.compute_time_s];
    const range = span([...times(small), ...times(large), ...points.flatMap((q) => [q.ttft_s, q.tpot_s, q.prefill_compute_s, q.decode_compute_s])], { log: true, pad: 1.5 });
    return { batch: p.batch, points, crossover, range, table };
  },

  draw(data, theme) {
    // Each phase in one colour, its compute roof dashed (group: the same phase). Prefill's memory
    // roof coincides with the decode step's bytes, so it is named on the TPOT curve, not redrawn.
    const pick = colours(theme);
    const [prefill, decode] = [pick('compute'), pick('memory')];
    const curve = (colour, group, label, field, style, dash) => series(colour, {
      label, data: data.points.map((q) => ({ x: q.prompt, y: q[field], q })), showLine: true, pointStyle: style,
      pointRadius: dash.length ? 0 : 3, borderWidth: 2, borderDash: dash, group,
    });
    const datasets = [
      // Left of the crossover TTFT lies on TPOT: larger triangles under the circles show both.
      { ...curve(prefill, 'prefill', 'TTFT: prefill of the prompt', 'ttft_s', 'triangle', []), pointRadius: 5 },
      curve(prefill, 'prefill', 'Prefill if only FLOPs counted (compute roof)', 'prefill_compute_s', 'line', [4, 4]),
      { ...curve(decode, 'decode', 'TPOT: one decode step (also prefill\'s memory roof: the same bytes)', 'tpot_s', 'circle', []), order: -1 },
      curve(decode, 'decode', 'Decode if only FLOPs counted (compute roof)', 'decode_compute_s', 'line', [4, 4]),
    ];
    const c = data.crossover;
    const shown = c >= PROMPTS[0] && c <= PROMPTS.at(-1);
    datasets.push(line(pick('text'), {
      label: c > 0 ? `Prefill turns compute-bound at ${formatFixed(c, 0)} tokens${shown ? '' : ' (off the axis)'}` : 'Prefill memory-bound at every prompt',
      data: shown ? [{ x: c, y: data.range[0] }, { x: c, y: data.range[1] }] : [], borderWidth: 1.5, borderDash: [2, 3],
    }));
    return chart(theme, {
      datasets,
      scales: {
        x: log('Prompt length = context (tokens)', { unit: '', range: [PROMPTS[0], PROMPTS.at(-1)] }),
        y: log('Time (s)', { range: data.range, ticks: { callback: timeTick } }),
      },
      tooltip: (ctx) => (ctx.raw.q ? `${ctx.dataset.label.split(':')[0].split(' (')[0]} at ${ctx.raw.q.prompt} tokens: ${formatSI(ctx.parsed.y, 's')}` : ctx.dataset.label),
    });
  },
};
