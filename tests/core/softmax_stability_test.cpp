// Numerical-stability lesson: `softmax-stability` (naive and max-subtracted softmax emulated in
// fp32, bf16 and fp16) against closed forms: the overflow thresholds ln(max) (IEEE 754-2019
// binary16's largest finite value 65504, binary32's FLT_MAX = (2 − 2⁻²³)·2¹²⁷; bf16's
// (2 − 2⁻⁷)·2¹²⁷, Kalamkar et al. 2019, arXiv:1905.12322), the naive kernel failing exactly
// above them, and the stable kernel giving the exact softmax rounded to the format.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/numerics/float_format.hpp"
#include "mlsys/training/softmax_stability.hpp"
#include "test_support.hpp"

using mlsys::json;

namespace {

// The representable values of `format` next to x (below and above).
double next_up(double x, const std::string& format) {
  return mlsys::round_to_format(x, mlsys::float_format(format)).value + mlsys::round_to_format(x, mlsys::float_format(format)).ulp;
}

TEST(SoftmaxStability, ThresholdsAreLnMax) {
  // fp16: ln 65504 = 11.0898664...; fp32: ln FLT_MAX = 88.7228391...; bf16: ln(3.3895314e38) = 88.7189...
  const json h = mlsys::calc("softmax-stability", {{"max_logit", 1}, {"format", "fp16"}});
  EXPECT_NEAR(h["overflow_threshold"].get<double>(), std::log(65504.0), 1e-12);
  EXPECT_NEAR(h["overflow_threshold"].get<double>(), 11.0898664884610, 1e-10);
  const json s = mlsys::calc("softmax-stability", {{"max_logit", 1}, {"format", "fp32"}});
  EXPECT_NEAR(s["overflow_threshold"].get<double>(), std::log(static_cast<double>(FLT_MAX)), 1e-12);
  EXPECT_NEAR(s["overflow_threshold"].get<double>(), 88.72283905206835, 1e-10);
  const json b = mlsys::calc("softmax-stability", {{"max_logit", 1}, {"format", "bf16"}});
  EXPECT_NEAR(b["overflow_threshold"].get<double>(), std::log(std::ldexp(2 - std::ldexp(1, -7), 127)), 1e-12);
  EXPECT_NEAR(b["max"].get<double>(), 3.3895313892515355e38, 1e25);
}

// A single logit: the naive kernel overflows exactly for the representable values above ln(max).
TEST(SoftmaxStability, NaiveOverflowsExactlyAboveTheThreshold) {
  for (const std::string f : {"fp16", "bf16", "fp32"}) {
    const mlsys::FloatFormat& fmt = mlsys::float_format(f);
    const double t = std::log(fmt.max);
    // The largest representable value at or below t, and the next one up.
    double below = mlsys::round_value(t, fmt);
    if (below > t) below -= mlsys::round_to_format(below, fmt).ulp / (below == std::ldexp(1.0, std::ilogb(below)) ? 2 : 1);
    const double above = next_up(below, f);
    ASSERT_LE(below, t) << f;
    ASSERT_GT(above, t) << f;
    const json ok = mlsys::calc("softmax-stability", {{"logits", {below, below - 1}}, {"format", f}});
    EXPECT_FALSE(ok["exp_overflow"].get<bool>()) << f << " " << below;
    const json bad = mlsys::calc("softmax-stability", {{"logits", {above}}, {"format", f}});
    EXPECT_TRUE(bad["exp_overflow"].get<bool>()) << f << " " << above;
    EXPECT_TRUE(bad["overflow"].get<bool>());
    EXPECT_TRUE(bad["naive"].is_null());
    EXPECT_TRUE(bad["naive_max_abs_error"].is_null());
    // The stable kernel is untouched: one logit gives probability 1.
    EXPECT_EQ(bad["stable"][0].get<double>(), 1.0);
  }
  // fp16's neighbours of ln 65504 = 11.0899: 11.0859375 (e^x = 65,249, finite) and 11.09375 (e^x = 65,751 → inf).
  EXPECT_FALSE(mlsys::calc("softmax-stability", {{"logits", {11.0859375}}, {"format", "fp16"}})["overflow"].get<bool>());
  EXPECT_TRUE(mlsys::calc("softmax-stability", {{"logits", {11.09375}}, {"format", "fp16"}})["overflow"].get<bool>());
  // fp32 at 88.7 is fine, at 88.73 it overflows, as expf does.
  EXPECT_FALSE(mlsys::calc("softmax-stability", {{"logits", {88.7}}, {"format", "fp32"}})["overflow"].get<bool>());
  EXPECT_TRUE(mlsys::calc("softmax-stability", {{"logits", {88.73}}, {"format", "fp32"}})["overflow"].get<bool>());
}

// The sum overflows earlier: above ln(max) − ln Σ e^(x_i − x_max). Eight logits 1 apart in fp16:
// Σ e^(−i) = (1 − e^−8)/(1 − e^−1) = 1.58147, so the threshold is 11.08987 − 0.45836 = 10.63151.
TEST(SoftmaxStability, SumOverflowThreshold) {
  const json r = mlsys::calc("softmax-stability", {{"max_logit", 10.5}, {"count", 8}, {"format", "fp16"}});
  const double series = (1 - std::exp(-8.0)) / (1 - std::exp(-1.0));
  EXPECT_NEAR(r["sum_overflow_threshold"].get<double>(), std::log(65504.0) - std::log(series), 1e-9);
  EXPECT_FALSE(r["overflow"].get<bool>());
  EXPECT_NEAR(r["naive_sum"].get<double>(), std::exp(10.5) * series, 0.002 * std::exp(10.5) * series);
  // 10.75 is below 11.09, so every exponential is finite, but their sum passes 65504: every p is 0.
  const json s = mlsys::calc("softmax-stability", {{"max_logit", 10.75}, {"count", 8}, {"format", "fp16"}});
  EXPECT_FALSE(s["exp_overflow"].get<bool>());
  EXPECT_TRUE(s["sum_overflow"].get<bool>());
  EXPECT_TRUE(s["overflow"].get<bool>());
  EXPECT_TRUE(s["naive_sum"].is_null());
  for (const auto& p : s["naive"]) EXPECT_EQ(p.get<double>(), 0.0);
}

// The stable kernel equals the exact softmax rounded to the format (fp32 intermediates are far more
// precise than a 16-bit output), at any shift of the logits, and the exact softmax is shift-invariant.
TEST(SoftmaxStability, StableEqualsExactSoftmax) {
  for (const std::string f : {"fp16", "bf16", "fp32"}) {
    const mlsys::FloatFormat& fmt = mlsys::float_format(f);
    for (double m : {0.0, 5.0, 11.0, 50.0, 88.0, 1000.0, 9000.0}) {
      const json r = mlsys::calc("softmax-stability", {{"max_logit", m}, {"count", 8}, {"spacing", 1}, {"format", f}});
      const auto x = r["logits"].get<std::vector<double>>();
      double mx = x[0], s = 0;
      for (double v : x) s += std::exp(v - mx);
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double exact = std::exp(x[i] - mx) / s;
        EXPECT_NEAR(r["exact"][i].get<double>(), exact, 1e-15);
        const double rounded = mlsys::round_value(exact, fmt);
        const double ulp = mlsys::round_to_format(exact, fmt).ulp;
        if (f == "fp32") {
          EXPECT_NEAR(r["stable"][i].get<double>(), exact, 4 * ulp) << f << " " << m;
        } else {
          EXPECT_EQ(r["stable"][i].get<double>(), rounded) << f << " " << m << " " << i;
        }
      }
    }
  }
}

