// A running sum kept in a low-precision accumulator stops growing: naive summation in bf16
// or fp16 against fp32 accumulation, Kahan's compensated sum and pairwise summation in the
// same low format, all executed with rounding after every addition by calc('summation').
import { chart, log, colours, series } from './shared/chart-config.js';
// Relative errors below this (exact sums included) sit on the error view's bottom edge.
const ERROR_FLOOR = 1e-5;
const relError = (x, exact) => (x === null ? null : Math.max(ERROR_FLOOR, (100 * Math.abs(x - exact)) / exact));
export default {
  id: 'sum-stagnation',
  title: 'A low-precision sum that stops growing',
  caption:
    'The running sum of the addends as each method computes it, every operation rounded to the accumulator’s format. Adding 1 in bf16, the naive sum sticks at 256 while the exact sum keeps climbing; fp32 accumulation, Kahan summation and pairwise summation stay on the exact line. Switch to fp16 and the stall moves to 2048; with uniform addends the naive sum stops too, once half an ulp of the sum reaches the largest addend. Errors of a percent vanish on a five-decade axis: switch the view to the relative error, then raise the number of addends to 100,000 and watch Kahan’s bf16 error climb toward 1 %. In fp8-e4m3 a sum of 4,096 ones passes the format’s maximum, 448: pairwise summation then overflows, and the legend says so.',
  simulation: true,
  params: [
    { key: 'format', label: 'Accumulator format', from: ['summation', 'format'], options: ['bf16', 'fp16', 'fp8-e4m3', 'fp8-e5m2', 'tf32'] },
    { key: 'value', label: 'Addend (or its mean)', from: ['summation', 'value'], scale: 'log', min: 0.001, max: 100 },
    { key: 'count', label: 'Number of addends', from: ['summation', 'count'], scale: 'log' },
    { key: 'distribution', label: 'Addends', from: ['summation', 'distribution'] },
    { key: 'view', label: 'View', type: 'select', default: 'sum', options: [
      { value: 'sum', label: 'Running sum' },
      { value: 'error', label: 'Relative error of each sum' },
    ] },
  ],

  data(engine, p) {
    const r = engine.calc('summation', { format: p.format, value: p.value, count: p.count, distribution: p.distribution, seed: 1 });
    const cell = (x) => (x === null ? 'overflow' : x);
    const err = (x, exact) => (x === null ? 'overflow' : Math.abs(x - exact) / exact);
    const table = p.view === 'error'
      ? {
        columns: ['Additions', 'Exact sum', `Naive (${r.format}), relative error`, 'fp32 accumulator, relative error',
          `Kahan (${r.format}), relative error`, `Pairwise (${r.format}), relative error`],
        rows: r.series.map((s) => [s.step, s.exact, err(s.naive, s.exact), err(s.fp32, s.exact), err(s.kahan, s.exact), err(s.pairwise, s.exact)]),
      }
      : {
        columns: ['Additions', 'Exact sum', `Naive (${r.format})`, 'fp32 accumulator', `Kahan (${r.format})`, `Pairwise (${r.format})`],
        rows: r.series.map((s) => [s.step, s.exact, cell(s.naive), cell(s.fp32), cell(s.kahan), cell(s.pairwise)]),
      };
    return {
      view: p.view, format: r.format, addend: r.addend, count: r.count, stall_count: r.stall_count, stall_sum: r.stall_sum,
      last_growth_step: r.last_growth_step, frozen_additions: r.frozen_additions,
      final: { exact: r.exact, naive: r.naive, fp32: r.fp32, kahan: r.kahan, pairwise: r.pairwise },
      errors: { naive: r.rel_error_naive, fp32: r.rel_error_fp32, kahan: r.rel_error_kahan, pairwise: r.rel_error_pairwise },
      overflow: r.overflow,
      series: r.series,
      table,
    };
  },

  draw(data, theme) {
    const error = data.view === 'error';
    const pts = (key) => data.series.filter((s) => s[key] !== null)
      .map((s) => ({ x: s.step, y: error ? relError(s[key], s.exact) : s[key] }));
    // The error view names each method's final error; an overflowed sum says so in either view.
    const end = (key) => {
      if (data.final[key] === null) return ', overflows';
      if (!error) return '';
      const e = 100 * data.errors[key];
      return `, final error ${e === 0 ? '0' : `${Number(e.toPrecision(2))}%`}`;
    };
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
    const exact = curve('Exact sum', 'exact', pick('text'), 'line', [6, 4]);
    return chart(theme, {
      datasets: [
        ...(error ? [] : [exact]),
        curve(`Naive in ${f}${stall}${end('naive')}`, 'naive', pick('memory'), 'circle'),
        curve(`fp32 accumulator${end('fp32')}`, 'fp32', pick('compute'), 'triangle'),
        curve(`Kahan in ${f}${end('kahan')}`, 'kahan', pick(), 'rect', [2, 2]),
        curve(`Pairwise in ${f}${end('pairwise')}`, 'pairwise', pick(), 'rectRot', [8, 3]),
      ],
      scales: {
        x: log('Additions done (count)', { unit: '' }),
        y: error
          ? log(['Relative error of the sum (%)', `exact or below ${ERROR_FLOOR}% on the bottom edge`], { unit: '', range: [ERROR_FLOOR, 100] })
          : log('Running sum (dimensionless)', { unit: '' }),
      },
      tooltip: (ctx) => `${ctx.dataset.label.split(',')[0]}: ${ctx.raw.y}${error ? '%' : ''} after ${ctx.raw.x} additions`,
    });
  },
};
