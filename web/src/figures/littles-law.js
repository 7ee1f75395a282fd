// Latency hiding by Little's law: achieved HBM bandwidth against resident warps per SM, for
// several amounts of data each warp keeps in flight. Each curve is one calc('latency-hiding')
// call: min(peak, SMs × warps × bytes per warp / latency). On the H200 the figure also shows
// what the course's probe measured for float4 loads (the result's `probe`), so the gap between
// the unloaded-latency model and real loads is visible.
import { formatSI } from '../runtime/format.js';
import { chart, linear, colours, series, line } from './shared/chart-config.js';

const LOADS = [
  { value: 128, label: '128 B: one 4-byte load per thread (float)', short: '128 B (float)' },
  { value: 256, label: '256 B: one 8-byte load per thread (float2)', short: '256 B (float2)' },
  { value: 512, label: '512 B: one 16-byte load per thread (float4)', short: '512 B (float4)' },
  { value: 1024, label: '1 KiB: two independent float4 loads per thread', short: '1 KiB (2 × float4)' },
  { value: 2048, label: '2 KiB: four independent float4 loads per thread', short: '2 KiB (4 × float4)' },
];
const STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot'];
const DASHES = [[2, 3], [6, 3], [], [10, 4, 2, 4], [1, 1]];

