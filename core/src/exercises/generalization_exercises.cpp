// Exercises of the generalization lesson ("Learning versus memorizing"): the interpolation
// threshold of a two-input polynomial, the reducible part of a validation error, the expected
// training error of least squares, a one-weight ridge solution and the largest stable
// gradient-descent step. The objective is polyfit's: (1/n)·Σ(fit − y)² + λ·‖w‖².
#include <cmath>
#include <vector>

#include "generators.hpp"

namespace mlsys::exercises {

namespace {

// True when `answer` is within 2% of one of `shown` (a number copied from the prompt).
bool near_any(double answer, const std::vector<double>& shown) {
  for (double s : shown)
    if (std::abs(answer - s) <= 0.02 * std::max(std::abs(answer), std::abs(s))) return true;
  return false;
}

std::string list_text(const std::vector<double>& v, int sig) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? (i + 1 == v.size() ? " and " : ", ") : "") + format_number(v[i], sig);
  return s;
}

// Terms x^i·z^j with i + j ≤ d: for each total degree k = 0 … d there are k + 1, so
// (d + 1)(d + 2)/2 in all. With a third input w, total degree k has (k + 1)(k + 2)/2 terms,
// (d + 1)(d + 2)(d + 3)/6 in all. Two draws in three ask it the other way round: given n samples,
// the smallest total degree whose coefficient count reaches n.
double terms(int d, bool three) { return three ? (d + 1.0) * (d + 2.0) * (d + 3.0) / 6 : (d + 1.0) * (d + 2.0) / 2; }

Exercise threshold_2d(Rng& rng) {
  const bool three = rng.integer(0, 2) == 2;
  const bool inverse = rng.integer(0, 2) != 0;
  const std::string inputs = three ? "three inputs x, z and w" : "two inputs x and z";
  const std::string term = three ? "x^i·z^j·w^k with i + j + k" : "x^i·z^j with i + j";
  Exercise e;
  e.unit = "";
  e.integer = true;
  if (inverse) {
    int n = 0, d = 0;
    do n = three ? rng.integer(30, 3000) : rng.integer(30, 1500);
    while (n == terms(0, three) || [&] { for (int k = 0; terms(k, three) <= n; ++k) if (terms(k, three) == n) return true; return false; }());
    while (terms(d, three) < n) ++d;
    const std::string N = format_int(n), D = std::to_string(d);
    e.title = "Find the interpolation threshold of a polynomial in several inputs";
    e.params = {{"samples", n}, {"inputs", three ? 3 : 2}};
    e.prompt = "A model predicts y from " + inputs + " with a polynomial of total degree d: every term " + term +
               " at most d, the constant included, has its own coefficient. The training set has " + N +
               " samples. What is the smallest d at which least squares can fit any labels of these samples exactly?";
    e.answer = d;
    e.hint = std::string("Exact fits of any labels need at least as many coefficients as samples. A total degree d has ") +
             (three ? "(d + 1)(d + 2)(d + 3)/6" : "(d + 1)(d + 2)/2") + " coefficients: find the first d where that reaches " + N + ".";
    e.solution = "Degree " + std::to_string(d - 1) + " has " + format_int(terms(d - 1, three)) + " coefficients, fewer than the " + N +
                 " samples; degree " + D + " has " + format_int(terms(d, three)) + ", enough. So d = " + D + ".";
    require(e, terms(d - 1, three) < n && terms(d, three) > n, "degree d is the first whose coefficients exceed the samples");
    reject_mistake(e, d - 1.0, "gave the largest degree below the threshold");
    reject_mistake_where_distinct(e, n - 1.0, "used the one-input threshold n − 1");
    int grid = 0;
    while (std::pow(grid + 1.0, three ? 3 : 2) < n) ++grid;
    reject_mistake_where_distinct(e, grid, "counted every power combination with each exponent \u2264 d (a tensor-product grid)");
    return e;
  }
  const int d = three ? rng.integer(2, 20) : rng.integer(2, 40);
  const double p = terms(d, three);
  const std::string D = std::to_string(d);
  e.title = "Find the interpolation threshold of a polynomial in several inputs";
  e.params = {{"degree", d}, {"inputs", three ? 3 : 2}};
  e.prompt = "A model predicts y from " + inputs + " with a polynomial of total degree " + D + ": every term " + term +
             " at most " + D + ", the constant included, has its own coefficient. With as many training samples as "
             "coefficients, least squares can fit any labels exactly. How many samples is that?";
  e.answer = p;
  e.hint = three ? "Count the terms of each total degree m: those of two inputs of degree m, m − 1, …, 0 (times w^0, "
                   "w^1, …, w^m), (m + 1)(m + 2)/2 in all. Then add over m."
                 : "Count the terms of each total degree k: x^k, x^(k−1)·z, …, z^k. Then add over k.";
  e.solution = three ? "Total degree m has (m + 1)(m + 2)/2 terms, and adding these for m = 0 … d gives (d + 1)(d + 2)(d + 3)/6 = " +
                           std::to_string(d + 1) + " × " + std::to_string(d + 2) + " × " + std::to_string(d + 3) +
                           " / 6 = " + format_int(p) + "."
                     : "Total degree k has k + 1 terms, so the count is 1 + 2 + … + (d + 1) = (d + 1)(d + 2)/2 = " +
                           std::to_string(d + 1) + " × " + std::to_string(d + 2) + " / 2 = " + format_int(p) + ".";
  require_whole(e, p, "the coefficient count");
  reject_mistake(e, d + 1.0, "counted the coefficients of a one-input polynomial (degrees, not terms)");
  reject_mistake(e, std::pow(d + 1.0, three ? 3 : 2), "counted every power combination with each exponent \u2264 d (a tensor-product grid)");
  if (three) reject_mistake(e, (d + 1.0) * (d + 2.0) / 2, "counted the terms of two inputs only");
  return e;
}

