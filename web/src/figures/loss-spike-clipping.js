// Loss spikes from rare bad batches and gradient-norm clipping: two executed runs of the
// engine's `loss-spikes` toy (SGD with momentum on an ill-conditioned linear regression) with
// the same seed and so the same bad batches, one without clipping and one with
// torch.nn.utils.clip_grad_norm_ at the chosen max_norm.
import { formatFixed, formatSignificant } from '../runtime/format.js';
import { chart, linear, log, colours, series, line } from './shared/chart-config.js';

export const STEPS = 600;
// Wide enough for every setting of the controls: the engine stops a run whose loss passes 10¹²
// times its initial loss (a few units at most), and gradient norms stay below 10⁹ on the way.
export const LOSS_RANGE = [1e-3, 1e13];
export const NORM_RANGE = [1e-3, 1e9];

export default {
  id: 'loss-spike-clipping',
  title: 'Loss spikes from bad batches, and gradient-norm clipping',
  caption:
    'A toy training run, executed: SGD with momentum on a linear regression where about one batch in a hundred is bad (inputs 20 times larger, so 400 times the curvature). The same bad batches, marked by crosses, hit both runs. Without clipping a bad batch throws the weights far off and the loss jumps by orders of magnitude, then takes tens of steps to come back, or does not before the next one hits. With the gradient clipped to norm 1 the same batches barely show. Switch to the gradient-norm view to see the clipping threshold; raise the bad-batch scale or the learning rate and watch the unclipped run fall apart.',
  simulation: true,
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'loss', options: [
      { value: 'loss', label: 'Loss per step' },
      { value: 'norm', label: 'Gradient norm per step' },
    ] },
    { key: 'max_norm', label: 'Clipping max_norm', type: 'select', default: 1,
      options: [0.25, 0.5, 1, 2, 5].map((v) => ({ value: v, label: String(v) })) },
    { key: 'spike_scale', label: 'Bad batch input scale', from: ['loss-spikes', 'spike_scale'], min: 5, max: 50 },
    { key: 'spike_rate', label: 'Bad batches (probability per step)', from: ['loss-spikes', 'spike_rate'], min: 0.002, max: 0.03 },
    { key: 'lr', label: 'Learning rate', from: ['loss-spikes', 'lr'], min: 0.01, max: 0.2 },
    { key: 'seed', label: 'Seed', from: ['loss-spikes', 'seed'], min: 1, max: 20 },
  ],

  data(engine, p) {
    const base = { steps: STEPS, lr: p.lr, spike_scale: p.spike_scale, spike_rate: p.spike_rate, seed: p.seed };
    const off = engine.calc('loss-spikes', { ...base, max_norm: 0 });
    const on = engine.calc('loss-spikes', { ...base, max_norm: Number(p.max_norm) });
    const rows = [];
    for (let t = 0; t < Math.max(off.loss.length, on.loss.length); t += 1) {
      rows.push([t, off.loss[t] ?? 'diverged', on.loss[t] ?? 'diverged', off.grad_norm[t] ?? 'diverged', on.grad_norm[t] ?? 'diverged',
        off.bad_steps.includes(t) ? 'bad' : '']);
    }
    return {
      view: p.view, max_norm: Number(p.max_norm), off, on,
      table: { columns: ['Step', 'Loss, no clipping', `Loss, clipped at ${p.max_norm}`, 'Gradient norm, no clipping',
        `Gradient norm, clipped run (before clipping)`, 'Batch'], rows },
    };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const { off, on } = data;
    const key = data.view === 'norm' ? 'grad_norm' : 'loss';
    const pts = (r) => r[key].map((y, x) => ({ x, y })).filter((q) => q.y > 0);
    const worst = (r) => r.spikes.reduce((a, s) => (!a || s.peak_loss > a.peak_loss ? s : a), null);
    const summary = (r) => (r.diverged ? `diverged at step ${r.diverged_step}`
      : `${r.spike_count} spike${r.spike_count === 1 ? '' : 's'}`);
    const labelled = (r, colour, name, group) => {
      const w = worst(r);
      return line(colour, {
        label: `${name}: ${summary(r)}`, group,
        data: pts(r).map((q) => (data.view === 'loss' && w && q.x === w.peak_step
          ? { ...q, label: `peak ${formatSignificant(w.peak_loss, 3)} (×${formatSignificant(w.peak_loss / w.loss_before, 2)})` } : q)),
        pointLabels: (raw) => raw.label ?? '',
      });
    };
    const cOff = pick('compute');
    const cOn = pick('memory');
    const datasets = [
      labelled(off, cOff, 'No clipping', 'off'),
      labelled(on, cOn, `Clipped at max_norm ${data.max_norm} (${formatFixed(100 * on.clipped_fraction, 1)}% of steps)`, 'on'),
      series(pick('text'), { label: 'Bad batch', pointStyle: 'crossRot', pointRadius: 7, borderWidth: 2,
        data: off.bad_steps.filter((t) => off[key][t] > 0).map((t) => ({ x: t, y: off[key][t] })) }),
    ];
    if (data.view === 'norm') {
      datasets.push(line(pick('muted'), { label: `max_norm = ${data.max_norm}`, borderDash: [6, 3],
        data: [{ x: 0, y: data.max_norm }, { x: STEPS, y: data.max_norm }] }));
    } else {
      datasets.push(line(pick('muted'), { label: `Noise floor ½σ² = ${formatSignificant(off.loss_floor, 3)}`, borderDash: [6, 3],
        data: [{ x: 0, y: off.loss_floor }, { x: STEPS, y: off.loss_floor }] }));
    }
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Training step (count)', { range: [0, STEPS] }),
        y: data.view === 'norm'
          ? log('Gradient norm before clipping (log)', { unit: '', range: NORM_RANGE })
          : log('Loss (log, population loss)', { unit: '', range: LOSS_RANGE }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: step ${ctx.raw.x}, ${formatSignificant(ctx.raw.y, 3)}`,
    });
  },
};
