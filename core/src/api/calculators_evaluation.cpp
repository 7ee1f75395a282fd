// Calculators of the evaluation lesson (shared/API.md): `accuracy-ci` (Wald, Wilson and
// Clopper-Pearson intervals for a benchmark accuracy) and `paired-comparison` (the standard
// error of the difference between two models scored on the same questions, from the
// correlation of their per-question correctness or the discordant counts; Miller 2024), and two
// seeded simulations: `eval-seeds` (seed-to-seed spread of a measured accuracy) and `contamination`;
// `score-std-error` (clustered questions and resampled answers) and `bootstrap-ci`.
#include "mlsys/evaluation/eval_simulation.hpp"
#include "mlsys/evaluation/eval_stats.hpp"
#include "mlsys/evaluation/score_error.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(AccuracyInterval, MLSYS_OUT(accuracy, "", "p̂ = correct / total"),
               MLSYS_OUT(low, "", "Lower bound of the interval"), MLSYS_OUT(high, "", "Upper bound of the interval"),
               MLSYS_OUT(half_width, "", "(high − low)/2"));
MLSYS_DESCRIBE(PairedComparison, MLSYS_OUT(difference, "", "accuracy_a − accuracy_b, or (a_only − b_only)/total"),
               MLSYS_OUT(std_error, "", "sqrt(Var(a − b)/n): standard error of the paired difference"),
               MLSYS_OUT(ci_low, "", "difference − z·std_error"), MLSYS_OUT(ci_high, "", "difference + z·std_error"),
               MLSYS_OUT(min_detectable_difference, "", "(z_{1−α/2} + z_power)·std_error"),
               MLSYS_OUT(unpaired_std_error, "", "sqrt((Var(a) + Var(b))/n): what ignoring the pairing claims"),
               MLSYS_OUT(variance_reduction, "", "1 − std_error² / unpaired_std_error²"),
               MLSYS_OUT(z, "", "z_{1−α/2}, the two-sided normal quantile"));

MLSYS_DESCRIBE(EvalSeeds, MLSYS_OUT(sampling_std, "", "sqrt(p(1 − p)/n): spread from question sampling alone"),
               MLSYS_OUT(seed_std, "", "σ_seed: spread of the true accuracy across training seeds"),
               MLSYS_OUT(expected_std, "", "sqrt((p(1 − p) − σ²)/n + σ²): expected seed-to-seed spread of the score"),
               MLSYS_OUT(seed_share_of_variance, "", "σ² / expected_std²: share of the variance no benchmark size removes"),
               MLSYS_OUT(std_error_of_mean, "", "expected_std / sqrt(seeds): error of the mean over the seeds"),
               MLSYS_OUT(accuracies, "", "Simulated measured accuracy of each seed"),
               MLSYS_OUT(simulated_mean, "", "Mean of the simulated accuracies"),
               MLSYS_OUT(simulated_std, "", "Sample standard deviation of the simulated accuracies (÷ seeds − 1)"),
               MLSYS_OUT(simulated_range, "", "Highest minus lowest simulated accuracy"));
MLSYS_DESCRIBE(Contamination, MLSYS_OUT(measured_accuracy_a, "", "(1 − f_a)·p_a + f_a·m: expected score of model a"),
               MLSYS_OUT(measured_accuracy_b, "", "(1 − f_b)·p_b + f_b·m: expected score of model b"),
               MLSYS_OUT(inflation_a, "", "f_a·(m − p_a)"), MLSYS_OUT(inflation_b, "", "f_b·(m − p_b)"),
               MLSYS_OUT(true_difference, "", "p_a − p_b on unseen questions"),
               MLSYS_OUT(measured_difference, "", "measured_a − measured_b"),
               MLSYS_OUT(simulated_accuracy_a, "", "Model a's score on one seeded draw of the benchmark"),
               MLSYS_OUT(simulated_accuracy_b, "", "Model b's score on the same draw"),
               MLSYS_OUT(simulated_difference, "", "simulated_a − simulated_b"),
               MLSYS_OUT(contaminated_questions_a, "", "Questions model a had seen, in that draw"),
               MLSYS_OUT(contaminated_questions_b, "", "Questions model b had seen, in that draw"));

MLSYS_DESCRIBE(ScoreStdError, MLSYS_OUT(std_error, "", "sqrt(p(1 − p)/n · design_effect)"),
               MLSYS_OUT(iid_std_error, "", "sqrt(p(1 − p)/n): one answer per independent question"),
               MLSYS_OUT(design_effect, "", "(1 − w) + w/K + (m − 1)·ρ: variance against one answer per independent question"),
               MLSYS_OUT(effective_questions, "", "n / design_effect: independent single-answer questions worth as much"),
               MLSYS_OUT(half_width, "", "z·std_error"), MLSYS_OUT(z, "", "z_{1−α/2}, the two-sided normal quantile"));
