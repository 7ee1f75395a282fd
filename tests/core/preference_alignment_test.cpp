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

TEST(PreferenceAlignment, LargerBetaStaysCloserToTheReference) {
  const DpoBetaSweep s = dpo_beta_sweep({0.01, 1.0}, 64, 200, 0.05, 1);
  EXPECT_GT(s.points[0].kl, s.points[1].kl);
}

TEST(PreferenceAlignment, RlhfStepSplit) {
  RlhfStepInput in{"ppo", 7e9, 7e9, 7e9, 512, 8, 512, 512, 32, 32, 8, 128, 2, 64, 8, 1, 0.4, 989.4e12, 3.35e12};
  const RlhfStep p = rlhf_step(in);
  const double tokens = 512.0 * 1024;
  EXPECT_DOUBLE_EQ(p.tokens, tokens);
  // Policy and value 6·N·T, reference and reward 2·N·T: 16·N·T FLOPs at 40% of 8 GPUs.
  EXPECT_NEAR(p.training_s, 16 * 7e9 * tokens / (8 * 989.4e12 * 0.4), 1e-9);
  const ServingModel sm{7e9, 14e9, 2.0 * 32 * 8 * 128 * 2, 32, 32, 128};
  const double dec = decode_step_cost(sm, 64, 768, 989.4e12, 3.35e12).time_s;
  EXPECT_DOUBLE_EQ(p.decode_step_s, dec);
  EXPECT_EQ(p.decode_bound, "memory");
  in.method = "grpo";
  const RlhfStep g = rlhf_step(in);
  EXPECT_DOUBLE_EQ(g.sequences, 512.0 * 8);
  EXPECT_GT(g.generation_s, p.generation_s);
  in.method = "dpo";
  const RlhfStep d = rlhf_step(in);
  EXPECT_DOUBLE_EQ(d.generation_s, 0.0);
  EXPECT_NEAR(d.training_s, 8 * 7e9 * 2 * tokens / (8 * 989.4e12 * 0.4), 1e-9);
}

}  // namespace
}  // namespace mlsys
