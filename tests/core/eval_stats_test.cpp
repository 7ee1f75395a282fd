// Evaluation lesson: `accuracy-ci` against exact binomial sums (Clopper-Pearson's bounds make
// the binomial tail equal α/2) and Wilson's closed form, and `paired-comparison` against the
// paired-difference variance Var(a) + Var(b) − 2·Cov(a, b) of Miller 2024 ("Adding Error Bars
// to Evals", arXiv:2411.00640) computed from explicit per-question scores.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "mlsys/evaluation/eval_simulation.hpp"
#include "mlsys/evaluation/eval_stats.hpp"
#include "mlsys/foundations/input_error.hpp"

using mlsys::json;

namespace {

// P(X = k) from lgamma (independent of the engine's recurrence).
double pmf(long long k, long long n, double p) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(p) +
                  (n - k) * std::log1p(-p));
}
double cdf(long long x, long long n, double p) {
  double s = 0;
  for (long long k = 0; k <= x; ++k) s += pmf(k, n, p);
  return s;
}
double sf(long long x, long long n, double p) {
  double s = 0;
  for (long long k = x; k <= n; ++k) s += pmf(k, n, p);
  return s;
}

}  // namespace

TEST(EvalStats, BinomialTailsMatchExactSums) {
  for (long long n : {1LL, 10LL, 100LL, 1000LL}) {
    for (double p : {0.01, 0.3, 0.5, 0.87}) {
      for (long long k : {0LL, n / 3, n / 2, n - 1, n}) {
        EXPECT_NEAR(mlsys::binomial_cdf(k, n, p), cdf(k, n, p), 1e-10) << n << " " << p << " " << k;
        EXPECT_NEAR(mlsys::binomial_sf(k, n, p), sf(k, n, p), 1e-10) << n << " " << p << " " << k;
      }
    }
  }
}

TEST(EvalStats, ClopperPearsonTailsEqualHalfAlpha) {
  for (long long n : {10LL, 50LL, 200LL, 1000LL}) {
    for (long long x : {1LL, n / 4, n / 2, (9 * n) / 10, n - 1}) {
      for (double conf : {0.9, 0.95, 0.99}) {
        const auto r = mlsys::accuracy_ci(x, n, conf, "clopper-pearson");
        const double half_alpha = (1 - conf) / 2;
        EXPECT_NEAR(sf(x, n, r.low), half_alpha, 1e-9) << n << " " << x;
        EXPECT_NEAR(cdf(x, n, r.high), half_alpha, 1e-9) << n << " " << x;
        EXPECT_DOUBLE_EQ(r.half_width, (r.high - r.low) / 2);
      }
    }
  }
  // Closed forms at the ends: 0 of n gives [0, 1 − (α/2)^(1/n)], n of n gives [(α/2)^(1/n), 1].
  const auto zero = mlsys::accuracy_ci(0, 10, 0.95, "clopper-pearson");
  EXPECT_EQ(zero.low, 0.0);
  EXPECT_NEAR(zero.high, 1 - std::pow(0.025, 0.1), 1e-12);
  EXPECT_NEAR(zero.high, 0.3085, 1e-4);  // the textbook 0/10 exact upper bound
  const auto all = mlsys::accuracy_ci(20, 20, 0.95, "clopper-pearson");
  EXPECT_NEAR(all.low, std::pow(0.025, 1.0 / 20), 1e-12);
  EXPECT_EQ(all.high, 1.0);
}

TEST(EvalStats, WilsonAndWaldClosedForms) {
  const double z = 1.959963984540054;
  for (auto [x, n] : std::vector<std::pair<long long, long long>>{{0, 10}, {3, 10}, {81, 100}, {850, 1000}, {50, 50}}) {
    const double p = double(x) / n;
    const auto w = mlsys::accuracy_ci(x, n, 0.95, "wilson");
    const double c = (p + z * z / (2 * n)) / (1 + z * z / n);
    const double h = z / (1 + z * z / n) * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n));
    EXPECT_NEAR(w.low, std::max(0.0, c - h), 1e-9);
    EXPECT_NEAR(w.high, std::min(1.0, c + h), 1e-9);
    const auto d = mlsys::accuracy_ci(x, n, 0.95, "wald");
    const double hw = z * std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(d.low, std::max(0.0, p - hw), 1e-9);
    EXPECT_NEAR(d.high, std::min(1.0, p + hw), 1e-9);
  }
  // 850 of 1,000: Wald ±2.21 points.
  EXPECT_NEAR(mlsys::accuracy_ci(850, 1000, 0.95, "wald").half_width, 0.02213, 1e-5);
  // Wilson for 0 of 10: upper bound z²/(n + z²) = 0.2775.
  EXPECT_NEAR(mlsys::accuracy_ci(0, 10, 0.95, "wilson").high, z * z / (10 + z * z), 1e-9);
  // The exact interval contains Wilson's, which is narrower than Wald's only near p = 1/2 ... at the edges
  // Wald collapses to a point.
  EXPECT_EQ(mlsys::accuracy_ci(10, 10, 0.95, "wald").half_width, 0.0);
}

