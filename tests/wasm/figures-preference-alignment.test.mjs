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
  // A rule-based reward: GRPO holds what DPO holds.
  const r0 = run(memory, { reward_b: 0 });
  close(r0.runs[1].total_bytes, r0.runs[2].total_bytes, 1e-12);
  // 70B PPO on 8 GPUs does not fit in 80 GB.
  assert.ok(run(memory, { policy_b: 70 }).runs[0].per_gpu_bytes > 80e9);
  assertChartSubset('rlhf-memory-methods', memory.draw(d, THEME));
});

test('dpo-beta-sweep: below ln 2 after training, margins grow and KL shrinks with β', () => {
  const d = run(sweep);
  assert.equal(d.points.length, BETAS.length);
  close(d.ln2, Math.log(2), 1e-15);
  for (const q of d.points) assert.ok(q.loss < Math.log(2) && q.reward_margin > 0);
  const first = d.points[0], last = d.points[d.points.length - 1];
  assert.ok(last.loss < first.loss);
  assert.ok(last.reward_margin > first.reward_margin);
  assert.ok(last.kl < first.kl);
  // Few steps: the small-β runs barely leave ln 2.
  const short = run(sweep, { steps: 20 });
  assert.ok(Math.log(2) - short.points[0].loss < 0.05);
  assertChartSubset('dpo-beta-sweep', sweep.draw(d, THEME));
});

test('rlhf-step-split: training FLOPs by hand, DPO generates nothing, GRPO eight times the tokens', () => {
  const d = run(split);
  const [ppo, grpo, dpo] = d.runs;
  const T = 512 * 1024;
  close(ppo.training_s, (16 * 7e9 * T) / (8 * ppo.peak_flops * 0.4), 1e-12);
  assert.equal(ppo.decode_bound, 'memory');
  close(ppo.generation_fraction, ppo.generation_s / ppo.step_s, 1e-12);
  assert.ok(ppo.generation_fraction > 1 / 7 && ppo.generation_fraction < 1 / 5);  // "a sixth"
  close(grpo.tokens, 8 * T, 1e-12);
  assert.equal(dpo.generation_s, 0);
  // Decode batch 8: eight rounds instead of one, generation about five times longer.
  const small = run(split, { gen_batch: 8 });
  assert.equal(small.runs[0].rounds, 8);
  const ratio = small.runs[0].generation_s / ppo.generation_s;
  assert.ok(ratio > 4.5 && ratio < 5.5, `ratio ${ratio}`);
  close(small.runs[0].training_s, ppo.training_s, 1e-12);
  assertChartSubset('rlhf-step-split', split.draw(d, THEME));
});