// E[(y − f̂(x))²] = σ² + (bias² + variance): only the part above σ² can be removed.
Exercise reducible_error(Rng& rng) {
  double sigma = 0, v = 0, answer = 0;
  do {
    sigma = round_sig(0.05 + 0.45 * rng.uniform(), 2);
    v = round_sig(sigma * sigma * (1.2 + 3 * rng.uniform()), 3);
    answer = v - sigma * sigma;
    // The answer is asked to two significant digits, so it must stay well clear (more than a
    // tenth) of the numbers a reader could give by mistake: the prompt's, σ² and v − σ.
  } while (std::abs(answer - sigma * sigma) <= 0.1 * std::max(answer, sigma * sigma) ||
           std::abs(answer - (v - sigma)) <= 0.1 * std::max(answer, std::abs(v - sigma)) || near_any(answer, {sigma, v}));
  Exercise e;
  e.title = "Split a validation error";
  e.params = {{"noise", sigma}};
  e.prompt = "Labels are y = f(x) + ε with Gaussian noise ε of standard deviation " + format_number(sigma, 2) +
             ". A fitted model has a validation mean squared error of " + format_number(v, 3) +
             " on fresh noisy samples. How much of that error could a better model remove (to two significant "
             "digits)?";
  e.unit = "";
  e.answer = answer;
  e.asked_significant = 2;
  e.hint = "Even the true f scores the noise variance σ² on noisy labels; no model can go below it on average.";
  e.solution = "The floor is σ² = " + format_number(sigma, 2) + "² = " + format_number(sigma * sigma, 4) +
               ", so the reducible part (bias² + variance) is " + format_number(v, 3) + " − " +
               format_number(sigma * sigma, 4) + " = " + format_number(answer, 4) + ".";
  require(e, v > sigma * sigma, "the validation error lies above the noise floor \u03C3\u00B2");
  reject_mistake_where_distinct(e, v - sigma, "subtracted \u03C3 instead of \u03C3\u00B2");
  reject_mistake_where_distinct(e, sigma * sigma, "gave the irreducible part \u03C3\u00B2");
  return e;
}

