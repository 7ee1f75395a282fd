// The polyfit model and calculator: interpolation, exact recovery of a polynomial, ridge
// against its closed form, the minimum-norm interpolant as the ridge limit, QR against the
// normal equations, gradient descent against its closed form, seeds and bad inputs.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/fit/polyfit.hpp"
#include "mlsys/foundations/input_error.hpp"

using mlsys::calc;
using mlsys::InputError;
using json = nlohmann::json;
namespace fit = mlsys::fit;

namespace {

std::string error_field(const json& in) {
  try {
    calc("polyfit", in);
  } catch (const InputError& e) {
    return e.field;
  }
  return "<no error>";
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

}  // namespace

// n points in general position are interpolated by a polynomial of degree n − 1
// (Lagrange interpolation): the training error is rounding alone, whatever the noise.
TEST(Polyfit, DegreeNMinusOneInterpolatesNPoints) {
  for (int n : {1, 2, 5, 12}) {
    const json r = calc("polyfit", {{"degree", n - 1}, {"samples", n}, {"noise", 0.5}, {"seed", 7}});
    EXPECT_LT(r["train_mse"].get<double>(), 1e-20) << n;
    EXPECT_EQ(r["solver"], "least-squares");
    EXPECT_EQ(r["parameters"], n);
  }
}

// 4x³ − 3x = (8/5)·P₃ − (3/5)·P₁ (x³ = (2P₃ + 3P₁)/5, Abramowitz & Stegun 22.3.8's P₃ =
// (5x³ − 3x)/2), and φ_k = √(2k+1)·P_k: c₁ = −0.6/√3, c₃ = 1.6/√7, every other 0. Without noise
// any degree ≥ 3 recovers exactly these.
TEST(Polyfit, RecoversAnExactPolynomialWithoutNoise) {
  for (int degree : {3, 7, 12}) {
    const json r = calc("polyfit", {{"function", "cubic"}, {"degree", degree}, {"samples", 40}, {"noise", 0}});
    const auto c = r["coefficients"].get<std::vector<double>>();
    ASSERT_EQ(c.size(), static_cast<std::size_t>(degree) + 1);
    for (int k = 0; k <= degree; ++k) {
      const double want = k == 1 ? -0.6 / std::sqrt(3.0) : k == 3 ? 1.6 / std::sqrt(7.0) : 0.0;
      EXPECT_NEAR(c[static_cast<std::size_t>(k)], want, 1e-11) << "degree " << degree << " k " << k;
    }
    EXPECT_LT(r["validation_mse"].get<double>(), 1e-24);
  }
}

// Degree 0 (φ₀ = 1): (1/n)Σ(c − y_i)² + λc² is least at c = ȳ/(1 + λ).
TEST(Polyfit, RidgeMatchesItsClosedFormAndShrinksToZero) {
  const fit::Samples s = fit::draw_samples(fit::TrueFunction::Sin, 15, 0.4, 3, 0);
  for (double wd : {0.0, 0.5, 3.0, 1e4}) {
    const fit::Fit f = fit::fit_polynomial(s, 0, wd);
    EXPECT_NEAR(f.coefficients[0], mean(s.y) / (1 + wd), 1e-15) << wd;
  }
  double last = 1e300;
  for (double wd : {0.0, 1e-3, 1e-1, 10.0, 1e6}) {
    const json r = calc("polyfit", {{"degree", 9}, {"samples", 30}, {"weight_decay", wd}});
    const double norm = r["coefficient_norm"].get<double>();
    EXPECT_LT(norm, last) << wd;
    last = norm;
  }
  EXPECT_LT(last, 1e-5);  // λ = 10⁶: c ≈ Aᵀy/(nλ), about 1e-6
}

// Past the interpolation threshold the minimum-norm interpolant passes through every sample
// and is the limit of ridge as λ → 0 (Golub & Van Loan §5.6.2; Hastie et al., "Surprises in
// high-dimensional ridgeless least squares interpolation", 2022).
TEST(Polyfit, MinNormInterpolantIsTheRidgeLimit) {
  const fit::Samples s = fit::draw_samples(fit::TrueFunction::Step, 10, 0.2, 11, 0);
  const fit::Fit f = fit::fit_polynomial(s, 15, 0);
  EXPECT_EQ(f.solver, "min-norm");
  EXPECT_LT(fit::mse(fit::design_matrix(s.x, 15), f.coefficients, s.y), 1e-20);
  const fit::Fit ridge = fit::fit_polynomial(s, 15, 1e-13);
  for (std::size_t k = 0; k < f.coefficients.size(); ++k)
    EXPECT_NEAR(ridge.coefficients[k], f.coefficients[k], 1e-4 * (1 + std::abs(f.coefficients[k]))) << k;
}

// Degree 15 in the monomial basis: cond(A) is about 1e6 here, so the normal equations
// (cond² ≈ 1e12) lose about twice the digits of QR (Golub & Van Loan §5.3.8). The data are the
// exact cubic 4x³ − 3x, so the true monomial coefficients are known.
TEST(Polyfit, QrBeatsTheNormalEquationsAtDegree15) {
  const fit::Samples s = fit::draw_samples(fit::TrueFunction::Cubic, 200, 0, 5, 0);
  const fit::Matrix a = fit::design_matrix(s.x, 15, true);
  const std::vector<double> qr = fit::least_squares_qr(a, s.y);
  const std::vector<double> ne = fit::normal_equations(a, s.y);
  double qr_error = 0, ne_error = 0;
  for (std::size_t k = 0; k < qr.size(); ++k) {
    const double want = k == 1 ? -3.0 : k == 3 ? 4.0 : 0.0;
    qr_error = std::max(qr_error, std::abs(qr[k] - want));
    ne_error = std::max(ne_error, std::abs(ne[k] - want));
  }
  EXPECT_LT(qr_error, 1e-8);
  EXPECT_GT(ne_error, 1000 * qr_error);
  std::printf("degree 15, monomials: QR max coefficient error %.3g, normal equations %.3g\n", qr_error, ne_error);
}

// Gradient descent on degree 0: the Hessian is 2 (λ_max = 2, so lr < 1 converges) and
// c_t = ȳ·(1 − (1 − 2·lr)^t) from c₀ = 0.
TEST(Polyfit, GradientDescentMatchesItsClosedForm) {
  const json r = calc("polyfit", {{"degree", 0}, {"samples", 25}, {"noise", 0.3}, {"gd_steps", 40}, {"gd_lr", 0.1}});
  EXPECT_NEAR(r["gd_lr_max_stable"].get<double>(), 1.0, 1e-14);
  EXPECT_FALSE(r["gd_diverged"].get<bool>());
  const fit::Samples s = fit::draw_samples(fit::TrueFunction::Sin, 25, 0.3, 0, 0);
  const double ybar = mean(s.y);
  for (int t : {0, 1, 5, 40}) {
    const double c = ybar * (1 - std::pow(0.8, t));
    double m = 0;
    for (double y : s.y) m += (c - y) * (c - y);
    EXPECT_NEAR(r["by_step"][t]["train_mse"].get<double>(), m / 25, 1e-13) << t;
  }
  const json diverged = calc("polyfit", {{"degree", 0}, {"gd_steps", 1000}, {"gd_lr", 1.5}});
  EXPECT_TRUE(diverged["gd_diverged"].get<bool>());
  EXPECT_LT(diverged["by_step"].size(), 1001u);
}

// With the default lr = 1/λ_max, gradient descent approaches the least-squares fit.
TEST(Polyfit, GradientDescentConvergesToLeastSquares) {
  const json r = calc("polyfit", {{"degree", 3}, {"samples", 60}, {"gd_steps", 1000}});
  EXPECT_NEAR(r["by_step"][1000]["train_mse"].get<double>(), r["train_mse"].get<double>(), 1e-9);
  EXPECT_NEAR(r["gd_lr"].get<double>() * 2, r["gd_lr_max_stable"].get<double>(), 1e-15);
}

// The validation MSE of a good fit approaches the noise variance σ² (the irreducible error),
// and by_degree / by_samples repeat the single fit at its own degree and sample count.
TEST(Polyfit, ValidationFloorAndSweepsAgree) {
  const json r = calc("polyfit", {{"function", "cubic"}, {"degree", 3}, {"samples", 400}, {"noise", 0.5},
                                  {"validation_samples", 2000}, {"max_degree", 6}, {"max_samples", 30}});
  EXPECT_DOUBLE_EQ(r["noise_variance"].get<double>(), 0.25);
  EXPECT_NEAR(r["validation_mse"].get<double>(), 0.25, 0.025);
  EXPECT_NEAR(r["truth_validation_mse"].get<double>(), 0.25, 0.025);
  EXPECT_EQ(r["by_degree"][3]["validation_mse"], r["validation_mse"]);
  const json small = calc("polyfit", {{"function", "cubic"}, {"degree", 3}, {"samples", 30}, {"noise", 0.5},
                                      {"validation_samples", 2000}});
  EXPECT_EQ(r["by_samples"][29]["train_mse"], small["train_mse"]);
  EXPECT_EQ(r["by_samples"].size(), 30u);
}

// The deterministic sin(πx) against the C library's (within a few ulp: the folding rounds x
// differently from the product π·x), and the grid of the curve.
TEST(Polyfit, CurveGridAndTrueFunctions) {
  const json r = calc("polyfit", json::object());
  ASSERT_EQ(r["curve"].size(), 201u);
  EXPECT_EQ(r["curve"][0]["x"], -1.0);
  EXPECT_EQ(r["curve"][200]["x"], 1.0);
  for (double x = -1; x <= 1; x += 0.01)
    EXPECT_NEAR(fit::true_value(fit::TrueFunction::Sin, x), std::sin(M_PI * x), 1e-15) << x;
  EXPECT_EQ(fit::true_value(fit::TrueFunction::Step, 0.0), 1.0);
  // φ_k(1) = √(2k+1) since P_k(1) = 1 (Abramowitz & Stegun 22.4.6).
  const std::vector<double> row = fit::legendre_row(1.0, 10);
  for (int k = 0; k <= 10; ++k) EXPECT_NEAR(row[static_cast<std::size_t>(k)], std::sqrt(2.0 * k + 1), 1e-14);
}

TEST(Polyfit, SeedsAreReproducible) {
  const json in = {{"degree", 5}, {"samples", 12}, {"seed", 42}, {"max_degree", 8}, {"gd_steps", 20}};
  EXPECT_EQ(calc("polyfit", in).dump(), calc("polyfit", in).dump());
  json other = in;
  other["seed"] = 43;
  EXPECT_NE(calc("polyfit", in)["train_mse"], calc("polyfit", other)["train_mse"]);
}

// Neighbouring seeds draw unrelated samples: with the seed scaled by SplitMix64's own step,
// seed s + 1 was seed s's stream one draw later, and seeds 0 and 1 shared 9 of 20 x values.
TEST(Polyfit, NeighbouringSeedsShareNoSample) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const fit::Samples a = fit::draw_samples(fit::TrueFunction::Sin, 50, 0.1, seed, 0);
    const fit::Samples b = fit::draw_samples(fit::TrueFunction::Sin, 50, 0.1, seed + 1, 0);
    for (double x : a.x) EXPECT_EQ(std::count(b.x.begin(), b.x.end(), x), 0) << "seed " << seed;
  }
}

