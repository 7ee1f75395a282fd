// Seeded simulations of two ways a benchmark score misleads.
//   eval_seeds: the same recipe trained with different seeds and scored on n questions. Run s has
//   a true accuracy p_s = p + σ_seed·Z_s (clipped to [0, 1]) and answers each question right with
//   probability p_s, so its measured accuracy is Binomial(n, p_s)/n. By the law of total variance
//   Var(measured) = E[p_s(1 − p_s)]/n + σ_seed² = (p(1 − p) − σ_seed²)/n + σ_seed² (ignoring the
//   clipping): question sampling shrinks as 1/n, training-seed noise does not shrink with n.
//   contamination: a share f of the test questions appeared in a model's training data; on those
//   it scores m (memorized_accuracy), on the rest its true accuracy p. The measured accuracy is
//   (1 − f)·p + f·m, inflated by f·(m − p); between two models the measured difference moves by
//   the difference of their inflations. One seeded benchmark draw shows the same with sampling.
// Units: counts of questions and runs; accuracies, shares and standard deviations as fractions.
#pragma once
#include <vector>

namespace mlsys {

inline constexpr long long kMaxEvalSeeds = 1000;
inline constexpr long long kMaxEvalDraws = 5000000;   // seeds × questions simulated per call

struct EvalSeeds {
  double sampling_std = 0;           // sqrt(p(1 − p)/n): question sampling alone
  double seed_std = 0;               // σ_seed: training-seed noise alone
  double expected_std = 0;           // sqrt((p(1 − p) − σ²)/n + σ²): both together
  double seed_share_of_variance = 0; // σ² / expected variance
  double std_error_of_mean = 0;      // expected_std / sqrt(seeds): error of the mean over seeds
  std::vector<double> accuracies;    // the simulated measured accuracy of each seed
  double simulated_mean = 0;
  double simulated_std = 0;          // sample standard deviation (dividing by seeds − 1)
  double simulated_range = 0;        // max − min over the seeds
};

EvalSeeds eval_seeds(long long total, double accuracy, double seed_std, long long seeds, long long seed);

struct Contamination {
  double measured_accuracy_a = 0;  // (1 − f_a)·p_a + f_a·m
  double measured_accuracy_b = 0;
  double inflation_a = 0;          // f_a·(m − p_a)
  double inflation_b = 0;
  double true_difference = 0;      // p_a − p_b
  double measured_difference = 0;  // measured_a − measured_b
  double simulated_accuracy_a = 0; // one seeded benchmark of `total` questions
  double simulated_accuracy_b = 0;
  double simulated_difference = 0;
  long long contaminated_questions_a = 0;  // in that draw
  long long contaminated_questions_b = 0;
};

Contamination contamination(long long total, double accuracy_a, double accuracy_b, double contaminated_share_a,
                            double contaminated_share_b, double memorized_accuracy, long long seed);

}  // namespace mlsys
