// Exercises of the optimizers lesson: y after k gradient-descent steps, the largest stable
// learning rate with momentum or Nesterov, the loss after Adam's first step, the learning rate at a step of a
// warm-up-cosine schedule, and the memory of training with an optimizer. Answers come from the
// engine's models (core/src/optimizers/) on the numbers shown.
#include <cmath>

#include "generators.hpp"
#include "mlsys/optimizers/schedule.hpp"
#include "mlsys/optimizers/state.hpp"
#include "mlsys/optimizers/trajectory.hpp"

namespace mlsys::exercises {

namespace {

double log_uniform(Rng& rng, double lo, double hi) { return lo * std::pow(hi / lo, rng.uniform()); }

// The answer at the end of a solution, with the e-notation the answer box reads after a "× 10ᵏ".
std::string typed(double x, int sig) {
  const std::string p = prose(x, sig);
  return p.find("\u00D7 10") == std::string::npos ? p : p + " (type " + format_number(x, sig) + ")";
}

std::string loss_text(double kappa) { return "f(x, y) = \u00BD(x\u00B2 + " + format_number(kappa, 4) + "\u00B7y\u00B2)"; }

Exercise gd_iterate(Rng& rng) {
  const double kappa = static_cast<double>(rng.integer(2, 40));
  const double factor = round_sig(0.4 + 0.55 * rng.uniform(), 2);  // 1 − lr·κ in [0.4, 0.95]: a steady decay
  const double lr = round_sig((1 - factor) / kappa, 2);
  const double y0 = static_cast<double>(rng.integer(2, 9));
  const long long k = rng.integer(3, 10);
  OptimizerSettings s;
  s.optimizer = "sgd";
  s.lr = lr;
  const double shrink = 1 - lr * kappa;
  Exercise e;
  e.title = "Gradient descent, step by step";
  e.params = {{"optimizer", "sgd"}, {"lr", lr}, {"condition", kappa}, {"start", {1, y0}}, {"steps", k}};
  e.prompt = "Gradient descent with learning rate " + format_number(lr, 4) + " minimises " + loss_text(kappa) +
             " from the point (1, " + format_int(y0) + "). What is y after " + counted(static_cast<double>(k), "step") + "?";
  e.unit = "";
  e.answer = optimizer_trajectory(s, kappa, 1, y0, k).path.back().y;
  e.hint = "The gradient along y is \u2202f/\u2202y = \u03BA\u00B7y, so each step sets y \u2190 y \u2212 lr\u00B7\u03BA\u00B7y = "
           "(1 \u2212 lr\u00B7\u03BA)\u00B7y.";
  e.solution = "Each step multiplies y by 1 \u2212 " + format_number(lr, 4) + " \u00D7 " + format_number(kappa, 4) + " = " +
               format_number(shrink, 6) + ", so after " + counted(static_cast<double>(k), "step") + " y = " +
               format_int(y0) + " \u00D7 " + format_number(shrink, 6) + "^" + std::to_string(k) + " = " +
               typed(e.answer, 4) + ".";
  require_between(e, shrink, 0.3, 0.97, "the factor 1 \u2212 lr\u00B7\u03BA of each step (a steady decay)");
  require(e, lr < 2 / kappa, "lr = " + format_number(lr, 4) + " is below the stable limit 2/\u03BA");
  reject_mistake(e, y0 * std::pow(shrink, static_cast<double>(k - 1)), "took one step fewer");
  reject_mistake(e, y0 * std::pow(1 - lr, static_cast<double>(k)), "left out \u03BA from the gradient along y");
  return e;
}

// The stability limit of momentum in PyTorch's two forms. Along a curvature λ the heavy ball
// follows θ_{k+1} = (1 + μ − a)·θ_k − μ·θ_{k−1}, a = lr·λ, whose root −1 sets the limit
// a < 2(1 + μ); PyTorch's Nesterov, θ_{k+1} = (1 + μ)(1 − a)·θ_k − μ(1 − a)·θ_{k−1}, reaches
// −1 at a = (2 + 2μ)/(1 + 2μ) (Goh 2017 for the heavy ball; the Nesterov recurrence is derived
// from torch.optim.SGD's update). The steepest curvature is κ.
Exercise max_stable_lr(Rng& rng) {
  static const std::vector<double> momenta = {0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99};
  const double kappa = round_sig(log_uniform(rng, 3, 5000), 2);
  const double mu = rng.pick(momenta);
  const bool nesterov = rng.uniform() < 0.5;
  const double heavy = 2 * (1 + mu) / kappa, look_ahead = (2 + 2 * mu) / ((1 + 2 * mu) * kappa);
  const std::string k = format_number(kappa, 4), m = format_number(mu, 3);
  Exercise e;
  e.title = "The largest stable learning rate with momentum";
  e.params = {{"optimizer", nesterov ? "nesterov" : "momentum"}, {"condition", kappa}, {"momentum", mu}};
  e.prompt = std::string(nesterov ? "SGD with Nesterov momentum (torch.optim.SGD, nesterov=True)" : "SGD with heavy-ball momentum (torch.optim.SGD)") +
             ", momentum \u03BC = " + m + ", minimises " + loss_text(kappa) +
             ". Above which learning rate does it diverge from almost every starting point?";
  e.unit = "";
  e.answer = nesterov ? look_ahead : heavy;
  e.hint = nesterov ? "Write one step along y as a recurrence in y alone: with a = lr\u00B7\u03BA, Nesterov gives "
                      "y_{k+1} = (1 + \u03BC)(1 \u2212 a)\u00B7y_k \u2212 \u03BC(1 \u2212 a)\u00B7y_{k\u22121}. It diverges once a root of "
                      "z\u00B2 \u2212 (1 + \u03BC)(1 \u2212 a)z + \u03BC(1 \u2212 a) passes \u22121."
                    : "Along y the heavy ball follows y_{k+1} = (1 + \u03BC \u2212 a)\u00B7y_k \u2212 \u03BC\u00B7y_{k\u22121}, "
                      "a = lr\u00B7\u03BA. It diverges once a root of z\u00B2 \u2212 (1 + \u03BC \u2212 a)z + \u03BC passes \u22121.";
  e.solution = nesterov
                   ? "At z = \u22121 the characteristic polynomial is 1 + (1 + 2\u03BC)(1 \u2212 a) = 0, so a = (2 + 2\u03BC)/(1 + 2\u03BC) = " +
                         format_number((2 + 2 * mu) / (1 + 2 * mu), 4) + ", below plain gradient descent's 2 and the heavy ball's 2(1 + \u03BC) = " +
                         format_number(2 * (1 + mu), 4) + "; the limit is lr = that \u00F7 " + k + " = " + typed(e.answer, 4) + "."
                   : "At z = \u22121 the characteristic polynomial is 1 + (1 + \u03BC \u2212 a) + \u03BC = 0, so a = 2(1 + \u03BC) = " +
                         format_number(2 * (1 + mu), 4) + ", 1 + \u03BC times plain gradient descent's 2; the limit is lr = that \u00F7 " + k +
                         " = " + typed(e.answer, 4) + ".";
  require_between(e, kappa, 3, 5000, "the condition number \u03BA (y is the stiff direction)");
  require_between(e, mu, 0.5, 0.99, "the momentum \u03BC");
  reject_mistake(e, 2 / kappa, "gave plain gradient descent's limit 2/\u03BA");
  reject_mistake(e, nesterov ? heavy : look_ahead, nesterov ? "gave the heavy ball's limit" : "gave Nesterov's limit");
  reject_mistake(e, 2 * (1 + mu), "left out \u03BA, the steepest curvature");
  reject_mistake_where_distinct(e, (1 + mu) / kappa, "dropped the factor 2");
  return e;
}

Exercise adam_first_step(Rng& rng) {
  static const std::vector<double> rates = {0.01, 0.02, 0.05, 0.1, 0.2, 0.3};
  OptimizerSettings s;
  s.optimizer = "adam";
  s.lr = rng.pick(rates);
  const double kappa = static_cast<double>(rng.integer(2, 200));
  const double x0 = round_sig(0.5 + 4.5 * rng.uniform(), 2), y0 = round_sig(0.5 + 4.5 * rng.uniform(), 2);
  const auto t = optimizer_trajectory(s, kappa, x0, y0, 1);
  const double x1 = x0 - s.lr, y1 = y0 - s.lr;  // the first step is lr·sign(g), ε aside
  Exercise e;
  e.title = "Adam's first step";
  e.params = {{"optimizer", "adam"}, {"lr", s.lr}, {"condition", kappa}, {"start", {x0, y0}}, {"steps", 1}};
  e.prompt = "Adam with learning rate " + format_number(s.lr, 4) + " (\u03B2\u2081 = 0.9, \u03B2\u2082 = 0.999, \u03B5 = 10\u207B\u2078, "
             "bias-corrected) minimises " + loss_text(kappa) + " from (" + format_number(x0, 4) + ", " +
             format_number(y0, 4) + "). What is the loss after its first step?";
  e.unit = "";
  e.answer = t.path[1].loss;
  // Both coordinates move by about lr: the loss drops little, so a reader who gives the start
  // loss must still be wrong.
  e.rel_tolerance = 0.001;
  e.hint = "After bias correction the first step has m\u0302 = g and v\u0302 = g\u00B2, so each coordinate moves by "
           "lr\u00B7g/(|g| + \u03B5): by lr, against the sign of its gradient, however large the gradient.";
  e.solution = "Both gradients (x and \u03BA\u00B7y) are positive, so x \u2192 " + format_number(x0, 4) + " \u2212 " +
               format_number(s.lr, 4) + " = " + format_number(x1, 4) + " and y \u2192 " + format_number(y0, 4) + " \u2212 " +
               format_number(s.lr, 4) + " = " + format_number(y1, 4) + "; the loss is \u00BD(" + format_number(x1, 4) +
               "\u00B2 + " + format_number(kappa, 4) + " \u00D7 " + format_number(y1, 4) + "\u00B2) = " +
               format_number(e.answer, 5) + ".";
  require(e, x0 > s.lr && y0 > s.lr, "both coordinates stay positive after a step of lr, as the solution assumes");
  require(e, e.answer < 0.5 * (x0 * x0 + kappa * y0 * y0), "the step lowers the loss");
  // Without bias correction m = (1 − β₁)g and v = (1 − β₂)g²: the step is lr·0.1/√0.001.
  const double raw = s.lr * 0.1 / std::sqrt(0.001);
  reject_mistake_where_distinct(e, 0.5 * ((x0 - raw) * (x0 - raw) + kappa * (y0 - raw) * (y0 - raw)),
                                "forgot the bias correction (a first step 3.16 times lr)");
  reject_mistake(e, 0.5 * (x0 * x0 + kappa * y0 * y0), "gave the starting loss");
  return e;
}

Exercise cosine_lr(Rng& rng) {
  static const std::vector<double> peaks = {1e-3, 6e-4, 3e-4, 2e-3, 1.5e-3, 5e-4};
  ScheduleSettings s;
  s.schedule = "warmup-cosine";
  s.peak_lr = rng.pick(peaks);
  s.min_lr = rng.uniform() < 0.5 ? 0 : s.peak_lr / 10;
  s.warmup_steps = 100 * rng.integer(1, 20);
  s.total_steps = s.warmup_steps + 1000 * rng.integer(5, 100);
  const bool in_warmup = rng.uniform() < 0.25;
  // A step whose rate differs from the peak and the floor the prompt prints by more than 3 %
  // (ten times the checker's tolerance): just after the warm-up the cosine is still at the peak,
  // and near the end at the floor. The warm-up's own first and last 3 % are left out the same way.
  long long t = 0;
  for (double r = 0; t == 0 || r > 0.97 * s.peak_lr || r < 1.03 * s.min_lr || r < 0.03 * s.peak_lr;) {
    t = in_warmup ? rng.integer(1, static_cast<int>(s.warmup_steps) - 1)
                  : s.warmup_steps + rng.integer(1, static_cast<int>(s.total_steps - s.warmup_steps) - 1);
    r = lr_at_step(s, t);
  }
  Exercise e;
  e.title = "Learning rate on a warm-up-cosine schedule";
  e.params = {{"schedule", "warmup-cosine"}, {"peak_lr", s.peak_lr}, {"min_lr", s.min_lr},
              {"warmup_steps", s.warmup_steps}, {"total_steps", s.total_steps}, {"at_step", t}};
  e.prompt = "A run of " + format_int(static_cast<double>(s.total_steps)) + " steps warms the learning rate up linearly from 0 to " +
             prose(s.peak_lr, 4) + " over the first " + format_int(static_cast<double>(s.warmup_steps)) +
             " steps, then follows a cosine down to " + (s.min_lr == 0 ? std::string("0") : prose(s.min_lr, 4)) +
             " at the end of training. What is the learning rate at step " + format_int(static_cast<double>(t)) +
             " (steps count from 0)?";
  e.unit = "";
  e.answer = lr_at_step(s, t);
  e.hint = "During the warm-up lr = peak\u00B7t/warmup. After it, p = (t \u2212 warmup)/(total \u2212 warmup) and "
           "lr = min + (peak \u2212 min)\u00B7\u00BD(1 + cos(\u03C0\u00B7p)).";
  if (in_warmup) {
    e.solution = "Step " + format_int(static_cast<double>(t)) + " is inside the warm-up: lr = " + prose(s.peak_lr, 4) +
                 " \u00D7 " + format_int(static_cast<double>(t)) + "/" + format_int(static_cast<double>(s.warmup_steps)) +
                 " = " + typed(e.answer, 4) + ".";
  } else {
    const double p = static_cast<double>(t - s.warmup_steps) / static_cast<double>(s.total_steps - s.warmup_steps);
    e.solution = "p = (" + format_int(static_cast<double>(t)) + " \u2212 " + format_int(static_cast<double>(s.warmup_steps)) +
                 ")/(" + format_int(static_cast<double>(s.total_steps)) + " \u2212 " +
                 format_int(static_cast<double>(s.warmup_steps)) + ") = " + format_number(p, 4) +
                 "; \u00BD(1 + cos(\u03C0\u00B7p)) = " + format_number(0.5 * (1 + std::cos(3.14159265358979323846 * p)), 4) +
                 "; lr = " + (s.min_lr == 0 ? std::string("0") : prose(s.min_lr, 4)) + " + (" + prose(s.peak_lr, 4) +
                 " \u2212 " + (s.min_lr == 0 ? std::string("0") : prose(s.min_lr, 4)) + ") \u00D7 that = " +
                 typed(e.answer, 4) + ".";
  }
  require(e, s.warmup_steps < s.total_steps && t >= 1 && t < s.total_steps,
          "step " + std::to_string(t) + " lies inside the run of " + std::to_string(s.total_steps) + " steps");
  require_between(e, s.peak_lr, 1e-4, 1e-2, "the peak learning rate (a transformer pre-training range)");
  require(e, e.answer > 0 && e.answer <= s.peak_lr, "the learning rate is positive and at most the peak");
  reject_mistake(e, s.peak_lr, "gave the peak learning rate of the prompt");
  if (s.min_lr > 0) reject_mistake(e, s.min_lr, "gave the floor of the prompt");
  return e;
}

struct Recipe {
  std::string optimizer, weight_dtype;
  bool master;
  std::string text;  // what the prompt says the run keeps
};

Exercise training_state(Rng& rng) {
  static const std::vector<Recipe> recipes = {
      {"adam", "bf16", true,
       "bf16 weights and gradients, an fp32 master copy of the weights, and Adam's two moments in fp32"},
      {"adam", "fp32", false, "fp32 weights and gradients and Adam's two moments in fp32"},
      {"momentum", "bf16", true, "bf16 weights and gradients, an fp32 master copy, and an fp32 momentum buffer"},
      {"sgd", "bf16", true, "bf16 weights and gradients, an fp32 master copy, and plain SGD (no momentum)"},
      {"adam-8bit", "bf16", true,
       "bf16 weights and gradients, an fp32 master copy, and Adam's two moments quantized to 8 bits each (ignore the "
       "block scales)"}};
  const Recipe& r = rng.pick(recipes);
  const double billions = round_sig(log_uniform(rng, 0.3, 180), 2);
  const auto b = optimizer_state_bytes(r.optimizer, r.weight_dtype, r.master, 4096, 4096);
  const double per = b.weights + b.grads + b.master + b.states;
  Exercise e;
  e.title = "Memory of the model states";
  e.params = {{"optimizer", r.optimizer}, {"params", billions * 1e9}, {"weight_dtype", r.weight_dtype},
              {"master_weights", r.master}};
  e.prompt = "A model of " + format_number(billions, 4) + " billion parameters trains with " + r.text +
             ". How many GB do these model states take, before activations?";
  e.unit = "GB";
  e.answer = per * billions;
  e.hint = "Add the bytes each parameter costs (fp32 is 4 bytes, bf16 2, 8 bits 1), then multiply by the parameter count.";
  e.solution = "Per parameter: " + format_number(b.weights, 3) + " (weights) + " + format_number(b.grads, 3) +
               " (gradients) + " + format_number(b.master, 3) + " (master) + " + format_number(b.states, 3) +
               " (optimizer state) = " + format_number(per, 3) + " bytes; \u00D7 " + format_number(billions, 4) +
               " \u00D7 10^9 parameters = " + format_number(e.answer, 4) + " GB.";
  require_between(e, billions, 0.3, 180, "the model size in billions of parameters");
  if (b.master > 0) reject_mistake(e, (per - b.master) * billions, "left out the fp32 master copy");
  if (r.optimizer == "adam") reject_mistake(e, (per - b.states / 2) * billions, "counted one of Adam's two moments");
  return e;
}

}  // namespace

void add_optimizers_exercises(std::vector<Generator>& out) {
  out.push_back({"gd-iterate", gd_iterate});
  out.push_back({"gd-max-stable-lr", max_stable_lr});
  out.push_back({"adam-first-step", adam_first_step});
  out.push_back({"warmup-cosine-lr", cosine_lr});
  out.push_back({"optimizer-state-memory", training_state});
}

}  // namespace mlsys::exercises
