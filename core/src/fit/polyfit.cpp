// Polynomial regression on seeded samples (mlsys/fit/polyfit.hpp).
#include "mlsys/fit/polyfit.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys::fit {

namespace {

std::uint64_t stream_salt(int stream) { return stream == 0 ? 0x5DEECE66DULL : 0x2545F4914F6CDD1DULL; }

}  // namespace

const std::vector<std::string>& true_function_names() {
  static const std::vector<std::string> names = {"sin", "cubic", "step"};
  return names;
}

TrueFunction parse_true_function(const std::string& name) {
  if (name == "sin") return TrueFunction::Sin;
  if (name == "cubic") return TrueFunction::Cubic;
  if (name == "step") return TrueFunction::Step;
  throw InputError("function", "Unknown function '" + name + "': use sin, cubic or step.");
}

double true_value(TrueFunction f, double x) {
  switch (f) {
    case TrueFunction::Sin: return sin_pi_det(x);
    case TrueFunction::Cubic: return 4 * x * x * x - 3 * x;
    case TrueFunction::Step: return x < 0 ? -1.0 : 1.0;
  }
  return 0;
}

std::vector<double> legendre_row(double x, int degree) {
  std::vector<double> p(static_cast<std::size_t>(degree) + 1);
  double prev = 0, cur = 1;  // P_{k−1}, P_k by (k+1)·P_{k+1} = (2k+1)·x·P_k − k·P_{k−1}
  for (int k = 0; k <= degree; ++k) {
    p[static_cast<std::size_t>(k)] = std::sqrt(2.0 * k + 1) * cur;
    const double next = ((2.0 * k + 1) * x * cur - k * prev) / (k + 1);
    prev = cur;
    cur = next;
  }
  return p;
}

std::vector<double> monomial_row(double x, int degree) {
  std::vector<double> p(static_cast<std::size_t>(degree) + 1);
  double v = 1;
  for (auto& e : p) {
    e = v;
    v *= x;
  }
  return p;
}

Matrix design_matrix(const std::vector<double>& x, int degree, bool monomial) {
  Matrix a(x.size(), static_cast<std::size_t>(degree) + 1);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::vector<double> row = monomial ? monomial_row(x[i], degree) : legendre_row(x[i], degree);
    std::copy(row.begin(), row.end(), a.data.begin() + static_cast<std::ptrdiff_t>(i * a.cols));
  }
  return a;
}

Samples draw_samples(TrueFunction f, int n, double noise, std::uint64_t seed, int stream) {
  SeededStream rng(mix_seed(seed, stream_salt(stream)));
  Samples s;
  for (int i = 0; i < n; ++i) {
    const double x = 2 * rng.uniform() - 1;
    s.x.push_back(x);
    s.y.push_back(true_value(f, x) + noise * rng.normal());
  }
  return s;
}

double mse(const Matrix& design, const std::vector<double>& c, const std::vector<double>& y) {
  const std::vector<double> fit = multiply(design, c);
  double sum = 0;
  for (std::size_t i = 0; i < y.size(); ++i) sum += (fit[i] - y[i]) * (fit[i] - y[i]);
  return y.empty() ? 0.0 : sum / static_cast<double>(y.size());
}

Fit fit_polynomial(const Samples& train, int degree, double weight_decay) {
  const std::size_t n = train.x.size(), p = static_cast<std::size_t>(degree) + 1;
  if (n == 0) throw InputError("samples", "At least one training sample is needed.");
  Matrix a = design_matrix(train.x, degree);
  if (weight_decay > 0) {
    // (1/n)‖Ac − y‖² + wd‖c‖² = ‖(A/√n)c − y/√n‖² + wd‖c‖².
    const double scale = 1 / std::sqrt(static_cast<double>(n));
    for (double& v : a.data) v *= scale;
    std::vector<double> y(train.y);
    for (double& v : y) v *= scale;
    return {ridge_qr(a, y, weight_decay), "ridge"};
  }
  if (p <= n) return {least_squares_qr(a, train.y), "least-squares"};
  return {min_norm_qr(a, train.y), "min-norm"};
}

