// The error of a finite-difference derivative against the step h, on log-log axes: forward
// (f(x+h) − f(x))/h and central (f(x+h) − f(x−h))/2h differences, with f evaluated in fp64 or
// in fp32. Four calls to calc('gradient-check'), each without `step`, so the engine sweeps
// h = 10^-1 … 10^-12, compares each quotient with its reverse-mode derivative and names the
// best step. Truncation falls as h (forward) or h² (central); rounding grows as ε·|f|/h.
import { EngineError } from '../runtime/engine-api.js';
import { chart, log, colours, series } from './shared/chart-config.js';

const METHODS = ['forward', 'central'];
const DTYPES = ['fp64', 'fp32'];
const H_RANGE = [1e-12, 1e-1];
// The error axis spans fp64's rounding floor to an error of order 100; data beyond it widen it.
const ERROR_RANGE = [1e-16, 1e2];

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
// 10^k as text ("10⁻⁵"), for the powers of ten of the sweep and the axes.
export const powerText = (v) => {
  const k = Math.round(Math.log10(v));
  return `10${String(k).replace(/./g, (c) => SUPERSCRIPT[c])}`;
};
const isPower = (v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
// An error in three significant digits, exponent form below 0.001.
const errText = (e) => (e === 0 ? '0' : e < 1e-3 || e >= 1e4 ? e.toExponential(2).replace('e+', 'e') : String(Number(e.toPrecision(3))));

export default {
  id: 'gradient-check-error',
  title: 'Gradient check: finite-difference error against the step h',
  caption:
    'The error |numeric − analytic| of a finite difference against the step h, both on log scales, for forward and central differences with f computed in fp64 (solid) or fp32 (dashed). Read each V from the right: at large h the error is truncation and falls with slope 1 (forward) or 2 (central); at small h rounding takes over and it rises again as h shrinks. The star on each curve is its best step. Compare the fp32 curves: their bottoms sit far higher and at larger h, and once h falls below about 10⁻⁸, x + h rounds to x in fp32, so the forward quotient is 0 and the error is the whole derivative. Try sqrt(x) at x = 0.01: its curvature is large there, so truncation grows faster with h and every star moves to a smaller step (the balance point depends on f and its second derivative, not on ε alone); the central curves lose their point at h = 0.1, where x − h leaves the domain of sqrt. Or try tanh(x) at 3.',
  params: [
    { key: 'expression', label: 'Function f', from: ['gradient-check', 'expression'], samplesLabel: 'Sample functions',
      samples: ['sqrt(x)', 'tanh(x)', 'sin(x)*x^2', { label: 'log(x - 2), rejected at x = 1: log of a negative number', value: 'log(x - 2)' }] },
    { key: 'values', label: 'Point', from: ['gradient-check', 'values'], samplesLabel: 'Sample points',
      samples: [{ x: 0.01 }, { x: 3 }, { label: '{"y":1}, rejected: x has no value', value: { y: 1 } }] },
    { key: 'variable', label: 'Differentiate by', from: ['gradient-check', 'variable'], default: 'x', samplesLabel: 'Sample variables',
      samples: [{ label: 'y, rejected: f has no y', value: 'y' }] },
  ],

  data(engine, p) {
    const base = { expression: p.expression, values: p.values, ...(p.variable ? { variable: p.variable } : {}) };
    const curves = [];
    for (const dtype of DTYPES) {
      for (const method of METHODS) {
        const r = engine.calc('gradient-check', { ...base, method, dtype });
        curves.push({
          method, dtype, name: `${method[0].toUpperCase()}${method.slice(1)}, ${dtype}`,
          analytic: r.analytic, best_step: r.best_step,
          best_error: r.sweep.find((s) => s.step === r.best_step)?.abs_error ?? r.abs_error,
          sweep: r.sweep,
        });
      }
    }
    if (curves[0].sweep.length === 0) {
      throw new EngineError('values', 'Every step of the sweep leaves the function\'s domain at this point; choose another point.');
    }
    // The rows: one per h of the sweep (a step that leaves f's domain is missing from its curve).
    const steps = [...new Set(curves.flatMap((c) => c.sweep.map((s) => s.step)))].sort((a, b) => b - a);
    const errorAt = (c, h) => c.sweep.find((s) => s.step === h)?.abs_error;
    const table = {
      columns: ['Step h', ...curves.map((c) => `Error, ${c.name}`)],
      rows: [
        ...steps.map((h) => [h, ...curves.map((c) => errorAt(c, h) ?? '–')]),
        ['Best step', ...curves.map((c) => c.best_step)],
      ],
    };
    const positive = curves.flatMap((c) => c.sweep.map((s) => s.abs_error)).filter((e) => e > 0);
    const yRange = positive.length
      ? [Math.min(ERROR_RANGE[0], ...positive), Math.max(ERROR_RANGE[1], ...positive)]
      : ERROR_RANGE;
    return { variable: p.variable || 'x', analytic: curves[0].analytic, curves, yRange, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const datasets = data.curves.map((c) => {
      const dashed = c.dtype === 'fp32';
      // An error of exactly 0 has no place on a log axis: such steps are left out of the curve
      // (the table keeps them).
      const points = c.sweep.filter((s) => s.abs_error > 0).map((s) => ({ x: s.step, y: s.abs_error, best: s.step === c.best_step }));
      return series(pick(), {
        label: `${c.name} (best h = ${powerText(c.best_step)})`,
        data: points,
        showLine: true, borderWidth: 2, ...(dashed ? { borderDash: [6, 3] } : {}),
        pointStyle: points.map((q) => (q.best ? 'star' : 'circle')),
        pointRadius: points.map((q) => (q.best ? 9 : 2.5)),
        pointLabels: (raw) => (raw.best ? `${c.method} ${c.dtype}: h = ${powerText(raw.x)}` : ''),
      });
    });
    return chart(theme, {
      datasets,
      scales: {
        x: log('Step h (log scale, unitless)', { range: H_RANGE,
          ticks: { callback: (v) => (isPower(v) ? powerText(v) : '') } }),
        y: log(`Error |numeric − analytic| of ∂f/∂${data.variable} (log scale, unitless)`, { range: data.yRange,
          ticks: { callback: (v) => (isPower(v) && Math.round(Math.log10(v)) % 2 === 0 ? powerText(v) : '') } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label.split(' (')[0]}: h = ${powerText(ctx.raw.x)}, error ${errText(ctx.raw.y)}`,
    });
  },
};
