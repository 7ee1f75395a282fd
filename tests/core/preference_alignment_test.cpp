// preference-alignment models: rlhf-memory's closed forms per method (Adam's 16 bytes per
// trained bf16 parameter, as ZeRO, Rajbhandari et al. 2020), DPO at the reference policy
// (loss ln 2, Rafailov et al. 2023, eq. 7), DPO's gradient against a finite difference, and
// the RLHF step's split (decode from serving/decode.hpp; 6·N·T training FLOPs).
#include <cmath>

#include <gtest/gtest.h>

#include "mlsys/alignment/alignment.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/serving/decode.hpp"

namespace mlsys {
namespace {

TEST(PreferenceAlignment, PpoHoldsFourModels) {
  const RlhfMemory m = rlhf_memory("ppo", 7e9, 7e9, 7e9, 2.0, 1);
  ASSERT_EQ(m.models.size(), 4u);
  // Trained: 2 + 2 + 12 = 16 B/param; frozen 2 B/param. 7B: 112 + 14 + 14 + 112 = 252 GB.
  EXPECT_DOUBLE_EQ(m.total_bytes, 252e9);
  EXPECT_DOUBLE_EQ(m.trained_bytes, 224e9);
  EXPECT_DOUBLE_EQ(m.frozen_bytes, 28e9);
  EXPECT_DOUBLE_EQ(m.dpo_bytes, 126e9);
  EXPECT_DOUBLE_EQ(m.grpo_bytes, 140e9);
}

TEST(PreferenceAlignment, DpoAndGrpoClosedForms) {
  const RlhfMemory d = rlhf_memory("dpo", 7e9, 7e9, 7e9, 2.0, 8);
  ASSERT_EQ(d.models.size(), 2u);
  EXPECT_DOUBLE_EQ(d.total_bytes, 7e9 * 18);
  EXPECT_DOUBLE_EQ(d.per_gpu_bytes, 7e9 * 18 / 8);
  const RlhfMemory g = rlhf_memory("grpo", 7e9, 0, 7e9, 2.0, 1);  // rule-based reward
  EXPECT_DOUBLE_EQ(g.total_bytes, 7e9 * 18);
  // InstructGPT's setting: 175B policy, 6B reward and value models (Ouyang et al. 2022), fp16.
  const RlhfMemory i = rlhf_memory("ppo", 175e9, 6e9, 6e9, 2.0, 1);
  EXPECT_DOUBLE_EQ(i.total_bytes, 175e9 * 18 + 6e9 * 18);
  const RlhfMemory f = rlhf_memory("ppo", 1e9, 1e9, 1e9, 4.0, 1);  // fp32: 4 + 4 + 12 = 20 B/param trained
  EXPECT_DOUBLE_EQ(f.total_bytes, 1e9 * (20 + 4 + 4 + 20));
  EXPECT_THROW(rlhf_memory("sft", 1e9, 1e9, 1e9, 2.0, 1), InputError);
}

// PPO without a value model is not PPO: with value_params 0 its memory came out exactly
// DPO's (the figure's shared reward-and-value slider drew that state at "reward = 0").
TEST(PreferenceAlignment, PpoKeepsItsCriticWhenTheRewardIsRuleBased) {
  EXPECT_THROW(rlhf_memory("ppo", 70e9, 0, 0, 2.0, 8), InputError);
  EXPECT_THROW(rlhf_memory("ppo", 7e9, 7e9, -1, 2.0, 8), InputError);
  EXPECT_THROW(rlhf_memory("grpo", 7e9, -1, 0, 2.0, 8), InputError);
  // A rule-based reward with a 7B critic: 70B policy + reference + 7B value, 18·70 + 16·7 GB.
  const RlhfMemory p = rlhf_memory("ppo", 70e9, 0, 7e9, 2.0, 8);
  EXPECT_DOUBLE_EQ(p.total_bytes, 70e9 * 18 + 7e9 * 16);
  EXPECT_GT(p.total_bytes, rlhf_memory("dpo", 70e9, 0, 0, 2.0, 8).total_bytes);
  // GRPO and DPO need no value model at all.
  EXPECT_DOUBLE_EQ(rlhf_memory("grpo", 70e9, 0, 0, 2.0, 8).total_bytes, 70e9 * 18);
  RlhfStepInput in{"ppo", 7e9, 7e9, 0, 512, 8, 512, 512, 32, 32, 8, 128, 2, 64, 8, 1, 0.4, 989.4e12, 3.35e12};
  EXPECT_THROW(rlhf_step(in), InputError);
  // 70B on 16 GPUs: DPO's 1,260 GB is 78.75 GB per GPU, under 80; PPO with 7B reward and
  // value models, 1,386 GB, is 86.6 GB per GPU (the figure's caption).
  EXPECT_DOUBLE_EQ(rlhf_memory("dpo", 70e9, 7e9, 7e9, 2.0, 16).per_gpu_bytes, 78.75e9);
  EXPECT_NEAR(rlhf_memory("ppo", 70e9, 7e9, 7e9, 2.0, 16).per_gpu_bytes, 86.625e9, 1e-3);
}

TEST(PreferenceAlignment, DpoLossIsLn2AtTheReference) {
  const DpoToy toy = dpo_toy(64, 1);
  for (double beta : {0.01, 0.1, 1.0, 10.0}) {
    const DpoEval e = dpo_evaluate(toy, toy.w_ref, beta);
    EXPECT_NEAR(e.loss, std::log(2.0), 1e-15);
    EXPECT_DOUBLE_EQ(e.reward_margin, 0.0);
    EXPECT_DOUBLE_EQ(e.accuracy, 0.0);  // a margin must be strictly positive to count
    EXPECT_NEAR(e.kl, 0.0, 1e-15);
  }
  const DpoRun r = dpo_run(0.1, 64, 200, 0.05, 1);
  EXPECT_NEAR(r.initial_loss, std::log(2.0), 1e-15);
  EXPECT_LT(r.final.loss, r.initial_loss);
  EXPECT_GT(r.final.reward_margin, 0.0);
  EXPECT_GT(r.final.accuracy, 0.5);
  EXPECT_EQ(r.loss.size(), 201u);
}

TEST(PreferenceAlignment, DpoGradientMatchesFiniteDifference) {
  const DpoToy toy = dpo_toy(32, 3);
  std::vector<double> w = toy.w_ref;
  for (int i = 0; i < kDpoFeatures; ++i) w[i] += 0.3 * std::sin(1.0 + i);
  const double beta = 0.7, h = 1e-6;
  const DpoEval e = dpo_evaluate(toy, w, beta);
  for (int i = 0; i < kDpoFeatures; ++i) {
    std::vector<double> wp = w, wm = w;
    wp[i] += h;
    wm[i] -= h;
    const double fd = (dpo_evaluate(toy, wp, beta).loss - dpo_evaluate(toy, wm, beta).loss) / (2 * h);
    EXPECT_NEAR(e.grad[i], fd, 1e-7);
  }
}

TEST(PreferenceAlignment, PairLossClosedForm) {
  EXPECT_NEAR(dpo_pair_loss(0.1, 0, 0), std::log(2.0), 1e-15);
  // h = 0.1 × (5 − (−5)) = 1: ln(1 + e^−1).
  EXPECT_NEAR(dpo_pair_loss(0.1, 5, -5), std::log1p(std::exp(-1.0)), 1e-15);
  EXPECT_TRUE(std::isfinite(dpo_pair_loss(100, -1e4, 1e4)));
}

// The exact optimum of the DPO loss: h = u·(φ_c − φ_r) with u = β(w − w₀), so one u* serves
// every β. At u* the gradient of the loss vanishes (checked by finite differences of the loss
// at w₀ + u*/β), the loss is the same for every β, and the KL from the reference at w₀ + u*/β
// falls as β grows (the KL along a ray from the reference grows with the distance).
TEST(PreferenceAlignment, DpoOptimumIsTheSameForEveryBeta) {
  const DpoToy toy = dpo_toy(64, 1);
  const DpoOptimum o = dpo_optimum(toy);
  ASSERT_TRUE(o.finite);
  double prev_kl = 1e300;
  for (double beta : {0.01, 0.1, 1.0, 10.0}) {
    std::vector<double> w = toy.w_ref;
    for (int i = 0; i < kDpoFeatures; ++i) w[i] += o.u[i] / beta;
    const DpoEval e = dpo_evaluate(toy, w, beta);
    EXPECT_NEAR(e.loss, o.loss, 1e-12);
    EXPECT_NEAR(e.reward_margin, o.reward_margin, 1e-12);
    for (double g : e.grad) EXPECT_NEAR(g, 0.0, 1e-10);
    EXPECT_LT(e.kl, prev_kl);
    prev_kl = e.kl;
  }
  // No point of the 200-step Adam runs is below the optimum.
  const DpoBetaSweep s = dpo_beta_sweep({0.01, 0.1, 1.0}, 64, 200, 0.05, 1);
  ASSERT_TRUE(s.optimum_finite);
  for (const auto& q : s.points) EXPECT_GE(q.loss, s.optimum_loss - 1e-12);
  // At β = 1 the 200 steps reach the optimum; at β = 0.01 Adam's learning-rate-sized steps
  // leave the run far short of it (its optimum is 100 times farther from w₀).
  EXPECT_NEAR(s.points[2].loss, s.optimum_loss, 1e-3);
  EXPECT_GT(s.points[0].loss - s.optimum_loss, 0.1);
  // The optimum's KL falls with β; the fixed-step runs' KL ordering alone does not show it.
  EXPECT_GT(s.points[0].optimum_kl, s.points[1].optimum_kl);
  EXPECT_GT(s.points[1].optimum_kl, s.points[2].optimum_kl);
}

// Adam at a fixed step count: after 20 steps the β = 0.01 run has drifted from the reference
// while its margin has barely moved (the caption's "drift without learning").
TEST(PreferenceAlignment, SmallBetaDriftsWithoutLearningInFewAdamSteps) {
  const DpoBetaSweep s = dpo_beta_sweep({0.01}, 64, 20, 0.05, 1);
  EXPECT_GT(s.points[0].kl, 0.5);
  EXPECT_LT(s.points[0].reward_margin, 0.05);
}

// With as many pairs as features, some policy ranks every pair right: no finite optimum. At
// 12 and 16 pairs (seed 1) the set is still separable, and the loss at the returned point
// must not pass for an optimum (a vanishing gradient at a loss near 0 once did).
TEST(PreferenceAlignment, SeparablePairsHaveNoFiniteOptimum) {
  for (long long pairs : {12, 16}) {
    const DpoOptimum o = dpo_optimum(dpo_toy(pairs, 1));
    EXPECT_FALSE(o.finite) << pairs;
  }
  // Whenever an optimum is reported, some pair is ranked wrong there (loss ≥ ln 2 / n).
  for (long long pairs : {20, 32, 64, 128, 512})
    for (long long seed = 1; seed <= 20; ++seed) {
      const DpoOptimum o = dpo_optimum(dpo_toy(pairs, seed));
      if (!o.finite) continue;
      EXPECT_GE(o.loss * static_cast<double>(pairs), std::log(2.0)) << pairs << " " << seed;
      EXPECT_LT(o.accuracy, 1.0) << pairs << " " << seed;
    }
  const DpoToy toy = dpo_toy(8, 1);
  const DpoOptimum o = dpo_optimum(toy);
  EXPECT_FALSE(o.finite);
  const DpoBetaSweep s = dpo_beta_sweep({0.1}, 8, 10, 0.05, 1);
  EXPECT_FALSE(s.optimum_finite);
  EXPECT_EQ(s.points[0].optimum_kl, 0.0);
}

TEST(PreferenceAlignment, RlhfStepSplit) {
  RlhfStepInput in{"ppo", 7e9, 7e9, 7e9, 512, 8, 512, 512, 32, 32, 8, 128, 2, 64, 8, 1, 0.4, 989.4e12, 3.35e12};
  const RlhfStep p = rlhf_step(in);
  const double tokens = 512.0 * 1024;
  EXPECT_DOUBLE_EQ(p.tokens, tokens);
  // Making the experience: policy, value, reference and reward forward, 2·N·T each (OpenRLHF's
  // make_experience); training: policy and value 6·N·T. 20·N·T FLOPs at 40% of 8 GPUs.
  EXPECT_NEAR(p.training_s, 20 * 7e9 * tokens / (8 * 989.4e12 * 0.4), 1e-9);
  ASSERT_EQ(p.phases.size(), 7u);
  EXPECT_EQ(p.phases[1].phase, "policy_logprobs");
  EXPECT_EQ(p.phases[2].phase, "value_estimates");
  EXPECT_DOUBLE_EQ(p.phases[1].flops, 2 * 7e9 * tokens);
  const ServingModel sm{7e9, 14e9, 2.0 * 32 * 8 * 128 * 2, 32, 32, 128};
  const double dec = decode_step_cost(sm, 64, 768, 989.4e12, 3.35e12).time_s;
  EXPECT_DOUBLE_EQ(p.decode_step_s, dec);
  EXPECT_EQ(p.decode_bound, "memory");
  // One GPU's generation memory: the 14 GB of weights and a full round's KV cache, 64 sequences
  // of 1,024 tokens at 2·32·8·128·2 = 131,072 B each (8.6 GB).
  EXPECT_DOUBLE_EQ(p.kv_cache_bytes, 64.0 * 1024 * 131072);
  EXPECT_DOUBLE_EQ(p.generation_bytes, 14e9 + 64.0 * 1024 * 131072);
  in.method = "grpo";
  const RlhfStep g = rlhf_step(in);
  EXPECT_DOUBLE_EQ(g.sequences, 512.0 * 8);
  EXPECT_GT(g.generation_s, p.generation_s);
  // GRPO at one pass: policy 6, reference 2, reward 2 (no old log-probabilities, as TRL).
  EXPECT_NEAR(g.training_s, 10 * 7e9 * 8 * tokens / (8 * 989.4e12 * 0.4), 1e-9);
  in.epochs = 2;  // two passes: the old log-probabilities are needed, 2·N·T once
  EXPECT_NEAR(rlhf_step(in).training_s, (12 + 2 + 2 + 2) * 7e9 * 8 * tokens / (8 * 989.4e12 * 0.4), 1e-9);
  in.epochs = 1;
  in.method = "dpo";
  const RlhfStep d = rlhf_step(in);
  EXPECT_DOUBLE_EQ(d.generation_s, 0.0);
  EXPECT_NEAR(d.training_s, 8 * 7e9 * 2 * tokens / (8 * 989.4e12 * 0.4), 1e-9);
}

}  // namespace
}  // namespace mlsys
