// The preference-alignment lesson's three figures on the built WASM engine: rlhf-memory's closed
// forms (16 B/param trained, 2 B/param frozen; PPO four models, GRPO three, DPO two), DPO executed
// on the toy set (ln 2 at the reference, Rafailov et al. 2023; the KL from the reference falling
// as β grows) and the RLHF step split (decode-bound generation, 6N/2N training FLOPs per token).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, run, close, assertChartSubset } from './figure-harness.mjs';
import memory from '../../web/src/figures/rlhf-memory-methods.js';
import sweep, { BETAS } from '../../web/src/figures/dpo-beta-sweep.js';
import split from '../../web/src/figures/rlhf-step-split.js';

test('rlhf-memory-methods: 36, 20 and 18 bytes per parameter for PPO, GRPO and DPO at equal sizes', () => {
  const d = run(memory);
  const [ppo, grpo, dpo] = d.runs;
  close(ppo.total_bytes, 36 * 7e9, 1e-12);
  close(grpo.total_bytes, 20 * 7e9, 1e-12);
  close(dpo.total_bytes, 18 * 7e9, 1e-12);
  close(ppo.per_gpu_bytes / 1e9, 31.5, 1e-12);
  close(dpo.per_gpu_bytes / 1e9, 15.75, 1e-12);
  close(grpo.per_gpu_bytes / 1e9, 17.5, 1e-12);
  assert.equal(ppo.models.length, 4);
  assert.equal(dpo.models.length, 2);
  // A rule-based reward: GRPO holds what DPO holds, and PPO still holds its critic (the reward
  // and value models have their own controls; one shared slider once drew PPO = DPO).
  const r0 = run(memory, { reward_b: 0 });
  close(r0.runs[1].total_bytes, r0.runs[2].total_bytes, 1e-12);
  assert.equal(r0.runs[0].models.length, 4);
  close(r0.runs[0].total_bytes - r0.runs[2].total_bytes, 16 * 7e9, 1e-12);
  assert.ok(memory.params.find((q) => q.key === 'value_b').min > 0);
  // 70B on 8 GPUs: nothing fits in 80 GB, not even DPO (157.5 GB); on 16 GPUs DPO fits, PPO not.
  const big = run(memory, { policy_b: 70 });
  close(big.runs[2].per_gpu_bytes / 1e9, 157.5, 1e-12);
  for (const r of big.runs) assert.ok(r.per_gpu_bytes > 80e9);
  const big16 = run(memory, { policy_b: 70, gpus: 16 });
  close(big16.runs[2].per_gpu_bytes / 1e9, 78.75, 1e-12);
  assert.ok(big16.runs[0].per_gpu_bytes > 80e9);
  // The 80 GB line is drawn over the bars.
  const drawn = memory.draw(d, THEME);
  const dsets = drawn.data.datasets;
  assert.ok(dsets.at(-1).order < dsets[0].order);
  assertChartSubset('rlhf-memory-methods', memory.draw(d, THEME));
});

test('dpo-beta-sweep: the optimum is the same loss at every β and its KL falls with β; Adam runs fall short at small β', () => {
  const d = run(sweep);
  assert.equal(d.points.length, BETAS.length);
  close(d.ln2, Math.log(2), 1e-15);
  for (const q of d.points) assert.ok(q.loss < Math.log(2) && q.reward_margin > 0);
  const first = d.points[0], last = d.points[d.points.length - 1];
  assert.ok(last.loss < first.loss);
  assert.ok(last.reward_margin > first.reward_margin);
  assert.ok(d.optimum_finite);
  for (let i = 1; i < d.points.length; i++) assert.ok(d.points[i].optimum_kl < d.points[i - 1].optimum_kl);
  for (const q of d.points) assert.ok(q.loss >= d.optimum_loss - 1e-12);
  // Few steps: the small-β run barely leaves ln 2 yet has drifted (caption: 0.88 nats, margin 0.02).
  const short = run(sweep, { steps: 20 });
  assert.ok(Math.log(2) - short.points[0].loss < 0.05);
  close(Math.round(short.points[0].kl * 100) / 100, 0.88, 1e-12);
  close(Math.round(short.points[0].reward_margin * 100) / 100, 0.02, 1e-12);
  // Eight pairs in eight features are separable: no finite optimum, no optimum series drawn.
  const sep = run(sweep, { pairs: 8 });
  assert.equal(sep.optimum_finite, false);
  assert.ok(!sweep.draw(sep, THEME).data.datasets.some((x) => /optimum/.test(x.label)));
  assertChartSubset('dpo-beta-sweep', sweep.draw(d, THEME));
});

test('rlhf-step-split: training FLOPs by hand, DPO generates nothing, GRPO eight times the tokens', () => {
  const d = run(split);
  const [ppo, grpo, dpo] = d.runs;
  const T = 512 * 1024;
  // Experience (policy, value, reference, reward forward: 8N) and training (policy, value: 12N).
  close(ppo.training_s, (20 * 7e9 * T) / (8 * ppo.peak_flops * 0.4), 1e-12);
  assert.equal(ppo.decode_bound, 'memory');
  close(ppo.generation_fraction, ppo.generation_s / ppo.step_s, 1e-12);
  close(Math.round(ppo.generation_s * 10) / 10, 3.6, 1e-12);  // "about 3.6 s"
  close(Math.round(ppo.generation_fraction * 100), 13, 1e-12);  // "13% of its step"
  // Multi-head attention (32 KV heads) reads four times the KV cache per decode step.
  const mha = run(split, { kv_heads: '32' });
  assert.ok(mha.runs[0].decode_step_s > 1.5 * ppo.decode_step_s);
  close(grpo.tokens, 8 * T, 1e-12);
  assert.equal(dpo.generation_s, 0);
  // Decode batch 8: eight rounds instead of one, generation about five times longer.
  const small = run(split, { gen_batch: 8 });
  assert.equal(small.runs[0].rounds, 8);
  const ratio = small.runs[0].generation_s / ppo.generation_s;
  assert.ok(ratio > 4.5 && ratio < 5.5, `ratio ${ratio}`);
  close(small.runs[0].training_s, ppo.training_s, 1e-12);
  // Generation memory: 14 GB of weights + 64 sequences × 1,024 tokens × 131,072 B of KV cache
  // fits an H100; 512 sequences of 512 + 8,192 tokens (584 GB of KV cache) does not, and the
  // bar says so instead of drawing a step that cannot run.
  close(ppo.generation_bytes, 14e9 + 64 * 1024 * 131072, 1e-12);
  assert.equal(typeof split.draw(d, THEME).data.labels[0], 'string');
  const huge = run(split, { gen_batch: 512, response_tokens: 8192 });
  assert.ok(huge.runs[0].generation_bytes > 80e9);
  assert.match(split.draw(huge, THEME).data.labels[0].join(' '), /does not fit: \d+ GB > 80 GB/);
  assert.equal(huge.runs[2].generation_bytes, 0);
  assertChartSubset('rlhf-step-split', split.draw(d, THEME));
});