namespace {

Samples prefix(const Samples& s, int n) {
  return {{s.x.begin(), s.x.begin() + n}, {s.y.begin(), s.y.begin() + n}};
}

struct Errors {
  double train, validation;
};

Errors errors_of(const Samples& train, const Samples& validation, int degree, double wd) {
  const Fit f = fit_polynomial(train, degree, wd);
  return {mse(design_matrix(train.x, degree), f.coefficients, train.y),
          mse(design_matrix(validation.x, degree), f.coefficients, validation.y)};
}

// Gradient descent from c = 0 on (1/n)‖Ac − y‖² + wd‖c‖²; fills the report's by_step and lr.
void gradient_descent(const Samples& train, const Samples& validation, int degree, double wd, int steps,
                      std::optional<double> lr_given, PolyfitReport& out) {
  const Matrix a = design_matrix(train.x, degree), v = design_matrix(validation.x, degree);
  const std::size_t n = a.rows, p = a.cols;
  const double inv_n = 1 / static_cast<double>(n);
  Matrix h(p, p);  // the Hessian (2/n)AᵀA + 2wd·I
  for (std::size_t j = 0; j < p; ++j)
    for (std::size_t k = 0; k < p; ++k) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += a.at(i, j) * a.at(i, k);
      h.at(j, k) = 2 * inv_n * s + (j == k ? 2 * wd : 0.0);
    }
  const double lambda_max = max_symmetric_eigenvalue(h);
  const double lr = lr_given ? *lr_given : 1 / lambda_max;
  out.gd_lr = lr;
  out.gd_lr_max_stable = 2 / lambda_max;
  out.gd_diverged = false;
  std::vector<double> c(p, 0.0);
  std::vector<StepRow> rows;
  for (int step = 0;; ++step) {
    const double train_mse = mse(a, c, train.y);
    rows.push_back({step, train_mse, mse(v, c, validation.y)});
    if (!(train_mse <= 1e100)) {
      out.gd_diverged = true;
      break;
    }
    if (step == steps) break;
    const std::vector<double> fit = multiply(a, c);
    std::vector<double> grad(p, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const double r = 2 * inv_n * (fit[i] - train.y[i]);
      for (std::size_t j = 0; j < p; ++j) grad[j] += r * a.at(i, j);
    }
    for (std::size_t j = 0; j < p; ++j) c[j] -= lr * (grad[j] + 2 * wd * c[j]);
  }
  out.by_step = std::move(rows);
}

}  // namespace

