// Numerical-stability lesson: `loss-spikes` (a seeded toy run of SGD with momentum on a linear
// regression with rare bad batches) and `clip-grad-norm` (torch.nn.utils.clip_grad_norm_:
// clip_coef = max_norm / (total_norm + 1e-6), clamped to 1; PyTorch documentation of
// torch.nn.utils.clip_grad_norm_). GPT-3 (Brown et al. 2020, arXiv:2005.14165, appendix B) and
// Llama 2 (Touvron et al. 2023, arXiv:2307.09288, section 2.2) clip the global norm at 1.0.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/training/loss_spikes.hpp"
#include "test_support.hpp"

using mlsys::json;

namespace {

TEST(ClipGradNorm, MatchesTorch) {
  // (3, 4) has norm 5; max_norm 1 multiplies it by 1/(5 + 1e-6).
  const json r = mlsys::calc("clip-grad-norm", {{"grads", {3.0, 4.0}}, {"max_norm", 1.0}});
  EXPECT_DOUBLE_EQ(r["total_norm"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(r["clip_coef"].get<double>(), 1.0 / (5.0 + 1e-6));
  EXPECT_TRUE(r["clipped"].get<bool>());
  EXPECT_DOUBLE_EQ(r["grads"][0].get<double>(), 3.0 / (5.0 + 1e-6));
  EXPECT_NEAR(r["clipped_norm"].get<double>(), 1.0, 1e-6);
  // Below the threshold nothing changes (the coefficient is clamped to 1).
  const json s = mlsys::calc("clip-grad-norm", {{"grads", {0.3, 0.4}}, {"max_norm", 1.0}});
  EXPECT_FALSE(s["clipped"].get<bool>());
  EXPECT_EQ(s["clip_coef_clamped"].get<double>(), 1.0);
  EXPECT_EQ(s["grads"][1].get<double>(), 0.4);
  EXPECT_EQ(mlsys::test::error_of("clip-grad-norm", R"({"grads": [1], "max_norm": 0})")["field"], "max_norm");
  EXPECT_EQ(mlsys::test::error_of("clip-grad-norm", R"({"grads": []})")["field"], "grads");
}

TEST(LossSpikes, ClosedForms) {
  const json r = mlsys::calc("loss-spikes", {{"lr", 0.05}, {"spike_scale", 20}, {"momentum", 0.9}});
  // (1 − 0.05·400)² = 361; heavy-ball limits 2(1 + μ)/λ = 3.8 and 3.8/400.
  EXPECT_DOUBLE_EQ(r["bad_step_loss_factor"].get<double>(), 361.0);
  EXPECT_DOUBLE_EQ(r["stable_lr_limit"].get<double>(), 3.8);
  EXPECT_DOUBLE_EQ(r["bad_batch_lr_limit"].get<double>(), 3.8 / 400);
  EXPECT_DOUBLE_EQ(r["loss_floor"].get<double>(), 0.005);
  EXPECT_EQ(r["loss"].size(), 601u);
  EXPECT_EQ(r["grad_norm"].size(), 601u);
  // Initial loss ½ Σ λ_i w*_i² + ½σ² ≥ the floor.
  EXPECT_GT(r["initial_loss"].get<double>(), r["loss_floor"].get<double>());
  EXPECT_GE(r["min_loss"].get<double>(), r["loss_floor"].get<double>() * 0.999);
}

// Without bad batches the run converges to the noise floor with no spike; deterministic per seed.
TEST(LossSpikes, CleanRunHasNoSpikes) {
  for (int seed = 1; seed <= 5; ++seed) {
    const json r = mlsys::calc("loss-spikes", {{"spike_rate", 0}, {"seed", seed}});
    EXPECT_EQ(r["spike_count"].get<int>(), 0) << seed;
    EXPECT_TRUE(r["bad_steps"].empty());
    EXPECT_LT(r["final_loss"].get<double>(), 1.5 * r["loss_floor"].get<double>());
    EXPECT_FALSE(r["diverged"].get<bool>());
  }
  EXPECT_EQ(mlsys::calc("loss-spikes", {{"seed", 3}}).dump(), mlsys::calc("loss-spikes", {{"seed", 3}}).dump());
}

// The lesson's default run (seed 1): bad batches make spikes without clipping; clipping at 1.0 makes
// them small and short. Same bad batches in both (the draws do not depend on clipping).
TEST(LossSpikes, ClippingTamesTheSpikes) {
  const json off = mlsys::calc("loss-spikes", json::object());
  const json on = mlsys::calc("loss-spikes", {{"max_norm", 1.0}});
  EXPECT_EQ(off["bad_steps"], on["bad_steps"]);
  EXPECT_GE(off["bad_steps"].size(), 1u);
  EXPECT_GE(off["spike_count"].get<int>(), 1);
  double peak_off = 0, peak_on = 0;
  for (const auto& s : off["spikes"]) peak_off = std::max(peak_off, s["peak_loss"].get<double>());
  for (const auto& s : on["spikes"]) peak_on = std::max(peak_on, s["peak_loss"].get<double>());
  EXPECT_GT(peak_off, 1000 * peak_on);
  EXPECT_LT(on["final_loss"].get<double>(), off["final_loss"].get<double>());
  EXPECT_GT(on["clipped_fraction"].get<double>(), 0.0);
  EXPECT_LT(on["clipped_fraction"].get<double>(), 0.05);
  EXPECT_EQ(off["clipped_fraction"].get<double>(), 0.0);
  // Each clipped step's gradient norm was above max_norm.
  for (const auto& t : on["clipped_steps"]) EXPECT_GT(on["grad_norm"][t.get<int>()].get<double>(), 1.0 - 1e-6);
}

// A learning rate past the clean batches' limit diverges, and the run stops there.
TEST(LossSpikes, Divergence) {
  const json r = mlsys::calc("loss-spikes", {{"lr", 5.0}, {"spike_rate", 0}});
  EXPECT_TRUE(r["diverged"].get<bool>());
  EXPECT_LT(r["steps_run"].get<int>(), 600);
  EXPECT_EQ(r["diverged_step"].get<int>(), r["steps_run"].get<int>());
  EXPECT_FALSE(mlsys::calc("loss-spikes", {{"lr", 5.0}, {"spike_rate", 0}, {"max_norm", 1.0}})["loss"].empty());
}

TEST(LossSpikes, Errors) {
  EXPECT_EQ(mlsys::test::error_of("loss-spikes", R"({"lr": 0})")["field"], "lr");
  EXPECT_EQ(mlsys::test::error_of("loss-spikes", R"({"momentum": 1})")["field"], "momentum");
  EXPECT_EQ(mlsys::test::error_of("loss-spikes", R"({"steps": 0})")["field"], "steps");
  EXPECT_EQ(mlsys::test::error_of("loss-spikes", R"({"spike_scale": 0.5})")["field"], "spike_scale");
}

TEST(LossSpikes, ExercisesAgreeWithTheCalculators) {
  for (std::uint32_t seed = 0; seed < 20; ++seed) {
    const mlsys::Exercise c = mlsys::make_exercise("ns-clip-norm", seed);
    EXPECT_NEAR(mlsys::calc("clip-grad-norm", c.params)["grads"][0].get<double>(), c.answer, 1e-12);
    const mlsys::Exercise f = mlsys::make_exercise("ns-spike-factor", seed);
    EXPECT_NEAR(mlsys::calc("loss-spikes", f.params)["bad_step_loss_factor"].get<double>(), f.answer, 1e-9 * f.answer);
    // 1 − η·λ is negative (η·λ ≥ 3): the solution writes it with a minus sign, not a hyphen.
    EXPECT_EQ(f.solution.find("= -"), std::string::npos) << f.solution;
    EXPECT_NE(f.solution.find("= \u2212"), std::string::npos) << f.solution;
  }
}

}  // namespace
