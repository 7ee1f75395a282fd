// Numerical-stability lesson: `logit-growth`, a toy softmax classifier trained with Adam whose
// logits grow without a z-loss and stay near log Z ≈ 0 with PaLM's z-loss 1e-4·(log Z)²
// (Chowdhery et al. 2022, arXiv:2204.02311, section 5 "Training setup": "z_loss = 10^-4 · log²Z").
// fp16's largest value 65504 (IEEE 754-2019 binary16) puts e^x's overflow at ln 65504 = 11.09.
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/numerics/float_format.hpp"
#include "test_support.hpp"

using mlsys::json;

namespace {

TEST(LogitGrowth, StartsUniform) {
  const json r = mlsys::calc("logit-growth", {{"steps", 10}});
  const json& s0 = r["series"][0];
  // W = 0, b = 0: every logit 0, log Z = ln 8, cross-entropy ln 8.
  EXPECT_EQ(s0["max_logit"].get<double>(), 0.0);
  EXPECT_NEAR(s0["mean_log_z"].get<double>(), std::log(8.0), 1e-12);
  EXPECT_NEAR(s0["loss"].get<double>(), std::log(8.0), 1e-12);
  EXPECT_DOUBLE_EQ(r["fp16_exp_overflow_threshold"].get<double>(), std::log(65504.0));
  EXPECT_EQ(r["fp16_max"].get<double>(), 65504.0);
}

TEST(LogitGrowth, ZLossHoldsLogZNearZero) {
  const json off = mlsys::calc("logit-growth", json::object());
  const json on = mlsys::calc("logit-growth", {{"z_loss", 1e-4}});
  // Without it, the largest logit passes fp16's exp limit and keeps growing; log Z drifts far from 0.
  EXPECT_GT(off["final_max_logit"].get<double>(), 3 * off["fp16_exp_overflow_threshold"].get<double>());
  EXPECT_GT(off["final_mean_log_z"].get<double>(), 20.0);
  // With it, log Z ends near 0 and the largest logit below the fp16 limit.
  EXPECT_LT(std::fabs(on["final_mean_log_z"].get<double>()), 2.0);
  EXPECT_LT(on["final_max_logit"].get<double>(), on["fp16_exp_overflow_threshold"].get<double>());
  // Both have learned the (separable) task.
  EXPECT_LT(off["final_loss"].get<double>(), 0.01);
  EXPECT_LT(on["final_loss"].get<double>(), 0.01);
  // The series is capped at 500 points plus step 0.
  EXPECT_LE(off["series"].size(), 502u);
  EXPECT_EQ(off["series"].back()["step"].get<int>(), 2000);
}

// bf16's spacing at the largest logit (as stored) is 2^(⌊log₂ z⌋ − 7), and the log-probability error of storing
// the logits in bf16 is at most about that spacing.
TEST(LogitGrowth, Bf16SpacingAndError) {
  const json r = mlsys::calc("logit-growth", json::object());
  for (const auto& s : r["series"]) {
    const double z = s["max_logit"].get<double>();
    if (z < 1) continue;
    const double stored = mlsys::round_value(z, mlsys::float_format("bf16"));  // z as bf16 stores it
    EXPECT_DOUBLE_EQ(s["bf16_spacing"].get<double>(), std::ldexp(1.0, std::ilogb(stored) - 7)) << z;
    EXPECT_LE(s["bf16_log_prob_error"].get<double>(), 2 * s["bf16_spacing"].get<double>() + 1e-12);
  }
  EXPECT_GT(r["peak_bf16_log_prob_error"].get<double>(), 0.05);
}

TEST(LogitGrowth, Errors) {
  EXPECT_EQ(mlsys::test::error_of("logit-growth", R"({"steps": 0})")["field"], "steps");
  EXPECT_EQ(mlsys::test::error_of("logit-growth", R"({"z_loss": -1})")["field"], "z_loss");
  EXPECT_EQ(mlsys::test::error_of("logit-growth", R"({"lr": 2})")["field"], "lr");
  EXPECT_EQ(mlsys::test::error_of("logit-growth", R"({"lr": 1, "weight_decay": 10})")["field"], "weight_decay");
  // The largest allowed decay and step still give finite results.
  EXPECT_TRUE(mlsys::calc("logit-growth", {{"steps", 3000}, {"lr", 1}, {"z_loss", 1}, {"weight_decay", 0.5}})["final_loss"].is_number());
}

TEST(LogitGrowth, Bf16ErrorIsBoundedByTheSpacingAtTheLargestMagnitude) {
  // Storing z_k in bf16 moves it by at most half the spacing at |z_k|, and log Z by at most the
  // largest such move, so |Δ log p| ≤ spacing at max |z|. With z-loss the largest |logit| is a
  // negative one: the spacing at the largest logit understates the error there.
  bool understated = false;
  for (double z_loss : {0.0, 1e-4}) {
    const json r = mlsys::calc("logit-growth", {{"z_loss", z_loss}, {"steps", 1000}});
    for (const auto& s : r["series"]) {
      const double a = s["max_abs_logit"].get<double>();
      if (a < 1) continue;
      const double stored = mlsys::round_value(a, mlsys::float_format("bf16"));
      EXPECT_DOUBLE_EQ(s["bf16_spacing_abs"].get<double>(), std::ldexp(1.0, std::ilogb(stored) - 7)) << a;
      EXPECT_LE(s["bf16_log_prob_error"].get<double>(), s["bf16_spacing_abs"].get<double>() + 1e-12);
      if (s["bf16_log_prob_error"].get<double>() > s["bf16_spacing"].get<double>()) understated = true;
    }
    EXPECT_EQ(r["final_bf16_spacing_abs"], r["series"].back()["bf16_spacing_abs"]);
    EXPECT_EQ(r["final_max_abs_logit"], r["series"].back()["max_abs_logit"]);
  }
  EXPECT_TRUE(understated);
}

}  // namespace