PolyfitReport polyfit(const PolyfitRequest& r) {
  const TrueFunction f = parse_true_function(r.function);
  if (r.degree < 0 || r.degree > kMaxPolyDegree)
    throw InputError("degree", "degree must be between 0 and " + std::to_string(kMaxPolyDegree) + ".");
  if (r.samples < 1 || r.samples > kMaxPolySamples)
    throw InputError("samples", "samples must be between 1 and " + std::to_string(kMaxPolySamples) + ".");
  if (!(r.noise >= 0)) throw InputError("noise", "noise must be at least 0.");
  // Below 1e-30 the augmented rows √λ·I fall under the rank test of the QR (1e-20 of the
  // largest pivot) and the ridge solution is its λ → 0 limit anyway: ask for 0 instead.
  if (!(r.weight_decay == 0 || r.weight_decay >= 1e-30))
    throw InputError("weight_decay", "weight_decay must be 0 or at least 1e-30 (0 gives the λ → 0 limit).");
  if (r.validation_samples < 1 || r.validation_samples > kMaxValidationSamples)
    throw InputError("validation_samples", "validation_samples must be between 1 and " +
                                               std::to_string(kMaxValidationSamples) + ".");

  const int drawn = std::max(r.samples, r.max_samples.value_or(0));
  const Samples all = draw_samples(f, drawn, r.noise, r.seed, 0);
  const Samples train = prefix(all, r.samples);
  const Samples validation = draw_samples(f, r.validation_samples, r.noise, r.seed, 1);

  PolyfitReport out;
  out.parameters = r.degree + 1;
  const Fit fit = fit_polynomial(train, r.degree, r.weight_decay);
  out.solver = fit.solver;
  out.coefficients = fit.coefficients;
  out.train_mse = mse(design_matrix(train.x, r.degree), fit.coefficients, train.y);
  out.validation_mse = mse(design_matrix(validation.x, r.degree), fit.coefficients, validation.y);
  out.noise_variance = r.noise * r.noise;
  double truth = 0;
  for (std::size_t i = 0; i < validation.x.size(); ++i) {
    const double d = true_value(f, validation.x[i]) - validation.y[i];
    truth += d * d;
  }
  out.truth_validation_mse = truth / static_cast<double>(validation.x.size());
  double norm2 = 0;
  for (double c : fit.coefficients) norm2 += c * c;
  out.coefficient_norm = std::sqrt(norm2);
  // tr(H): H's column j is the fit to the j-th unit vector of labels, so H_jj is that fit at x_j.
  const Matrix design = design_matrix(train.x, r.degree);
  const bool loo = r.samples <= kMaxLooSamples;
  if (loo) out.effective_parameters = 0.0;
  for (std::size_t j = 0; loo && j < train.x.size(); ++j) {
    Samples unit{train.x, std::vector<double>(train.x.size(), 0.0)};
    unit.y[j] = 1;
    const std::vector<double> hj = multiply(design, fit_polynomial(unit, r.degree, r.weight_decay).coefficients);
    *out.effective_parameters += hj[j];
  }
  if (loo && train.x.size() > 1) {
    double sum = 0;
    for (std::size_t i = 0; i < train.x.size(); ++i) {
      Samples rest = train;
      rest.x.erase(rest.x.begin() + static_cast<std::ptrdiff_t>(i));
      rest.y.erase(rest.y.begin() + static_cast<std::ptrdiff_t>(i));
      const std::vector<double> c = fit_polynomial(rest, r.degree, r.weight_decay).coefficients;
      const std::vector<double> row = legendre_row(train.x[i], r.degree);
      double y = 0;
      for (std::size_t k = 0; k < row.size(); ++k) y += row[k] * c[k];
      sum += (y - train.y[i]) * (y - train.y[i]);
    }
    out.loo_cv_mse = sum / static_cast<double>(train.x.size());
  }
  for (int i = 0; i <= 200; ++i) {
    const double x = -1 + i / 100.0;
    double y = 0;
    const std::vector<double> row = legendre_row(x, r.degree);
    for (std::size_t k = 0; k < row.size(); ++k) y += row[k] * fit.coefficients[k];
    out.curve.push_back({x, y, true_value(f, x)});
  }

  if (r.max_degree) {
    if (*r.max_degree < 0 || *r.max_degree > kMaxPolyDegree)
      throw InputError("max_degree", "max_degree must be between 0 and " + std::to_string(kMaxPolyDegree) + ".");
    std::vector<DegreeRow> rows;
    for (int d = 0; d <= *r.max_degree; ++d) {
      const Errors e = errors_of(train, validation, d, r.weight_decay);
      rows.push_back({d, e.train, e.validation});
    }
    out.by_degree = std::move(rows);
  }
  if (r.max_samples) {
    if (*r.max_samples < 1 || *r.max_samples > kMaxBySamples)
      throw InputError("max_samples", "max_samples must be between 1 and " + std::to_string(kMaxBySamples) + ".");
    std::vector<SampleRow> rows;
    for (int n = 1; n <= *r.max_samples; ++n) {
      const Errors e = errors_of(prefix(all, n), validation, r.degree, r.weight_decay);
      rows.push_back({n, e.train, e.validation});
    }
    out.by_samples = std::move(rows);
  }
  if (r.gd_steps) {
    if (*r.gd_steps < 0 || *r.gd_steps > kMaxGdSteps)
      throw InputError("gd_steps", "gd_steps must be between 0 and " + std::to_string(kMaxGdSteps) + ".");
    if (r.gd_lr && !(*r.gd_lr > 0)) throw InputError("gd_lr", "gd_lr must be positive.");
    gradient_descent(train, validation, r.degree, r.weight_decay, *r.gd_steps, r.gd_lr, out);
  }
  return out;
}

}  // namespace mlsys::fit
