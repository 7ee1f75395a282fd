// The training compute of published runs, side by side: C = 6·N·D with N the published
// parameter count and D the published training tokens (the `training-time` calculator with
// `model`), beside PaLM's fuller count (6·N_matmul + 12·L·H·Q·T)·D and what the papers report;
// then the time of each run on a chosen cluster, beside the GPU-hours the papers report.
import { formatCount, exponentTick } from '../runtime/format.js';
import { chart, log, category, span, colours, series } from './shared/chart-config.js';
import { modelOptions, publishedModel, publishedConfig } from './shared/published-models.js';

// Every published run of the engine's table (models with training_tokens).
export const RUN_IDS = ['opt-13b', 'llama-2-7b', 'llama-2-13b', 'llama-2-70b', 'gemma-7b', 'llama-3-8b',
  'gpt-3-175b', 'llama-3-70b', 'palm-540b', 'llama-3-405b'];

// What the publications report about their own runs (not in the engine's tables: the runs'
// compute and GPU-hours, as printed).
export const REPORTED = {
  // Brown et al. 2020, "Language Models are Few-Shot Learners", Table D.1: 3.14E+23 total
  // training FLOPs for GPT-3 175B (3.64E+03 PF-days); appendix D leaves attention out.
  'gpt-3-175b': { flops: 3.14e23, source: 'Brown et al. 2020, Table D.1' },
  // Touvron et al. 2023, "Llama 2", Table 2 (CO2 emissions during pretraining): GPU-hours on
  // A100-80GB.
  'llama-2-7b': { gpu_hours: 184320, hardware: 'a100-sxm-80gb', source: 'Touvron et al. 2023, Table 2' },
  'llama-2-13b': { gpu_hours: 368640, hardware: 'a100-sxm-80gb', source: 'Touvron et al. 2023, Table 2' },
  'llama-2-70b': { gpu_hours: 1720320, hardware: 'a100-sxm-80gb', source: 'Touvron et al. 2023, Table 2' },
  // Meta Llama 3 model card (meta-llama/Meta-Llama-3-8B, -70B): 1.3M and 6.4M GPU-hours on
  // H100-80GB, "total GPU time required for training each model".
  'llama-3-8b': { gpu_hours: 1.3e6, hardware: 'h100-sxm', source: 'Meta Llama 3 model card' },
  'llama-3-70b': { gpu_hours: 6.4e6, hardware: 'h100-sxm', source: 'Meta Llama 3 model card' },
  // Llama Team 2024, "The Llama 3 Herd of Models", section 3.2.1: 3.8e25 FLOPs for the 405B
  // flagship; Llama 3.1 model card: 30.84M H100-80GB GPU-hours for 405B.
  'llama-3-405b': { flops: 3.8e25, gpu_hours: 30.84e6, hardware: 'h100-sxm', source: 'Dubey et al. 2024, section 3.2.1; Llama 3.1 model card' },
};
// The context of the bulk of pre-training where the table's seq is a final long-context stage:
// Llama 3 405B was pre-trained at 8K tokens and extended to 128K only at the end (Dubey et
// al. 2024, section 3.4).
const PRETRAIN_SEQ = { 'llama-3-405b': 8192 };
export const DEVICES = [1024, 2048, 4096, 8192, 16384];
const MFU = [0.2, 0.7];
// The training accelerators of the hardware table (ids; the controls show their names).
export const HARDWARE = ['a100-sxm-80gb', 'h100-sxm', 'h200-sxm', 'b200', 'mi300x', 'tpu-v4', 'tpu-v5p'];

// One run: N, D, 6ND, PaLM's count with attention, and the reported numbers with the MFU they imply.
export function runOf(engine, id) {
  const m = publishedModel(engine, id);
  const seq = PRETRAIN_SEQ[id] ?? m.seq;
  const six = engine.calc('training-time', { model: id });
  const t = engine.calc('transformer', { ...publishedConfig(engine, id), seq });
  const palm = engine.calc('training-time', { params: t.params_flops, tokens: six.tokens, attention_flops_per_token: t.flops_per_token_attention });
  const rep = REPORTED[id] ?? {};
  // GPU-hours the 6ND FLOPs need at 100% of the reported GPU's dense bf16 peak, over the reported hours.
  const implied = rep.gpu_hours ? engine.calc('training-time', { model: id, hardware: rep.hardware, devices: 1, mfu: 1 }).device_hours / rep.gpu_hours : null;
  return { id, name: m.name, params: six.params, tokens: six.tokens, seq, six: six.total_flops, palm: palm.total_flops,
    reported_flops: rep.flops ?? null, reported_hours: rep.gpu_hours ?? null, reported_hardware: rep.hardware ?? null,
    implied_mfu: implied, source: rep.source ?? '' };
}