// Below the threshold the naive kernel works, within a few of the format's ulps of the exact result;
// the probabilities do not depend on the shift (x_i − x_max is the same).
TEST(SoftmaxStability, NaiveBelowThresholdAndShiftInvariance) {
  const json a = mlsys::calc("softmax-stability", {{"logits", {2.0, 1.0, 0.0}}, {"format", "fp32"}});
  const json b = mlsys::calc("softmax-stability", {{"logits", {1002.0, 1001.0, 1000.0}}, {"format", "fp32"}});
  // softmax(2, 1, 0) = (0.665241, 0.244728, 0.090031).
  EXPECT_NEAR(a["naive"][0].get<double>(), 0.66524096, 1e-7);
  EXPECT_NEAR(a["stable"][0].get<double>(), 0.66524096, 1e-7);
  EXPECT_TRUE(b["naive"].is_null());
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a["stable"][i].get<double>(), b["stable"][i].get<double>(), 1e-7);
  EXPECT_NEAR(b["log_z"].get<double>(), 1002 + std::log(1 + std::exp(-1.0) + std::exp(-2.0)), 1e-12);
}

// Far below 0 every naive exponential underflows (fp16: e^x < 2^-25 for x < −17.3), the sum is 0
// and e/s is 0/0: naive is null; the stable kernel is unaffected.
TEST(SoftmaxStability, NaiveUnderflow) {
  const json r = mlsys::calc("softmax-stability", {{"max_logit", -20}, {"count", 4}, {"format", "fp16"}});
  EXPECT_TRUE(r["sum_underflow"].get<bool>());
  EXPECT_FALSE(r["overflow"].get<bool>());
  EXPECT_TRUE(r["naive"].is_null());
  EXPECT_NEAR(r["stable"][0].get<double>(), 1 / (1 + std::exp(-1.0) + std::exp(-2.0) + std::exp(-3.0)), 1e-3);
  EXPECT_FALSE(mlsys::calc("softmax-stability", {{"max_logit", -20}, {"count", 4}, {"format", "fp32"}})["sum_underflow"].get<bool>());
}

