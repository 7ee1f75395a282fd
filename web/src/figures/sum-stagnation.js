// A running sum kept in a low-precision accumulator stops growing: naive summation in bf16
// or fp16 against fp32 accumulation, Kahan's compensated sum and pairwise summation in the
// same low format, all executed with rounding after every addition by calc('summation').
import { chart, log, colours, series } from './shared/chart-config.js';
export default {
  id: 'sum-stagnation',
  title: 'A low-precision sum that stops growing',
  caption:
    'The running sum of the addends as each method computes it, every operation rounded to the accumulator’s format. Adding 1 in bf16, the naive sum sticks at 256 while the exact sum keeps climbing; fp32 accumulation, Kahan summation and pairwise summation stay on the exact line. Switch to fp16 and the stall moves to 2048; with uniform addends the naive sum stops too, once half an ulp of the sum reaches the largest addend; with 100,000 addends even Kahan’s bf16 sum drifts from the exact line.',
  simulation: true,
  params: [
    { key: 'format', label: 'Accumulator format', from: ['summation', 'format'], options: ['bf16', 'fp16', 'fp8-e4m3', 'fp8-e5m2', 'tf32'] },
    { key: 'value', label: 'Addend (or its mean)', from: ['summation', 'value'], scale: 'log', min: 0.001, max: 100 },
    { key: 'count', label: 'Number of addends', from: ['summation', 'count'], scale: 'log' },
    { key: 'distribution', label: 'Addends', from: ['summation', 'distribution'] },
  ],

  data(engine, p) {
    const r = engine.calc('summation', { format: p.format, value: p.value, count: p.count, distribution: p.distribution, seed: 1 });
    const cell = (x) => (x === null ? 'overflow' : x);
    return {
      format: r.format, addend: r.addend, count: r.count, stall_count: r.stall_count, stall_sum: r.stall_sum,
      last_growth_step: r.last_growth_step, frozen_additions: r.frozen_additions,
      final: { exact: r.exact, naive: r.naive, fp32: r.fp32, kahan: r.kahan, pairwise: r.pairwise },
      overflow: r.overflow,
      series: r.series,
      table: {
        columns: ['Additions', 'Exact sum', `Naive (${r.format})`, 'fp32 accumulator', `Kahan (${r.format})`, `Pairwise (${r.format})`],
        rows: r.series.map((s) => [s.step, s.exact, cell(s.naive), cell(s.fp32), cell(s.kahan), cell(s.pairwise)]),
      },
    };
  },

  draw(data, theme) {
    const pts = (key) => data.series.filter((s) => s[key] !== null).map((s) => ({ x: s.step, y: s[key] }));
    const f = data.format;
    // Varying addends stall too: a naive sum that did not move over the last quarter of the
    // additions or more has stopped, where half its ulp passed the largest addend.
    const stopped = data.frozen_additions >= data.count / 4
      ? `, stops at ${data.final.naive} after ${data.last_growth_step} additions` : '';
    const stall = data.stall_count !== null ? `, stuck at ${data.stall_sum} after ${data.stall_count} additions` : stopped;
    const pick = colours(theme);
    const curve = (label, key, colour, style, dash = []) => series(colour, {
      label, data: pts(key), showLine: true, pointStyle: style, pointRadius: 2, borderWidth: 2, borderDash: dash,
    });
    return chart(theme, {
      datasets: [
        curve('Exact sum', 'exact', pick('text'), 'line', [6, 4]),
        curve(`Naive in ${f}${stall}`, 'naive', pick('memory'), 'circle'),
        curve('fp32 accumulator', 'fp32', pick('compute'), 'triangle'),
        curve(`Kahan in ${f}`, 'kahan', pick(), 'rect', [2, 2]),
        curve(`Pairwise in ${f}`, 'pairwise', pick(), 'rectRot', [8, 3]),
      ],
      scales: { x: log('Additions done (count)'), y: log('Running sum (dimensionless)') },
      tooltip: (ctx) => `${ctx.dataset.label.split(',')[0]}: ${ctx.raw.y} after ${ctx.raw.x} additions`,
    });
  },
};
