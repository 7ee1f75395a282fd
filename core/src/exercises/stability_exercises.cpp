// Exercises of the numerical-stability lesson: where a naive fp16 softmax's sum overflows, the
// max-subtracted softmax of large logits, PaLM's z-loss of one token, gradient-norm clipping as
// torch.nn.utils.clip_grad_norm_, and the loss factor of one SGD step on a bad batch. Each
// answer is checked against the `softmax-stability`, `clip-grad-norm` and `loss-spikes`
// calculators by tests/core/loss_spikes_test.cpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/training/loss_spikes.hpp"
#include "mlsys/training/softmax_stability.hpp"

namespace mlsys::exercises {

namespace {

std::string list_text(const std::vector<double>& v, int sig) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + format_number(v[i], sig);
  return s;
}

Exercise sum_overflow(Rng& rng) {
  const int count = rng.integer(2, 40);
  const double spacing = rng.pick(std::vector<double>{0.1, 0.2, 0.25, 0.3, 0.4, 0.5});
  const SoftmaxStabilityResult r = softmax_stability(logit_pattern(0, count, spacing), "fp16");
  const double sum = exp_det(r.log_z);  // Σ e^(−i·Δ)
  Exercise e;
  e.title = "Where the naive fp16 sum overflows";
  e.params = {{"max_logit", 0}, {"count", count}, {"spacing", spacing}, {"format", "fp16"}};
  e.prompt = "A naive softmax in fp16 computes e^x for each of " + std::to_string(count) +
             " logits, stores them in fp16 and sums them. The logits are m, m − " + format_number(spacing, 3) +
             ", m − " + format_number(2 * spacing, 3) + ", … (each " + format_number(spacing, 3) +
             " below the previous one). fp16's largest value is 65,504. Above what top logit m does the sum of the "
             "exponentials overflow?";
  e.unit = "";
  e.answer = r.sum_overflow_threshold;
  e.rel_tolerance = 0.002;
  e.hint = "The sum is e^m · Σ e^(−i·Δ): a geometric series. It overflows when m + ln Σ e^(−i·Δ) passes ln 65,504 = "
           "11.09.";
  e.solution = "Σ e^(−i·" + format_number(spacing, 3) + ") for i = 0 … " + std::to_string(count - 1) + " = (1 − e^(−" +
               std::to_string(count) + "·" + format_number(spacing, 3) + ")) / (1 − e^(−" + format_number(spacing, 3) +
               ")) = " + format_number(sum, 5) + ", ln of it " + format_number(r.log_z, 4) +
               ". A single exponential overflows above ln 65,504 = 11.0899; the sum, e^m times that series, overflows "
               "above 11.0899 − " + format_number(r.log_z, 4) + " = " + format_number(e.answer, 4) + ".";
  require_whole(e, count, "logits");
  require(e, r.log_z > 0 && e.answer < std::log(65504.0),
          "the sum overflows before any single exponential does (the threshold is below ln 65,504)");
  reject_mistake(e, std::log(65504.0), "took the overflow of one exponential, ln 65,504, and forgot the sum");
  return e;
}

Exercise stable_softmax(Rng& rng) {
  const double top = rng.integer(200, 3000);
  const double d1 = rng.integer(3, 30) / 10.0;
  const double d2 = d1 + rng.integer(3, 30) / 10.0;
  const std::vector<double> logits{top, top - d1, top - d2};
  const SoftmaxStabilityResult r = softmax_stability(logits, "fp32");
  const double p = 1 / (1 + exp_det(-d1) + exp_det(-d2));
  Exercise e;
  e.title = "Softmax of large logits";
  e.params = {{"logits", logits}, {"format", "fp32"}};
  e.prompt = "Three logits are " + list_text(logits, 6) +
             ". e^x of each overflows even fp32. With the maximum subtracted first, what probability does the softmax "
             "give the first token, in percent?";
  e.unit = "%";
  e.answer = 100 * p;
  e.rel_tolerance = 0.003;
  e.hint = "Subtract the largest logit from each: the differences are 0, −" + format_number(d1, 3) + " and −" +
           format_number(d2, 3) + ". Exponentiate those; nothing overflows.";
  e.solution = "x − max = 0, −" + format_number(d1, 3) + ", −" + format_number(d2, 3) + "; e^ of them 1, " +
               format_number(exp_det(-d1), 4) + ", " + format_number(exp_det(-d2), 4) + "; sum " +
               format_number(1 + exp_det(-d1) + exp_det(-d2), 5) + "; p = 1 / " +
               format_number(1 + exp_det(-d1) + exp_det(-d2), 5) + " = " + format_number(e.answer, 4) + "% (the kernel gives " +
               format_number(100 * r.stable[0], 4) + "%).";
  require(e, top > std::log(3.4028234663852886e38), "e^x of the top logit overflows fp32 (above ln 3.4e38 = 88.7), as the prompt says");
  require(e, d1 > 0 && d2 > d1, "the logits are distinct and in decreasing order");
  require_between(e, e.answer, 100.0 / 3, 100, "the top logit's probability in percent");
  return e;
}

Exercise z_loss(Rng& rng) {
  const double top = rng.integer(60, 300) / 10.0;
  std::vector<double> logits{top};
  for (int i = 0; i < 3; ++i) logits.push_back(logits.back() - rng.integer(5, 40) / 10.0);
  const SoftmaxStabilityResult r = softmax_stability(logits, "fp32");
  Exercise e;
  e.title = "PaLM's z-loss of one token";
  e.params = {{"logits", logits}, {"format", "fp32"}};
  e.prompt = "A token's four output logits are " + list_text(logits, 4) +
             ". PaLM adds the auxiliary loss 10⁻⁴·(log Z)², with Z = Σ e^(z_k). What is that term for this token?";
  e.unit = "";
  e.answer = 1e-4 * r.log_z * r.log_z;
  e.rel_tolerance = 0.01;
  e.hint = "log Z = m + ln Σ e^(z_k − m) with m the largest logit: subtract it first, then add it back.";
  std::string terms;
  double s = 0;
  for (double z : logits) {
    terms += (terms.empty() ? "" : " + ") + prose(exp_det(z - top), 4);
    s += exp_det(z - top);
  }
  e.solution = "Σ e^(z − " + format_number(top, 4) + ") = " + terms + " = " + format_number(s, 5) + "; log Z = " +
               format_number(top, 4) + " + ln " + format_number(s, 5) + " = " + format_number(r.log_z, 5) +
               "; 10⁻⁴ × " + format_number(r.log_z, 5) + "² = " + format_number(e.answer, 4) + ".";
  require(e, r.log_z > top && r.log_z < top + std::log(4.0), "log Z lies between the top logit and the top logit + ln 4");
  reject_mistake(e, 1e-4 * (r.log_z - top) * (r.log_z - top), "subtracted the largest logit and forgot to add it back");
  return e;
}

Exercise clip(Rng& rng) {
  std::vector<double> norms;
  double max_norm = 0;
  ClipGradResult r;
  // Redrawn until clipping acts and clipping each group on its own (the global norm is what
  // clip_grad_norm_ clips) gives a different first group.
  for (;;) {
    norms.clear();
    for (int i = 0; i < 4; ++i) norms.push_back(rng.integer(2, 60) / 10.0);
    max_norm = rng.pick(std::vector<double>{0.5, 1.0, 2.0});
    r = clip_grad_norm(norms, max_norm);
    if (r.total_norm > 1.05 * max_norm && tells_apart(r.grads[0], std::min(norms[0], max_norm), 0.003)) break;
  }
  Exercise e;
  e.title = "Gradient-norm clipping";
  e.params = {{"grads", norms}, {"max_norm", max_norm}};
  e.prompt = "A model's gradient has four parameter groups whose own gradient norms are " + list_text(norms, 3) +
             ". torch.nn.utils.clip_grad_norm_ is called on all of them with max_norm = " + format_number(max_norm, 2) +
             ". What is the first group's gradient norm after clipping?";
  e.unit = "";
  e.answer = r.grads[0];
  e.rel_tolerance = 0.003;
  e.hint = "The total norm is the square root of the sum of the squared group norms. Every group is multiplied by "
           "the same factor, max_norm / (total + 10⁻⁶), when that is below 1.";
  e.solution = "Total norm √(" + list_text(norms, 3) + " squared and summed) = " + format_number(r.total_norm, 5) +
               "; factor " + format_number(max_norm, 2) + " / " + format_number(r.total_norm, 5) + " = " +
               format_number(r.clip_coef_clamped, 4) + "; the first group: " + format_number(norms[0], 3) + " × " +
               format_number(r.clip_coef_clamped, 4) + " = " + format_number(e.answer, 4) +
               ". The direction is kept; only the length is cut.";
  require(e, r.total_norm > max_norm, "the total norm exceeds max_norm, so clipping acts");
  require(e, e.answer < norms[0], "clipping shortens the group");
  reject_mistake(e, std::min(norms[0], max_norm), "clipped each group to max_norm on its own instead of the global norm");
  return e;
}

Exercise spike_factor(Rng& rng) {
  double lr = 0, s = 0;
  do {  // a bad batch past the stable limit: η·s² ≥ 3, so the step amplifies the error
    lr = rng.pick(std::vector<double>{0.01, 0.02, 0.03, 0.05, 0.08, 0.1});
    s = rng.integer(5, 40);
  } while (lr * s * s < 3);
  LossSpikeConfig c;
  c.lr = lr;
  c.spike_scale = s;
  c.momentum = 0;
  c.steps = 1;
  const LossSpikeResult r = loss_spikes(c);
  Exercise e;
  e.title = "One step on a bad batch";
  e.params = {{"lr", lr}, {"spike_scale", s}, {"momentum", 0}, {"steps", 1}};
  e.prompt = "Plain SGD with learning rate " + format_number(lr, 2) +
             " trains a linear regression whose largest curvature (Hessian eigenvalue) is 1. One batch is bad: its "
             "inputs are " + format_number(s, 2) + " times larger than usual, so its curvature is " +
             format_number(s, 2) + "² times larger. By what factor does that one step multiply the loss along the "
             "top eigenvector (on average, ignoring label noise)?";
  e.unit = "";
  e.answer = r.bad_step_loss_factor;
  e.rel_tolerance = 0.003;
  e.hint = "A gradient step on a quadratic multiplies the error along an eigenvector by (1 − η·λ); the loss along it is "
           "quadratic in the error.";
  e.solution = "λ on the bad batch = " + format_number(s * s, 4) + "; 1 − η·λ = 1 − " + format_number(lr, 2) + " × " +
               format_number(s * s, 4) + " = −" + format_number(lr * s * s - 1, 4) + " (a stable step needs η·λ < 2; here it is " +
               format_number(lr * s * s, 4) + "). The loss factor is its square: " + format_number(e.answer, 5) + ".";
  require(e, lr * s * s >= 2, "η·λ on the bad batch is past the stable limit 2, so the step amplifies the error");
  require_between(e, s, 1, 40, "the bad batch's input scale");
  reject_mistake(e, std::fabs(1 - lr * s * s), "gave the error's factor; the loss is quadratic in the error");
  return e;
}

}  // namespace

void add_stability_exercises(std::vector<Generator>& out) {
  out.push_back({"ns-sum-overflow", sum_overflow});
  out.push_back({"ns-stable-softmax", stable_softmax});
  out.push_back({"ns-z-loss", z_loss});
  out.push_back({"ns-clip-norm", clip});
  out.push_back({"ns-spike-factor", spike_factor});
}

}  // namespace mlsys::exercises
