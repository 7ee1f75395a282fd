#include "mlsys/evaluation/score_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/numerics/loss_scaling.hpp"

namespace mlsys {
namespace {

void check_confidence(double c) {
  if (!(c > 0 && c < 1)) throw InputError("confidence", "Give a probability strictly between 0 and 1.");
}

// The q-quantile of sorted values, interpolating linearly between neighbours (position q·(B − 1)).
double quantile(const std::vector<double>& sorted, double q) {
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

double clustered_std_error(const std::vector<double>& scores, const std::vector<long long>& clusters) {
  if (scores.empty()) throw InputError("scores", "Give at least one question's score.");
  if (scores.size() != clusters.size()) throw InputError("clusters", "Give one cluster label per question.");
  double mean = 0;
  for (double s : scores) mean += s;
  const double n = static_cast<double>(scores.size());
  mean /= n;
  // Σ_c Σ_i Σ_j (s_i − s̄)(s_j − s̄) = Σ_c (Σ_{i∈c} (s_i − s̄))².
  std::map<long long, double> residual_sum;
  for (std::size_t i = 0; i < scores.size(); ++i) residual_sum[clusters[i]] += scores[i] - mean;
  double var = 0;
  for (const auto& [label, sum] : residual_sum) var += sum * sum;
  return std::sqrt(var) / n;
}

ScoreStdError score_std_error(long long total, double accuracy, long long cluster_size, double cluster_correlation,
                              long long samples, double within_share, double confidence) {
  if (total < 1 || total > 1000000000LL) throw InputError("total", "Give between 1 and 1e9 questions.");
  if (!(accuracy >= 0 && accuracy <= 1)) throw InputError("accuracy", "Give a fraction between 0 and 1.");
  if (cluster_size < 1 || cluster_size > total)
    throw InputError("cluster_size", "Give between 1 and 'total' questions per cluster.");
  if (samples < 1 || samples > 1000) throw InputError("samples", "Give between 1 and 1,000 answers per question.");
  if (!(within_share >= 0 && within_share <= 1)) throw InputError("within_share", "Give a share between 0 and 1.");
  if (!(cluster_correlation >= 0 && cluster_correlation <= 1))
    throw InputError("cluster_correlation", "Give a correlation between 0 and 1.");
  if (cluster_correlation > 1 - within_share + 1e-12)
    throw InputError("cluster_correlation",
                     "Give at most 1 − within_share: two questions of a cluster cannot agree more than a question "
                     "agrees with itself.");
  check_confidence(confidence);
  const double n = static_cast<double>(total);
  const double k = static_cast<double>(samples);
  const double var1 = accuracy * (1 - accuracy);
  ScoreStdError r;
  r.design_effect = (1 - within_share) + within_share / k + static_cast<double>(cluster_size - 1) * cluster_correlation;
  r.iid_std_error = std::sqrt(var1 / n);
  r.std_error = std::sqrt(var1 / n * r.design_effect);
  r.effective_questions = n / r.design_effect;
  r.z = normal_quantile(1 - (1 - confidence) / 2);
  r.half_width = r.z * r.std_error;
  return r;
}

BootstrapInterval bootstrap_interval(long long correct, long long total, long long resamples, double confidence,
                                     long long seed) {
  if (total < 1 || total > 100000) throw InputError("total", "Give between 1 and 100,000 questions.");
  if (correct < 0 || correct > total) throw InputError("correct", "Give a count between 0 and 'total'.");
  if (resamples < 100 || resamples > 100000) throw InputError("resamples", "Give between 100 and 100,000 resamples.");
  if (resamples * total > kMaxBootstrapDraws)
    throw InputError("resamples", "Resamples × questions must stay within 5,000,000 draws.");
  if (seed < 0) throw InputError("seed", "Give a seed of at least 0.");
  check_confidence(confidence);
  SeededStream rng(mix_seed(static_cast<std::uint64_t>(seed), 0xB0075742ull));
  const auto n = static_cast<std::uint64_t>(total);
  std::vector<double> means(static_cast<std::size_t>(resamples));
  for (double& m : means) {
    long long right = 0;
    // A draw with replacement picks question index i uniformly; the first `correct` are the right ones.
    for (std::uint64_t q = 0; q < n; ++q) right += rng.below(n) < static_cast<std::uint64_t>(correct) ? 1 : 0;
    m = static_cast<double>(right) / static_cast<double>(total);
  }
  BootstrapInterval r;
  r.accuracy = static_cast<double>(correct) / static_cast<double>(total);
  double mean = 0;
  for (double m : means) mean += m;
  mean /= static_cast<double>(resamples);
  double ss = 0;
  for (double m : means) ss += (m - mean) * (m - mean);
  r.std_error = std::sqrt(ss / static_cast<double>(resamples - 1));
  r.formula_std_error = std::sqrt(r.accuracy * (1 - r.accuracy) / static_cast<double>(total));
  std::sort(means.begin(), means.end());
  const double alpha = 1 - confidence;
  r.low = quantile(means, alpha / 2);
  r.high = quantile(means, 1 - alpha / 2);
  r.half_width = (r.high - r.low) / 2;
  return r;
}

}  // namespace mlsys
