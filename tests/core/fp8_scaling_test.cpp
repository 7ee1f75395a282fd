// The loss-scaling sweep's verdict counts what an overflow costs (a skipped step), and FP8
// with finer scale groups: per tensor, DeepSeek-V3's 128×128 weight blocks and 1×128
// activation tiles (arXiv:2412.19437 §3.3.2), MXFP8's 32-value blocks with a power-of-two
// scale (OCP MX v1.0); the tile exercise against the calculator.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/numerics/float_format.hpp"
#include "mlsys/numerics/fp8_block_scaling.hpp"
#include "mlsys/numerics/loss_scaling.hpp"

using mlsys::calc;
using json = nlohmann::json;

// Under the lesson's model (mu −26, sigma 4, 1e8 gradients a step) the per-value count put
// its best at 2^21, where a step has an overflow with probability ≈ 1 − 5·10⁻⁴. The verdict
// is now the largest scale skipping at most 1 % of steps: 2^16, inside the dynamic scaler's
// range.
TEST(LossScalingVerdict, CountsSkippedSteps) {
  const json r = calc("loss-scaling", {{"mu_log2", -26}, {"sigma_log2", 4}});
  EXPECT_EQ(r["best_log2_scale"].get<double>(), 21);
  EXPECT_EQ(r["safe_log2_scale"].get<double>(), 16);
  EXPECT_LE(r["safe_step_overflow"].get<double>(), 0.01);
  const json& at21 = r["sweep"][31];
  ASSERT_EQ(at21["log2_scale"].get<int>(), 21);
  EXPECT_NEAR(1 - at21["step_overflow"].get<double>(), 5e-4, 1e-4);
  const json& at17 = r["sweep"][27];
  EXPECT_GT(at17["step_overflow"].get<double>(), 0.01);  // the next scale up skips too many
  // Fewer gradients per step allow a larger scale; a stricter skip budget a smaller one.
  EXPECT_GT(calc("loss-scaling", {{"mu_log2", -26}, {"sigma_log2", 4}, {"grads_per_step", 1e4}})["safe_log2_scale"]
                .get<double>(),
            16);
  EXPECT_LT(calc("loss-scaling", {{"mu_log2", -26}, {"sigma_log2", 4}, {"max_skip_fraction", 1e-5}})["safe_log2_scale"]
                .get<double>(),
            16);
  const json d = calc("dynamic-loss-scale", {{"format", "fp16"}, {"mu_log2", -26}, {"sigma_log2", 4},
                                             {"grads_per_step", 1e8}, {"steps", 3000}, {"growth_interval", 100}});
  EXPECT_LE(d["min_scale"].get<double>(), std::ldexp(1.0, 16));
  EXPECT_GE(d["max_scale"].get<double>(), std::ldexp(1.0, 16));
  EXPECT_DOUBLE_EQ(mlsys::step_overflow_probability(1e-10, 1e8), -std::expm1(1e8 * std::log1p(-1e-10)));
  EXPECT_EQ(mlsys::step_overflow_probability(0, 1e8), 0);
}

TEST(Fp8BlockScaling, SmallerGroupsLoseFewerElements) {
  const json r = calc("fp8-block-scaling", json::object());
  ASSERT_EQ(r["schemes"].size(), 4u);
  const char* order[] = {"per-tensor", "block-128x128", "tile-1x128", "mx-1x32"};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r["schemes"][i]["scheme"], order[i]);
  for (int i = 0; i < 3; ++i)
    EXPECT_GT(r["schemes"][i]["lost_fraction"].get<double>(), r["schemes"][i + 1]["lost_fraction"].get<double>()) << i;
  EXPECT_GT(r["schemes"][0]["lost_fraction"].get<double>(), 0.2);
  EXPECT_LT(r["schemes"][2]["lost_fraction"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(r["schemes"][2]["scale_bits_per_element"].get<double>(), 0.25);  // 32 bits / 128
  EXPECT_DOUBLE_EQ(r["schemes"][3]["scale_bits_per_element"].get<double>(), 0.25);  // 8 bits / 32
  // Without outliers no scheme loses much; the sweep's loss grows with the outliers.
  const json& sweep = r["sweep"];
  EXPECT_EQ(sweep.size(), 11u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_LT(sweep[0]["lost_fraction"][i].get<double>(), 0.01);
    EXPECT_GT(sweep[10]["lost_fraction"][i].get<double>(), sweep[0]["lost_fraction"][i].get<double>());
  }
  const json none = calc("fp8-block-scaling", {{"outlier_channels", 0}});
  EXPECT_EQ(none["schemes"][0]["lost_fraction"], none["sweep"][0]["lost_fraction"][0]);
  EXPECT_THROW(calc("fp8-block-scaling", {{"format", "bf16"}}), mlsys::InputError);
  EXPECT_THROW(calc("fp8-block-scaling", {{"outlier_log2", 30}}), mlsys::InputError);
}

TEST(Fp8BlockScaling, GroupDequantizeRoundsOnTheScaledGrid) {
  // amax 448: the scale is 1, so x comes back as its E4M3 rounding.
  EXPECT_EQ(mlsys::fp8_group_dequantize(1.0, 448, "fp8-e4m3"), 1.0);
  EXPECT_EQ(mlsys::fp8_group_dequantize(1.1, 448, "fp8-e4m3"), 1.125);
  EXPECT_EQ(mlsys::fp8_group_dequantize(448, 448, "fp8-e4m3"), 448);
  // amax 4.48: scale 0.01; 0.0123 / 0.01 = 1.23 → 1.25 → 0.0125.
  EXPECT_NEAR(mlsys::fp8_group_dequantize(0.0123, 4.48, "fp8-e4m3"), 0.0125, 1e-15);
}

TEST(NumericsExercises, Fp8TileScaleUsesTheTilesOwnScale) {
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const auto e = mlsys::make_exercise("numerics-fp8-tile-scale", seed);
    const double x = e.params["value"].get<double>(), tile = e.params["tile_amax"].get<double>(),
                 tensor = e.params["tensor_amax"].get<double>();
    EXPECT_EQ(e.answer, mlsys::fp8_group_dequantize(x, tile, "fp8-e4m3"));
    const auto check = [&](double v) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.4g", v);
      return mlsys::check_exercise("numerics-fp8-tile-scale", seed, buf)["correct"].get<bool>();
    };
    EXPECT_TRUE(check(e.answer)) << seed;
    EXPECT_FALSE(check(x)) << seed << ": the element itself";
    const double per_tensor = mlsys::fp8_group_dequantize(x, tensor, "fp8-e4m3");
    if (std::fabs(per_tensor - e.answer) > 0.002 * e.answer) {
      EXPECT_FALSE(check(per_tensor)) << seed;
    }
  }
}
