// Axes that hold still. Where a caption or the lesson asks the reader to move a control and
// watch something grow, shrink or move, the axes it is read against keep their range over
// those settings: the data moves, not the axis. Each case names a figure, its axes, a view
// (fixed overrides) and the controls to move, one at a time from the defaults: every option
// of a select, or a number's min and max. An axis fixes its range with min/max, or with
// suggestedMax (Chart.js then rounds the top up to a round tick) above everything it shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine, THEME, params } from './figure-harness.mjs';
import { resolveParams } from '../../web/src/runtime/params.js';
import { figureLoaders } from '../../web/src/figures/index.js';

const CASES = [
  { id: 'collective-time-vs-size', axes: ['x'], vary: ['ranks', 'latency_s'] },
  { id: 'ring-allreduce-bytes', axes: ['y'], vary: ['op'] },
  { id: 'hierarchical-allreduce', axes: ['y'], vary: ['hardware', 'op'] },
  { id: 'dp-step-scaling', axes: ['y', 'y1'], vary: ['overlap'] },
  { id: 'zero-memory-per-gpu', axes: ['y'], vary: ['params'] },
  { id: 'zero-communication', axes: ['y', 'y1'], vary: ['comm_dtype'] },
  { id: 'fsdp-tokens-to-hide', axes: ['x', 'y'], vary: ['hardware'] },
  { id: 'tp-comm-ratio', axes: ['y'], vary: ['hardware'] },
  { id: 'pp-activation-memory', axes: ['y'], vary: ['microbatches', 'stages', 'chunks'] },
  { id: 'ring-attention-balance', view: { view: 'overlap' }, axes: ['x', 'y'], vary: ['kv_heads'] },
  { id: 'ulysses-vs-ring', axes: ['x'], vary: ['model'] },
  { id: 'moe-router', axes: ['y'], vary: ['capacity_factor', 'balance'] },
  { id: 'moe-balance-a2a', view: { view: 'a2a' }, axes: ['y1'], vary: ['link'] },
  { id: 'ulysses-vs-ring', axes: ['y'], vary: ['model', 'seq', 'x'] },
  { id: 'sp-activation-memory', axes: ['y'], vary: ['model', 'seq', 'micro_batch', 'flash_attention'] },
  { id: 'quantization-mse-vs-bits', axes: ['y'], vary: ['distribution', 'granularity'] },
  { id: 'kv-cache-capacity', axes: ['y'], vary: ['kv_dtype'] },
  { id: 'ttft-tpot', axes: ['x', 'y'], vary: ['batch'] },
  { id: 'paged-kv-waste', axes: ['y'], vary: ['max_output'] },
  { id: 'speculative-decoding', axes: ['y'], vary: ['draft_cost'] },
  { id: 'training-time-6nd', axes: ['y'], vary: ['mfu'] },
  { id: 'model-state-bytes', axes: ['y'], vary: ['zero_stage', 'dp'] },
  { id: 'activation-memory-vs-seq', axes: ['x', 'y'], vary: ['tp', 'sequence_parallel'] },
  { id: 'checkpointing-tradeoff', axes: ['x', 'y'], vary: ['seq', 'flash_attention'] },
  { id: 'step-memory-timeline', axes: ['y'], vary: ['zero_stage', 'dp', 'persistent_grads'] },
  { id: 'wave-quantization', view: { view: 'streamk' }, axes: ['x', 'y'], vary: ['fixup_iters', 'iters_per_tile'] },
  { id: 'littles-law', axes: ['x'], vary: ['bytes_per_warp'] },
  { id: 'training-fit', axes: ['x'], vary: ['gpus', 'zero_stage', 'cpu_offload'] },
  { id: 'precision-throughput', axes: ['y', 'y1'], vary: ['hardware', 'optimizer'] },
  { id: 'loss-scaling-range', axes: ['x'], vary: ['loss_scale'] },
  { id: 'clip-tradeoff', axes: ['y'], vary: ['outlier_scale', 'distribution', 'granularity'] },
  { id: 'smoothquant-migration', axes: ['y'], vary: ['outlier_scale', 'alpha'] },
  { id: 'smoothquant-migration', view: { view: 'phases' }, axes: ['y'], vary: ['hardware', 'decode_batch'] },
  { id: 'input-pipeline-workers', axes: ['x', 'y'], vary: ['load_time_s', 'step_time_s', 'load_cv'] },
  { id: 'packing-efficiency', axes: ['x', 'y'], vary: ['max_len', 'length_distribution'] },
  { id: 'global-batch-lr', view: { view: 'lr' }, axes: ['x', 'y'], vary: ['devices', 'accumulation'] },
  { id: 'softmax-overflow', axes: ['x', 'y'], vary: ['count', 'spacing'] },
  { id: 'loss-spike-clipping', axes: ['y'], vary: ['max_norm', 'spike_scale', 'lr'] },
  { id: 'logit-growth-range', axes: ['y'], vary: ['lr', 'z_loss', 'weight_decay'] },
  { id: 'cluster-mtbf', axes: ['x', 'y'], vary: ['rate', 'planned'] },
  { id: 'checkpoint-goodput', axes: ['x', 'y'], vary: ['checkpoint_s', 'restart_s'] },
  { id: 'checkpoint-save-time', axes: ['x', 'y'], vary: ['model', 'writers'] },
];