TEST(Polyfit, BadInputsNameTheirField) {
  EXPECT_EQ(error_field({{"degree", -1}}), "degree");
  EXPECT_EQ(error_field({{"degree", 41}}), "degree");
  EXPECT_EQ(error_field({{"samples", 0}}), "samples");
  EXPECT_EQ(error_field({{"function", "tan"}}), "function");
  EXPECT_EQ(error_field({{"noise", -0.1}}), "noise");
  EXPECT_EQ(error_field({{"degree", 20}, {"samples", 5}, {"weight_decay", 1e-200}}), "weight_decay");
  EXPECT_EQ(error_field({{"max_samples", 201}}), "max_samples");
  EXPECT_EQ(error_field({{"gd_steps", 10}, {"gd_lr", 0}}), "gd_lr");
  EXPECT_THROW(fit::parse_true_function("tan"), InputError);
  fit::PolyfitRequest r;
  r.degree = 99;
  EXPECT_THROW(fit::polyfit(r), InputError);
}

// The exercise least-squares-train-mse: E[train MSE] = σ²·(n − p)/n when the model contains
// the truth (Seber & Lee, "Linear Regression Analysis", Theorem 3.3), against the calculator
// averaged over seeds: σ = 0.5, n = 10, p = 4 gives 0.15.
TEST(Polyfit, MeanTrainingErrorIsSigmaSquaredTimesNMinusPOverN) {
  double sum = 0;
  const int seeds = 400;
  for (int s = 0; s < seeds; ++s)
    sum += calc("polyfit", {{"function", "cubic"}, {"degree", 3}, {"samples", 10}, {"noise", 0.5},
                            {"validation_samples", 1}, {"seed", s}})["train_mse"]
               .get<double>();
  EXPECT_NEAR(sum / seeds, 0.25 * 6 / 10, 0.015);  // the mean's standard error is about 0.004
}

