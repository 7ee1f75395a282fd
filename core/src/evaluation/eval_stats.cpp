#include "mlsys/evaluation/eval_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/numerics/loss_scaling.hpp"

namespace mlsys {
namespace {

void check_confidence(double c, const char* field) {
  if (!(c > 0 && c < 1)) throw InputError(field, "Give a probability strictly between 0 and 1.");
}

// log pmf(k) for k = 0..n built by lp(k+1) = lp(k) + ln((n − k)/(k + 1)) + ln(p/(1 − p)); the sum
// of exp over [lo, hi]. p strictly inside (0, 1).
double binomial_range(long long lo, long long hi, long long n, double p) {
  if (lo > hi) return 0.0;
  const double lq = log_det(1.0 - p);
  const double lodds = log_det(p) - lq;
  double lp = static_cast<double>(n) * lq;  // ln P(X = 0)
  // The largest term sits near the mode; summing exp(lp − max) keeps the sum in range.
  double max_lp = -std::numeric_limits<double>::infinity();
  double cur = lp;
  for (long long k = 0; k <= hi; ++k) {
    if (k >= lo) max_lp = std::max(max_lp, cur);
    if (k < n) cur += log_det(static_cast<double>(n - k) / static_cast<double>(k + 1)) + lodds;
  }
  double sum = 0;
  cur = lp;
  for (long long k = 0; k <= hi; ++k) {
    if (k >= lo) sum += exp_det(cur - max_lp);
    if (k < n) cur += log_det(static_cast<double>(n - k) / static_cast<double>(k + 1)) + lodds;
  }
  return std::min(1.0, sum * exp_det(max_lp));
}

}  // namespace

double binomial_cdf(long long k, long long n, double p) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  if (p <= 0) return 1.0;
  if (p >= 1) return 0.0;
  // Sum the shorter side.
  if (k < n / 2) return binomial_range(0, k, n, p);
  return std::max(0.0, 1.0 - binomial_range(k + 1, n, n, p));
}

double binomial_sf(long long k, long long n, double p) {
  if (k <= 0) return 1.0;
  return std::max(0.0, std::min(1.0, 1.0 - binomial_cdf(k - 1, n, p)));
}

AccuracyInterval accuracy_ci(long long correct, long long total, double confidence, const std::string& method) {
  if (total < 1 || total > kMaxEvalQuestions)
    throw InputError("total", "Give between 1 and " + std::to_string(kMaxEvalQuestions) + " questions.");
  if (correct < 0 || correct > total) throw InputError("correct", "Give a count between 0 and 'total'.");
  check_confidence(confidence, "confidence");
  const double n = static_cast<double>(total);
  const double p = static_cast<double>(correct) / n;
  const double alpha = 1.0 - confidence;
  const double z = normal_quantile(1.0 - alpha / 2.0);
  AccuracyInterval r;
  r.accuracy = p;
  if (method == "wald") {
    const double h = z * std::sqrt(p * (1.0 - p) / n);
    r.low = std::max(0.0, p - h);
    r.high = std::min(1.0, p + h);
  } else if (method == "wilson") {
    const double z2 = z * z;
    const double denom = 1.0 + z2 / n;
    const double centre = (p + z2 / (2.0 * n)) / denom;
    const double h = z / denom * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));
    r.low = std::max(0.0, centre - h);
    r.high = std::min(1.0, centre + h);
  } else if (method == "clopper-pearson") {
    const double tail = alpha / 2.0;
    // Lower: P(X ≥ x; p) rises with p; find where it reaches α/2.
    if (correct == 0) {
      r.low = 0.0;
    } else {
      double lo = 0.0, hi = p;
      for (int it = 0; it < 60; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (binomial_sf(correct, total, mid) < tail) lo = mid; else hi = mid;
      }
      r.low = 0.5 * (lo + hi);
    }
    // Upper: P(X ≤ x; p) falls with p; find where it reaches α/2.
    if (correct == total) {
      r.high = 1.0;
    } else {
      double lo = p, hi = 1.0;
      for (int it = 0; it < 60; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (binomial_cdf(correct, total, mid) > tail) lo = mid; else hi = mid;
      }
      r.high = 0.5 * (lo + hi);
    }
  } else {
    throw InputError("method", "Give 'wald', 'wilson' or 'clopper-pearson'.");
  }
  r.half_width = (r.high - r.low) / 2.0;
  return r;
}

