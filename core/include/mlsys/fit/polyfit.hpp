// Polynomial regression on seeded noisy samples: fitting, overfitting, weight decay, the
// interpolation threshold and early stopping, all executed.
//
// Data: x uniform on [−1, 1) (SeededStream), y = f(x) + noise·N(0, 1), with f one of
//   sin:   sin(π·x)
//   cubic: 4x³ − 3x (the Chebyshev polynomial T₃, which stays in [−1, 1])
//   step:  −1 for x < 0, +1 for x ≥ 0
// The validation set is `validation_samples` fresh points of the same law from another seeded
// stream (so its MSE cannot go below noise², the noise variance, on average).
//
// Basis: the orthonormal Legendre polynomials φ_k(x) = √(2k+1)·P_k(x), k = 0 … degree, with
// E[φ_j·φ_k] = δ_jk for x uniform on [−1, 1] (Abramowitz & Stegun 22.2.10 and 22.7.10 for
// P_k's orthogonality and recurrence). The design matrix is well conditioned for many samples,
// and ‖c‖² is the mean square of the fitted function over [−1, 1]. Coefficients are reported
// in that basis.
//
// Objective: (1/n)·Σ (fit(x_i) − y_i)² + weight_decay·‖c‖², every coefficient penalised.
//  - weight_decay > 0: ridge, the augmented least-squares problem [A/√n; √wd·I] by QR.
//  - weight_decay = 0 and degree + 1 ≤ samples: least squares by Householder QR.
//  - weight_decay = 0 and degree + 1 > samples: the minimum-norm interpolant (least ‖c‖ among
//    the fits through every sample; the ridge solution's limit as weight_decay → 0), by the QR
//    of Aᵀ. Its validation error peaks near degree + 1 = samples (double descent).
// Gradient descent (early stopping): from c = 0, c ← c − lr·∇ of the same objective, with
// train and validation MSE after each step; the default lr is 1/λ_max of the Hessian
// H = (2/n)·AᵀA + 2·wd·I, and gradient descent diverges for lr > 2/λ_max.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/fit/least_squares.hpp"

namespace mlsys::fit {

enum class TrueFunction { Sin, Cubic, Step };
TrueFunction parse_true_function(const std::string& name);  // throws InputError("function", ...)
const std::vector<std::string>& true_function_names();         // sin, cubic, step
double true_value(TrueFunction f, double x);

// φ_0(x) … φ_degree(x), the orthonormal Legendre polynomials.
std::vector<double> legendre_row(double x, int degree);
// x^0 … x^degree (the monomial basis, only for the comparison of solvers in the tests).
std::vector<double> monomial_row(double x, int degree);
Matrix design_matrix(const std::vector<double>& x, int degree, bool monomial = false);

struct Samples {
  std::vector<double> x, y;
};
// n points of the data law above. stream 0 is the training set, 1 the validation set: the
// first k training points are the same for every n ≥ k (the by_samples rows are nested sets).
Samples draw_samples(TrueFunction f, int n, double noise, std::uint64_t seed, int stream);

// Upper limits of the inputs (the calculator's schema uses them).
inline constexpr int kMaxPolyDegree = 40;
inline constexpr int kMaxPolySamples = 500;
inline constexpr int kMaxLooSamples = 100;
inline constexpr int kMaxValidationSamples = 2000;
inline constexpr int kMaxBySamples = 200;
inline constexpr int kMaxGdSteps = 1000;

struct PolyfitRequest {
  std::string function = "sin";
  int degree = 3;
  int samples = 20;
  double noise = 0.1;  // standard deviation of the label noise
  double weight_decay = 0;
  int validation_samples = 200;
  std::uint64_t seed = 0;
  std::optional<int> max_degree;   // by_degree for 0 … max_degree
  std::optional<int> max_samples;  // by_samples for 1 … max_samples
  std::optional<int> gd_steps;     // by_step for 0 … gd_steps
  std::optional<double> gd_lr;     // default 1/λ_max
};

// Fitted coefficients for the training set (the solver above that the shape and weight decay
// select) and the name of that solver: "least-squares", "ridge" or "min-norm".
struct Fit {
  std::vector<double> coefficients;
  std::string solver;
};
Fit fit_polynomial(const Samples& train, int degree, double weight_decay);
double mse(const Matrix& design, const std::vector<double>& c, const std::vector<double>& y);

struct CurvePoint {
  double x, fit, truth;
};
struct DegreeRow {
  int degree;
  double train_mse, validation_mse;
};
struct SampleRow {
  int samples;
  double train_mse, validation_mse;
};
struct StepRow {
  int step;
  double train_mse, validation_mse;
};

struct PolyfitReport {
  int parameters = 0;  // degree + 1
  std::string solver;
  double train_mse = 0, validation_mse = 0;
  double noise_variance = 0;  // noise²: the expected validation MSE of the true function
  double truth_validation_mse = 0;  // the true function's own MSE on the validation set
  std::vector<double> coefficients;
  double coefficient_norm = 0;
  // tr(H) of the fit's hat matrix H (ŷ = H·y on the training inputs): the number of
  // coefficients for least squares below the threshold, n past it, less under weight decay
  // (ESL §7.6; for ridge Σ d_j²/(d_j² + nλ) over the singular values d_j of A, §3.4.1). Both it and loo_cv_mse take
  // n extra fits: computed for n ≤ kMaxLooSamples only (null beyond).
  std::optional<double> effective_parameters;
  // Leave-one-out cross-validation: each training sample scored by the fit to the other
  // n − 1, the squared errors averaged (ESL §7.10). Null for n = 1 (nothing left to fit).
  std::optional<double> loo_cv_mse;
  std::vector<CurvePoint> curve;  // 201 points, x = −1 + i/100
  std::optional<std::vector<DegreeRow>> by_degree;
  std::optional<std::vector<SampleRow>> by_samples;
  std::optional<std::vector<StepRow>> by_step;  // stops after the step whose MSE passes 1e100
  std::optional<double> gd_lr;
  std::optional<double> gd_lr_max_stable;  // 2/λ_max
  std::optional<bool> gd_diverged;
};

PolyfitReport polyfit(const PolyfitRequest& r);

}  // namespace mlsys::fit