MLSYS_DESCRIBE(BootstrapInterval, MLSYS_OUT(accuracy, "", "p̂ = correct / total"),
               MLSYS_OUT(low, "", "α/2 quantile of the resampled accuracies"),
               MLSYS_OUT(high, "", "1 − α/2 quantile of the resampled accuracies"),
               MLSYS_OUT(half_width, "", "(high − low)/2"),
               MLSYS_OUT(std_error, "", "Standard deviation of the resampled accuracies"),
               MLSYS_OUT(formula_std_error, "", "sqrt(p̂(1 − p̂)/n), the normal approximation's standard error"));

void add_evaluation_calculators(Calculators& out) {
  out.add("accuracy-ci",
          "Confidence interval for a benchmark accuracy from `correct` out of `total` questions: Wald "
          "(p̂ ± z·sqrt(p̂(1−p̂)/n), clipped to [0, 1]), Wilson's score interval, or Clopper-Pearson's exact "
          "interval (binomial tails equal to α/2, summed from the exact pmf). half_width = (high − low)/2.",
          {integer_field("correct", "", "Questions answered correctly", 850, 0, kMaxEvalQuestions),
           integer_field("total", "", "Questions in the benchmark", 1000, 1, kMaxEvalQuestions),
           number_field("confidence", "", "Confidence level 1 − α", 0.95, 0.0, 1.0, true),
           string_field("method", "Interval", "wilson", {"wald", "wilson", "clopper-pearson"})},
          [](const Inputs& in) {
            return accuracy_ci(in.integer("correct"), in.integer("total"), in.num("confidence"), in.str("method"));
          });

  out.add("paired-comparison",
          "Two models scored right or wrong on the same `total` questions (Miller 2024, arXiv:2411.00640). "
          "Standard error of the difference sqrt(Var(a − b)/n) with Bernoulli variances p(1 − p) (dividing by n) "
          "and covariance ρ·sqrt(Var(a)·Var(b)) from `correlation` (0.5 when neither it nor `discordant` is "
          "given), or from `discordant` counts {a_only, b_only}; the confidence interval, the minimum detectable "
          "difference at `power`, and the unpaired standard error that ignoring the pairing would give.",
          {integer_field("total", "", "Questions both models answered", 1000, 1, 1000000000),
           number_field("accuracy_a", "", "Accuracy of model a", 0.80, 0.0, 1.0),
           number_field("accuracy_b", "", "Accuracy of model b", 0.75, 0.0, 1.0),
           optional(number_field("correlation", "", "Correlation of the two models' per-question correctness",
                                 json(), -1.0, 1.0)),
           optional(number_map_field("discordant", "Counts {a_only, b_only}: questions only a, or only b, gets right",
                                     json())),
           number_field("confidence", "", "Confidence level 1 − α", 0.95, 0.0, 1.0, true),
           number_field("power", "", "Power 1 − β for the minimum detectable difference", 0.8, 0.0, 1.0, true)},
          [](const Inputs& in) {
            std::optional<Discordant> disc;
            if (in.has("discordant")) {
              const auto m = in.number_map("discordant");
              for (const auto& [k, v] : m)
                if (k != "a_only" && k != "b_only")
                  throw InputError("discordant", "Give only the counts 'a_only' and 'b_only'.");
              if (!m.count("a_only") || !m.count("b_only"))
                throw InputError("discordant", "Give both counts 'a_only' and 'b_only'.");
              const double a = m.at("a_only"), b = m.at("b_only");
              if (!(a >= 0 && b >= 0 && a <= 1e9 && b <= 1e9) || a != static_cast<double>(static_cast<long long>(a)) ||
                  b != static_cast<double>(static_cast<long long>(b)))
                throw InputError("discordant", "Give whole counts between 0 and 'total'.");
              disc = Discordant{static_cast<long long>(a), static_cast<long long>(b)};
            }
            return paired_comparison(in.integer("total"), in.num("accuracy_a"), in.num("accuracy_b"),
                                     in.num_if("correlation"), disc, in.num("confidence"), in.num("power"));
          });
  out.add("eval-seeds",
          "The same recipe trained with `seeds` seeds and scored on `total` questions (seeded simulation). Each run's "
          "true accuracy is `accuracy` + `seed_std`·Z (clipped to [0, 1]) and it answers each question right with "
          "that probability. Expected spread sqrt((p(1 − p) − σ²)/n + σ²) by the law of total variance: question "
          "sampling shrinks as 1/n, seed noise does not. Also the simulated scores and their sample spread.",
          {integer_field("total", "", "Questions in the benchmark", 1000, 1, 100000),
           number_field("accuracy", "", "Mean true accuracy of the recipe", 0.75, 0.0, 1.0),
           number_field("seed_std", "", "Standard deviation of the true accuracy across training seeds", 0.01, 0.0, 0.5),
           integer_field("seeds", "", "Training seeds simulated", 10, 2, kMaxEvalSeeds), seed_field(1)},
          [](const Inputs& in) {
            return eval_seeds(in.integer("total"), in.num("accuracy"), in.num("seed_std"), in.integer("seeds"),
                              in.integer("seed"));
          });

  out.add("contamination",
          "A share of the test questions appeared in a model's training data; on those it scores "
          "`memorized_accuracy`, on the rest its true accuracy. Expected score (1 − f)·p + f·m, inflation f·(m − p), "
          "and the measured difference between two models against the true one; plus one seeded draw of a "
          "`total`-question benchmark.",
          {integer_field("total", "", "Questions in the benchmark", 1000, 1, 100000),
           number_field("accuracy_a", "", "True accuracy of model a on unseen questions", 0.70, 0.0, 1.0),
           number_field("accuracy_b", "", "True accuracy of model b on unseen questions", 0.72, 0.0, 1.0),
           number_field("contaminated_share_a", "", "Share of the test questions model a saw in training", 0.10, 0.0, 1.0),
           number_field("contaminated_share_b", "", "Share of the test questions model b saw in training", 0.0, 0.0, 1.0),
           number_field("memorized_accuracy", "", "Accuracy on questions seen in training", 1.0, 0.0, 1.0), seed_field(1)},
          [](const Inputs& in) {
            return contamination(in.integer("total"), in.num("accuracy_a"), in.num("accuracy_b"),
                                 in.num("contaminated_share_a"), in.num("contaminated_share_b"),
                                 in.num("memorized_accuracy"), in.integer("seed"));
          });

  out.add("score-std-error",
          "Standard error of a mean score over `total` questions of accuracy `accuracy` when questions come in "
          "clusters of `cluster_size` whose scores correlate by `cluster_correlation`, and each question is answered "
          "`samples` times and scored by the mean of its answers, `within_share` of one answer's variance p(1 − p) "
          "being answer-to-answer noise. Var = p(1 − p)/n · [(1 − w) + w/K + (m − 1)·ρ] (law of total variance; "
          "Miller 2024, arXiv:2411.00640, on clustered errors and resampling).",
          {integer_field("total", "", "Questions in the benchmark", 1000, 1, 1000000000),
           number_field("accuracy", "", "Expected accuracy p", 0.75, 0.0, 1.0),
           integer_field("cluster_size", "", "Questions per cluster m (1: independent questions)", 1, 1, 1000000000),
           number_field("cluster_correlation", "", "Correlation ρ of two questions' scores in one cluster", 0.0, 0.0, 1.0),
           integer_field("samples", "", "Answers sampled per question K", 1, 1, 1000),
           number_field("within_share", "", "Share w of one answer's variance that is answer-to-answer noise", 0.0, 0.0,
                        1.0),
           number_field("confidence", "", "Confidence level 1 − α", 0.95, 0.0, 1.0, true)},
          [](const Inputs& in) {
            return score_std_error(in.integer("total"), in.num("accuracy"), in.integer("cluster_size"),
                                   in.num("cluster_correlation"), in.integer("samples"), in.num("within_share"),
                                   in.num("confidence"));
          });

  out.add("bootstrap-ci",
          "Percentile bootstrap interval (Efron 1979) of an accuracy of `correct` right out of `total`: resample the "
          "questions with replacement `resamples` times (seeded) and take the α/2 and 1 − α/2 quantiles of the "
          "resampled accuracies; also their standard deviation against the normal approximation's sqrt(p̂(1 − p̂)/n).",
          {integer_field("correct", "", "Questions answered correctly", 850, 0, 100000),
           integer_field("total", "", "Questions in the benchmark", 1000, 1, 100000),
           integer_field("resamples", "", "Bootstrap resamples B", 2000, 100, 100000),
           number_field("confidence", "", "Confidence level 1 − α", 0.95, 0.0, 1.0, true), seed_field(1)},
          [](const Inputs& in) {
            return bootstrap_interval(in.integer("correct"), in.integer("total"), in.integer("resamples"),
                                      in.num("confidence"), in.integer("seed"));
          });
}

}  // namespace mlsys::api
