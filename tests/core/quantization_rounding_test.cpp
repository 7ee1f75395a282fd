// One rounding rule and one range rule for the integer quantizer: codes and zero points round
// half to even (ONNX QuantizeLinear and DynamicQuantizeLinear; IEEE 754's default mode), and an
// asymmetric range that excludes 0 is widened to hold it (ONNX DynamicQuantizeLinear; PyTorch's
// observers), so the zero point is always a code of the range. Also the ordinary rows' error
// that the quantize calculator reports beside the whole tensor's.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/quantization/quantizer.hpp"

using mlsys::calc;
using json = nlohmann::json;
using namespace mlsys::quant;

TEST(QuantRounding, TiesGoToTheEvenCode) {
  const Quantizer q = symmetric_quantizer(8, 127.0);  // scale 1: x/s is x
  EXPECT_EQ(quantize_code(q, 2.5), 2);   // away from zero would give 3
  EXPECT_EQ(quantize_code(q, 3.5), 4);
  EXPECT_EQ(quantize_code(q, -2.5), -2);
  EXPECT_EQ(quantize_code(q, 2.6), 3);
  // The closed form with a value: [0, 255] in 8 bits has scale 1; 0.5 → code 0, 1.5 → 2.
  EXPECT_EQ(calc("quantize", {{"bits", 8}, {"range_min", 0}, {"range_max", 255}, {"value", 0.5}}).at("q"), 0);
  EXPECT_EQ(calc("quantize", {{"bits", 8}, {"range_min", 0}, {"range_max", 255}, {"value", 1.5}}).at("q"), 2);
}

TEST(QuantRounding, ARangeThatExcludesZeroIsWidenedToHoldIt) {
  // [0.2, 1] in 3 bits: widened to [0, 1], step 1/7, zero point 0 (not round(−1.4) = −1).
  const json c = calc("quantize", {{"bits", 3}, {"range_min", 0.2}, {"range_max", 1}});
  EXPECT_DOUBLE_EQ(c.at("step").get<double>(), 1.0 / 7);
  EXPECT_EQ(c.at("zero_point").get<double>(), 0.0);
  EXPECT_FALSE(std::signbit(c.at("zero_point").get<double>()));
  // [−1, −0.25] in 4 bits: widened to [−1, 0], zero point 15, the top code.
  const json n = calc("quantize", {{"bits", 4}, {"range_min", -1}, {"range_max", -0.25}});
  EXPECT_EQ(n.at("zero_point").get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(n.at("step").get<double>(), 1.0 / 15);
  // The staircase reports the widened range and keeps 0 exact.
  const json s = calc("quantizer-staircase", {{"bits", 3}, {"range_min", 0.2}, {"range_max", 1}, {"value", 0.0}});
  EXPECT_EQ(s.at("range_lo").get<double>(), 0.0);
  EXPECT_EQ(s.at("value_dequantized").get<double>(), 0.0);
  for (double z : {c.at("zero_point").get<double>(), n.at("zero_point").get<double>()}) {
    EXPECT_GE(z, 0);
    EXPECT_LE(z, 15);
  }
}

TEST(QuantRounding, OrdinaryRowsErrorIsReportedApart) {
  // At outlier scale 100 a scale per row barely moves the whole tensor's MSE (the outlier rows'
  // own rounding error), while the ordinary rows go from rounding to zero (error ≈ their power,
  // 1) to the 4-bit error of a unit Gaussian row.
  json in = {{"bits", 4}, {"distribution", "gaussian-outliers"}, {"outlier_fraction", 0.03125},
             {"outlier_scale", 100}, {"samples", 65536}, {"cols", 512}};
  in["granularity"] = "tensor";
  const json t = calc("quantize", in);
  in["granularity"] = "channel";
  const json r = calc("quantize", in);
  EXPECT_GT(r.at("mse").get<double>(), t.at("mse").get<double>() / 2);
  EXPECT_NEAR(t.at("mse_ordinary").get<double>(), 1.0, 0.1);
  EXPECT_LT(r.at("mse_ordinary").get<double>(), t.at("mse_ordinary").get<double>() / 30);
  // Without outlier rows the two coincide.
  const json g = calc("quantize", {{"bits", 4}, {"distribution", "gaussian"}});
  EXPECT_DOUBLE_EQ(g.at("mse_ordinary").get<double>(), g.at("mse").get<double>());
}
