// Bytes each GPU sends per step and the time of those collectives for ZeRO stages 0–3
// (2Ψ, 2Ψ, 2Ψ, 3Ψ elements; Rajbhandari et al. 2020, section 7): one calc('zero').
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const DEGREES = Array.from({ length: 12 }, (_, i) => 2 ** (i + 1)); // 2 … 4096
const LABELS = ['Stage 0 (all-reduce)', 'Stage 1 (RS + AG)', 'Stage 2 (RS + AG)', 'Stage 3 (2 AG + RS)'];

export default {
  id: 'zero-communication',
  title: 'Communication per step for each ZeRO stage',
  caption:
    'Bytes each GPU sends per step and the time those collectives take (a ring inside a node, the hierarchical algorithm across nodes): the same 2Ψ elements for plain data parallelism and ZeRO stages 1 and 2, 3Ψ for stage 3. Move the degree from 8 to 16 and 64 GPUs: with the NVLink and network phases pipelined, as NCCL runs them, the time barely moves, because a node\'s eight NICs together nearly match NVLink. Set the phases to one after the other, the conservative bound, and the time jumps at 16 GPUs, where the collectives leave NVLink for the network. Switch the communicated type to fp32 to double every bar.',
  params: [
    { key: 'comm_dtype', label: 'Communicated type', from: ['zero', 'comm_dtype'], options: ['bf16', 'fp32'] },
    { key: 'params', label: 'Parameters Ψ', type: 'number', min: 1e8, max: 1e13, default: 7.5e9, scale: 'log' },
    // Powers of two: across nodes of 8 a group is whole nodes.
    { key: 'dp', label: 'Data-parallel degree', type: 'select', options: DEGREES.map((n) => ({ value: n, label: String(n) })), default: 64 },
    { key: 'hardware', label: 'Accelerator (NVLink inside a node)', from: ['zero', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'] },
    { key: 'inter_bandwidth_Bps', label: 'NIC bandwidth per GPU, per direction', type: 'number', unit: 'B/s', min: 5e9, max: 4e11, default: 5e10, scale: 'log' },
    { key: 'phases', label: 'NVLink and network phases', type: 'select', options: [{ value: 'pipelined', label: 'pipelined (NCCL)' }, { value: 'sequential', label: 'one after the other' }], default: 'pipelined' },
  ],

  data(engine, p) {
    const zero = (comm_dtype, phases = p.phases) => engine.calc('zero', { params: p.params, dp: p.dp, comm_dtype, hardware: p.hardware, inter_bandwidth_Bps: p.inter_bandwidth_Bps, phases });
    const r = zero(p.comm_dtype);
    // Both axes reach the fp32 bars with the phases one after the other (the larger type, the
    // longer time), so that switching types or phases moves the bars against a fixed axis.
    const wide = zero('fp32', 'sequential');
    const top = { bytes: Math.max(...wide.stages.map((z) => z.volume_bytes)), time_s: Math.max(...wide.stages.map((z) => z.comm_time_s)) };
    const stages = r.stages.map((z, i) => ({ label: LABELS[i], psi: z.volume_psi, bytes: z.volume_bytes, time_s: z.comm_time_s,
      allgather_s: z.allgather_time_s, reducescatter_s: z.reducescatter_time_s, ratio: z.comm_vs_baseline }));
    const table = {
      columns: ['Stage', 'Elements per GPU (× Ψ)', 'Bytes sent per GPU (B)', 'All-gather time (s)', 'Reduce-scatter time (s)', 'Total time (s)'],
      rows: stages.map((s) => [s.label, s.psi, s.bytes, s.allgather_s, s.reducescatter_s, s.time_s]),
    };
    return { phases: p.phases, stages, top, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    return chart(theme, {
      type: 'bar',
      labels: data.stages.map((s) => `${s.label}: ${s.psi}Ψ`),
      datasets: [
        series(pick(), { label: 'Bytes sent per GPU (left axis)', data: data.stages.map((s) => s.bytes), yAxisID: 'y',
          borderColor: theme.text, borderWidth: 1 }),
        series(pick(), { label: `Time, phases ${data.phases === 'pipelined' ? 'pipelined' : 'one after the other'} (right axis)`, data: data.stages.map((s) => s.time_s), yAxisID: 'y1',
          borderColor: theme.text, borderWidth: 1, borderDash: [4, 2] }),
      ],
      scales: {
        x: category(),
        // suggestedMax, not max: the top rounds up to a whole tick, and every setting stays below it.
        y: linear('Bytes sent per GPU per step (B)', { min: 0, suggestedMax: data.top.bytes, position: 'left', ticks: { callback: (v) => formatSI(v, 'B') } }),
        y1: linear('Communication time per step (s)', { min: 0, suggestedMax: data.top.time_s, position: 'right', ticks: { callback: (v) => formatSI(v, 's') },
          grid: { drawOnChartArea: false } }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => {
        const s = data.stages[ctx.dataIndex];
        return ctx.dataset.yAxisID === 'y' ? `${formatSI(s.bytes, 'B')} sent per GPU (${s.psi}Ψ elements × (p−1)/p)`
          : `${formatSI(s.time_s, 's')} (${s.ratio.toFixed(2)}× stage 0)`;
      },
    });
  },
};
