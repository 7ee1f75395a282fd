// Error bars for benchmark accuracies. A benchmark of n questions scored right or wrong is n
// Bernoulli draws; the measured accuracy p̂ = correct / n estimates the model's accuracy on the
// population of questions the benchmark samples from.
//   accuracy_ci: the interval for that accuracy by Wald (p̂ ± z·sqrt(p̂(1−p̂)/n), clipped to
//   [0, 1]), Wilson (1927, the score interval: centre (p̂ + z²/2n)/(1 + z²/n), half-width
//   z/(1 + z²/n)·sqrt(p̂(1−p̂)/n + z²/4n²)) and Clopper-Pearson (1934, exact: the lower bound p_L
//   makes P(X ≥ x; p_L) = α/2, the upper p_U makes P(X ≤ x; p_U) = α/2, found by bisection on
//   the binomial tails summed from the exact pmf). half_width = (high − low)/2.
//   paired_comparison: two models on the same n questions (Miller 2024, "Adding Error Bars to
//   Evals", arXiv:2411.00640, section on paired differences): the standard error of the
//   difference of means is sqrt(Var(a − b)/n), Var(a − b) = Var(a) + Var(b) − 2·Cov(a, b), with
//   Bernoulli variances p(1 − p) (dividing by n) and Cov = ρ·sqrt(Var(a)·Var(b)); from the
//   discordant counts (a right b wrong, b right a wrong) the per-question differences are +1,
//   −1 or 0 and their variance (dividing by n) is (a_only + b_only)/n − d². The unpaired error
//   sqrt((Var(a) + Var(b))/n) is what ignoring the pairing claims. The minimum detectable
//   difference at significance α and power 1 − β is (z_{1−α/2} + z_{1−β})·SE (Miller's power
//   analysis, normal approximation).
// Units: counts of questions; accuracies and probabilities as fractions in [0, 1].
#pragma once
#include <optional>
#include <string>

namespace mlsys {

inline constexpr long long kMaxEvalQuestions = 100000;

struct AccuracyInterval {
  double accuracy = 0;    // p̂ = correct / total
  double low = 0;         // lower bound
  double high = 0;        // upper bound
  double half_width = 0;  // (high − low)/2
};

// method: "wald", "wilson" or "clopper-pearson". InputError naming the field on bad input.
AccuracyInterval accuracy_ci(long long correct, long long total, double confidence, const std::string& method);

// P(X ≤ k) and P(X ≥ k) for X ~ Binomial(n, p), summed from the exact pmf (log-space recurrence).
double binomial_cdf(long long k, long long n, double p);
double binomial_sf(long long k, long long n, double p);

struct PairedComparison {
  double difference = 0;                 // accuracy_a − accuracy_b (or (a_only − b_only)/n)
  double std_error = 0;                  // SE of the paired difference
  double ci_low = 0;                     // difference − z·SE
  double ci_high = 0;                    // difference + z·SE
  double min_detectable_difference = 0;  // (z_{1−α/2} + z_power)·SE
  double unpaired_std_error = 0;         // sqrt((Var(a) + Var(b))/n)
  double variance_reduction = 0;         // 1 − SE² / unpaired SE² (beyond API.md)
  double z = 0;                          // z_{1−α/2} (beyond API.md)
};

struct Discordant {
  long long a_only = 0;  // questions a gets right and b wrong
  long long b_only = 0;  // questions b gets right and a wrong
};

// At most one of correlation or discordant; without either, correlation 0.5.
PairedComparison paired_comparison(long long total, double accuracy_a, double accuracy_b,
                                   std::optional<double> correlation, std::optional<Discordant> discordant,
                                   double confidence, double power);

}  // namespace mlsys
