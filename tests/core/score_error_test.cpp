// Evaluation lesson, beyond independent single answers: Miller's clustered standard error
// (arXiv:2411.00640, appendix A; Inspect's stderr(cluster=...) in UKGovernmentBEIS/inspect_ai
// src/inspect_ai/scorer/_metrics/std.py computes the same sum with a C/(C − 1) factor) against
// its double sum written out, `score-std-error`'s law-of-total-variance formula against a
// simulation of clustered questions answered several times, and the percentile bootstrap
// (Efron 1979) against the normal approximation it should reproduce on a large benchmark; and
// the lesson's exercises that ask in percentage points take answers written in points.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "mlsys/evaluation/score_error.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"

using mlsys::json;

TEST(ScoreError, ClusteredStdErrorIsMillersDoubleSum) {
  const std::vector<double> s = {1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1};
  const std::vector<long long> c = {0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 4};
  double mean = 0;
  for (double x : s) mean += x;
  mean /= static_cast<double>(s.size());
  double sum = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = 0; j < s.size(); ++j)
      if (c[i] == c[j]) sum += (s[i] - mean) * (s[j] - mean);
  EXPECT_NEAR(mlsys::clustered_std_error(s, c), std::sqrt(sum) / static_cast<double>(s.size()), 1e-15);
  // Every question its own cluster: the plain standard error with the variance dividing by n.
  std::vector<long long> own(s.size());
  for (std::size_t i = 0; i < own.size(); ++i) own[i] = static_cast<long long>(i);
  double ss = 0;
  for (double x : s) ss += (x - mean) * (x - mean);
  const double n = static_cast<double>(s.size());
  EXPECT_NEAR(mlsys::clustered_std_error(s, own), std::sqrt(ss / n / n), 1e-15);
  EXPECT_THROW(mlsys::clustered_std_error(s, {0, 1}), mlsys::InputError);
  EXPECT_THROW(mlsys::clustered_std_error({}, {}), mlsys::InputError);
}

TEST(ScoreError, DesignEffectClosedForm) {
  // Independent questions, one answer: the plain binomial standard error.
  const auto plain = mlsys::score_std_error(1000, 0.75, 1, 0.0, 1, 0.0, 0.95);
  EXPECT_NEAR(plain.std_error, std::sqrt(0.75 * 0.25 / 1000), 1e-15);
  EXPECT_DOUBLE_EQ(plain.design_effect, 1.0);
  // Kish's design effect 1 + (m − 1)ρ for clusters; resampling divides the within part by K.
  const auto cl = mlsys::score_std_error(1000, 0.75, 10, 0.2, 1, 0.0, 0.95);
  EXPECT_NEAR(cl.design_effect, 1 + 9 * 0.2, 1e-15);
  EXPECT_NEAR(cl.effective_questions, 1000 / 2.8, 1e-9);
  const auto rs = mlsys::score_std_error(1000, 0.75, 1, 0.0, 4, 0.5, 0.95);
  EXPECT_NEAR(rs.design_effect, 0.5 + 0.5 / 4, 1e-15);
  EXPECT_NEAR(rs.half_width, 1.959963984540054 * rs.std_error, 1e-12);
  // ρ above 1 − w is impossible; the field is named.
  try {
    mlsys::score_std_error(1000, 0.75, 10, 0.6, 1, 0.5, 0.95);
    FAIL() << "accepted a cluster correlation above 1 - within_share";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "cluster_correlation");
  }
  EXPECT_THROW(mlsys::score_std_error(100, 0.75, 101, 0.1, 1, 0.0, 0.95), mlsys::InputError);
  EXPECT_THROW(mlsys::score_std_error(100, 0.75, 1, 0.0, 0, 0.0, 0.95), mlsys::InputError);
}

// Simulated benchmarks: cluster c shifts its questions' probability by ±a, each question by ±b
// more, and each of K answers is right with the question's probability. Then Var(p_i) = a² + b²,
// Cov within a cluster = a², so ρ = a²/p(1 − p) and w = 1 − (a² + b²)/p(1 − p). The spread of the
// simulated scores must match `score_std_error`, and Miller's estimator must average to it.
TEST(ScoreError, ClusteredResampledSimulationMatchesFormula) {
  const double p = 0.7, a = 0.15, b = 0.1;
  const long long n = 300, m = 6;
  const double v = p * (1 - p);
  const double rho = a * a / v, w = 1 - (a * a + b * b) / v;
  for (long long k : {1LL, 4LL}) {
    const auto want = mlsys::score_std_error(n, p, m, rho, k, w, 0.95);
    mlsys::SeededStream rng(mlsys::mix_seed(7, static_cast<std::uint64_t>(k)));
    const int reps = 3000;
    double sum = 0, sum2 = 0, est2 = 0;
    std::vector<double> scores(static_cast<std::size_t>(n));
    std::vector<long long> clusters(static_cast<std::size_t>(n));
    for (int r = 0; r < reps; ++r) {
      double shift = 0;
      for (long long q = 0; q < n; ++q) {
        if (q % m == 0) shift = rng.uniform() < 0.5 ? -a : a;
        const double pq = p + shift + (rng.uniform() < 0.5 ? -b : b);
        double right = 0;
        for (long long j = 0; j < k; ++j) right += rng.uniform() < pq ? 1 : 0;
        scores[static_cast<std::size_t>(q)] = right / static_cast<double>(k);
        clusters[static_cast<std::size_t>(q)] = q / m;
      }
      double mean = 0;
      for (double s : scores) mean += s;
      mean /= static_cast<double>(n);
      sum += mean;
      sum2 += mean * mean;
      const double e = mlsys::clustered_std_error(scores, clusters);
      est2 += e * e;
    }
    const double mean = sum / reps;
    const double sd = std::sqrt((sum2 / reps - mean * mean) * reps / (reps - 1));
    // 3,000 replicates: the sample standard deviation is within about 1.3% (one sigma) of the truth.
    EXPECT_NEAR(sd / want.std_error, 1.0, 0.05) << "K = " << k;
    // Miller's estimator, without the C/(C − 1) factor, is low by about 1/C = 2% with C = 50 clusters.
    EXPECT_NEAR(std::sqrt(est2 / reps) / want.std_error, 1.0, 0.05) << "K = " << k;
    // One answer per question: the clusters widen the error (design effect 1 + 5ρ = 1.54); four
    // answers average away three quarters of the within-question part and bring it below the
    // single-answer, independent-question error.
    if (k == 1) {
      EXPECT_NEAR(want.std_error / want.iid_std_error, std::sqrt(1 + 5 * rho), 1e-12);
    } else {
      EXPECT_LT(want.std_error, want.iid_std_error);
    }
  }
}