TEST(EvalStats, PairedStandardErrorFromScores) {
  // Explicit per-question scores of two models on n questions: the paired SE is the standard
  // deviation of the differences (dividing by n) over √n, and the correlation form agrees.
  const long long n = 1000;
  const long long both = 700, a_only = 100, b_only = 50;  // neither: 150
  std::vector<double> a, b;
  for (long long i = 0; i < n; ++i) {
    a.push_back(i < both + a_only ? 1 : 0);
    b.push_back(i < both || (i >= both + a_only && i < both + a_only + b_only) ? 1 : 0);
  }
  double ma = 0, mb = 0;
  for (long long i = 0; i < n; ++i) ma += a[i] / n, mb += b[i] / n;
  double va = 0, vb = 0, cov = 0, vd = 0;
  for (long long i = 0; i < n; ++i) {
    va += (a[i] - ma) * (a[i] - ma) / n;
    vb += (b[i] - mb) * (b[i] - mb) / n;
    cov += (a[i] - ma) * (b[i] - mb) / n;
    const double d = a[i] - b[i] - (ma - mb);
    vd += d * d / n;
  }
  const double rho = cov / std::sqrt(va * vb);
  const auto byc = mlsys::paired_comparison(n, ma, mb, rho, {}, 0.95, 0.8);
  const auto byd = mlsys::paired_comparison(n, ma, mb, {}, mlsys::Discordant{a_only, b_only}, 0.95, 0.8);
  EXPECT_NEAR(byc.std_error, std::sqrt(vd / n), 1e-12);
  EXPECT_NEAR(byd.std_error, std::sqrt(vd / n), 1e-12);
  EXPECT_NEAR(byd.difference, 0.05, 1e-12);
  EXPECT_NEAR(byc.unpaired_std_error, std::sqrt((va + vb) / n), 1e-12);
  EXPECT_LT(byc.std_error, byc.unpaired_std_error);
  const double z = 1.959963984540054, zp = 0.8416212335729143;
  EXPECT_NEAR(byc.ci_low, 0.05 - z * byc.std_error, 1e-9);
  EXPECT_NEAR(byc.min_detectable_difference, (z + zp) * byc.std_error, 1e-6);
  // Independent models (ρ = 0): the paired and unpaired errors agree.
  const auto ind = mlsys::paired_comparison(500, 0.7, 0.6, 0.0, {}, 0.95, 0.8);
  EXPECT_NEAR(ind.std_error, ind.unpaired_std_error, 1e-15);
  // At 80% and 75% the most aligned pair has B right only where A is: 750 both, 50 A alone, so
  // ρ ≤ (0.75 − 0.6)/√(0.16·0.1875) = 0.866, where the paired error equals that pair's discordant
  // one. A larger ρ describes no pair of models (it printed 0.43 points at 0.95, below that
  // floor of 0.69), and neither does ρ below (0.55 − 0.6)/0.1732 = −0.289.
  const double top = 0.15 / std::sqrt(0.16 * 0.1875);
  const auto most = mlsys::paired_comparison(1000, 0.8, 0.75, top, {}, 0.95, 0.8);
  const auto floor = mlsys::paired_comparison(1000, 0.8, 0.75, {}, mlsys::Discordant{50, 0}, 0.95, 0.8);
  EXPECT_NEAR(most.std_error, floor.std_error, 1e-9);
  for (const double bad : {0.95, top + 1e-3, -0.9, -0.05 / std::sqrt(0.16 * 0.1875) - 1e-3}) {
    try {
      mlsys::paired_comparison(1000, 0.8, 0.75, bad, {}, 0.95, 0.8);
      ADD_FAILURE() << "correlation " << bad << " accepted at 80% and 75%";
    } catch (const mlsys::InputError& e) {
      EXPECT_EQ(e.field, "correlation");
    }
  }
  // Equal accuracies allow every ρ in [0, 1], and a perfect or zero score any ρ.
  EXPECT_NO_THROW(mlsys::paired_comparison(1000, 0.75, 0.75, 1.0, {}, 0.95, 0.8));
  EXPECT_NO_THROW(mlsys::paired_comparison(500, 1.0, 0.0, -1.0, {}, 0.95, 0.8));
}

TEST(EvalStats, CalculatorsRunOnDefaultsAndNameBadFields) {
  const json ci = mlsys::calc("accuracy-ci", json::object());
  EXPECT_NEAR(ci["accuracy"].get<double>(), 0.85, 1e-12);
  const json pc = mlsys::calc("paired-comparison", json::object());
  EXPECT_GT(pc["std_error"].get<double>(), 0);
  auto field_of = [](const char* name, json in) {
    try {
      mlsys::calc(name, in);
    } catch (const mlsys::InputError& e) {
      return e.field;
    }
    return std::string("none");
  };
  EXPECT_EQ(field_of("accuracy-ci", {{"correct", 20}, {"total", 10}}), "correct");
  EXPECT_EQ(field_of("accuracy-ci", {{"method", "exact"}}), "method");
  EXPECT_EQ(field_of("paired-comparison", {{"correlation", 0.3}, {"discordant", {{"a_only", 1}, {"b_only", 2}}}}),
            "discordant");
  EXPECT_EQ(field_of("paired-comparison", {{"discordant", {{"a_only", 900}, {"b_only", 200}}}}), "discordant");
  EXPECT_EQ(field_of("paired-comparison", {{"discordant", {{"a_only", 1.5}, {"b_only", 2}}}}), "discordant");
}