// The exercises ridge-one-weight and gd-max-learning-rate against the executed solvers: the
// ridge QR of the one-column problem, and gradient descent just below and above the limit.
TEST(Polyfit, OneWeightExercisesAgreeWithTheSolvers) {
  for (std::uint32_t seed = 0; seed < 20; ++seed) {
    const mlsys::Exercise e = mlsys::make_exercise("ridge-one-weight", seed);
    const auto x = e.params["x"].get<std::vector<double>>(), y = e.params["y"].get<std::vector<double>>();
    const double n = static_cast<double>(x.size());
    fit::Matrix a(x.size(), 1);
    std::vector<double> b(y);
    for (std::size_t i = 0; i < x.size(); ++i) a.at(i, 0) = x[i] / std::sqrt(n), b[i] = y[i] / std::sqrt(n);
    EXPECT_NEAR(fit::ridge_qr(a, b, e.params["weight_decay"].get<double>())[0], e.answer, 1e-12 * e.answer) << seed;

    const mlsys::Exercise g = mlsys::make_exercise("gd-max-learning-rate", seed);
    const auto gx = g.params["x"].get<std::vector<double>>();
    const double lambda = g.params["weight_decay"].get<double>();
    for (const double factor : {0.99, 1.01}) {
      double w = 1;  // labels 0: the minimum is w = 0
      for (int step = 0; step < 2000; ++step) {
        double grad = 2 * lambda * w;
        for (double v : gx) grad += 2 * v * (w * v) / static_cast<double>(gx.size());
        w -= factor * g.answer * grad;
      }
      if (factor < 1) EXPECT_LT(std::abs(w), 1e-3) << seed;
      else EXPECT_GT(std::abs(w), 1e3) << seed;
    }
  }
}