TEST(ScoreError, BootstrapReproducesTheNormalApproximation) {
  const auto r = mlsys::bootstrap_interval(850, 1000, 4000, 0.95, 1);
  // The resampled accuracies spread as the binomial: within 4% with 4,000 resamples.
  EXPECT_NEAR(r.std_error / r.formula_std_error, 1.0, 0.04);
  EXPECT_NEAR(r.low, 0.85 - 1.96 * r.formula_std_error, 0.003);
  EXPECT_NEAR(r.high, 0.85 + 1.96 * r.formula_std_error, 0.003);
  EXPECT_DOUBLE_EQ(r.half_width, (r.high - r.low) / 2);
  // Same seed, same interval; a perfect score resamples to itself: a zero-width interval, as Wald's.
  const auto again = mlsys::bootstrap_interval(850, 1000, 4000, 0.95, 1);
  EXPECT_EQ(r.low, again.low);
  const auto perfect = mlsys::bootstrap_interval(20, 20, 1000, 0.95, 3);
  EXPECT_EQ(perfect.low, 1.0);
  EXPECT_EQ(perfect.half_width, 0.0);
  EXPECT_THROW(mlsys::bootstrap_interval(850, 1000, 100000, 0.95, 1), mlsys::InputError);
  EXPECT_THROW(mlsys::bootstrap_interval(11, 10, 1000, 0.95, 1), mlsys::InputError);
}

TEST(ScoreError, CalculatorsRunOnDefaults) {
  const json s = mlsys::calc("score-std-error", json::object());
  EXPECT_NEAR(s["std_error"].get<double>(), std::sqrt(0.75 * 0.25 / 1000), 1e-15);
  const json b = mlsys::calc("bootstrap-ci", json::object());
  EXPECT_NEAR(b["accuracy"].get<double>(), 0.85, 1e-15);
  EXPECT_GT(b["half_width"].get<double>(), 0.015);
}

// The evaluation exercises that ask in percentage points take the answer written in points,
// whatever the draw; the one that asks in percent takes a percent sign.
TEST(EvalExercises, AnswersInPointsAreAcceptedWherePointsAreAsked) {
  const char* in_points[] = {"ev-wald-half-width", "ev-paired-se", "ev-min-detectable", "ev-clustered-se"};
  for (const char* id : in_points) {
    for (std::uint32_t seed = 0; seed < 40; ++seed) {
      const mlsys::Exercise e = mlsys::make_exercise(id, seed);
      ASSERT_NE(e.prompt.find("percentage points"), std::string::npos) << id;
      const std::string v = mlsys::format_number(e.answer, 6);
      for (const std::string& typed : {v + " points", v + " percentage points", v + " pp", v + "%", v}) {
        const json r = mlsys::check_exercise(id, seed, typed);
        EXPECT_TRUE(r["correct"].get<bool>()) << id << " " << seed << " '" << typed << "': " << r["message"];
      }
      // The verdict speaks in points, as the prompt does, not in "%".
      const std::string said = mlsys::check_exercise(id, seed, v + " points")["message"].get<std::string>();
      EXPECT_NE(said.find(" points."), std::string::npos) << said;
      EXPECT_EQ(said.find('%'), std::string::npos) << said;
      // A points answer that is off is wrong for being off, not for its unit.
      const json off = mlsys::check_exercise(id, seed, mlsys::format_number(1.5 * e.answer, 6) + " points");
      EXPECT_FALSE(off["correct"].get<bool>());
      EXPECT_EQ(off["message"].get<std::string>().find("percent;"), std::string::npos) << off["message"];
    }
  }
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    const mlsys::Exercise e = mlsys::make_exercise("ev-wilson-low", seed);
    EXPECT_TRUE(mlsys::check_exercise("ev-wilson-low", seed, mlsys::format_number(e.answer, 6) + "%")["correct"].get<bool>());
  }
}