const sci = (x) => x.toExponential(2).replace('e+', 'e');
// Below this width (px) the runs' numbers move from the bars into the runs' names.
const NARROW_PX = 500;

export default {
  id: 'training-cost-6nd',
  title: 'What published training runs cost: 6ND against the papers',
  caption:
    'Training compute of published runs, C = 6·N·D with each paper’s parameter count and tokens (log axis). GPT-3: 6ND gives 3.15e23 FLOP against the paper’s 3.14e23; counting attention (12·L·H·Q·T per token) and only the matmul parameters adds 2.5%. Switch to “Days on a cluster”: each run on 1,024 H100s at 40% MFU, beside the GPU-hours Meta reports spread over the same GPUs; choose the A100 and find the MFU at which Llama 2’s bars meet.',
  params: [
    { key: 'view', label: 'Show', type: 'select', default: 'compute',
      options: [{ value: 'compute', label: 'Training compute (FLOP)' }, { value: 'time', label: 'Days on a cluster' }] },
    { key: 'hardware', label: 'Accelerator', from: ['training-time', 'hardware'], options: HARDWARE, default: 'h100-sxm', when: { view: ['time'] } },
    { key: 'devices', label: 'Accelerators', type: 'select', default: 1024, when: { view: ['time'] },
      options: DEVICES.map((v) => ({ value: v, label: String(v) })) },
    { key: 'mfu', label: 'MFU', type: 'number', unit: '', min: MFU[0], max: MFU[1], default: 0.4, when: { view: ['time'] } },
  ],

  data(engine, p) {
    const runs = RUN_IDS.map((id) => runOf(engine, id));
    if (p.view !== 'time') {
      const range = span(runs.flatMap((r) => [r.six, r.palm, r.reported_flops ?? r.six]), { log: true, pad: 1 });
      const table = {
        columns: ['Run', 'N (published)', 'D (tokens)', 'C = 6·N·D (FLOP)', 'PaLM count with attention (FLOP)', 'Context T for attention (tokens)', 'Reported compute (FLOP)'],
        rows: runs.map((r) => [r.name, r.params, r.tokens, r.six, r.palm, r.seq, r.reported_flops ?? '']),
      };
      // Room right of the bars for their numbers; a phone, with the numbers in the names, needs none.
      return { view: 'compute', runs, range: [range[0] / 10, range[1] * 1000], barRange: [range[0] / 10, range[1] * 3], table };
    }
    const devices = Number(p.devices);
    const time = (id, hardware, g, mfu) => engine.calc('training-time', { model: id, hardware, devices: g, mfu });
    const timed = runs.map((r) => {
      const t = time(r.id, p.hardware, devices, p.mfu);
      // The reported GPU-hours spread over the same number of (the paper's) GPUs.
      const reportedDays = r.reported_hours ? r.reported_hours / devices / 24 : null;
      return { ...r, days: t.time_days, hours: t.device_hours, reported_days: reportedDays };
    });
    // The days axis spans every accelerator, device count and MFU of the controls, and the reports.
    const ends = HARDWARE.flatMap((hw) => [time(RUN_IDS[0], hw, DEVICES.at(-1), MFU[1]).time_days, time('llama-3-405b', hw, DEVICES[0], MFU[0]).time_days]);
    const reports = runs.filter((r) => r.reported_hours).flatMap((r) => [r.reported_hours / DEVICES[0] / 24, r.reported_hours / DEVICES.at(-1) / 24]);
    const range = span([...ends, ...reports], { log: true, pad: 1 });
    const hardwareName = engine.calc('hardware', { id: p.hardware }).name;
    // Device-hours to four significant digits, as whole hours (one format for the column).
    const hours4 = (h) => Math.round(Number(h.toPrecision(4)));
    const table = {
      columns: ['Run', 'C = 6·N·D (FLOP)', `Days on ${devices} × ${hardwareName} at ${Math.round(100 * p.mfu)}% MFU`, 'Device-hours', 'Reported GPU-hours', 'Reported on', 'MFU the report implies (%)'],
      rows: timed.map((r) => [r.name, r.six, r.days, hours4(r.hours), r.reported_hours ?? '', r.reported_hardware ?? '', r.implied_mfu === null ? '' : 100 * r.implied_mfu]),
    };
    return { view: 'time', runs: timed, devices, hardware: p.hardware, hardwareName, mfu: p.mfu, range: [range[0] / 2, range[1] * 30], barRange: [range[0] / 2, range[1] * 2], table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const names = data.runs.map((r) => `${r.name} (N ${formatCount(r.params)}, D ${formatCount(r.tokens)})`);
    const days = (d) => (d >= 10 ? d.toFixed(0) : String(Number(d.toPrecision(2))));
    const compute = data.view === 'compute';
    // Each run's numbers: one label per run, right of its longest bar, so that no label lies on
    // a bar of the run below; on a phone, where the bars leave no room at their right, the
    // numbers are a second line of the run's name instead (N and D are in the table).
    const values = data.runs.map((r) => (compute
      ? `${sci(r.six)}${r.reported_flops ? `, reported ${sci(r.reported_flops)}` : ''}`
      : `${days(r.days)} d${r.reported_days ? `, reported ${days(r.reported_days)} d` : ''}`));
    const narrow = theme.width !== undefined && theme.width < NARROW_PX;
    // On a phone the axis has half the width: the run's name and its numbers, without N and D.
    const labels = narrow ? data.runs.map((r, j) => [r.name, values[j]]) : names;
    const bars = compute
      ? [series(pick('compute'), { label: 'C = 6·N·D', data: data.runs.map((r) => r.six) }),
        series(pick(), { label: 'PaLM’s count: (6·N_matmul + 12·L·H·Q·T)·D', data: data.runs.map((r) => r.palm) }),
        series(pick(), { label: 'Reported by the paper', data: data.runs.map((r) => r.reported_flops) })]
      : [series(pick('compute'), { label: `6ND on ${data.devices} × ${data.hardwareName} at ${Math.round(100 * data.mfu)}% MFU`, data: data.runs.map((r) => r.days) }),
        series(pick(), { label: `Reported GPU-hours ÷ ${data.devices} GPUs (the paper’s GPUs)`, data: data.runs.map((r) => r.reported_days) })];
    const ends = data.runs.map((_r, j) => Math.max(...bars.map((b) => b.data[j] ?? 0)));
    const datasets = narrow ? bars : [...bars, {
      ...series(pick('text'), { label: 'Values', data: ends }),
      type: 'line', showLine: false, pointRadius: 0, pointHoverRadius: 0, pointHitRadius: 0, noLegend: true,
      pointLabels: (_raw, j) => values[j],
    }];
    return chart(theme, {
      type: 'bar', indexAxis: 'y', labels, datasets,
      scales: {
        x: compute ? log('Training compute (FLOP)', { range: narrow ? data.barRange : data.range, ticks: { callback: exponentTick } })
          : log('Wall-clock time (days)', { unit: '', range: narrow ? data.barRange : data.range }),
        y: category({}),
      },
      legend: { usePointStyle: false, filter: (item, d) => !d.datasets[item.datasetIndex].noLegend },
      // The GPU-hours behind each bar of days: computed (6ND at the MFU) or reported by the paper.
      tooltip: (ctx) => {
        if (compute) return `${ctx.dataset.label}: ${sci(ctx.raw)} FLOP`;
        const r = data.runs[ctx.dataIndex];
        const hours = ctx.datasetIndex === 0 ? r.hours : r.reported_hours;
        return `${ctx.dataset.label}: ${days(ctx.raw)} days (${formatCount(hours)} GPU-h${ctx.datasetIndex === 0 ? '' : ' reported'})`;
      },
    });
  },
};
