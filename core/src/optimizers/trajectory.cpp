#include "mlsys/optimizers/trajectory.hpp"

#include <array>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

double quadratic_loss(double x, double y, double condition) { return 0.5 * (x * x + condition * y * y); }

namespace {

using Vec = std::array<double, 2>;

// One optimizer's state over the two coordinates, updated in place as torch.optim does.
struct Stepper {
  OptimizerSettings s;
  Vec buf{0, 0};       // momentum buffer (SGD) or first moment m (Adam)
  Vec v{0, 0};         // Adam's second moment
  long long t = 0;     // steps taken

  void step(Vec& p, Vec g) {
    ++t;
    const bool adamw = s.optimizer == "adamw";
    if (!adamw && s.weight_decay != 0)
      for (int i = 0; i < 2; ++i) g[i] += s.weight_decay * p[i];  // L2: weight_decay·p joins the gradient
    if (s.optimizer == "sgd") {
      for (int i = 0; i < 2; ++i) p[i] -= s.lr * g[i];
    } else if (s.optimizer == "momentum" || s.optimizer == "nesterov") {
      // torch.optim.SGD, dampening 0: buf ← μ·buf + g (buf = g at the first step, the same with
      // buf = 0); nesterov steps along g + μ·buf, plain momentum along buf.
      for (int i = 0; i < 2; ++i) {
        buf[i] = s.momentum * buf[i] + g[i];
        p[i] -= s.lr * (s.optimizer == "nesterov" ? g[i] + s.momentum * buf[i] : buf[i]);
      }
    } else {
      // torch.optim.Adam / AdamW (the default, non-foreach arithmetic): AdamW decays the
      // weights first, p ← p·(1 − lr·wd); then m, v, and
      // p ← p − (lr / bc1) · m / (√v / √bc2 + eps), bc_k = 1 − β_k^t.
      const double bc1 = 1 - pow_int_det(s.beta1, t);
      const double bc2 = 1 - pow_int_det(s.beta2, t);
      for (int i = 0; i < 2; ++i) {
        if (adamw) p[i] *= 1 - s.lr * s.weight_decay;
        buf[i] = s.beta1 * buf[i] + (1 - s.beta1) * g[i];
        v[i] = s.beta2 * v[i] + (1 - s.beta2) * g[i] * g[i];
        const double denom = std::sqrt(v[i]) / std::sqrt(bc2) + s.eps;
        // denom is 0 only with eps = 0 and every gradient so far 0, when m is 0 too: no move.
        if (denom > 0) p[i] -= s.lr / bc1 * buf[i] / denom;
      }
    }
  }
};

}  // namespace

Trajectory optimizer_trajectory(const OptimizerSettings& s, double condition, double x0, double y0, long long steps) {
  static const std::array<const char*, 5> kNames = {"sgd", "momentum", "nesterov", "adam", "adamw"};
  bool known = false;
  for (const char* n : kNames) known = known || s.optimizer == n;
  if (!known) throw InputError("optimizer", "Unknown optimizer '" + s.optimizer + "'; use sgd, momentum, nesterov, adam or adamw.");
  if (s.optimizer == "nesterov" && s.momentum <= 0)
    throw InputError("momentum", "Nesterov momentum needs a momentum above 0 (as torch.optim.SGD requires).");
  if (steps < 0 || steps > kMaxOptimizerSteps)
    throw InputError("steps", "Give 0 to " + std::to_string(kMaxOptimizerSteps) + " steps.");
  if (!(condition >= 1)) throw InputError("condition", "The condition number must be at least 1.");

  Trajectory out{{}, 0, false, std::nullopt};
  Vec p{x0, y0};
  const double start_loss = quadratic_loss(x0, y0, condition);
  out.path.push_back({0, x0, y0, start_loss});
  Stepper stepper{s};
  for (long long k = 1; k <= steps; ++k) {
    stepper.step(p, {p[0], condition * p[1]});  // ∇f = (x, κ·y)
    const double loss = quadratic_loss(p[0], p[1], condition);
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(loss)) {
      out.diverged = true;
      out.diverged_step = k;
      break;
    }
    out.path.push_back({k, p[0], p[1], loss});
    if (loss > kDivergenceFactor * start_loss) {
      out.diverged = true;
      out.diverged_step = k;
      break;
    }
  }
  out.final_loss = out.path.back().loss;
  return out;
}

}  // namespace mlsys
