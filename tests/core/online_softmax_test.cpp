// Online softmax (Milakov & Gimelshein 2018, arXiv:1805.02867) against the exact softmax, the
// deterministic exp/log against the C library, the logsumexp merge, and the `online-softmax`
// and `softmax-merge` calculators with their bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/kernels/online_softmax.hpp"

using mlsys::calc;
using mlsys::json;

namespace {
double max_diff(const std::vector<float>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}
std::vector<double> widen(const std::vector<float>& x) { return {x.begin(), x.end()}; }
std::string error_field(const std::string& name, const json& input) {
  try {
    calc(name, input);
  } catch (const mlsys::InputError& e) {
    EXPECT_FALSE(std::string(e.what()).empty());
    return e.field;
  }
  ADD_FAILURE() << name << " accepted " << input.dump();
  return "<accepted>";
}
}  // namespace

TEST(ExpLog, MatchTheCLibraryToAFewUlp) {
  for (double x = -745.0; x <= 709.0; x += 0.37) {
    const double ref = std::exp(x);
    if (ref < 1e-300) continue;  // subnormal range: compared separately below
    EXPECT_NEAR(mlsys::exp_det(x), ref, 4e-16 * ref) << x;
  }
  for (double x : {-1e-300, 0.0, 1e-12, 0.5, -0.5, 0.34657359, -0.34657359, 88.7, -103.0}) {
    EXPECT_NEAR(mlsys::exp_det(x), std::exp(x), 4e-16 * std::exp(x)) << x;
  }
  EXPECT_NEAR(mlsys::exp_det(-740.0), std::exp(-740.0), 1e-323);
  EXPECT_EQ(mlsys::exp_det(-std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(mlsys::exp_det(-800.0), 0.0);
  EXPECT_TRUE(std::isinf(mlsys::exp_det(710.0)));
  EXPECT_TRUE(std::isnan(mlsys::exp_det(std::nan(""))));
  for (double x = 1e-300; x < 1e300; x *= 7.3) EXPECT_NEAR(mlsys::log_det(x), std::log(x), 4e-16 * std::fabs(std::log(x)) + 1e-300) << x;
  for (double x : {0.5, 0.7071, 0.99999, 1.0, 1.00001, 1.4142, 2.0, 3.0, 10.0}) EXPECT_NEAR(mlsys::log_det(x), std::log(x), 4.5e-16);  // 1 ulp at 10
  EXPECT_EQ(mlsys::log_det(1.0), 0.0);
  EXPECT_TRUE(std::isinf(mlsys::log_det(0.0)));
  EXPECT_TRUE(std::isnan(mlsys::log_det(-1.0)));
}

TEST(ExpLog, FloatExpWithinOneUlp) {
  for (float x = -103.0f; x < 88.7f; x += 0.0137f) {
    const double ref = std::exp(static_cast<double>(x));
    const float y = mlsys::expf_det(x);
    if (ref < 1.2e-38) continue;  // float subnormals: absolute check below
    EXPECT_NEAR(y, ref, 1.2e-7 * ref) << x;
  }
  EXPECT_NEAR(mlsys::expf_det(-100.0f), std::exp(-100.0), 2e-45);
  EXPECT_EQ(mlsys::expf_det(0.0f), 1.0f);
  EXPECT_TRUE(std::isinf(mlsys::expf_det(88.73f)));
  EXPECT_EQ(mlsys::expf_det(-105.0f), 0.0f);
  EXPECT_EQ(mlsys::expf_det(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_TRUE(std::isnan(mlsys::expf_det(std::nanf(""))));
}

TEST(OnlineSoftmax, EqualsExactSoftmaxForEveryBlockSize) {
  // Tolerance: float rounding of e^(x − m) and of the running sum over <= 1000 terms.
  for (const char* pattern : {"random", "rising", "falling"}) {
    const auto x = mlsys::make_scores(1000, pattern, 8.0f, 3);
    const auto v = mlsys::make_values(1000, 3);
    const auto exact = mlsys::softmax_fp64(widen(x));
    double exact_out = 0;
    for (int i = 0; i < 1000; ++i) exact_out += exact[i] * v[i];
    for (int block : {1, 2, 7, 64, 999, 1000, 5000}) {
      const auto r = mlsys::online_softmax(x, v, block);
      EXPECT_LT(max_diff(r.p, exact), 1e-6) << pattern << " block " << block;
      EXPECT_NEAR(r.output, exact_out, 1e-5) << pattern << " block " << block;
      EXPECT_EQ(static_cast<int>(r.steps.size()), (1000 + std::min(block, 1000) - 1) / std::min(block, 1000));
      // The safe three-pass float softmax agrees too.
      EXPECT_LT(max_diff(mlsys::softmax_safe(x), exact), 1e-6);
    }
  }
}

TEST(OnlineSoftmax, LargeScoresDoNotOverflow) {
  // Scores up to ±10^4: e^x overflows float (and double) for x > 88.7 (709.8), so the textbook
  // form fails, while the max-subtracted forms stay exact.
  const auto x = mlsys::make_scores(500, "random", 1e4f, 11);
  const auto v = mlsys::make_values(500, 11);
  const auto unsafe = mlsys::softmax_unsafe(x);
  EXPECT_TRUE(unsafe.out_of_range);
  const auto exact = mlsys::softmax_fp64(widen(x));
  for (int block : {1, 16, 500}) {
    const auto r = mlsys::online_softmax(x, v, block);
    for (float p : r.p) EXPECT_TRUE(std::isfinite(p));
    EXPECT_TRUE(std::isfinite(r.l) && std::isfinite(r.output));
    EXPECT_LT(max_diff(r.p, exact), 1e-6);
  }
  // Small scores: the unsafe form is fine and matches.
  const auto small = mlsys::make_scores(500, "random", 3.0f, 11);
  const auto ok = mlsys::softmax_unsafe(small);
  EXPECT_FALSE(ok.out_of_range);
  EXPECT_LT(max_diff(ok.p, mlsys::softmax_fp64(widen(small))), 1e-6);
  // All scores very negative: every e^x underflows to 0 in the unsafe form.
  EXPECT_TRUE(mlsys::softmax_unsafe(std::vector<float>(4, -200.0f)).out_of_range);
}

TEST(OnlineSoftmax, RescalesExactlyWhenTheMaximumGrows) {
  const auto rising = mlsys::online_softmax(mlsys::make_scores(64, "rising", 5, 1), mlsys::make_values(64, 1), 8);
  for (std::size_t b = 1; b < rising.steps.size(); ++b) {
    EXPECT_GT(rising.steps[b].m_new, rising.steps[b].m_old);
    EXPECT_LT(rising.steps[b].rescale, 1.0f);
    EXPECT_FLOAT_EQ(rising.steps[b].rescale, std::exp(rising.steps[b].m_old - rising.steps[b].m_new));
  }
  const auto falling = mlsys::online_softmax(mlsys::make_scores(64, "falling", 5, 1), mlsys::make_values(64, 1), 8);
  for (std::size_t b = 1; b < falling.steps.size(); ++b) EXPECT_EQ(falling.steps[b].rescale, 1.0f);
  EXPECT_EQ(rising.steps[0].rescale, 0.0f);  // nothing accumulated before the first block
  EXPECT_TRUE(std::isinf(rising.steps[0].m_old));
}

TEST(OnlineSoftmax, HandWorkedExample) {
  // Scores 1, 3 | 2: after block 1, m = 3, l = e^-2 + 1; block 2 does not raise m, l += e^-1.
  const auto r = mlsys::online_softmax({1.0f, 3.0f, 2.0f}, {1.0f, 0.0f, 0.0f}, 2);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_FLOAT_EQ(r.steps[0].l, static_cast<float>(std::exp(-2.0) + 1.0));
  EXPECT_FLOAT_EQ(r.steps[1].l, static_cast<float>(std::exp(-2.0) + 1.0 + std::exp(-1.0)));
  EXPECT_FLOAT_EQ(r.steps[1].rescale, 1.0f);
  const double z = std::exp(1.0) + std::exp(3.0) + std::exp(2.0);
  EXPECT_NEAR(r.output, std::exp(1.0) / z, 1e-7);
}

TEST(SoftmaxMerge, TwoHalvesMergeIntoTheWhole) {
  const auto x = mlsys::make_scores(101, "random", 20.0f, 5);
  const auto v = mlsys::make_values(101, 5);
  const auto part = [&](int begin, int end) {
    double m = -1e300;
    for (int i = begin; i < end; ++i) m = std::max(m, static_cast<double>(x[i]));
    double l = 0, o = 0;
    for (int i = begin; i < end; ++i) {
      const double e = mlsys::exp_det(x[i] - m);
      l += e;
      o += e * v[i];
    }
    return mlsys::SoftmaxPartial{m, l, o / l};
  };
  const auto whole = part(0, 101);
  for (int cut : {1, 30, 50, 100}) {
    const auto r = mlsys::merge_partials(part(0, cut), part(cut, 101));
    EXPECT_NEAR(r.merged.m, whole.m, 0);
    EXPECT_NEAR(r.merged.l, whole.l, 1e-12 * whole.l);
    EXPECT_NEAR(r.merged.o, whole.o, 1e-13);
    EXPECT_NEAR(r.merged.lse(), whole.lse(), 1e-13);
    EXPECT_NEAR(r.weight_a + r.weight_b, 1.0, 1e-15);
  }
}

TEST(OnlineSoftmaxCalc, StepsAndErrors) {
  const json r = calc("online-softmax", {{"length", 40}, {"block", 8}, {"pattern", "rising"}});
  EXPECT_EQ(r["blocks"], 5);
  EXPECT_EQ(r["steps"].size(), 5u);
  EXPECT_EQ(r["rescales"], 4);
  EXPECT_TRUE(r["steps"][0]["m_old"].is_null());
  EXPECT_LT(r["max_prob_error"].get<double>(), 1e-6);
  EXPECT_LT(r["output_error"].get<double>(), 1e-6);
  for (const auto& s : r["steps"]) EXPECT_LT(s["error"].get<double>(), 1e-6);
  EXPECT_FALSE(r["naive_out_of_range"]);
  const json big = calc("online-softmax", {{"length", 64}, {"scale", 1000}});
  EXPECT_TRUE(big["naive_out_of_range"]);
  EXPECT_FALSE(big.contains("naive_max_prob_error"));
  EXPECT_LT(big["max_prob_error"].get<double>(), 1e-6);
  // A block larger than the row is one block.
  EXPECT_EQ(calc("online-softmax", {{"length", 5}, {"block", 100}})["blocks"], 1);
}

TEST(OnlineSoftmaxCalc, BadInputs) {
  EXPECT_EQ(error_field("online-softmax", {{"length", 0}}), "length");
  EXPECT_EQ(error_field("online-softmax", {{"length", 5000}}), "length");
  EXPECT_EQ(error_field("online-softmax", {{"length", 1000}, {"block", 3}}), "block");  // 334 blocks > 256
  EXPECT_EQ(error_field("online-softmax", {{"block", 0}}), "block");
  EXPECT_EQ(error_field("online-softmax", {{"block", -3}}), "block");
  EXPECT_EQ(error_field("online-softmax", {{"scale", 0}}), "scale");
  EXPECT_EQ(error_field("online-softmax", {{"scale", 1e9}}), "scale");
  EXPECT_EQ(error_field("online-softmax", {{"pattern", "zigzag"}}), "pattern");
  EXPECT_EQ(error_field("online-softmax", {{"length", "8"}}), "length");
  EXPECT_EQ(error_field("online-softmax", {{"length", 8.5}}), "length");
  EXPECT_EQ(error_field("online-softmax", {{"lenght", 8}}), "lenght");
  const auto nan = mlsys::calc_text("online-softmax", "{\"scale\": NaN}");
  EXPECT_FALSE(nan.ok);
}

TEST(SoftmaxMergeCalc, MatchesHandComputation) {
  // lse_a = 2, lse_b = 1: weights 1/(1 + e^-1) and e^-1/(1 + e^-1).
  const json r = calc("softmax-merge", {{"m_a", 2.0}, {"l_a", 1.0}, {"o_a", 0.5}, {"m_b", 1.0}, {"l_b", 1.0}, {"o_b", -0.5}});
  const double wa = 1.0 / (1.0 + std::exp(-1.0));
  EXPECT_NEAR(r["weight_a"].get<double>(), wa, 1e-15);
  EXPECT_NEAR(r["o"].get<double>(), wa * 0.5 - (1 - wa) * 0.5, 1e-15);
  EXPECT_NEAR(r["lse"].get<double>(), std::log(std::exp(2.0) + std::exp(1.0)), 1e-14);
  EXPECT_DOUBLE_EQ(r["m"].get<double>(), 2.0);
  EXPECT_NEAR(r["l"].get<double>(), 1 + std::exp(-1.0), 1e-15);
  // Far-apart maxima: the smaller partial underflows to weight 0 without NaN.
  const json far = calc("softmax-merge", {{"m_a", 9000}, {"l_a", 3}, {"m_b", -9000}, {"l_b", 5}});
  EXPECT_DOUBLE_EQ(far["weight_b"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(far["l"].get<double>(), 3.0);
}

TEST(SoftmaxMergeCalc, BadInputs) {
  const json ok = {{"m_a", 1}, {"l_a", 1}, {"m_b", 1}, {"l_b", 1}};
  auto with = [&](const std::string& k, const json& v) { json j = ok; j[k] = v; return j; };
  EXPECT_EQ(error_field("softmax-merge", with("l_a", 0)), "l_a");
  EXPECT_EQ(error_field("softmax-merge", with("l_b", -1)), "l_b");
  EXPECT_EQ(error_field("softmax-merge", with("m_a", 1e5)), "m_a");
  EXPECT_EQ(error_field("softmax-merge", with("o_b", "x")), "o_b");
  EXPECT_EQ(error_field("softmax-merge", with("weight", 1)), "weight");
  EXPECT_EQ(error_field("softmax-merge", {{"m_a", 1}, {"l_a", 1}, {"m_b", 1}}), "l_b");
}

// The stepper model: a rising ramp grows the maximum in every block, so every block after the
// first rescales (Milakov & Gimelshein 2018, eq. for l_j = l_{j−1}·e^(m_{j−1} − m_j) + ...).
TEST(OnlineSoftmaxStepperModel, RisingRampRescalesEveryBlock) {
  const auto r = mlsys::online_softmax_stepper(8, 2, "rising", 4.0f, 1, 2);
  EXPECT_EQ(r.blocks, 4u);
  EXPECT_EQ(r.block, 2);
  EXPECT_EQ(r.rescales, 3);
  EXPECT_FALSE(r.steps[0].m_old.has_value());
  ASSERT_TRUE(r.steps[1].m_old.has_value());
  EXPECT_EQ(*r.steps[1].m_old, r.steps[0].m_new);
  EXPECT_EQ(r.step, 2);
  EXPECT_EQ(r.step_weights.size(), 4u);         // keys [0, end) of block 2
  EXPECT_EQ(r.step_weights_before.size(), 2u);  // keys [0, begin)
  double sum = 0;
  for (float p : r.probabilities) sum += p;
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_NEAR(r.steps.back().exact_prefix, r.exact_output, 1e-12);
  EXPECT_LT(r.output_error, 1e-6);
  EXPECT_TRUE(r.naive_max_prob_error.has_value());
  EXPECT_EQ(mlsys::online_softmax_stepper(5, 100, "random", 4.0f, 1, 256).block, 5);  // block clamped to n
  try {
    mlsys::online_softmax_stepper(1024, 1, "random", 4.0f, 1, 1);  // 1,024 blocks > 256
    ADD_FAILURE() << "accepted 1,024 blocks";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "block");
  }
}