PairedComparison paired_comparison(long long total, double accuracy_a, double accuracy_b,
                                   std::optional<double> correlation, std::optional<Discordant> discordant,
                                   double confidence, double power) {
  if (total < 1 || total > 1000000000LL) throw InputError("total", "Give between 1 and 1e9 questions.");
  if (!(accuracy_a >= 0 && accuracy_a <= 1)) throw InputError("accuracy_a", "Give a fraction between 0 and 1.");
  if (!(accuracy_b >= 0 && accuracy_b <= 1)) throw InputError("accuracy_b", "Give a fraction between 0 and 1.");
  check_confidence(confidence, "confidence");
  check_confidence(power, "power");
  if (correlation && discordant)
    throw InputError("discordant", "Give either 'correlation' or 'discordant', not both.");
  const double n = static_cast<double>(total);
  const double va = accuracy_a * (1.0 - accuracy_a);
  const double vb = accuracy_b * (1.0 - accuracy_b);
  PairedComparison r;
  double var_diff = 0;
  if (discordant) {
    if (discordant->a_only < 0 || discordant->b_only < 0 || discordant->a_only + discordant->b_only > total)
      throw InputError("discordant", "Give counts a_only, b_only of at least 0 that sum to at most 'total'.");
    const double d = static_cast<double>(discordant->a_only - discordant->b_only) / n;
    r.difference = d;
    var_diff = std::max(0.0, static_cast<double>(discordant->a_only + discordant->b_only) / n - d * d);
  } else {
    const double rho = correlation.value_or(0.5);
    if (!(rho >= -1 && rho <= 1)) throw InputError("correlation", "Give a correlation between −1 and 1.");
    // Two right-or-wrong scores with these accuracies are both right with probability
    // ab + ρ·√(Var(a)·Var(b)), which must lie between max(0, a + b − 1) and min(a, b): beyond, no
    // pair of models exists and the variance formula would print an error no benchmark can have.
    if (va > 0 && vb > 0) {
      const double sd = std::sqrt(va * vb), ab = accuracy_a * accuracy_b;
      const double lo = (std::max(0.0, accuracy_a + accuracy_b - 1.0) - ab) / sd;
      const double hi = (std::min(accuracy_a, accuracy_b) - ab) / sd;
      if (rho < lo - 1e-9 || rho > hi + 1e-9) {
        char range[96];
        std::snprintf(range, sizeof range, "between %.3f and %.3f", lo, hi);
        throw InputError("correlation", std::string("Give a correlation ") + range +
                                            ": two right-or-wrong scores at these accuracies cannot correlate "
                                            "further (the share both get right must lie between max(0, a + b − 1) "
                                            "and min(a, b)).");
      }
    }
    r.difference = accuracy_a - accuracy_b;
    var_diff = std::max(0.0, va + vb - 2.0 * rho * std::sqrt(va * vb));
  }
  const double alpha = 1.0 - confidence;
  r.z = normal_quantile(1.0 - alpha / 2.0);
  r.std_error = std::sqrt(var_diff / n);
  r.unpaired_std_error = std::sqrt((va + vb) / n);
  r.ci_low = r.difference - r.z * r.std_error;
  r.ci_high = r.difference + r.z * r.std_error;
  r.min_detectable_difference = (r.z + normal_quantile(power)) * r.std_error;
  r.variance_reduction = va + vb > 0 ? 1.0 - var_diff / (va + vb) : 0.0;
  return r;
}

}  // namespace mlsys