// Double descent (Belkin et al., "Reconciling modern machine-learning practice and the
// classical bias–variance trade-off", PNAS 2019): with noisy labels the validation error peaks
// at the interpolation threshold, degree + 1 = samples, and falls again past it with the
// minimum-norm interpolant.
TEST(Polyfit, ValidationErrorPeaksAtTheInterpolationThreshold) {
  for (int seed = 0; seed < 8; ++seed) {
    const json r = calc("polyfit", {{"samples", 20}, {"noise", 0.2}, {"max_degree", 40}, {"seed", seed}});
    std::vector<double> v;
    for (const auto& row : r["by_degree"]) v.push_back(row["validation_mse"].get<double>());
    const auto peak = static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
    EXPECT_GE(peak, 18) << seed;
    EXPECT_LE(peak, 20) << seed;
    EXPECT_GT(v[static_cast<std::size_t>(peak)], 100 * *std::min_element(v.begin(), v.end())) << seed;
    EXPECT_LT(v[40], v[static_cast<std::size_t>(peak)] / 100) << seed;
    EXPECT_EQ(calc("polyfit", {{"samples", 20}, {"degree", 25}, {"seed", seed}})["solver"], "min-norm");
  }
}

// Effective parameters tr(H) (ESL §7.6): p for least squares below the threshold, n at and past
// it (H is then the identity on the training inputs), and under weight decay less than p,
// falling as λ grows (ESL §3.4.1: Σ d_j²/(d_j² + nλ)).
TEST(Polyfit, EffectiveParametersAreTheTraceOfTheHatMatrix) {
  EXPECT_NEAR(calc("polyfit", {{"samples", 20}, {"degree", 5}})["effective_parameters"].get<double>(), 6, 1e-9);
  EXPECT_NEAR(calc("polyfit", {{"samples", 20}, {"degree", 19}})["effective_parameters"].get<double>(), 20, 1e-3);  // rounding
  EXPECT_NEAR(calc("polyfit", {{"samples", 20}, {"degree", 30}})["effective_parameters"].get<double>(), 20, 1e-3);
  double last = 16;
  for (const double lambda : {1e-4, 1e-2, 0.1, 1.0}) {
    const double p = calc("polyfit", {{"samples", 20}, {"degree", 15}, {"weight_decay", lambda}})["effective_parameters"].get<double>();
    EXPECT_LT(p, last) << lambda;
    EXPECT_GT(p, 0) << lambda;
    last = p;
  }
  EXPECT_TRUE(calc("polyfit", {{"samples", 200}, {"degree", 3}})["effective_parameters"].is_null());
}

