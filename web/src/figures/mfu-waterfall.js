// The waterfall from peak to achieved FLOP/s per GPU for the step of step-timeline: peak, minus
// launch gaps, exposed communication, memory-bound kernels and matmul inefficiency, leaves
// model FLOPs / step time. Floating bars from one `mfu-waterfall` call.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours } from './shared/chart-config.js';
import { STACKS, VOCAB } from './step-timeline.js';

export default {
  id: 'mfu-waterfall',
  title: 'Where the FLOP/s go: a waterfall from peak to achieved',
  caption:
    'Each deduction is one kind of time in the same simulated step (its share of the step × peak), so the bars add up exactly to the achieved model FLOP/s. At the defaults (1.3B, two sequences per GPU, eager) turn on fusion: the memory-bound bar shrinks and the exposed-communication bar grows, because the all-reduce takes as long as before in a shorter step. CUDA graphs then change almost nothing: these kernels are long enough that launch gaps are under 1% of the step. Pick the 350M model at one sequence per GPU and graphs shrink a launch-gap bar near a fifth of the step to a few percent. Turn on overlap to hide part of the all-reduce, then raise the batch and watch the remaining gap become matmul efficiency, the part only better kernels recover.',
  params: [
    { key: 'stack', label: 'Model', type: 'select', default: '1.3b',
      options: Object.entries(STACKS).map(([value, s]) => ({ value, label: s.label })) },
    { key: 'micro_batch', label: 'Batch: sequences per GPU (T = 2048)', type: 'select', default: 2,
      options: [1, 2, 4, 8, 16].map((v) => ({ value: v, label: String(v) })) },
    { key: 'hardware', label: 'Accelerator', from: ['mfu-waterfall', 'hardware'], options: ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'] },
    { key: 'fusion', label: 'Fuse elementwise ops', type: 'boolean', default: false },
    { key: 'overlap', label: 'Overlap all-reduce with backward', type: 'boolean', default: false },
    { key: 'cuda_graphs', label: 'CUDA graphs', type: 'boolean', default: false },
  ],

  data(engine, p) {
    const s = STACKS[p.stack];
    const w = engine.calc('mfu-waterfall', {
      layers: s.layers, hidden: s.hidden, heads: s.heads, vocab: VOCAB, micro_batch: Number(p.micro_batch), hardware: p.hardware,
      launch_s: 20e-6, fusion: p.fusion, overlap: p.overlap, cuda_graphs: p.cuda_graphs,
    });
    const bars = [
      { label: 'Peak (bf16, dense)', from: 0, to: w.peak_flops, kind: 'peak' },
      ...w.steps.map((st) => ({ label: st.label, from: st.to_flops, to: st.from_flops, kind: st.id, loss: st.loss_flops })),
      { label: 'Achieved (model FLOPs)', from: 0, to: w.achieved_flops, kind: 'achieved' },
    ];
    const table = {
      columns: ['Bar', 'From (FLOP/s)', 'To (FLOP/s)', 'Share of peak (%)'],
      rows: bars.map((b) => [b.label, b.from, b.to, (100 * (b.to - b.from)) / w.peak_flops]),
    };
    return { ...w, bars, table };
  },

  draw(data, theme) {
    // One colour per kind of bar; memory-bound time in the memory colour, the achieved
    // FLOP/s in the compute colour.
    const pick = colours(theme);
    const fills = { peak: pick('muted'), launch_gaps: pick(), exposed_comm: pick(), memory_bound: pick('memory'), matmul_inefficiency: pick(), achieved: pick('compute') };
    const T = 1e12;
    const short = { peak: 'Peak', launch_gaps: '− launch gaps', exposed_comm: '− exposed comm', memory_bound: '− memory-bound', matmul_inefficiency: '− matmul < peak', achieved: 'Achieved' };
    const barColours = data.bars.map((b) => fills[b.kind]);
    return chart(theme, {
      type: 'bar',
      labels: data.bars.map((b) => short[b.kind]),
      datasets: [{
        label: `Peak to achieved: MFU ${(100 * data.mfu).toFixed(1)}%, step ${formatSI(data.step_time_s, 's')}`,
        data: data.bars.map((b) => [b.from / T, b.to / T]),
        backgroundColor: barColours, borderColor: barColours, borderWidth: 1,
      }],
      scales: {
        x: category(),
        y: linear('FLOP/s per GPU (TFLOP/s)', { min: 0 }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => {
        const b = data.bars[ctx.dataIndex];
        return `${b.label}: ${formatSI(b.to - b.from, 'FLOP/s')} (${((100 * (b.to - b.from)) / data.peak_flops).toFixed(1)}% of peak)`;
      },
    });
  },
};
