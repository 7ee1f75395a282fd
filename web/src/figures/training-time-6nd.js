// Training time from C = 6·N·D: days against the number of accelerators for several chips,
// at a chosen model size, token count and MFU. One `training-time` call per point.
import { formatSI } from '../runtime/format.js';
import { chart, log, span, colours, series, line } from './shared/chart-config.js';

const CHIPS = ['a100-sxm-80gb', 'h100-sxm', 'b200', 'mi300x', 'tpu-v5p'];
const GPUS = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768];
const MFU = [0.05, 0.8]; // the MFU control's range
const REFERENCE_MFU = 0.4; // the dashed comparison line of the highlighted chip

export default {
  id: 'training-time-6nd',
  title: 'How long will it train? Days from 6ND',
  caption:
    'Wall-clock days to train N parameters on D tokens, C = 6·N·D FLOPs at a sustained MFU, against the number of accelerators (log-log: doubling the chips halves the time). Start with a 70B model on 2T tokens and a 24-day deadline (the dotted line), which 1,024 H100s meet at 40% MFU; then drop MFU to 25%: the highlighted line rises above its dashed 40% copy, and the legend entry of the deadline gives the highlighted chips each MFU needs to finish in time.',
  params: [
    { key: 'params', label: 'Parameters N', type: 'select', default: 70e9,
      options: [7e9, 13e9, 34e9, 70e9, 175e9, 405e9, 1e12].map((v) => ({ value: v, label: `${v >= 1e12 ? `${v / 1e12}T` : `${v / 1e9}B`}` })) },
    { key: 'tokens', label: 'Tokens D', type: 'select', default: 2e12,
      options: [0.3e12, 1e12, 1.4e12, 2e12, 4e12, 8e12, 15e12].map((v) => ({ value: v, label: `${v / 1e12}T` })) },
    { key: 'mfu', label: 'MFU', type: 'number', unit: '', min: MFU[0], max: MFU[1], default: 0.4 },
    { key: 'hardware', label: 'Highlighted accelerator', from: ['training-time', 'hardware'] },
    { key: 'deadline_days', label: 'Deadline (days)', type: 'number', unit: '', min: 1, max: 1000, default: 24, scale: 'log' },
  ],

  data(engine, p) {
    const series = CHIPS.map((hw) => ({
      hardware: hw,
      name: engine.calc('hardware', { id: hw }).name,
      points: GPUS.map((g) => {
        const r = engine.calc('training-time', { params: Number(p.params), tokens: Number(p.tokens), devices: g, hardware: hw, dtype: 'bf16', mfu: p.mfu });
        return { x: g, y: r.time_days, hours: r.device_hours };
      }),
    }));
    const days = (devices, hardware, mfu) => engine.calc('training-time', { params: Number(p.params), tokens: Number(p.tokens), devices, hardware, dtype: 'bf16', mfu });
    const mine = GPUS.map((g) => engine.calc('training-time', { params: Number(p.params), tokens: Number(p.tokens), devices: g, hardware: p.hardware, dtype: 'bf16', mfu: p.mfu }));
    // The days axis spans the whole MFU control (fewest chips at the lowest MFU, most chips at
    // the highest), so that dropping MFU moves the lines up against a fixed axis.
    const range = span([...CHIPS, p.hardware].flatMap((hw) => [days(GPUS[0], hw, MFU[0]).time_days, days(GPUS.at(-1), hw, MFU[1]).time_days]), { log: true, pad: 1.5 });
    const totalFlops = mine[0].total_flops;
    const highlighted = { hardware: p.hardware, name: engine.calc('hardware', { id: p.hardware }).name, points: GPUS.map((g, i) => ({ x: g, y: mine[i].time_days, hours: mine[i].device_hours })) };
    const table = {
      columns: ['Accelerators', ...series.map((s) => `${s.name} (days)`)],
      rows: GPUS.map((g, i) => [g, ...series.map((s) => s.points[i].y)]),
    };
    // Accelerators of the highlighted kind that finish by the deadline, at the chosen MFU and at
    // the reference 40%: time scales as 1/devices, so one device's time over the deadline.
    const needed = (mfu) => Math.ceil(days(1, p.hardware, mfu).time_days / p.deadline_days - 1e-9);
    const reference = GPUS.map((g) => ({ x: g, y: days(g, p.hardware, REFERENCE_MFU).time_days }));
    const deadline = { days: p.deadline_days, needed: needed(p.mfu), needed_reference: needed(REFERENCE_MFU) };
    return { totalFlops, series, highlighted, gpuHours: mine[0].device_hours, range, table, mfu: p.mfu, reference, deadline };
  },

  draw(data, theme) {
    const styles = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot'];
    const pick = colours(theme);
    const datasets = data.series.map((s, i) => series(pick(), {
      label: s.hardware === data.highlighted.hardware ? `${s.name}: ${formatSI(data.gpuHours, '')} GPU-hours` : s.name, data: s.points, showLine: true,
      pointStyle: styles[i], pointRadius: 3, borderWidth: s.hardware === data.highlighted.hardware ? 4 : 1.5,
    }));
    const mine = data.series.findIndex((s) => s.hardware === data.highlighted.hardware);
    const colour = mine >= 0 ? datasets[mine].borderColor : pick();
    if (Math.abs(data.mfu - REFERENCE_MFU) > 1e-9) {
      datasets.push(line(colour, { label: `${data.highlighted.name} at ${100 * REFERENCE_MFU}% MFU`, data: data.reference, borderDash: [6, 4], borderWidth: 1.5 }));
    }
    const d = data.deadline;
    const pct = (m) => `${Number((100 * m).toPrecision(3))}%`;
    const counts = Math.abs(data.mfu - REFERENCE_MFU) > 1e-9
      ? `${d.needed.toLocaleString('en-US')} chips at ${pct(data.mfu)} MFU, ${d.needed_reference.toLocaleString('en-US')} at ${pct(REFERENCE_MFU)}`
      : `${d.needed.toLocaleString('en-US')} chips at ${pct(data.mfu)} MFU`;
    // Short enough for a phone's legend row; the chips are the highlighted ones.
    datasets.push(line(pick('text'), { label: `Deadline ${d.days} days: ${counts}`, data: [{ x: GPUS[0], y: d.days }, { x: GPUS.at(-1), y: d.days }], borderDash: [2, 3], borderWidth: 1.5 }));
    return chart(theme, {
      datasets,
      scales: {
        x: log('Accelerators (count)', { unit: '' }),
        y: log(`Training time (days), C = ${data.totalFlops.toExponential(2)} FLOP`, { unit: '', range: data.range }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.raw.x} chips, ${ctx.raw.y.toFixed(1)} days`,
    });
  },
};