// Leave-one-out cross-validation (ESL §7.10) against a closed form: for the constant fit
// (degree 0) each left-out sample is predicted by the mean of the others, so its error is
// n/(n − 1) times its residual from the full mean and the LOO MSE is (n/(n − 1))² times the
// training MSE.
TEST(Polyfit, LeaveOneOutMatchesTheConstantFitsClosedForm) {
  for (int n : {5, 20, 60}) {
    const json r = calc("polyfit", {{"samples", n}, {"degree", 0}, {"noise", 0.3}});
    const double k = n / (n - 1.0);
    EXPECT_NEAR(r["loo_cv_mse"].get<double>(), k * k * r["train_mse"].get<double>(), 1e-12) << n;
  }
  // It ranks underfit and overfit above a good degree at the capacity figure's defaults.
  const auto loo = [](int d) { return calc("polyfit", {{"samples", 20}, {"noise", 0.1}, {"degree", d}})["loo_cv_mse"].get<double>(); };
  EXPECT_GT(loo(1), loo(3));
  EXPECT_GT(loo(9), loo(3));
  EXPECT_TRUE(calc("polyfit", {{"samples", 1}, {"degree", 0}})["loo_cv_mse"].is_null());
}

// Without noise the minimum-norm interpolant is biased, not better: past the threshold the
// validation error rises from its near-zero value at the threshold (it does not fall again).
TEST(Polyfit, NoiseFreeValidationErrorRisesPastTheThreshold) {
  for (int seed : {0, 1, 6}) {
    const json r = calc("polyfit", {{"samples", 20}, {"noise", 0}, {"max_degree", 40}, {"seed", seed}});
    const auto v = [&](int d) { return r["by_degree"][static_cast<std::size_t>(d)]["validation_mse"].get<double>(); };
    EXPECT_LT(v(17), 1e-12) << seed;
    EXPECT_GT(v(25), 1e-4) << seed;
    EXPECT_GT(v(40), v(25)) << seed;
  }
  // With few samples the second descent can beat the best small model (seed 1, n = 6).
  const json r = calc("polyfit", {{"samples", 6}, {"noise", 0.1}, {"max_degree", 40}, {"seed", 1}});
  EXPECT_LT(r["by_degree"][12]["validation_mse"].get<double>(), r["by_degree"][3]["validation_mse"].get<double>());
}

// The threshold exercise counts terms of total degree ≤ d in two or three inputs, C(d + k, k),
// and two draws in three ask for the smallest degree whose count reaches a given sample count;
// the split of a validation error is asked to two significant digits, so its rounding
// (0.046 for 0.0455) is accepted while σ² and v − σ, kept more than a tenth away, are not.
TEST(Polyfit, GeneralizationExercisesCountTermsAndAcceptTheAskedRounding) {
  int three = 0, inverse = 0;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const mlsys::Exercise t = mlsys::make_exercise("interpolation-threshold-2d", seed);
    const bool k3 = t.params["inputs"].get<int>() == 3;
    const auto terms = [k3](double d) { return k3 ? (d + 1) * (d + 2) * (d + 3) / 6 : (d + 1) * (d + 2) / 2; };
    three += k3;
    if (t.params.contains("samples")) {
      // Asked the other way round: the smallest total degree whose coefficients reach n samples.
      const double n = t.params["samples"].get<double>();
      ++inverse;
      EXPECT_GE(terms(t.answer), n) << seed;
      EXPECT_LT(terms(t.answer - 1), n) << seed;
      EXPECT_FALSE(mlsys::check_exercise(t.id, t.seed, std::to_string(static_cast<int>(t.answer) - 1))["correct"].get<bool>()) << seed;
    } else {
      EXPECT_EQ(t.answer, terms(t.params["degree"].get<double>())) << seed;
    }
    const mlsys::Exercise r = mlsys::make_exercise("reducible-error", seed);
    char two[32];
    std::snprintf(two, sizeof two, "%.2g", r.answer);
    EXPECT_TRUE(mlsys::check_exercise(r.id, r.seed, two)["correct"].get<bool>()) << seed << " " << two;
    const double sigma = r.params["noise"].get<double>();
    std::snprintf(two, sizeof two, "%.4g", sigma * sigma);
    EXPECT_FALSE(mlsys::check_exercise(r.id, r.seed, two)["correct"].get<bool>()) << seed << " " << two;
  }
  EXPECT_GT(three, 40);
  EXPECT_LT(three, 120);
  EXPECT_GT(inverse, 100);
  EXPECT_LT(inverse, 170);
}
