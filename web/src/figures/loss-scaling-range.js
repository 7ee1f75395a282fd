// Loss scaling against a format's range: the histogram of scaled gradient magnitudes with
// the subnormal, normal and overflow limits; the fractions lost to zero or overflow as the
// loss scale sweeps, with the largest scale that rarely skips a step; a dynamic loss scaler
// over training steps; and FP8's answer, a scale per tensor, block, tile or MX block.
// calc('loss-scaling'), calc('dynamic-loss-scale') and calc('fp8-block-scaling') do the
// sampling, rounding and simulation.
import { chart, linear, colours, series, line } from './shared/chart-config.js';
const pct = (x) => `${Number((100 * x).toPrecision(3))}%`;
const LS_VIEWS = ['histogram', 'sweep', 'dynamic'];
const GRADS_PER_STEP = 1e8;
const SCHEMES = {
  'per-tensor': 'One scale per tensor',
  'block-128x128': '128×128 blocks (DeepSeek-V3 weights)',
  'tile-1x128': '1×128 tiles (DeepSeek-V3 activations)',
  'mx-1x32': '1×32 blocks, power-of-two scale (MXFP8)',
};

export default {
  id: 'loss-scaling-range',
  title: 'Loss scaling: fitting gradients into fp16',
  caption:
    'Gradient magnitudes drawn from a log-normal model, multiplied by the loss scale and rounded to the format. In the histogram, everything left of the smallest subnormal becomes zero and everything right of the max overflows. Raise the loss scale from 1 to 2^16 and watch the lost fraction fall. The sweep counts what an overflow costs: one overflowing value among the step’s 10^8 skips the whole step, so the best scale is the largest one that skips at most 1 % of steps, not the one that loses the fewest values. The dynamic scaler finds that scale by itself, halving on overflow and doubling after a run of clean steps. The last view is FP8’s version of the problem: one scale for a whole activation tensor lets a few outlier channels push every other value toward zero, and smaller scale groups keep them.',
  simulation: true,
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'histogram', options: [
      { value: 'histogram', label: 'Scaled gradients against the range' },
      { value: 'sweep', label: 'Fractions lost against the loss scale' },
      { value: 'dynamic', label: 'Dynamic loss scale over steps' },
      { value: 'fp8', label: 'FP8: scales per tensor, block or tile' },
    ] },
    { key: 'format', label: 'Format', from: ['loss-scaling', 'format'], options: ['fp16', 'bf16', 'fp8-e5m2', 'fp8-e4m3'], when: { view: LS_VIEWS } },
    { key: 'loss_scale', label: 'Loss scale', from: ['loss-scaling', 'loss_scale'], scale: 'log', min: 1, max: 2 ** 40, when: { view: ['histogram', 'sweep'] } },
    { key: 'mu_log2', label: 'Mean of log2 |gradient|', from: ['loss-scaling', 'mu_log2'], min: -60, max: 10, when: { view: LS_VIEWS } },
    { key: 'sigma_log2', label: 'Std. dev. of log2 |gradient|', from: ['loss-scaling', 'sigma_log2'], max: 10, when: { view: LS_VIEWS } },
    { key: 'growth_interval', label: 'Growth interval (clean steps)', from: ['dynamic-loss-scale', 'growth_interval'], default: 100, max: 5000, when: { view: ['dynamic'] } },
    { key: 'fp8_format', label: 'FP8 element format', from: ['fp8-block-scaling', 'format'], when: { view: ['fp8'] } },
    { key: 'outlier_log2', label: 'Outlier channels above the rest (binades)', from: ['fp8-block-scaling', 'outlier_log2'], max: 20, when: { view: ['fp8'] } },
    { key: 'outlier_channels', label: 'Outlier channels (of 1,024)', from: ['fp8-block-scaling', 'outlier_channels'], when: { view: ['fp8'] } },
  ],

  data(engine, p) {
    if (p.view === 'fp8') {
      const r = engine.calc('fp8-block-scaling', { format: p.fp8_format, outlier_log2: p.outlier_log2,
        outlier_channels: p.outlier_channels, seed: 1 });
      return { view: 'fp8', fp8: r,
        table: { columns: ['Scheme', 'Scale bits per element', 'Elements subnormal or zero', 'Elements zero'],
          rows: r.schemes.map((s) => [SCHEMES[s.scheme], s.scale_bits_per_element, s.lost_fraction, s.zero_fraction]) } };
    }
    const fixed = { format: p.format, mu_log2: p.mu_log2, sigma_log2: p.sigma_log2 };
    // One step holds 1e8 gradients, as in the dynamic view: one overflow among them skips it.
    const r = engine.calc('loss-scaling', { ...fixed, loss_scale: p.loss_scale, samples: 20000, seed: 1,
      grads_per_step: GRADS_PER_STEP, max_skip_fraction: 0.01 });
    const base = {
      view: p.view, format: r.format, loss_scale: r.loss_scale, samples: r.samples,
      fractions: { zero: r.zero_fraction, subnormal: r.subnormal_fraction, normal: r.normal_fraction, overflow: r.overflow_fraction },
      limits: { sub: r.log2_min_subnormal, normal: r.log2_min_normal, max: r.log2_max },
      safe: { log2_scale: r.safe_log2_scale, zero: r.safe_zero_fraction, step: r.safe_step_overflow,
        grads: r.grads_per_step, max_skip: r.max_skip_fraction },
    };
    if (p.view === 'dynamic') {
      // The largest of 1e8 gradients per step sets overflow; the distribution is shifted up
      // 6 binades (log-normal spread makes the maximum ~5.6 sigma above the mean).
      const d = engine.calc('dynamic-loss-scale', { ...fixed, grads_per_step: GRADS_PER_STEP, steps: 3000,
        growth_interval: p.growth_interval, seed: 1 });
      return { ...base, dynamic: d,
        table: { columns: ['Step', 'Loss scale', 'log2 max |gradient|', 'Overflow (step skipped)'],
          rows: d.series.map((s) => [s.step, s.scale, s.log2_max_grad, s.overflow ? 'yes' : 'no']) } };
    }
    if (p.view === 'sweep') {
      return { ...base, sweep: r.sweep,
        table: { columns: ['log2 loss scale', 'Fraction zero', 'Fraction subnormal', 'Fraction overflow', 'Steps with an overflow'],
          rows: r.sweep.map((s) => [s.log2_scale, s.zero, s.subnormal, s.overflow, s.step_overflow]) } };
    }
    return { ...base, histogram: r.histogram,
      table: { columns: ['log2 |g·S| from', 'to', 'Fraction of gradients'],
        rows: r.histogram.map((h) => [h.log2_lo, h.log2_hi, h.fraction]) } };
  },

  draw(data, theme) {
    const axis = (text, extra = {}) => linear(text, { ticks: { maxRotation: 0 }, ...extra });
    const pick = colours(theme);
    const vline = (x, y0, y1, label, colour, dash) => line(colour, { label, data: [{ x, y: y0 }, { x, y: y1 }], borderDash: dash, order: 0 });
    if (data.view === 'fp8') {
      const r = data.fp8;
      const styles = ['circle', 'rect', 'triangle', 'rectRot'];
      const names = r.schemes.map((q) => q.scheme);
      const colourOf = { 'per-tensor': pick('memory'), 'block-128x128': pick(), 'tile-1x128': pick('compute'), 'mx-1x32': pick() };
      return chart(theme, {
        datasets: [
          ...names.map((name, i) => series(colourOf[name], {
            label: `${SCHEMES[name]}: ${pct(r.schemes[i].lost_fraction)}`,
            data: r.sweep.map((q) => ({ x: q.outlier_log2, y: 100 * q.lost_fraction[i] })),
            showLine: true, pointRadius: 3, pointStyle: styles[i], borderWidth: 2, borderDash: i % 2 ? [5, 3] : [] })),
          vline(r.outlier_log2, 0, 100, `Outliers ${r.outlier_log2} binades up (the shares above)`, pick('text'), [6, 3]),
        ],
        scales: { x: axis('Outlier channels above the rest (binades)', { range: [0, 20] }),
          y: axis(`Elements stored subnormal or zero in ${r.format} (%)`, { range: [0, 100] }) },
      });
    }
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
          curve(`Steps skipped (an overflow among 10^${Math.round(Math.log10(data.safe.grads))} gradients)`, 'step_overflow', pick(), 'crossRot', [8, 3]),
          vline(Math.log2(data.loss_scale), 0, 100, `Chosen scale 2^${Math.log2(data.loss_scale).toFixed(1)}`, pick('text'), [6, 3]),
          vline(data.safe.log2_scale, 0, 100, `Best: 2^${data.safe.log2_scale}, largest skipping ≤ ${pct(data.safe.max_skip)} of steps (${pct(data.safe.zero)} zero)`, pick('muted'), [2, 3]),
        ],
        scales: { x: axis('log2 of the loss scale (binades)'), y: axis('Share of gradients (%)', { range: [0, 100] }) },
      });
    }
    const h = data.histogram;
    const top = Math.max(...h.map((b) => b.fraction)) * 100;
    const f = data.fractions;
    return chart(theme, {
      datasets: [
        line(pick('memory'), { label: `${data.samples.toLocaleString('en-US')} drawn: ${pct(f.zero)} zero, ${pct(f.subnormal)} subnormal, ${pct(f.overflow)} overflow`,
          data: h.flatMap((b) => [{ x: b.log2_lo, y: 100 * b.fraction }, { x: b.log2_hi, y: 100 * b.fraction }]),
          fill: 'origin', backgroundColor: pick(), order: 10 }),
        vline(L.sub, 0, top, `Smallest subnormal 2^${L.sub}`, pick('text'), [2, 3]),
        vline(L.normal, 0, top, `Smallest normal 2^${L.normal}`, pick('muted'), [6, 3]),
        vline(L.max, 0, top, `Max ≈ 2^${Number(L.max.toFixed(2))}`, pick('compute'), [10, 3]),
      ],
      // The binades of the format with 24 to spare on each side: fixed for a format, so raising
      // the loss scale moves the histogram across its limits, not the axis under it.
      // Its ends are not ticks of the axis's step: no label of their own (−48 crowding −40).
      scales: { x: axis('log2 |gradient × loss scale| (binades)', { range: [Math.floor(L.sub) - 24, Math.ceil(L.max) + 24], ticks: { maxRotation: 0, includeBounds: false } }),
        y: axis('Share of gradients per bin (%)', { min: 0 }) },
    });
  },
};