TEST(SoftmaxStability, Sweep) {
  const json r = mlsys::calc("softmax-stability", {{"max_logit", 0}, {"count", 4}, {"format", "fp16"}, {"sweep", true}});
  ASSERT_EQ(r["sweep"].size(), 201u);
  for (const auto& p : r["sweep"]) {
    const double m = p["max_logit"].get<double>();
    EXPECT_EQ(p["exp_overflow"].get<bool>(), m > std::log(65504.0)) << m;
    EXPECT_NEAR(p["stable_top"].get<double>(), p["exact_top"].get<double>(), 5e-4);
  }
  EXPECT_FALSE(mlsys::calc("softmax-stability", {{"max_logit", 0}, {"count", 4}})["sweep"].is_array());
}

TEST(SoftmaxStability, Errors) {
  EXPECT_EQ(mlsys::test::error_of("softmax-stability", "{}")["field"], "logits");
  EXPECT_EQ(mlsys::test::error_of("softmax-stability", R"({"logits": [1], "max_logit": 3})")["field"], "max_logit");
  EXPECT_EQ(mlsys::test::error_of("softmax-stability", R"({"logits": [1], "format": "fp8-e4m3"})")["field"], "format");
  EXPECT_EQ(mlsys::test::error_of("softmax-stability", R"({"logits": []})")["field"], "logits");
  EXPECT_EQ(mlsys::test::error_of("softmax-stability", R"({"logits": [70000], "format": "fp16"})")["field"], "logits");
  EXPECT_EQ(mlsys::test::error_of("softmax-stability", R"({"max_logit": 1, "count": 2000, "sweep": true})")["field"], "sweep");
  EXPECT_EQ(mlsys::test::error_of("softmax-stability", R"({"max_logit": 1, "count": 0})")["field"], "count");
}

// The exercises' answers against the calculator they name.
TEST(SoftmaxStability, ExercisesAgreeWithTheCalculator) {
  for (std::uint32_t seed = 0; seed < 20; ++seed) {
    const mlsys::Exercise o = mlsys::make_exercise("ns-sum-overflow", seed);
    EXPECT_NEAR(mlsys::calc("softmax-stability", o.params)["sum_overflow_threshold"].get<double>(), o.answer, 1e-9);
    const mlsys::Exercise s = mlsys::make_exercise("ns-stable-softmax", seed);
    EXPECT_NEAR(100 * mlsys::calc("softmax-stability", s.params)["stable"][0].get<double>(), s.answer, 0.002 * s.answer);
    const mlsys::Exercise z = mlsys::make_exercise("ns-z-loss", seed);
    const double lz = mlsys::calc("softmax-stability", z.params)["log_z"].get<double>();
    EXPECT_NEAR(1e-4 * lz * lz, z.answer, 1e-12);
  }
}

}  // namespace

TEST(SoftmaxStability, NaiveRowIsOneNaNPerOverflowedExponentialThenZeros) {
  // fp16, 8 logits 1 apart topped at 11.5: e^11.5 overflows (inf), the others do not; the sum is
  // inf, so a framework returns inf/inf = NaN for the top entry and finite/inf = 0 for the rest.
  const json r = mlsys::calc("softmax-stability", {{"max_logit", 11.5}, {"count", 8}, {"format", "fp16"}});
  EXPECT_TRUE(r["exp_overflow"].get<bool>());
  EXPECT_TRUE(r["naive"].is_null());
  EXPECT_EQ(r["naive_nan_count"], 1);
  // Two logits past ln 65504 give two NaNs; a sum overflow alone gives none (a row of zeros).
  EXPECT_EQ(mlsys::calc("softmax-stability", {{"logits", {11.5, 11.3, 2}}, {"format", "fp16"}})["naive_nan_count"], 2);
  const json zeros = mlsys::calc("softmax-stability", {{"max_logit", 10.75}, {"count", 8}, {"format", "fp16"}});
  EXPECT_EQ(zeros["naive_nan_count"], 0);
  EXPECT_EQ(zeros["naive"][0], 0.0);
  // bf16 and fp32 return zeros from the sum's threshold, 88.26 for this pattern, before 88.72.
  for (const char* f : {"bf16", "fp32"}) {
    const json t = mlsys::calc("softmax-stability", {{"max_logit", 88.3}, {"count", 8}, {"format", f}});
    EXPECT_TRUE(t["sum_overflow"].get<bool>()) << f;
    EXPECT_FALSE(t["exp_overflow"].get<bool>()) << f;
    EXPECT_NEAR(t["sum_overflow_threshold"].get<double>(), 88.26, 0.01) << f;
  }
}
