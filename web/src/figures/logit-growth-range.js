// Logit growth against fp16's range and bf16's precision: two executed runs of the engine's
// `logit-growth` toy (a softmax classifier trained with Adam on separable data), one without
// a z-loss and one with the chosen coefficient, at the same seed, learning rate and decay.
import { formatFixed, formatSignificant } from '../runtime/format.js';
import { chart, linear, log, colours, line } from './shared/chart-config.js';

export const STEPS = 1000;
export const LOGIT_RANGE = [-10, 90];
export const PRECISION_RANGE = [1e-4, 2];

export default {
  id: 'logit-growth-range',
  title: 'Logit growth: fp16\'s range and bf16\'s precision, with and without z-loss',
  caption:
    'A toy softmax classifier trained with Adam on data it can separate perfectly, executed. Cross-entropy keeps rewarding larger logits, so without a z-loss the largest logit and log Z climb steadily: past 11.09, where e^x overflows fp16, within the first couple of hundred steps, and on to several times that. With PaLM\'s z-loss, 10⁻⁴·(log Z)², log Z is pulled back to about 0 and, at the default learning rate, the largest logit stays below 11.09; at a learning rate of 0.1 it still crosses 11.09 early, before the z-loss has pulled log Z back, and peaks near 17. Switch to the precision view: what sets the error of logits stored in bf16 is the spacing at the logit of largest magnitude, since every stored logit moves by up to half its own spacing. With the z-loss the largest logit is small but the rejected classes sit near −20, where bf16\'s values are 0.125 apart, so the error falls only about twofold. Try a larger learning rate, or weight decay instead of the z-loss.',
  simulation: true,
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'range', options: [
      { value: 'range', label: 'Largest logit and log Z (range)' },
      { value: 'precision', label: 'bf16 spacing and error (precision)' },
    ] },
    { key: 'z_loss', label: 'z-loss coefficient', type: 'select', default: 1e-4,
      options: [1e-5, 1e-4, 1e-3].map((v) => ({ value: v, label: v.toExponential(0).replace('+', '') })) },
    { key: 'lr', label: 'Learning rate', type: 'select', default: 0.03,
      options: [0.01, 0.03, 0.1].map((v) => ({ value: v, label: String(v) })) },
    { key: 'weight_decay', label: 'Weight decay (AdamW)', type: 'select', default: 0,
      options: [0, 0.1, 1].map((v) => ({ value: v, label: String(v) })) },
  ],

  data(engine, p) {
    const base = { steps: STEPS, lr: Number(p.lr), weight_decay: Number(p.weight_decay), seed: 1 };
    const off = engine.calc('logit-growth', { ...base, z_loss: 0 });
    const on = engine.calc('logit-growth', { ...base, z_loss: Number(p.z_loss) });
    const rows = off.series.map((s, i) => {
      const w = on.series[i];
      return [s.step, s.max_logit, s.mean_log_z, w.max_logit, w.mean_log_z, s.bf16_spacing_abs, s.bf16_log_prob_error, w.bf16_spacing_abs, w.bf16_log_prob_error];
    });
    return {
      view: p.view, z_loss: Number(p.z_loss), off, on,
      table: { columns: ['Step', 'Largest logit, no z-loss', 'Mean log Z, no z-loss', `Largest logit, z-loss ${p.z_loss}`,
        `Mean log Z, z-loss ${p.z_loss}`, 'bf16 spacing at the largest |logit|, no z-loss', 'bf16 log-prob error, no z-loss (nats)',
        `bf16 spacing at the largest |logit|, z-loss ${p.z_loss}`, `bf16 log-prob error, z-loss ${p.z_loss} (nats)`], rows },
    };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const { off, on } = data;
    const zl = data.z_loss.toExponential(0).replace('+', '');
    const cOff = pick('compute');
    const cOn = pick('memory');
    const last = (r) => r.series[r.series.length - 1];
    const end = (pts, text) => pts.map((q, i) => (i === pts.length - 1 ? { ...q, label: text } : q));
    const lab = { pointLabels: (raw) => raw.label ?? '' };
    if (data.view === 'precision') {
      const pos = (r, k) => r.series.filter((s) => s[k] > 0).map((s) => ({ x: s.step, y: s[k] }));
      return chart(theme, {
        datasets: [
          line(cOff, { label: 'bf16 spacing at the largest |logit|, no z-loss', group: 'off', stepped: true,
            data: end(pos(off, 'bf16_spacing_abs'), `spacing ${last(off).bf16_spacing_abs}`), ...lab }),
          line(cOff, { label: 'bf16 log-probability error, no z-loss', group: 'off', borderDash: [2, 2], borderWidth: 1,
            data: pos(off, 'bf16_log_prob_error') }),
          line(cOn, { label: `bf16 spacing at the largest |logit|, z-loss ${zl}`, group: 'on', stepped: true,
            data: end(pos(on, 'bf16_spacing_abs'), `spacing ${last(on).bf16_spacing_abs}`), ...lab }),
          line(cOn, { label: `bf16 log-probability error, z-loss ${zl}`, group: 'on', borderDash: [2, 2], borderWidth: 1,
            data: pos(on, 'bf16_log_prob_error') }),
        ],
        scales: {
          x: linear('Adam step (count)', { range: [0, STEPS] }),
          y: log('Spacing or error (nats, log)', { unit: '', range: PRECISION_RANGE }),
        },
        tooltip: (ctx) => `${ctx.dataset.label}: step ${ctx.raw.x}, ${formatSignificant(ctx.raw.y, 3)}`,
      });
    }
    const pts = (r, k) => r.series.map((s) => ({ x: s.step, y: s[k] }));
    const t = off.fp16_exp_overflow_threshold;
    return chart(theme, {
      datasets: [
        line(cOff, { label: 'Largest logit, no z-loss', group: 'off',
          data: end(pts(off, 'max_logit'), `max ${formatFixed(last(off).max_logit, 1)}`), ...lab }),
        line(cOff, { label: 'Mean log Z, no z-loss', group: 'off', borderDash: [6, 3], borderWidth: 1.5,
          data: end(pts(off, 'mean_log_z'), `log Z ${formatFixed(last(off).mean_log_z, 1)}`), ...lab }),
        line(cOn, { label: `Largest logit, z-loss ${zl}`, group: 'on',
          data: end(pts(on, 'max_logit'), `max ${formatFixed(last(on).max_logit, 1)}`), ...lab }),
        line(cOn, { label: `Mean log Z, z-loss ${zl}`, group: 'on', borderDash: [6, 3], borderWidth: 1.5,
          data: end(pts(on, 'mean_log_z'), `log Z ${formatFixed(last(on).mean_log_z, 1)}`), ...lab }),
        line(pick('text'), { label: `fp16: e^x overflows above ln 65,504 = ${formatFixed(t, 2)}`, borderDash: [2, 3],
          data: [{ x: 0, y: t, label: `fp16 limit ${formatFixed(t, 2)}` }, { x: STEPS, y: t }], ...lab }),
      ],
      scales: {
        x: linear('Adam step (count)', { range: [0, STEPS] }),
        y: linear('Logit or log Z (nats)', { range: LOGIT_RANGE }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: step ${ctx.raw.x}, ${formatFixed(ctx.raw.y, 2)}`,
    });
  },
};
