// Exercises of the scaling-laws lesson, on the approach-3 fit of Hoffmann et al. 2022
// (L(N, D) = 1.69 + 406.4/N^0.34 + 410.7/D^0.28, the `chinchilla` and `scaling-law` model):
// the loss at a drawn N and D, the compute-optimal N of a budget, the tokens per parameter of
// that optimum, the lifetime compute (training + inference) of an over-trained model, and the
// loss two allocations of one budget reach on Besiroglu et al.'s 2024 refit of the same law, and
// the tokens served after which a smaller model of equal loss is the cheaper one over its life.
#include <cmath>
#include <string>

#include "generators.hpp"
#include "mlsys/profiling/scaling_law.hpp"
#include "mlsys/profiling/training_compute.hpp"

namespace mlsys::exercises {

namespace {

// x^y for x > 0 with the deterministic exp/log (the same bits natively and in WASM).
double pow_pos(double x, double y) { return exp_det(y * log_det(x)); }

const char* kFit = "Hoffmann et al.'s approach-3 fit, L(N, D) = 1.69 + 406.4/N^0.34 + 410.7/D^0.28";

// A budget m × 10^k FLOP drawn from a few mantissas and exponents 20 … 26.
double draw_budget(Rng& rng) {
  const double mant = rng.pick(std::vector<double>{1, 2, 3, 5, 7});
  const int exp10 = rng.integer(20, 26);
  return mant * pow_int_det(10.0, exp10);
}

Exercise loss_at(Rng& rng) {
  const double params = round_sig(pow_int_det(10.0, 8) * exp_det(rng.uniform() * 6.9), 2);  // 1e8 … 1e11
  const double per_param = rng.pick(std::vector<double>{5, 10, 20, 50, 100, 200, 500});
  const double tokens = round_sig(params * per_param, 2);
  const double loss = chinchilla_loss(params, tokens);
  const ChinchillaConstants k;
  Exercise e;
  e.title = "Loss of the Chinchilla fit";
  e.params = {{"params", params}, {"tokens", tokens}};
  e.prompt = std::string("With ") + kFit + ", what loss does it predict for a model of N = " + prose(params, 2) +
             " parameters trained on D = " + prose(tokens, 2) + " tokens?";
  e.unit = "";
  e.answer = loss;
  e.rel_tolerance = 0.002;
  e.hint = "Compute each term separately: N^0.34 = e^(0.34·ln N), D^0.28 = e^(0.28·ln D). The 1.69 is the loss no "
           "model size or data removes.";
  e.solution = "406.4 / N^0.34 = " + format_number(k.A / pow_pos(params, k.alpha), 4) + ", 410.7 / D^0.28 = " +
               format_number(k.B / pow_pos(tokens, k.beta), 4) + "; L = 1.69 + both = " + format_number(loss, 4) + ".";
  require_between(e, params, 1e8, 1.1e11, "N, within the fit's decades of model size");
  require_between(e, tokens / params, 4.5, 550, "the tokens per parameter of the run");
  require(e, loss > k.E, "the loss lies above the irreducible 1.69");
  reject_mistake(e, loss - k.E, "left out the irreducible term 1.69");
  return e;
}

// N_opt = G·(C/6)^a and D_opt = (C/6)^b / G, shown with 4 significant digits.
struct Shown {
  double G, a, b;
};
Shown shown_optimum() {
  const ComputeOptimal o = chinchilla_optimal(1e24);
  return {round_sig(o.G, 4), round_sig(o.a, 4), round_sig(o.b, 4)};
}

Exercise optimal_params(Rng& rng) {
  const double flops = draw_budget(rng);
  const Shown s = shown_optimum();
  const double n = s.G * pow_pos(flops / 6, s.a);
  Exercise e;
  e.title = "Compute-optimal model size";
  e.params = {{"compute_flops", flops}};
  e.prompt = std::string("Minimising ") + kFit + ", under C = 6·N·D gives N_opt = G·(C/6)^a with a = β/(α+β) = " +
             format_number(s.a, 4) + " and G = (αA/(βB))^(1/(α+β)) = " + format_number(s.G, 4) +
             ". For a training budget of C = " + prose(flops, 2) +
             " FLOP, how many parameters should the model have, in billions?";
  e.unit = "billion";
  e.answer = n / 1e9;
  e.hint = "C/6 first, then raise it to the power a (through logarithms: e^(a·ln(C/6))), then multiply by G.";
  e.solution = "C/6 = " + format_number(flops / 6, 4) + "; (C/6)^" + format_number(s.a, 4) + " = " +
               format_number(pow_pos(flops / 6, s.a), 4) + "; × " + format_number(s.G, 4) + " = " +
               format_number(n, 4) + " parameters, " + format_number(e.answer, 4) + "B.";
  const double d_opt = pow_pos(flops / 6, s.b) / s.G;
  require(e, std::fabs(6 * n * d_opt - flops) <= 0.02 * flops, "6\u00B7N_opt\u00B7D_opt spends the budget C");
  require_between(e, flops, 1e20, 1e27, "the budget C in FLOP");
  reject_mistake(e, s.G * pow_pos(flops, s.a) / 1e9, "raised C, not C/6, to the power a");
  return e;
}

Exercise tokens_per_param(Rng& rng) {
  const double flops = draw_budget(rng);
  const Shown s = shown_optimum();
  const double ratio = pow_pos(flops / 6, s.b - s.a) / (s.G * s.G);
  Exercise e;
  e.title = "Tokens per parameter at the optimum";
  e.params = {{"compute_flops", flops}};
  e.prompt = std::string("Minimising ") + kFit + ", under C = 6·N·D gives N_opt = G·(C/6)^a and D_opt = (C/6)^b / G " +
             "with a = " + format_number(s.a, 4) + ", b = " + format_number(s.b, 4) + " and G = " +
             format_number(s.G, 4) + ". At a budget of C = " + prose(flops, 2) +
             " FLOP, how many training tokens per parameter, D_opt / N_opt, does it recommend?";
  e.unit = "";
  e.answer = ratio;
  e.hint = "D_opt / N_opt = (C/6)^(b − a) / G². Because b > a, the ratio grows slowly with the budget.";
  const std::string power = format_number(pow_pos(flops / 6, s.b - s.a), 4);
  e.solution = "b − a = " + format_number(s.b - s.a, 4) + "; (C/6)^(b − a) = " + power + "; G² = " +
               format_number(s.G * s.G, 4) + "; " + power + " / " + format_number(s.G * s.G, 4) + " = " +
               format_number(ratio, 4) +
               " tokens per parameter. The rule of thumb says twenty; the rounded constants of the fit push it higher.";
  require(e, s.b > s.a, "b > a: the ratio grows with the budget");
  reject_mistake_where_distinct(e, 20, "gave the rule of thumb, 20, instead of the fit's optimum");
  reject_mistake_where_distinct(e, pow_pos(flops / 6, s.b - s.a) / s.G, "divided by G once, not G\u00B2");
  return e;
}

Exercise overtraining_total(Rng& rng) {
  const double params = rng.pick(std::vector<double>{1e9, 3e9, 7e9, 8e9, 13e9, 34e9, 70e9});
  // Over-trained: at least the 20 tokens per parameter of the rule (70B draws 2T tokens or more).
  std::vector<double> token_counts;
  for (double t : {1e12, 2e12, 4e12, 8e12, 15e12})
    if (t >= 20 * params) token_counts.push_back(t);
  const double tokens = rng.pick(token_counts);
  const double inference = rng.pick(std::vector<double>{1e12, 5e12, 1e13, 5e13, 1e14, 5e14});
  const OverTraining o = cheapest_same_loss(params, tokens, inference);
  Exercise e;
  e.title = "Lifetime compute of an over-trained model";
  e.params = {{"params", params}, {"tokens", tokens}, {"inference_tokens", inference}};
  e.prompt = article(format_number(params / 1e9, 3), true) + format_number(params / 1e9, 3) + "B-parameter model is trained on " +
             format_number(tokens / 1e12, 3) + "T tokens (C = 6·N·D) and then serves " + prose(inference, 2) +
             " tokens over its life at 2·N FLOPs per token. What is its total compute, training plus inference, in "
             "units of 10^21 FLOP?";
  e.unit = "10^21 FLOP";
  e.answer = o.given.total_flops / 1e21;
  e.hint = "Training 6·N·D, inference 2·N per token times the tokens served; add them.";
  e.solution = "Training 6 × " + format_number(params, 3) + " × " + format_number(tokens, 3) + " = " +
               format_number(o.given.training_flops, 4) + " FLOP; inference 2 × " + format_number(params, 3) + " × " +
               format_number(inference, 3) + " = " + format_number(o.given.inference_flops, 4) +
               " FLOP. On the same fit the cheapest model of the same loss over both has " +
               format_number(o.cheapest.params / 1e9, 3) + "B parameters on " +
               format_number(o.cheapest.tokens / 1e12, 3) + "T tokens and costs " +
               format_number(100 * o.savings_fraction, 3) + "% less" +
               (o.cheapest.tokens / o.cheapest.params > 1000
                    ? " (at " + format_number(o.cheapest.tokens / o.cheapest.params, 2) +
                          " tokens per parameter, far outside the runs the fit was made from: a forecast)"
                    : "") +
               ". Total " + format_number(e.answer, 4) +
               " × 10^21 FLOP, so the answer is " + format_number(e.answer, 4) + ".";
  require(e, std::fabs(o.given.total_flops - 6 * params * tokens - 2 * params * inference) <= 1e-9 * o.given.total_flops,
          "the total is 6\u00B7N\u00B7D + 2\u00B7N per token served");
  require_between(e, tokens / params, 20, 20000, "the tokens per parameter of an over-trained run");
  reject_mistake_where_distinct(e, 6 * params * tokens / 1e21, "left out inference");
  reject_mistake_where_distinct(e, (6 * params * tokens + 6 * params * inference) / 1e21,
                                "charged inference 6\u00B7N per token, as in training");
  return e;
}


// Besiroglu et al. 2024 (arXiv:2404.10102), Table 1: the law refitted to Hoffmann et al.'s runs.
const char* kRefit = "Besiroglu et al.'s refit of the Chinchilla law, L(N, D) = 1.8172 + 482.01/N^0.3478 + 2085.43/D^0.3658";

// Two plans for one budget: the 20-tokens-per-parameter size (rounded to 2 digits) and a model
// k times larger or smaller, each trained on C / (6N) tokens; how much more loss the second has.
Exercise allocation_gap(Rng& rng) {
  // Up to 7 × 10^24 FLOP, so that plan B, ten times the 20-token size, stays under 3 × 10^12.
  const double flops = rng.pick(std::vector<double>{1, 2, 3, 5, 7}) * pow_int_det(10.0, rng.integer(20, 24));
  const double k = rng.pick(std::vector<double>{3, 5, 10, 1.0 / 3, 1.0 / 5, 1.0 / 10});
  const ChinchillaConstants& f = kBesiroglu2024;
  const double n_a = round_sig(std::sqrt(flops / 120), 2), n_b = k * n_a;
  const double d_a = flops / (6 * n_a), d_b = flops / (6 * n_b);
  const double l_a = chinchilla_loss(n_a, d_a, f), l_b = chinchilla_loss(n_b, d_b, f);
  const bool bigger = k > 1;
  const std::string factor = format_number(bigger ? k : 1 / k, 2);
  Exercise e;
  e.title = "Two allocations of one budget";
  e.params = {{"compute_flops", flops}, {"params", std::vector<double>{n_a, n_b}}, {"fit", "besiroglu-2024"}};
  e.prompt = std::string("With ") + kRefit + ", a training budget of C = " + prose(flops, 2) +
             " FLOP is planned two ways, each model trained on D = C/(6N) tokens: plan A follows the rule of 20 tokens "
             "per parameter, N = " + prose(n_a, 2) + "; plan B uses a model " + factor + " times " +
             (bigger ? "larger" : "smaller") + ", N = " + prose(n_b, 3) +
             ". By how much is plan B's predicted loss higher than plan A's, in nats per token?";
  e.unit = "";
  e.answer = l_b - l_a;
  // 2%, and at least 2 × 10⁻⁴ nats: the two losses rounded to four decimals before subtracting.
  e.rel_tolerance = 0.02;
  e.abs_tolerance = 2e-4;
  e.hint = "Work out D for each plan first (a " + std::string(bigger ? "larger" : "smaller") +
           " model gets " + (bigger ? "fewer" : "more") +
           " tokens), then both terms of the law for each; the 1.8172 cancels in the difference.";
  e.solution = "Plan A: D = " + prose(d_a, 3) + " tokens, 482.01/N^0.3478 = " +
               format_number(f.A / pow_pos(n_a, f.alpha), 4) + ", 2085.43/D^0.3658 = " +
               format_number(f.B / pow_pos(d_a, f.beta), 4) + ", L = " + format_number(l_a, 6) + ". Plan B: D = " +
               prose(d_b, 3) + " tokens, " + format_number(f.A / pow_pos(n_b, f.alpha), 4) + " and " +
               format_number(f.B / pow_pos(d_b, f.beta), 4) + ", L = " + format_number(l_b, 6) +
               ". A factor of " + factor + " off the 20-token size costs, at this budget, " +
               format_number(l_b, 6) + " \u2212 " + format_number(l_a, 6) + " = " + format_number(e.answer, 3) +
               " nats.";
  require(e, e.answer > 0, "the rule-of-20 plan is the better one on the refit");
  require_between(e, d_b / n_b, 0.15, 2500, "plan B's tokens per parameter");
  require_between(e, n_a, 1e8, 2.5e11, "plan A's size");
  require_between(e, n_b, 1e7, 3e12, "plan B's size");
  reject_mistake_where_distinct(e, l_b, "gave plan B's loss, not the difference");
  reject_mistake_where_distinct(e, std::fabs(f.A / pow_pos(n_b, f.alpha) - f.A / pow_pos(n_a, f.alpha)),
                                "changed N but kept D the same");
  return e;
}


// Two models of one predicted loss on the refit: A at the rule's 20 tokens per parameter, B
// k times smaller on the tokens that reach A's loss (shown to 4 digits). B costs more to
// train and 2·N less per token served; after how many tokens served is B the cheaper one?
Exercise break_even(Rng& rng) {
  const double n_a = rng.pick(std::vector<double>{1e9, 2e9, 3e9, 5e9, 7e9, 8e9, 13e9, 20e9, 34e9, 70e9});
  const double k = rng.pick(std::vector<double>{1.5, 2, 2.5, 3});
  const ChinchillaConstants& f = kBesiroglu2024;
  const double d_a = 20 * n_a, n_b = round_sig(n_a / k, 3);
  const double loss = chinchilla_loss(n_a, d_a, f);
  const double rest = loss - f.E - f.A / pow_pos(n_b, f.alpha);  // what B's data term must be
  const double d_b = round_sig(pow_pos(f.B / rest, 1 / f.beta), 4);
  const double extra_training = 6 * (n_b * d_b - n_a * d_a);
  const double saved_per_token = 2 * (n_a - n_b);
  Exercise e;
  e.title = "When the smaller model pays off";
  e.params = {{"params", std::vector<double>{n_a, n_b}}, {"tokens", std::vector<double>{d_a, d_b}}, {"fit", "besiroglu-2024"}};
  e.prompt = std::string("On ") + kRefit + ", model A with N = " + prose(n_a, 2) + " parameters trained on D = " +
             prose(d_a, 2) + " tokens (20 per parameter) and model B, " + format_number(k, 2) +
             " times smaller with N = " + prose(n_b, 3) + " trained on D = " + prose(d_b, 4) +
             " tokens, predict the same loss. Training costs 6·N·D FLOPs and every token served 2·N. How many tokens "
             "must the model serve over its life before B's total compute is lower than A's, in billions of tokens?";
  e.unit = "billion";
  e.answer = extra_training / saved_per_token / 1e9;
  e.hint = "B's extra training compute is 6·(N_B·D_B − N_A·D_A); each token served saves 2·(N_A − N_B). Divide.";
  e.solution = "Training: A 6 × " + format_number(n_a, 3) + " × " + format_number(d_a, 3) + " = " +
               format_number(6 * n_a * d_a, 4) + " FLOP, B 6 × " + format_number(n_b, 3) + " × " +
               format_number(d_b, 4) + " = " + format_number(6 * n_b * d_b, 4) + " FLOP, so B costs " +
               format_number(extra_training, 4) + " FLOP more. Each token served costs B 2 × (" + format_number(n_a, 3) +
               " − " + format_number(n_b, 3) + ") = " + format_number(saved_per_token, 4) + " FLOP less. " +
               format_number(extra_training, 4) + " / " + format_number(saved_per_token, 4) + " = " +
               format_number(e.answer * 1e9, 3) + " tokens, " + format_number(e.answer, 3) +
               " billion; beyond that the smaller, longer-trained model is the cheaper one.";
  require(e, rest > 0, "B can reach A's loss at all");
  require(e, std::fabs(chinchilla_loss(n_b, d_b, f) - loss) < 1e-4, "B's shown tokens give A's loss");
  require(e, extra_training > 0, "the smaller model costs more to train for the same loss");
  require_between(e, d_b / n_b, 20, 500, "B's tokens per parameter, inside the over-training the lesson plots");
  reject_mistake_where_distinct(e, e.answer / 3, "charged inference 6·N per token, as in training");
  reject_mistake_where_distinct(e, 6 * (n_b * d_b - n_a * d_a) / (2 * n_a) / 1e9,
                                "divided by A's 2·N per token, not the difference between the two");
  return e;
}

}  // namespace

void add_scaling_exercises(std::vector<Generator>& out) {
  out.push_back({"sl-chinchilla-loss", loss_at});
  out.push_back({"sl-optimal-params", optimal_params});
  out.push_back({"sl-tokens-per-param", tokens_per_param});
  out.push_back({"sl-overtraining-total", overtraining_total});
  out.push_back({"sl-allocation-gap", allocation_gap});
  out.push_back({"sl-break-even", break_even});
}

}  // namespace mlsys::exercises
