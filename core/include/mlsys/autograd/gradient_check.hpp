// Finite-difference gradient checking against reverse mode: forward (f(x+h) - f(x))/h, error
// ~ h·|f''|/2 + eps·|f|/h, and central (f(x+h) - f(x-h))/2h, error ~ h²·|f'''|/6 + eps·|f|/h
// (truncation falls with h, rounding grows: the V on a log-log plot, its bottom near sqrt(eps)
// forward and eps^(1/3) central; Nocedal & Wright, "Numerical Optimization", 2nd ed., section
// 8.1). rel_error is |numeric - analytic| / max(|numeric|, |analytic|), the measure of the
// CS231n notes on gradient checking (0 when both are 0).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/autograd/expression.hpp"

namespace mlsys {

struct StepError {
  double step;
  double abs_error;
};

struct GradientCheck {
  std::string variable;
  std::string method;  // forward or central
  std::string dtype;   // fp64 or fp32: the precision every operation of f is rounded to
  double step;         // h used for numeric (best_step without a given step)
  double analytic;     // reverse mode in fp64
  double numeric;
  double abs_error;
  double rel_error;
  std::optional<std::vector<StepError>> sweep;  // h = 10^-1 ... 10^-12 (points outside f's domain left out)
  std::optional<double> best_step;              // the sweep's h with the smallest abs_error
};

// The finite difference of `method` in `dtype` ("fp64" | "fp32"); x ± h and the difference
// quotient are rounded to the dtype too. Throws InputError when f is undefined at a point.
double finite_difference(const Expression& e, const std::map<std::string, double>& values,
                         const std::string& variable, double step, const std::string& method, bool fp32);

// `variable` empty: the expression's only variable. `step` absent: the sweep.
GradientCheck gradient_check(const Expression& e, const std::map<std::string, double>& values,
                             const std::string& variable, std::optional<double> step, const std::string& method,
                             const std::string& dtype);

}  // namespace mlsys