// eval-seeds: the expected spread is the law of total variance, and the simulation agrees with it.
TEST(EvalStats, SeedSpreadFollowsTheLawOfTotalVariance) {
  const auto r = mlsys::eval_seeds(1000, 0.75, 0.01, 10, 1);
  EXPECT_NEAR(r.sampling_std, std::sqrt(0.75 * 0.25 / 1000), 1e-15);
  EXPECT_NEAR(r.expected_std, std::sqrt((0.75 * 0.25 - 1e-4) / 1000 + 1e-4), 1e-15);
  EXPECT_NEAR(r.seed_share_of_variance, 1e-4 / (r.expected_std * r.expected_std), 1e-12);
  EXPECT_NEAR(r.std_error_of_mean, r.expected_std / std::sqrt(10.0), 1e-15);
  ASSERT_EQ(r.accuracies.size(), 10u);
  // Without seed noise the measured spread is the binomial sqrt(p(1 − p)/n): 400 runs of 2,000
  // questions estimate it within a few percent (the sample SD's relative error is ~1/sqrt(2·399)).
  const auto q = mlsys::eval_seeds(2000, 0.6, 0.0, 400, 5);
  EXPECT_NEAR(q.simulated_std / q.sampling_std, 1.0, 0.12);
  EXPECT_NEAR(q.simulated_mean, 0.6, 4 * q.sampling_std / std::sqrt(400.0));
  // With large seed noise it dominates and does not shrink with more questions.
  const auto s = mlsys::eval_seeds(20000, 0.5, 0.03, 200, 2);
  EXPECT_NEAR(s.simulated_std / s.expected_std, 1.0, 0.12);
  EXPECT_GT(s.seed_share_of_variance, 0.9);
  // Near an end the spread is bounded by a third of the distance to it: at 5% a 5-point spread
  // would clip a sixth of the seeds at 0%, leaving a true spread of 0.87σ and a mean of 5.4%,
  // which the formula does not describe. At the bound (1.67 points) the simulation follows it.
  try {
    mlsys::eval_seeds(1000, 0.05, 0.05, 10, 1);
    ADD_FAILURE() << "a spread past the ends was accepted";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "seed_std");
  }
  EXPECT_THROW(mlsys::eval_seeds(1000, 1.0, 0.01, 10, 1), mlsys::InputError);
  const auto edge = mlsys::eval_seeds(1000, 0.05, 0.05 / 3, 1000, 3);
  EXPECT_NEAR(edge.simulated_std / edge.expected_std, 1.0, 0.08);
  // Same seed, same draws; another seed, other draws.
  EXPECT_EQ(mlsys::eval_seeds(1000, 0.75, 0.01, 10, 1).accuracies, r.accuracies);
  EXPECT_NE(mlsys::eval_seeds(1000, 0.75, 0.01, 10, 2).accuracies, r.accuracies);
}

// contamination: (1 − f)·p + f·m, and one seeded draw near it.
TEST(EvalStats, ContaminationInflatesByShareTimesGap) {
  const auto r = mlsys::contamination(1000, 0.70, 0.72, 0.10, 0.0, 1.0, 1);
  EXPECT_NEAR(r.inflation_a, 0.1 * 0.3, 1e-15);
  EXPECT_NEAR(r.measured_accuracy_a, 0.9 * 0.7 + 0.1 * 1.0, 1e-15);
  EXPECT_NEAR(r.measured_accuracy_b, 0.72, 1e-15);
  EXPECT_NEAR(r.true_difference, -0.02, 1e-15);
  EXPECT_NEAR(r.measured_difference, 0.01, 1e-15);  // the ranking flips
  const auto big = mlsys::contamination(100000, 0.5, 0.5, 0.3, 0.1, 0.9, 3);
  EXPECT_NEAR(big.measured_difference, 0.2 * 0.4, 1e-15);
  EXPECT_NEAR(big.simulated_difference, big.measured_difference, 5 * std::sqrt(2 * 0.25 / 100000));
  EXPECT_NEAR(big.contaminated_questions_a / 100000.0, 0.3, 5 * std::sqrt(0.21 / 100000));
  auto field_of = [](const char* name, json in) {
    try {
      mlsys::calc(name, in);
    } catch (const mlsys::InputError& e) {
      return e.field;
    }
    return std::string("none");
  };
  EXPECT_EQ(field_of("contamination", {{"contaminated_share_b", 1.5}}), "contaminated_share_b");
  EXPECT_EQ(field_of("eval-seeds", {{"seeds", 1}}), "seeds");
  EXPECT_EQ(field_of("eval-seeds", {{"total", 100000}, {"seeds", 1000}}), "seeds");
}
