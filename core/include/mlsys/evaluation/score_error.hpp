// The standard error of a benchmark score when questions are not independent single draws:
// questions in clusters, several sampled answers per question, and the bootstrap.
//   clustered_std_error: Miller 2024 ("Adding Error Bars to Evals", arXiv:2411.00640, appendix
//   A; as Inspect's `stderr(cluster=...)`, UKGovernmentBEIS/inspect_ai
//   src/inspect_ai/scorer/_metrics/std.py, less its C/(C − 1) factor): with per-question scores
//   s_i, mean s̄ and cluster labels, SE² = (1/n²)·Σ_c Σ_{i∈c} Σ_{j∈c} (s_i − s̄)(s_j − s̄). The
//   i = j terms alone give Σ(s_i − s̄)²/n², the plain standard error (variance dividing by n);
//   the cross terms add the within-cluster covariance.
//   score_std_error: the same error in expectation for n questions of accuracy p in clusters of
//   m questions whose K = 1 scores correlate by ρ inside a cluster, each question answered K
//   times and scored by the mean of its answers, a share w of a single answer's variance
//   p(1 − p) being the answer-to-answer (within-question) part. Law of total variance:
//   Var(score) = p(1 − p)/n · [(1 − w) + w/K + (m − 1)·ρ]; the bracket is the design effect
//   against one answer per independent question, and n / bracket the effective questions.
//   bootstrap_interval: Efron's bootstrap (1979), percentile interval: resample the n scores
//   with replacement B times and take the α/2 and 1 − α/2 quantiles of the resampled means.
// Units: counts of questions, answers and resamples; accuracies, shares and errors as fractions.
#pragma once
#include <vector>

namespace mlsys {

inline constexpr long long kMaxBootstrapDraws = 5000000;  // resamples × questions per call

// scores: one per question; clusters: a label per question (same length). InputError on a
// length mismatch or an empty list.
double clustered_std_error(const std::vector<double>& scores, const std::vector<long long>& clusters);

struct ScoreStdError {
  double std_error = 0;            // sqrt(p(1 − p)/n · design_effect)
  double iid_std_error = 0;        // sqrt(p(1 − p)/n): one answer per independent question
  double design_effect = 0;        // (1 − w) + w/K + (m − 1)·ρ
  double effective_questions = 0;  // n / design_effect
  double half_width = 0;           // z_{1−α/2}·std_error
  double z = 0;                    // z_{1−α/2}
};

// cluster_correlation must not exceed 1 − within_share (two questions cannot share more than a
// question's own between-question variance). InputError naming the field on bad input.
ScoreStdError score_std_error(long long total, double accuracy, long long cluster_size, double cluster_correlation,
                              long long samples, double within_share, double confidence);

struct BootstrapInterval {
  double accuracy = 0;             // correct / total
  double low = 0;                  // α/2 quantile of the resampled means
  double high = 0;                 // 1 − α/2 quantile
  double half_width = 0;           // (high − low)/2
  double std_error = 0;            // standard deviation of the resampled means
  double formula_std_error = 0;    // sqrt(p̂(1 − p̂)/n), the normal approximation's
};

// Right-or-wrong scores, `correct` of `total` right; `resamples` bootstrap draws from `seed`.
BootstrapInterval bootstrap_interval(long long correct, long long total, long long resamples, double confidence,
                                     long long seed);

}  // namespace mlsys
