// Loss scaling against a format's range: the histogram of scaled gradient magnitudes with
// the subnormal, normal and overflow limits; the fractions lost to zero or overflow as the
// loss scale sweeps; and a dynamic loss scaler over training steps. calc('loss-scaling')
// and calc('dynamic-loss-scale') do the sampling, rounding and simulation.
import { chart, linear, colours, series, line } from './shared/chart-config.js';
const pct = (x) => `${Number((100 * x).toPrecision(3))}%`;

export default {
  id: 'loss-scaling-range',
  title: 'Loss scaling: fitting gradients into fp16',
  caption:
    'Gradient magnitudes drawn from a log-normal model, multiplied by the loss scale and rounded to the format. In the histogram, everything left of the smallest subnormal becomes zero and everything right of the max overflows. Raise the loss scale from 1 to 2^16 and watch the lost fraction fall; switch the view to the sweep to see the window of good scales, or to the dynamic scaler, which finds that window by itself by halving on overflow and doubling after a run of clean steps.',
  simulation: true,
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'histogram', options: [
      { value: 'histogram', label: 'Scaled gradients against the range' },
      { value: 'sweep', label: 'Fractions lost against the loss scale' },
      { value: 'dynamic', label: 'Dynamic loss scale over steps' },
    ] },
    { key: 'format', label: 'Format', from: ['loss-scaling', 'format'], options: ['fp16', 'bf16', 'fp8-e5m2', 'fp8-e4m3'] },
    { key: 'loss_scale', label: 'Loss scale', from: ['loss-scaling', 'loss_scale'], scale: 'log', min: 1, max: 2 ** 40 },
    { key: 'mu_log2', label: 'Mean of log2 |gradient|', from: ['loss-scaling', 'mu_log2'], min: -60, max: 10 },
    { key: 'sigma_log2', label: 'Std. dev. of log2 |gradient|', from: ['loss-scaling', 'sigma_log2'], max: 10 },
    { key: 'growth_interval', label: 'Growth interval (dynamic view)', from: ['dynamic-loss-scale', 'growth_interval'], default: 100, max: 5000 },
  ],

  data(engine, p) {
    const fixed = { format: p.format, mu_log2: p.mu_log2, sigma_log2: p.sigma_log2 };
    const r = engine.calc('loss-scaling', { ...fixed, loss_scale: p.loss_scale, samples: 20000, seed: 1 });
    const base = {
      view: p.view, format: r.format, loss_scale: r.loss_scale,
      fractions: { zero: r.zero_fraction, subnormal: r.subnormal_fraction, normal: r.normal_fraction, overflow: r.overflow_fraction },
      limits: { sub: r.log2_min_subnormal, normal: r.log2_min_normal, max: r.log2_max },
      best_log2_scale: r.best_log2_scale,
    };
    if (p.view === 'dynamic') {
      // The largest of 1e8 gradients per step sets overflow; the distribution is shifted up
      // 6 binades (log-normal spread makes the maximum ~5.6 sigma above the mean).
      const d = engine.calc('dynamic-loss-scale', { ...fixed, grads_per_step: 1e8, steps: 3000,
        growth_interval: p.growth_interval, seed: 1 });
      return { ...base, dynamic: d,
        table: { columns: ['Step', 'Loss scale', 'log2 max |gradient|', 'Overflow (step skipped)'],
          rows: d.series.map((s) => [s.step, s.scale, s.log2_max_grad, s.overflow ? 'yes' : 'no']) } };
    }
    if (p.view === 'sweep') {
      return { ...base, sweep: r.sweep,
        table: { columns: ['log2 loss scale', 'Fraction zero', 'Fraction subnormal', 'Fraction overflow'],
          rows: r.sweep.map((s) => [s.log2_scale, s.zero, s.subnormal, s.overflow]) } };
    }
    return { ...base, histogram: r.histogram,
      table: { columns: ['log2 |g·S| from', 'to', 'Fraction of gradients'],
        rows: r.histogram.map((h) => [h.log2_lo, h.log2_hi, h.fraction]) } };
  },

  draw(data, theme) {
    const axis = (text, extra = {}) => linear(text, { ticks: { maxRotation: 0 }, ...extra });
    const pick = colours(theme);
    const vline = (x, y0, y1, label, colour, dash) => line(colour, { label, data: [{ x, y: y0 }, { x, y: y1 }], borderDash: dash, order: 0 });
    const L = data.limits;
    if (data.view === 'dynamic') {
      const s = data.dynamic.series;
      return chart(theme, {
        datasets: [
          line(pick('compute'), { label: `log2 loss scale (final 2^${Math.log2(data.dynamic.final_scale)})`, data: s.map((q) => ({ x: q.step, y: q.log2_scale })),
            stepped: true }),
          series(pick('memory'), { label: 'log2 of the step’s largest |gradient| × scale', data: s.map((q) => ({ x: q.step, y: q.log2_max_grad + q.log2_scale })),
            pointRadius: 1.5, pointStyle: 'circle' }),
          series(pick('text'), { label: `Overflow, step skipped (${data.dynamic.skipped_steps} of ${data.dynamic.steps})`,
            data: s.filter((q) => q.overflow).map((q) => ({ x: q.step, y: q.log2_max_grad + q.log2_scale })),
            pointRadius: 6, pointStyle: 'crossRot', borderWidth: 2 }),
          line(pick('muted'), { label: `log2 max of ${data.format} = ${L.max.toFixed(2)}`, data: [{ x: 0, y: L.max }, { x: data.dynamic.steps, y: L.max }],
            borderDash: [6, 3], order: 0 }),
        ],
        scales: { x: axis('Training step (count)'), y: axis('log2 of value (binades)') },
      });
    }
    if (data.view === 'sweep') {
      const sw = data.sweep;
      const curve = (label, key, colour, style, dash = []) => series(colour, { label, data: sw.map((q) => ({ x: q.log2_scale, y: 100 * q[key] })),
        showLine: true, pointRadius: 2, pointStyle: style, borderWidth: 2, borderDash: dash });
      return chart(theme, {
        datasets: [
          curve('Rounds to zero', 'zero', pick('memory'), 'circle'),
          curve('Subnormal (precision lost)', 'subnormal', pick(), 'rect', [3, 3]),
          curve('Overflows', 'overflow', pick('compute'), 'triangle'),
          vline(Math.log2(data.loss_scale), 0, 100, `Chosen scale 2^${Math.log2(data.loss_scale).toFixed(1)}`, pick('text'), [6, 3]),
          vline(data.best_log2_scale, 0, 100, `Fewest lost: 2^${data.best_log2_scale}`, pick('muted'), [2, 3]),
        ],
        scales: { x: axis('log2 of the loss scale (binades)'), y: axis('Share of gradients (%)', { range: [0, 100] }) },
      });
    }
    const h = data.histogram;
    const top = Math.max(...h.map((b) => b.fraction)) * 100;
    const f = data.fractions;
    return chart(theme, {
      datasets: [
        line(pick('memory'), { label: `Scaled gradients: ${pct(f.zero)} zero, ${pct(f.subnormal)} subnormal, ${pct(f.overflow)} overflow`,
          data: h.flatMap((b) => [{ x: b.log2_lo, y: 100 * b.fraction }, { x: b.log2_hi, y: 100 * b.fraction }]),
          fill: 'origin', backgroundColor: pick(), order: 10 }),
        vline(L.sub, 0, top, `Smallest subnormal 2^${L.sub}`, pick('text'), [2, 3]),
        vline(L.normal, 0, top, `Smallest normal 2^${L.normal}`, pick('muted'), [6, 3]),
        vline(L.max, 0, top, `Max ≈ 2^${L.max.toFixed(2)}`, pick('compute'), [10, 3]),
      ],
      // The binades of the format with 24 to spare on each side: fixed for a format, so raising
      // the loss scale moves the histogram across its limits, not the axis under it.
      scales: { x: axis('log2 |gradient × loss scale| (binades)', { range: [Math.floor(L.sub) - 24, Math.ceil(L.max) + 24] }),
        y: axis('Share of gradients per bin (%)', { min: 0 }) },
    });
  },
};