// E[RSS] = σ²·(n − p) for least squares with p coefficients when the model contains the truth
// (Seber & Lee, "Linear Regression Analysis", 2nd ed., Theorem 3.3).
Exercise train_mse(Rng& rng) {
  int d = 0, n = 0;
  double sigma = 0, answer = 0;
  do {
    d = rng.integer(3, 9);
    n = rng.integer(d + 3, 60);
    sigma = round_sig(0.05 + 0.95 * rng.uniform(), 2);
    answer = sigma * sigma * (n - d - 1.0) / n;
  } while (near_any(answer, {sigma, sigma * sigma, static_cast<double>(d), static_cast<double>(n)}));
  Exercise e;
  e.title = "Predict the training error of least squares";
  e.params = {{"function", "cubic"}, {"degree", d}, {"samples", n}, {"noise", sigma}};
  e.prompt = "A cubic with Gaussian label noise of standard deviation " + format_number(sigma, 2) +
             " is fitted by least squares with a polynomial of degree " + std::to_string(d) + " on " +
             std::to_string(n) +
             " samples, so the model contains the truth. On average over draws, what is the training mean squared "
             "error?";
  e.unit = "";
  e.answer = answer;
  e.hint = "Each fitted coefficient absorbs one sample's worth of noise: the expected residual sum of squares is "
           "σ²·(n − p), with p = degree + 1 coefficients.";
  e.solution = "p = " + std::to_string(d + 1) + " coefficients, so the expected training MSE is σ²·(n − p)/n = " +
               format_number(sigma * sigma, 4) + " × " + std::to_string(n - d - 1) + " / " + std::to_string(n) +
               " = " + format_number(answer, 4) + ", below the noise variance: the fit has memorized some noise.";
  require(e, n > d + 1, "more samples (" + std::to_string(n) + ") than coefficients (" + std::to_string(d + 1) + ")");
  reject_mistake(e, sigma * sigma * (n - d) / n, "took p = degree instead of degree + 1 coefficients");
  return e;
}

std::vector<double> draw_xs(Rng& rng, int count) {
  std::vector<double> x;
  for (int i = 0; i < count; ++i) {  // two draws in order (a product's operands have no set order)
    const double magnitude = rng.integer(1, 30) / 10.0;
    x.push_back(round_sig(magnitude * (rng.integer(0, 3) ? 1 : -1), 2));  // a quarter negative
  }
  return x;
}

// d/dw [(1/n)Σ(w·x − y)² + λw²] = 0 gives w = Σxy / (Σx² + n·λ).
Exercise ridge_1d(Rng& rng) {
  std::vector<double> x, y;
  double lambda = 0, w = 0, sxy = 0, sxx = 0;
  int n = 0;
  for (;;) {
    n = rng.integer(3, 4);
    x = draw_xs(rng, n);
    y.clear();
    for (int i = 0; i < n; ++i) y.push_back(round_sig(rng.integer(-40, 40) / 10.0, 2));
    lambda = round_sig(rng.integer(1, 30) / 10.0, 2);
    sxy = sxx = 0;
    for (int i = 0; i < n; ++i) sxy += x[i] * y[i], sxx += x[i] * x[i];
    if (sxy < 0) {  // answers are positive: flip the labels
      for (double& v : y) v = -v;
      sxy = -sxy;
    }
    w = sxy / (sxx + n * lambda);
    std::vector<double> shown(x);
    shown.insert(shown.end(), y.begin(), y.end());
    shown.push_back(lambda);
    shown.push_back(1);          // the 1 of (1/n)
    shown.push_back(sxy / sxx);  // the answer without weight decay
    // Forgetting the n of n·λ must give another answer: the lesson's formula is the point.
    if (w > 0.05 && !near_any(w, shown) && !near_any(sxy / (sxx + lambda), {w})) break;
  }
  Exercise e;
  e.title = "Solve a one-weight ridge regression";
  e.params = {{"x", x}, {"y", y}, {"weight_decay", lambda}};
  e.prompt = "A model ŷ = w·x with one weight and no intercept is fitted to the points x = " + list_text(x, 2) +
             " with labels y = " + list_text(y, 2) + " by minimizing (1/n)·Σ(w·x − y)² + λ·w², with λ = " +
             format_number(lambda, 2) + ". What is the best w?";
  e.unit = "";
  e.answer = w;
  e.hint = "Set the derivative to zero: (2/n)·Σx·(w·x − y) + 2λ·w = 0, then solve for w.";
  e.solution = "Σxy = " + format_number(sxy, 6) + ", Σx² = " + format_number(sxx, 6) + ", n = " + std::to_string(n) +
               ", so w = Σxy / (Σx² + n·λ) = " + format_number(sxy, 6) + " / " + format_number(sxx + n * lambda, 6) +
               " = " + format_number(w, 4) + " (without weight decay it would be " + format_number(sxy / sxx, 4) +
               "). So w = " + format_number(w, 4) + ".";
  require(e, lambda > 0 && sxx > 0, "\u03BB > 0 and the inputs are not all zero");
  reject_mistake(e, sxy / (sxx + lambda), "dropped the n of n\u00B7\u03BB (the 1/n of the loss)");
  reject_mistake(e, sxy / sxx, "left out the weight decay");
  return e;
}

