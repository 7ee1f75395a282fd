// Training time from C = 6·N·D: days against the number of accelerators for several chips,
// at a chosen model size, token count and MFU. One `training-time` call per point.
import { formatSI, logTick } from '../runtime/format.js';

const CHIPS = ['a100-sxm-80gb', 'h100-sxm', 'b200', 'mi300x', 'tpu-v5p'];
const GPUS = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768];

export default {
  id: 'training-time-6nd',
  title: 'How long will it train? Days from 6ND',
  caption:
    'Wall-clock days to train N parameters on D tokens, C = 6·N·D FLOPs at a sustained MFU, against the number of accelerators (log-log: doubling the chips halves the time). Start with a 70B model on 2T tokens; then drop MFU from 40% to 25% and see how many extra H100s that costs for the same deadline.',
  params: [
    { key: 'params', label: 'Parameters N', type: 'select', default: 70e9,
      options: [7e9, 13e9, 34e9, 70e9, 175e9, 405e9, 1e12].map((v) => ({ value: v, label: `${v >= 1e12 ? `${v / 1e12}T` : `${v / 1e9}B`}` })) },
    { key: 'tokens', label: 'Tokens D', type: 'select', default: 2e12,
      options: [0.3e12, 1e12, 1.4e12, 2e12, 4e12, 8e12, 15e12].map((v) => ({ value: v, label: `${v / 1e12}T` })) },
    { key: 'mfu', label: 'MFU', type: 'number', unit: '', min: 0.05, max: 0.8, default: 0.4 },
    { key: 'hardware', label: 'Highlighted accelerator', from: ['training-time', 'hardware'] },
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
    const mine = GPUS.map((g) => engine.calc('training-time', { params: Number(p.params), tokens: Number(p.tokens), devices: g, hardware: p.hardware, dtype: 'bf16', mfu: p.mfu }));
    const totalFlops = mine[0].total_flops;
    const highlighted = { hardware: p.hardware, name: engine.calc('hardware', { id: p.hardware }).name, points: GPUS.map((g, i) => ({ x: g, y: mine[i].time_days, hours: mine[i].device_hours })) };
    const table = {
      columns: ['Accelerators', ...series.map((s) => `${s.name} (days)`)],
      rows: GPUS.map((g, i) => [g, ...series.map((s) => s.points[i].y)]),
    };
    return { totalFlops, series, highlighted, gpuHours: mine[0].device_hours, table };
  },

  draw(data, theme) {
    const colors = [theme.palette[0], theme.compute, theme.palette[2], theme.palette[3], theme.palette[4]];
    const styles = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot'];
    const datasets = data.series.map((s, i) => ({
      label: s.hardware === data.highlighted.hardware ? `${s.name}: ${formatSI(data.gpuHours, '')} GPU-hours` : s.name, data: s.points, showLine: true, borderColor: colors[i], backgroundColor: colors[i],
      pointStyle: styles[i], pointRadius: 3, borderWidth: s.hardware === data.highlighted.hardware ? 4 : 1.5,
    }));
    return {
      type: 'scatter',
      data: { datasets },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: { type: 'logarithmic', title: { display: true, text: 'Accelerators (count)', color: theme.text }, ticks: { color: theme.muted, maxRotation: 0, callback: logTick('') }, grid: { color: theme.grid } },
          y: { type: 'logarithmic', title: { display: true, text: `Training time (days), C = ${data.totalFlops.toExponential(2)} FLOP`, color: theme.text }, ticks: { color: theme.muted, callback: logTick('') }, grid: { color: theme.grid } },
        },
        plugins: {
          legend: { labels: { color: theme.text, usePointStyle: true } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.raw.x} chips, ${ctx.raw.y.toFixed(1)} days` } },
        },
      },
    };
  },
};
