#include "mlsys/evaluation/eval_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {
namespace {

void check_fraction(double x, const char* field) {
  if (!(x >= 0 && x <= 1)) throw InputError(field, "Give a fraction between 0 and 1.");
}
void check_total(long long total) {
  if (total < 1 || total > 100000) throw InputError("total", "Give between 1 and 100,000 questions.");
}
std::uint64_t seed_bits(long long seed) {
  if (seed < 0) throw InputError("seed", "Give a seed of at least 0.");
  return static_cast<std::uint64_t>(seed);
}

}  // namespace

EvalSeeds eval_seeds(long long total, double accuracy, double seed_std, long long seeds, long long seed) {
  check_total(total);
  check_fraction(accuracy, "accuracy");
  if (!(seed_std >= 0 && seed_std <= 0.5)) throw InputError("seed_std", "Give a standard deviation between 0 and 0.5.");
  // The normal model p + σZ and its variance formula hold only while the seeds' true accuracies
  // stay inside [0, 1]: with the nearer end 3σ away about one seed in 740 is clipped; nearer, the
  // clipped seeds shrink the true spread below σ (at 5% and σ = 5 points a sixth of the seeds sit
  // at 0% and the spread is 0.87σ) and move the mean (to 5.4%).
  if (seed_std > std::min(accuracy, 1 - accuracy) / 3 + 1e-12)
    throw InputError("seed_std",
                     "Give at most a third of the distance from 'accuracy' to 0% or 100%: a wider spread pushes "
                     "seeds' true accuracies past the ends, where the normal model and its variance formula fail.");
  if (seeds < 2 || seeds > kMaxEvalSeeds) throw InputError("seeds", "Give between 2 and 1,000 training seeds.");
  if (seeds * total > kMaxEvalDraws)
    throw InputError("seeds", "Seeds × questions must stay within 5,000,000 simulated answers.");
  SeededStream rng(mix_seed(seed_bits(seed), 0xE7A15EEDull));
  const double n = static_cast<double>(total);
  const double var_q = std::max(0.0, accuracy * (1 - accuracy) - seed_std * seed_std);
  EvalSeeds r;
  r.sampling_std = std::sqrt(accuracy * (1 - accuracy) / n);
  r.seed_std = seed_std;
  const double var = var_q / n + seed_std * seed_std;
  r.expected_std = std::sqrt(var);
  r.seed_share_of_variance = var > 0 ? seed_std * seed_std / var : 0.0;
  r.std_error_of_mean = r.expected_std / std::sqrt(static_cast<double>(seeds));
  r.accuracies.reserve(static_cast<std::size_t>(seeds));
  for (long long s = 0; s < seeds; ++s) {
    const double p = std::clamp(accuracy + seed_std * rng.normal(), 0.0, 1.0);
    long long correct = 0;
    for (long long q = 0; q < total; ++q) correct += rng.uniform() < p ? 1 : 0;
    r.accuracies.push_back(static_cast<double>(correct) / n);
  }
  double sum = 0;
  for (double a : r.accuracies) sum += a;
  r.simulated_mean = sum / static_cast<double>(seeds);
  double ss = 0;
  for (double a : r.accuracies) ss += (a - r.simulated_mean) * (a - r.simulated_mean);
  r.simulated_std = std::sqrt(ss / static_cast<double>(seeds - 1));
  const auto [lo, hi] = std::minmax_element(r.accuracies.begin(), r.accuracies.end());
  r.simulated_range = *hi - *lo;
  return r;
}

Contamination contamination(long long total, double accuracy_a, double accuracy_b, double contaminated_share_a,
                            double contaminated_share_b, double memorized_accuracy, long long seed) {
  check_total(total);
  check_fraction(accuracy_a, "accuracy_a");
  check_fraction(accuracy_b, "accuracy_b");
  check_fraction(contaminated_share_a, "contaminated_share_a");
  check_fraction(contaminated_share_b, "contaminated_share_b");
  check_fraction(memorized_accuracy, "memorized_accuracy");
  SeededStream rng(mix_seed(seed_bits(seed), 0xC0247A11ull));
  Contamination r;
  const double m = memorized_accuracy;
  r.inflation_a = contaminated_share_a * (m - accuracy_a);
  r.inflation_b = contaminated_share_b * (m - accuracy_b);
  r.measured_accuracy_a = accuracy_a + r.inflation_a;
  r.measured_accuracy_b = accuracy_b + r.inflation_b;
  r.true_difference = accuracy_a - accuracy_b;
  r.measured_difference = r.measured_accuracy_a - r.measured_accuracy_b;
  long long right_a = 0, right_b = 0;
  for (long long q = 0; q < total; ++q) {
    const bool seen_a = rng.uniform() < contaminated_share_a;
    const bool seen_b = rng.uniform() < contaminated_share_b;
    r.contaminated_questions_a += seen_a ? 1 : 0;
    r.contaminated_questions_b += seen_b ? 1 : 0;
    right_a += rng.uniform() < (seen_a ? m : accuracy_a) ? 1 : 0;
    right_b += rng.uniform() < (seen_b ? m : accuracy_b) ? 1 : 0;
  }
  const double n = static_cast<double>(total);
  r.simulated_accuracy_a = static_cast<double>(right_a) / n;
  r.simulated_accuracy_b = static_cast<double>(right_b) / n;
  r.simulated_difference = r.simulated_accuracy_a - r.simulated_accuracy_b;
  return r;
}

}  // namespace mlsys