// The loss is quadratic with curvature 2·(Σx²/n + λ); gradient descent multiplies the error by
// 1 − lr·curvature each step, which shrinks only while lr < 2 / curvature.
Exercise gd_stability(Rng& rng) {
  std::vector<double> x;
  double lambda = 0, answer = 0, mean_sq = 0;
  int n = 0;
  for (;;) {
    n = rng.integer(3, 5);
    x = draw_xs(rng, n);
    lambda = rng.integer(0, 2) ? round_sig(rng.integer(1, 20) / 10.0, 2) : 0.0;
    mean_sq = 0;
    for (double v : x) mean_sq += v * v / n;
    answer = 1 / (mean_sq + lambda);
    std::vector<double> shown(x);
    shown.push_back(lambda);
    shown.push_back(1);  // the 1 of (1/n)
    if (!near_any(answer, shown)) break;
  }
  Exercise e;
  e.title = "Find the largest stable learning rate";
  e.params = {{"x", x}, {"weight_decay", lambda}};
  e.prompt = "Gradient descent minimizes (1/n)·Σ(w·x − y)² + λ·w² over one weight w, with inputs x = " +
             list_text(x, 2) + (lambda > 0 ? " and λ = " + format_number(lambda, 2) : " and no weight decay (λ = 0)") +
             ". Above what learning rate does it diverge, whatever the labels?";
  e.unit = "";
  e.answer = answer;
  e.hint = "The loss is a parabola in w with second derivative h = 2·(Σx²/n + λ). Each step multiplies the "
           "distance to the minimum by (1 − lr·h); it grows once lr > 2/h.";
  e.solution = "Σx²/n = " + format_number(mean_sq, 4) + ", so h = 2 × (" + format_number(mean_sq, 4) + " + " +
               format_number(lambda, 2) + ") = " + format_number(2 * (mean_sq + lambda), 4) +
               " and the limit is 2/h = " + format_number(answer, 4) + ".";
  require(e, mean_sq > 0, "the inputs are not all zero (the loss curves)");
  reject_mistake(e, answer / 2, "took 1/h, dropping the factor 2 of the limit 2/h");
  reject_mistake(e, 2 * answer, "left out the factor 2 of the curvature");
  return e;
}

}  // namespace

void add_generalization_exercises(std::vector<Generator>& out) {
  out.push_back({"interpolation-threshold-2d", threshold_2d});
  out.push_back({"reducible-error", reducible_error});
  out.push_back({"least-squares-train-mse", train_mse});
  out.push_back({"ridge-one-weight", ridge_1d});
  out.push_back({"gd-max-learning-rate", gd_stability});
}

}  // namespace mlsys::exercises
