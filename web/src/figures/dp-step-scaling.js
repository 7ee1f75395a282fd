// Data-parallel step time per GPU (compute vs the exposed gradient all-reduce) and the
// weak-scaling efficiency T(1)/T(N) at 1, 2, 4, … 4096 GPUs, from one call of
// calc('data-parallel', {..., series_max_gpus: 1024}). Across nodes the all-reduce is the
// hierarchical one (NVLink inside each node of 8, every GPU's own NIC between nodes), its two
// phases pipelined by default; the efficiency with the phases one after the other is drawn as
// the conservative bound.
import { formatSI } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const GPUS = ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x'];
// The calculator's field names -> this figure's control keys (for error messages).
const FIELD = { micro_batch: 'micro_batch', params: 'params', inter_bandwidth_Bps: 'inter_bandwidth_Bps', seq: 'seq' };
const SEQS = [512, 1024, 2048, 4096, 8192];

export default {
  id: 'dp-step-scaling',
  title: 'Data-parallel step time and scaling efficiency',
  caption:
    'Per-GPU step time (compute plus the part of the gradient all-reduce that is not hidden) and weak-scaling efficiency as the data-parallel group grows at a fixed batch per GPU of 1,024 tokens. With the NVLink and network phases pipelined, as NCCL runs them, the 7B all-reduce stays shorter than the backward pass at every scale and hides; the dotted line is the conservative bound with the two phases one after the other, which dips once the group leaves the node. Turn overlap off to see the whole all-reduce: pipelined, it costs nearly the same across nodes as inside one, because a node\'s eight NICs together nearly match NVLink. Then set the phases to one after the other, or lower the NIC bandwidth, and watch the all-reduce outlast the backward pass once the group leaves the node; raise the tokens per sequence or the sequences per GPU to hide it again.',
  params: [
    { key: 'hardware', label: 'Accelerator', from: ['data-parallel', 'hardware'], options: GPUS },
    { key: 'params', label: 'Parameters Ψ', type: 'number', min: 1e8, max: 1e12, default: 7e9, scale: 'log' },
    { key: 'seq', label: 'Tokens per sequence', type: 'select', options: SEQS.map((n) => ({ value: n, label: n.toLocaleString('en-US') })), default: 1024 },
    { key: 'micro_batch', label: 'Sequences per GPU', type: 'integer', min: 1, max: 64, default: 1, scale: 'log' },
    { key: 'overlap', label: 'Overlap with the backward pass', from: ['data-parallel', 'overlap'] },
    { key: 'phases', label: 'NVLink and network phases', type: 'select', options: [{ value: 'pipelined', label: 'pipelined (NCCL)' }, { value: 'sequential', label: 'one after the other' }], default: 'pipelined' },
    { key: 'inter_bandwidth_Bps', label: 'NIC bandwidth per GPU, per direction', type: 'number', unit: 'B/s', min: 5e9, max: 4e11, default: 5e10, scale: 'log' },
  ],

  data(engine, p) {
    const run = (overlap, phases = p.phases) => {
      try {
        return engine.calc('data-parallel', {
          hardware: p.hardware, params: p.params, micro_batch: p.micro_batch, seq: p.seq, overlap, phases,
          inter_bandwidth_Bps: p.inter_bandwidth_Bps, gpus: 64, series_max_gpus: 1024,
        });
      } catch (e) {
        if (e && FIELD[e.field]) e.field = FIELD[e.field];
        throw e;
      }
    };
    const r = run(p.overlap);
    // The step-time axis reaches the longest step (no overlap, phases one after the other), so
    // that toggling overlap or the phases shows the all-reduce bars grow or shrink against a
    // fixed axis.
    const stepTop = Math.max(...[r, run(false, 'sequential')].flatMap((x) => x.series.map((q) => q.step_time_s)));
    const points = r.series.map((q) => ({
      gpus: q.gpus, compute_s: q.compute_time_s, exposed_s: q.exposed_comm_s, step_s: q.step_time_s,
      allreduce_s: q.allreduce_time_s, efficiency: q.efficiency, efficiency_no_overlap: q.efficiency_no_overlap,
      efficiency_sequential: q.efficiency_phases_sequential, inter_node: q.inter_node,
      bus_Bps: p.phases === 'pipelined' ? q.bus_bandwidth_overlapped_Bps : q.link_bandwidth_Bps,
    }));
    // Every cell in one notation: times in ms and bandwidths in GB/s to 4 significant digits,
    // efficiencies in % to 2 decimals.
    const sig = (v) => Number(v.toPrecision(4));
    const pct = (v) => Number((100 * v).toFixed(2));
    const table = {
      columns: ['GPUs', 'Compute (ms)', 'All-reduce (ms)', 'Bus bandwidth (GB/s)', 'Exposed communication (ms)', 'Step time (ms)', 'Scaling efficiency (%)', 'Efficiency without overlap (%)', 'Efficiency, phases one after the other (%)'],
      rows: points.map((q) => [q.gpus, sig(1e3 * q.compute_s), sig(1e3 * q.allreduce_s), sig(q.bus_Bps / 1e9), sig(1e3 * q.exposed_s), sig(1e3 * q.step_s),
        pct(q.efficiency), pct(q.efficiency_no_overlap), pct(q.efficiency_sequential)]),
    };
    return {
      hardware: p.hardware, overlap: p.overlap, phases: p.phases, stepTop, tokens_per_gpu: r.tokens_per_gpu, intra_bandwidth_Bps: r.intra_bandwidth_Bps,
      inter_bandwidth_Bps: r.inter_bandwidth_Bps, points, table,
    };
  },

  draw(data, theme) {
    const labels = data.points.map((q) => String(q.gpus));
    const pick = colours(theme);
    const datasets = [
      series(pick('compute'), { type: 'bar', label: 'Compute (forward + backward)', data: data.points.map((q) => q.compute_s), stack: 'step',
        yAxisID: 'y', borderWidth: 1 }),
      series(pick(), { type: 'bar', label: data.overlap ? 'Exposed all-reduce (not hidden)' : 'All-reduce (after the backward pass)',
        data: data.points.map((q) => q.exposed_s), stack: 'step', yAxisID: 'y', borderColor: theme.text, borderWidth: 1 }),
      series(pick(), { type: 'line', label: 'Scaling efficiency (right axis)', data: data.points.map((q) => 100 * q.efficiency),
        yAxisID: 'y1', borderWidth: 2, pointStyle: 'circle', pointRadius: 3 }),
    ];
    const noOverlap = pick('muted');
    if (data.phases === 'pipelined') {
      datasets.push(series(pick(), { type: 'line', label: 'Efficiency, phases one after the other (bound, right axis)', data: data.points.map((q) => 100 * q.efficiency_sequential),
        yAxisID: 'y1', borderWidth: 2, borderDash: [2, 3], pointStyle: 'triangle', pointRadius: 3 }));
    }
    if (data.overlap) {
      datasets.push(series(noOverlap, { type: 'line', label: 'Efficiency without overlap (right axis)', data: data.points.map((q) => 100 * q.efficiency_no_overlap),
        yAxisID: 'y1', borderWidth: 2, borderDash: [6, 4], pointStyle: 'rect', pointRadius: 3 }));
    }
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ title: 'Data-parallel GPUs (8 per node)', stacked: true }),
        // suggestedMax, not max: the top rounds up to a whole tick, and every setting stays below it.
        y: linear('Step time per GPU (s)', { stacked: true, min: 0, suggestedMax: data.stepTop, position: 'left', ticks: { callback: (v) => formatSI(v, 's') } }),
        y1: linear('Scaling efficiency (%)', { range: [0, 100], position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => {
        const q = data.points[ctx.dataIndex];
        if (ctx.dataset.yAxisID === 'y1') return `${ctx.dataset.label.replace(' (right axis)', '')}: ${ctx.parsed.y.toFixed(1)}%`;
        const how = q.inter_node ? (data.phases === 'pipelined' ? 'hierarchical: NVLink and the NICs pipelined' : 'hierarchical: NVLink, then the NICs') : 'ring over NVLink';
        return `${ctx.dataset.label}: ${formatSI(ctx.parsed.y, 's')} (${how}, bus bandwidth ${formatSI(q.bus_Bps, 'B/s')})`;
      },
    });
  },
};
