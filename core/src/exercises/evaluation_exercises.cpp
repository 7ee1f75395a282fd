// Exercises of the evaluation lesson: the Wald half-width of a benchmark accuracy and Wilson's
// lower bound (`accuracy-ci`), the questions needed for a chosen half-width, and the standard
// error, minimum detectable difference and discordant-count error of a paired comparison of two
// models on the same questions (`paired-comparison`); the standard error of a benchmark whose
// questions come in passages (`score-std-error`, Miller 2024's clustered error).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/evaluation/eval_stats.hpp"
#include "mlsys/evaluation/score_error.hpp"
#include "mlsys/numerics/loss_scaling.hpp"

namespace mlsys::exercises {

namespace {

const std::vector<int> kQuestions = {200, 250, 300, 400, 500, 600, 800, 1000, 1200, 1500, 2000, 2500, 3000, 5000};

Exercise wald_half_width(Rng& rng) {
  const int n = rng.pick(kQuestions);
  const int correct = static_cast<int>(std::lround(n * (0.35 + 0.6 * rng.uniform())));
  const AccuracyInterval r = accuracy_ci(correct, n, 0.95, "wald");
  const double p = static_cast<double>(correct) / n;
  Exercise e;
  e.title = "Error bar of a benchmark score";
  e.params = {{"correct", correct}, {"total", n}, {"confidence", 0.95}, {"method", "wald"}};
  e.prompt = "A model answers " + format_int(correct) + " of " + format_int(n) + " benchmark questions correctly. "
             "Using the normal approximation (Wald), what is the half-width of the 95% confidence interval for its "
             "accuracy, in percentage points?";
  e.unit = "%";
  e.answer = 100 * r.half_width;
  e.rel_tolerance = 0.02;
  e.hint = "SE = √(p̂(1 − p̂)/n); the 95% half-width is 1.96 × SE.";
  e.solution = "p̂ = " + format_int(correct) + " / " + format_int(n) + " = " + format_number(p, 4) + "; SE = √(" +
               format_number(p, 4) + " × " + format_number(1 - p, 4) + " / " + format_int(n) + ") = " +
               format_number(std::sqrt(p * (1 - p) / n), 4) + "; × 1.96 = " + format_number(e.answer, 4) + " points.";
  require(e, correct > 0 && correct < n, "some answers right and some wrong");
  require_whole(e, n, "questions");
  reject_mistake(e, 100 * std::sqrt(p * (1 - p) / n), "gave the standard error, not 1.96 of them");
  reject_mistake(e, 200 * r.half_width, "gave the interval's whole width");
  return e;
}

Exercise wilson_low(Rng& rng) {
  const int n = rng.pick(std::vector<int>{20, 25, 30, 40, 50, 60, 80, 100, 120, 150});
  const int wrong = rng.integer(0, std::max(1, n / 10));
  const int correct = n - wrong;
  const AccuracyInterval r = accuracy_ci(correct, n, 0.95, "wilson");
  const double p = static_cast<double>(correct) / n;
  const double z = normal_quantile(0.975);
  Exercise e;
  e.title = "Wilson's lower bound near a perfect score";
  e.params = {{"correct", correct}, {"total", n}, {"confidence", 0.95}, {"method", "wilson"}};
  e.prompt = "A model gets " + format_int(correct) + " of " + format_int(n) + " questions of a small test set right. "
             "What is the lower end of the 95% Wilson score interval for its accuracy, in percent?";
  e.unit = "%";
  e.answer = 100 * r.low;
  e.rel_tolerance = 0.01;
  e.hint = "Centre (p̂ + z²/2n)/(1 + z²/n), half-width z/(1 + z²/n)·√(p̂(1 − p̂)/n + z²/4n²), z = 1.96.";
  const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  e.solution = "p̂ = " + format_number(p, 4) + "; centre = " + format_number(centre, 4) + ", half-width = " +
               format_number(centre - r.low, 4) + "; lower end " + format_number(r.low, 4) + " = " +
               format_number(e.answer, 4) + "%.";
  require(e, correct <= n && wrong <= n / 10 + 1, "a score near the top of a small test set");
  require_between(e, e.answer, 0, 100 * p, "the lower end, below the observed score");
  const double wald_low = 100 * (p - z * std::sqrt(p * (1 - p) / n));
  reject_mistake(e, wald_low, "used Wald's interval near the end of the range");
  reject_mistake(e, 100 * p, "gave the observed score");
  return e;
}

Exercise questions_needed(Rng& rng) {
  const double p = rng.pick(std::vector<double>{0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95});
  const double h = rng.pick(std::vector<double>{0.5, 1, 1.5, 2, 2.5, 3, 4, 5});
  const double z = normal_quantile(0.975);
  const double n = z * z * p * (1 - p) / (h / 100 * h / 100);
  Exercise e;
  e.title = "How many questions for a given error bar";
  e.params = {{"accuracy", p}, {"half_width_points", h}};
  e.prompt = "You expect a model to score about " + format_number(100 * p, 3) + "% on a new benchmark and want the 95% "
             "confidence interval of its accuracy to be ±" + format_number(h, 2) + " points wide (normal "
             "approximation). About how many questions does the benchmark need?";
  e.unit = "";
  e.answer = n;
  e.rel_tolerance = 0.02;
  e.hint = "Solve h = 1.96·√(p(1 − p)/n) for n.";
  e.solution = "n = 1.96² × " + format_number(p, 3) + " × " + format_number(1 - p, 3) + " / " +
               format_number(h / 100, 3) + "² = " + format_number(n, 4) + " questions.";
  require_between(e, n, 30, 1e6, "questions a benchmark can have");
  reject_mistake(e, p * (1 - p) / (h / 100 * h / 100), "left out 1.96²");
  reject_mistake(e, z * std::sqrt(p * (1 - p)) / (h / 100), "solved for √n, not n");
  return e;
}

Exercise paired_se(Rng& rng) {
  const int n = rng.pick(kQuestions);
  const double a = rng.pick(std::vector<double>{0.6, 0.65, 0.7, 0.72, 0.75, 0.78, 0.8, 0.85});
  const double b = a - rng.pick(std::vector<double>{0.01, 0.02, 0.03, 0.04, 0.05});
  const double rho = rng.pick(std::vector<double>{0.3, 0.4, 0.5, 0.6, 0.7});
  const PairedComparison r = paired_comparison(n, a, b, rho, {}, 0.95, 0.8);
  const double va = a * (1 - a), vb = b * (1 - b);
  Exercise e;
  e.title = "Standard error of a paired difference";
  e.params = {{"total", n}, {"accuracy_a", a}, {"accuracy_b", b}, {"correlation", rho}};
  e.prompt = "Two models are scored on the same " + format_int(n) + " questions: model A gets " +
             format_number(100 * a, 3) + "% right and model B " + format_number(100 * b, 3) + "%. Their per-question "
             "correctness has correlation " + format_number(rho, 2) + ". What is the standard error of the difference "
             "in accuracy, in percentage points?";
  e.unit = "%";
  e.answer = 100 * r.std_error;
  e.rel_tolerance = 0.02;
  e.hint = "Var(A − B) = Var(A) + Var(B) − 2ρ·√(Var(A)·Var(B)) with Var = p(1 − p); SE = √(Var(A − B)/n).";
  e.solution = "Var(A) = " + format_number(va, 4) + ", Var(B) = " + format_number(vb, 4) + "; Var(A − B) = " +
               format_number(va + vb - 2 * rho * std::sqrt(va * vb), 4) + "; SE = √(that / " + format_int(n) + ") = " +
               format_number(e.answer, 4) + " points.";
  // Two Bernoulli variables with these means can have this correlation: the probability that
  // both are right, a·b + ρ·√(Var(A)·Var(B)), lies between max(0, a + b − 1) and min(a, b).
  const double both = a * b + rho * std::sqrt(va * vb);
  require(e, both >= std::max(0.0, a + b - 1) && both <= std::min(a, b), "the correlation is possible for these accuracies");
  reject_mistake(e, 100 * std::sqrt((va + vb) / n), "used the unpaired standard error, as if the scores were independent");
  return e;
}

Exercise min_detectable(Rng& rng) {
  const int n = rng.pick(kQuestions);
  const double a = rng.pick(std::vector<double>{0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9});
  const double rho = rng.pick(std::vector<double>{0.0, 0.2, 0.4, 0.5, 0.6, 0.8});
  const PairedComparison r = paired_comparison(n, a, a, rho, {}, 0.95, 0.8);
  const double z_power = normal_quantile(0.8);
  Exercise e;
  e.title = "Smallest difference a benchmark can detect";
  e.params = {{"total", n}, {"accuracy_a", a}, {"accuracy_b", a}, {"correlation", rho}, {"power", 0.8}};
  e.prompt = "Two models that both score about " + format_number(100 * a, 3) + "% are compared on the same " +
             format_int(n) + " questions, with correlation " + format_number(rho, 2) + " between their per-question "
             "correctness. At a two-sided 5% significance level and 80% power, what is the smallest true difference "
             "the comparison can reliably detect, in percentage points?";
  e.unit = "%";
  e.answer = 100 * r.min_detectable_difference;
  e.rel_tolerance = 0.02;
  e.hint = "MDD = (z₀.₉₇₅ + z₀.₈)·SE = (1.96 + 0.84)·SE, with the paired SE √(2p(1 − p)(1 − ρ)/n).";
  e.solution = "SE = √(2 × " + format_number(a * (1 - a), 4) + " × " + format_number(1 - rho, 2) + " / " +
               format_int(n) + ") = " + format_number(100 * r.std_error, 4) + " points; × (1.96 + " +
               format_number(z_power, 3) + ") = " + format_number(e.answer, 4) + " points.";
  require(e, a > 0 && a < 1 && rho >= 0 && rho < 1, "accuracies and correlation are possible");
  require_whole(e, n, "questions");
  reject_mistake(e, 100 * 1.96 * r.std_error, "left out the power term z₀.₈");
  return e;
}

Exercise clustered_se(Rng& rng) {
  const int n = rng.pick(kQuestions);
  const double p = rng.pick(std::vector<double>{0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95});
  const int m = rng.pick(std::vector<int>{2, 5, 10});
  const double rho = rng.pick(std::vector<double>{0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7});
  const ScoreStdError r = score_std_error(n, p, m, rho, 1, 0.0, 0.95);
  Exercise e;
  e.title = "Standard error with questions in passages";
  e.params = {{"total", n}, {"accuracy", p}, {"cluster_size", m}, {"cluster_correlation", rho}};
  e.prompt = "A reading-comprehension benchmark has " + format_int(n) + " questions, " + format_int(m) +
             " about each passage. A model scores " + format_number(100 * p, 3) + "%, and the scores of two questions "
             "about the same passage correlate by " + format_number(rho, 2) + ". What is the standard error of its "
             "accuracy, in percentage points, once the passages are taken into account?";
  e.unit = "%";
  e.answer = 100 * r.std_error;
  e.rel_tolerance = 0.02;
  e.hint = "Each question has m − 1 partners in its passage: the variance p(1 − p)/n grows by the design effect "
           "1 + (m − 1)ρ.";
  e.solution = "Plain SE = √(" + format_number(p, 3) + " × " + format_number(1 - p, 3) + " / " + format_int(n) + ") = " +
               format_number(100 * r.iid_std_error, 4) + " points; design effect 1 + " + format_int(m - 1) + " × " +
               format_number(rho, 2) + " = " + format_number(r.design_effect, 4) + "; SE = " +
               format_number(100 * r.iid_std_error, 4) + " × √" + format_number(r.design_effect, 4) + " = " +
               format_number(e.answer, 4) + " points.";
  require(e, n % m == 0, "whole passages");
  require_whole(e, n, "questions");
  reject_mistake(e, 100 * r.iid_std_error, "ignored the passages, as if the questions were independent");
  reject_mistake(e, 100 * r.iid_std_error * r.design_effect, "multiplied the standard error, not the variance, by the design effect");
  reject_mistake(e, 100 * r.iid_std_error * std::sqrt(static_cast<double>(m)), "treated a passage's questions as one question copied");
  return e;
}

}  // namespace

void add_evaluation_exercises(std::vector<Generator>& out) {
  out.push_back({"ev-wald-half-width", wald_half_width});
  out.push_back({"ev-wilson-low", wilson_low});
  out.push_back({"ev-questions-needed", questions_needed});
  out.push_back({"ev-paired-se", paired_se});
  out.push_back({"ev-min-detectable", min_detectable});
  out.push_back({"ev-clustered-se", clustered_se});
}

}  // namespace mlsys::exercises
