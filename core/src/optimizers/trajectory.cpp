#include "mlsys/optimizers/trajectory.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

double quadratic_loss(double x, double y, double condition) { return 0.5 * (x * x + condition * y * y); }

namespace {

using Vec = std::array<double, 2>;

// The rotation R by `deg` degrees, exact (the identity) at 0 so that an unturned valley keeps
// its iterates bit for bit.
struct Rotation {
  double c = 1, s = 0;
  explicit Rotation(double deg) {
    if (deg != 0) {
      c = cos_pi_det(deg / 180);
      s = sin_pi_det(deg / 180);
    }
  }
  Vec to_valley(const Vec& p) const { return {c * p[0] + s * p[1], -s * p[0] + c * p[1]}; }  // Rᵀ·p
  Vec from_valley(const Vec& q) const { return {c * q[0] - s * q[1], s * q[0] + c * q[1]}; }  // R·q
};

// ∇f at p: R·diag(1, κ)·Rᵀ·p; (x, κ·y) exactly when unturned.
Vec gradient(const Vec& p, double condition, const Rotation& r) {
  if (r.s == 0 && r.c == 1) return {p[0], condition * p[1]};
  const Vec q = r.to_valley(p);
  return r.from_valley({q[0], condition * q[1]});
}

double loss_at(const Vec& p, double condition, const Rotation& r) {
  if (r.s == 0 && r.c == 1) return quadratic_loss(p[0], p[1], condition);
  const Vec q = r.to_valley(p);
  return quadratic_loss(q[0], q[1], condition);
}

// One optimizer's state over the two coordinates, updated in place as torch.optim does.
struct Stepper {
  OptimizerSettings s;
  Vec buf{0, 0};       // momentum buffer (SGD) or first moment m (Adam)
  Vec v{0, 0};         // Adam's second moment
  long long t = 0;     // steps taken

  void step(Vec& p, Vec g, double lr) {
    s.lr = lr;
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

double rotated_loss(double x, double y, double condition, double rotation_deg) {
  return loss_at({x, y}, condition, Rotation(rotation_deg));
}

Trajectory optimizer_trajectory(const OptimizerSettings& s, double condition, double x0, double y0, long long steps,
                                const ProblemSettings& problem) {
  static const std::array<const char*, 5> kNames = {"sgd", "momentum", "nesterov", "adam", "adamw"};
  bool known = false;
  for (const char* n : kNames) known = known || s.optimizer == n;
  if (!known) throw InputError("optimizer", "Unknown optimizer '" + s.optimizer + "'; use sgd, momentum, nesterov, adam or adamw.");
  if (s.optimizer == "nesterov" && s.momentum <= 0)
    throw InputError("momentum", "Nesterov momentum needs a momentum above 0 (as torch.optim.SGD requires).");
  if (steps < 0 || steps > kMaxOptimizerSteps)
    throw InputError("steps", "Give 0 to " + std::to_string(kMaxOptimizerSteps) + " steps.");
  if (!(condition >= 1)) throw InputError("condition", "The condition number must be at least 1.");
  if (!(std::fabs(problem.rotation_deg) <= 180)) throw InputError("rotation", "The rotation must be from -180 to 180 degrees.");
  if (!(problem.noise >= 0) || !std::isfinite(problem.noise)) throw InputError("noise", "The gradient noise must be 0 or more.");
  if (problem.schedule && steps >= 1) {
    ScheduleSettings sched = *problem.schedule;
    sched.peak_lr = s.lr;
    sched.total_steps = steps;
    check_schedule(sched);
  }

  const Rotation rot(problem.rotation_deg);
  Trajectory out{{}, 0, 0, false, std::nullopt};
  Vec p = rot.from_valley({x0, y0});
  const double start_loss = loss_at(p, condition, rot);
  out.path.push_back({0, p[0], p[1], start_loss});
  Stepper stepper{s};
  SeededStream noise(mix_seed(problem.seed, salt_of("optimizer-trajectory")));
  const double spread = std::sqrt(3.0) * problem.noise;  // uniform on [−√3σ, √3σ): variance σ²
  ScheduleSettings sched = problem.schedule.value_or(ScheduleSettings{});
  sched.peak_lr = s.lr;
  sched.total_steps = steps;
  for (long long k = 1; k <= steps; ++k) {
    Vec g = gradient(p, condition, rot);
    if (problem.noise > 0)
      for (double& gi : g) gi += spread * (2 * noise.uniform() - 1);
    stepper.step(p, g, problem.schedule ? lr_at_step(sched, k - 1) : s.lr);
    const double loss = loss_at(p, condition, rot);
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
  const std::size_t n = out.path.size(), tail = std::max<std::size_t>(1, (n - 1) / 10);
  double sum = 0;
  for (std::size_t i = n - tail; i < n; ++i) sum += out.path[i].loss;
  out.late_mean_loss = sum / static_cast<double>(tail);
  return out;
}

}  // namespace mlsys
