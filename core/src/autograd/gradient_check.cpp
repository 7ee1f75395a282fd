// Finite differences against reverse mode (autograd/gradient_check.hpp).
#include "mlsys/autograd/gradient_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

std::string show(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

template <class T>
double difference(const Expression& e, std::map<std::string, double> values, const std::string& variable, double step,
                  bool central) {
  // Checked before the casts: a double outside float's range does not convert (undefined behaviour).
  const double limit = static_cast<double>(std::numeric_limits<T>::max());
  if (std::fabs(values.at(variable)) > limit)
    throw InputError("values", "The value of '" + variable + "' (" + show(values.at(variable)) +
                                   ") is beyond the range of fp32.");
  if (step > limit) throw InputError("step", "The step " + show(step) + " is beyond the range of fp32.");
  const T x = static_cast<T>(values.at(variable));
  const T h = static_cast<T>(step);
  auto f = [&](T at) {
    values[variable] = static_cast<double>(at);
    return evaluate_nodes<T>(e, values)[static_cast<std::size_t>(e.root)];
  };
  const T plus = x + h;
  if (central) {
    const T minus = x - h;
    return static_cast<double>((f(plus) - f(minus)) / (T(2) * h));
  }
  const T fx = f(x);
  return static_cast<double>((f(plus) - fx) / h);
}

double relative(double numeric, double analytic) {
  const double scale = std::max(std::fabs(numeric), std::fabs(analytic));
  return scale == 0 ? 0 : std::fabs(numeric - analytic) / scale;
}

}  // namespace

double finite_difference(const Expression& e, const std::map<std::string, double>& values,
                         const std::string& variable, double step, const std::string& method, bool fp32) {
  const bool central = method == "central";
  const double d = fp32 ? difference<float>(e, values, variable, step, central)
                        : difference<double>(e, values, variable, step, central);
  if (!std::isfinite(d))
    throw InputError("step", "The finite difference with h = " + show(step) + " is not finite.");
  return d;
}

GradientCheck gradient_check(const Expression& e, const std::map<std::string, double>& values,
                             const std::string& variable, std::optional<double> step, const std::string& method,
                             const std::string& dtype) {
  std::string var = variable;
  if (var.empty()) {
    if (e.variables.size() != 1)
      throw InputError("variable", "Name the 'variable' to differentiate: the expression has " +
                                       std::to_string(e.variables.size()) + " variables.");
    var = e.variables[0];
  }
  if (std::find(e.variables.begin(), e.variables.end(), var) == e.variables.end())
    throw InputError("variable", "The expression has no variable '" + var + "'.");
  const bool fp32 = dtype == "fp32";
  const AutogradResult ad = autograd(e, values);
  (void)evaluate_expression(e, values, fp32);  // f must exist at x in the dtype: its error, not the sweep's
  GradientCheck r{var, method, dtype, 0, ad.gradients.at(var), 0, 0, 0, std::nullopt, std::nullopt};
  if (step) {
    r.step = *step;
  } else {
    std::vector<StepError> sweep;
    for (int p = 1; p <= 12; ++p) {
      const double h = std::pow(10.0, -p);
      try {
        sweep.push_back({h, std::fabs(finite_difference(e, values, var, h, method, fp32) - r.analytic)});
      } catch (const InputError&) {
        // x ± h outside f's domain (log near 0): that step has no error to show.
      }
    }
    if (sweep.empty()) throw InputError("values", "f is undefined at x ± h for every h of the sweep.");
    const auto best = std::min_element(sweep.begin(), sweep.end(),
                                       [](const StepError& a, const StepError& b) { return a.abs_error < b.abs_error; });
    r.step = best->step;
    r.best_step = best->step;
    r.sweep = std::move(sweep);
  }
  r.numeric = finite_difference(e, values, var, r.step, method, fp32);
  r.abs_error = std::fabs(r.numeric - r.analytic);
  r.rel_error = relative(r.numeric, r.analytic);
  return r;
}

}  // namespace mlsys