export default {
  id: 'littles-law',
  title: "Hiding memory latency with warps (Little's law)",
  caption:
    "Bandwidth a streaming kernel can reach against the warps resident on each SM: each warp keeps some bytes of loads in flight, and Little's law says bandwidth = bytes in flight ÷ latency until the bus saturates. Switch to 4-byte loads and see that even a full SM cannot reach the peak; then pick two float4 loads per thread and count how few warps suffice. Choose the H200 to see what a real float4 kernel measured: below the model at every warp count, because loads in flight see more than the unloaded latency.",
  params: [
    { key: 'hardware', label: 'GPU', from: ['latency-hiding', 'hardware'], options: ['h100-sxm', 'a100-sxm-80gb', 'h200-sxm', 'h100-pcie'] },
    { key: 'bytes_per_warp', label: 'Bytes in flight per warp', type: 'select', default: 512, options: LOADS },
    { key: 'warps_per_sm', label: 'Resident warps per SM', from: ['latency-hiding', 'warps_per_sm'] },
  ],

  data(engine, p) {
    const run = (bytes) => engine.calc('latency-hiding', { hardware: p.hardware, warps_per_sm: p.warps_per_sm, bytes_per_warp: bytes });
    const chosen = run(p.bytes_per_warp);
    const series = LOADS.map((o, i) => {
      const r = o.value === p.bytes_per_warp ? chosen : run(o.value);
      return {
        bytes: o.value, label: o.short, selected: o.value === p.bytes_per_warp, style: i,
        needed: r.warps_needed_per_sm, feasible: r.feasible,
        points: r.curve.map((q) => ({ x: q.warps_per_sm, y: q.achieved_bandwidth_Bps })),
      };
    });
    const name = engine.calc('hardware', { id: p.hardware }).name;
    // The probe ran on one GPU with one float4 per thread: shown only where it applies.
    const probe = chosen.probe.hardware === p.hardware ? chosen.probe : null;
    return {
      probe: probe && {
        bytesPerWarp: probe.bytes_per_warp,
        points: probe.points.map((q) => ({ x: q.warps_per_sm, y: q.measured_bandwidth_Bps, q })),
        one: probe.points[0],
      },
      name, warps: p.warps_per_sm, bytesPerWarp: p.bytes_per_warp, peak: chosen.bandwidth_Bps, latency: chosen.latency_s,
      sms: chosen.sms, neededPerSm: chosen.needed_bytes_in_flight_per_sm, needed: chosen.warps_needed_per_sm,
      feasible: chosen.feasible, maxWarps: chosen.max_warps_per_sm, achieved: chosen.achieved_bandwidth_Bps,
      fraction: chosen.fraction_of_peak, series,
      table: {
        columns: ['Warps per SM (count)', ...LOADS.map((o) => `Bandwidth with ${o.value} B per warp (B/s)`),
          ...(probe ? ['Measured, 512 B per warp (B/s)'] : [])],
        rows: series[0].points.map((q, i) => [q.x, ...series.map((s) => s.points[i].y),
          ...(probe ? [probe.points.find((m) => m.warps_per_sm === q.x)?.measured_bandwidth_Bps ?? '—'] : [])]),
      },
    };
  },

  draw(data, theme) {
    // One colour per load width (its point style and dash too); the selected one is drawn thicker.
    const pick = colours(theme);
    // Each line carries the marker its legend entry shows, every 8 warps: a second dataset of
    // those points alone (one radius for all its points keeps Chart.js's shared point options;
    // a radius per point had doubled the redraw time), left out of the legend.
    const datasets = data.series.flatMap((s) => {
      const style = { pointStyle: STYLES[s.style], group: `load-${s.style}` };
      return [
        series(theme.palette[s.style], { ...style,
          label: `${s.label} per warp: ${s.feasible ? `peak from ${s.needed} warps` : `needs ${s.needed} > ${data.maxWarps} warps`}`,
          data: s.points, showLine: true, pointRadius: 0, pointHoverRadius: 4, borderWidth: s.selected ? 3.5 : 1.5, borderDash: DASHES[s.style] }),
        series(theme.palette[s.style], { ...style, label: `${s.label} per warp`, markersOnly: true,
          data: s.points.filter((q) => q.x % 8 === 0), showLine: false, pointRadius: 5 }),
      ];
    });
    if (data.probe) {
      const one = data.probe.one;
      datasets.push(series(theme.palette[5], {
        label: `Measured on an H200, float4: 1 warp → ${formatSI(one.measured_bandwidth_Bps, 'B/s')}, ` +
          `latency seen ${formatSI(one.effective_latency_s, 's')} (+${(100 * one.extra_latency).toFixed(0)}%)`,
        data: data.probe.points, showLine: true, pointStyle: 'crossRot', pointRadius: 6, borderWidth: 2,
      }));
    }
    datasets.push(
      line(pick('text'), { label: `Peak ${formatSI(data.peak, 'B/s')} × latency ${formatSI(data.latency, 's')} = ${formatSI(data.neededPerSm, 'B')} in flight per SM`,
        data: [{ x: 1, y: data.peak }, { x: data.maxWarps, y: data.peak }], borderWidth: 1, borderDash: [4, 4] }),
      series(pick('compute'), { label: `Your kernel: ${data.warps} warps → ${formatSI(data.achieved, 'B/s')} (${(100 * data.fraction).toFixed(0)}% of peak)`,
        data: [{ x: data.warps, y: data.achieved }], pointStyle: 'star', pointRadius: 11, borderWidth: 3 }),
    );
    return chart(theme, {
      datasets,
      scales: {
        x: linear('Resident warps per SM (count)', { range: [0, data.maxWarps], ticks: { stepSize: 8 } }),
        y: linear('Achieved bandwidth (B/s)', { min: 0, ticks: { callback: (v) => formatSI(v, 'B/s') } }),
      },
      legend: { filter: (item, chartData) => !chartData.datasets[item.datasetIndex].markersOnly },
      tooltip: (ctx) => (ctx.raw.q
        ? `${ctx.raw.x} warps, measured: ${formatSI(ctx.raw.y, 'B/s')} (model ${formatSI(ctx.raw.q.predicted_bandwidth_Bps, 'B/s')}, latency seen ${formatSI(ctx.raw.q.effective_latency_s, 's')})`
        : `${ctx.raw.x} warps: ${formatSI(ctx.raw.y, 'B/s')}`),
    });
  },
};