// The values a control takes in the test: a select's options, a number's ends, both booleans.
function values(spec) {
  if (spec.type === 'select') return spec.options.map((o) => o.value);
  if (spec.type === 'boolean') return [true, false];
  return [spec.min, spec.max];
}

// The largest value drawn against a vertical axis (stacked bars summed per category).
function highest(cfg, axis) {
  const sums = new Map();
  let top = -Infinity;
  for (const ds of cfg.data.datasets) {
    if ((ds.yAxisID ?? 'y') !== axis) continue;
    ds.data.forEach((v, i) => {
      const y = typeof v === 'number' ? v : v?.y;
      if (!Number.isFinite(y)) return;
      const key = ds.stack === undefined ? null : `${ds.stack}:${i}`;
      const total = key === null ? y : (sums.get(key) ?? 0) + y;
      if (key !== null) sums.set(key, total);
      top = Math.max(top, total);
    });
  }
  return top;
}

// [lo, hi] of an axis: min/max, else suggestedMin/suggestedMax, which must then hold the data.
function range(cfg, axis, where) {
  const s = cfg.options.scales[axis];
  const r = [s.min ?? s.suggestedMin, s.max ?? s.suggestedMax];
  if (s.max === undefined && s.suggestedMax !== undefined) {
    assert.ok(highest(cfg, axis) <= s.suggestedMax, `${where}: data above suggestedMax ${s.suggestedMax} on ${axis} would move it`);
  }
  return r;
}

export function axisRanges(fig, view, vary, axes) {
  const specs = resolveParams(fig, engine);
  const out = [];
  for (const key of vary) {
    const spec = specs.find((s) => s.key === key);
    assert.ok(spec, `${fig.id} has a control "${key}"`);
    for (const v of values(spec)) {
      const cfg = fig.draw(fig.data(engine, params(fig, { ...view, [key]: v })), THEME);
      const where = `${key} = ${v}`;
      out.push({ where, ranges: axes.map((a) => range(cfg, a, where)) });
    }
  }
  return out;
}

for (const { id, view = {}, axes, vary } of CASES) {
  test(`${id}: axes ${axes.join(', ')} keep their range as ${vary.join(' and ')} change`, async () => {
    const fig = (await figureLoaders[id]()).default;
    const [first, ...rest] = axisRanges(fig, view, vary, axes);
    first.ranges.forEach(([lo, hi], i) => assert.ok(Number.isFinite(lo) && Number.isFinite(hi) && lo < hi,
      `${id}: axis ${axes[i]} has a fixed range (${lo}, ${hi})`));
    for (const r of rest) assert.deepEqual(r.ranges, first.ranges, `${id}: at ${r.where} vs ${first.where}`);
  });
}
