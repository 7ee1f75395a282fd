// Loss spikes from bad batches and gradient-norm clipping: see loss_spikes.hpp.
#include "mlsys/training/loss_spikes.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {
constexpr int kD = kLossSpikeDim;
constexpr int kWindow = 20;
constexpr double kSpikeJump = 1.5;  // a spike starts with a jump of the loss in one step
using Vec = std::array<double, kD>;

double norm(const Vec& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}
}  // namespace

ClipGradResult clip_grad_norm(const std::vector<double>& grads, double max_norm) {
  if (grads.empty() || grads.size() > 4096) throw InputError("grads", "Give 1 to 4096 gradient values.");
  if (!(max_norm > 0)) throw InputError("max_norm", "max_norm must be positive.");
  ClipGradResult r;
  double s = 0;
  for (double g : grads) s += g * g;
  r.total_norm = std::sqrt(s);
  r.clip_coef = max_norm / (r.total_norm + 1e-6);
  r.clip_coef_clamped = std::min(1.0, r.clip_coef);
  r.clipped = r.clip_coef < 1;
  double c = 0;
  for (double g : grads) {
    r.grads.push_back(g * r.clip_coef_clamped);
    c += r.grads.back() * r.grads.back();
  }
  r.clipped_norm = std::sqrt(c);
  return r;
}

LossSpikeResult loss_spikes(const LossSpikeConfig& c) {
  if (c.steps < 1 || c.steps > kMaxLossSpikeSteps) throw InputError("steps", "Use 1 to 3000 steps.");
  if (!(c.lr > 0)) throw InputError("lr", "The learning rate must be positive.");
  if (!(c.momentum >= 0 && c.momentum < 1)) throw InputError("momentum", "Momentum must be in [0, 1).");
  if (!(c.max_norm >= 0)) throw InputError("max_norm", "max_norm must be 0 (off) or positive.");
  if (!(c.spike_rate >= 0 && c.spike_rate <= 1)) throw InputError("spike_rate", "The spike rate is a probability.");
  if (!(c.spike_scale >= 1)) throw InputError("spike_scale", "The bad batches' input scale must be at least 1.");
  if (!(c.condition_number >= 1)) throw InputError("condition_number", "The condition number is at least 1.");
  if (c.batch_size < 1 || c.batch_size > kMaxLossSpikeBatch) throw InputError("batch_size", "Use 1 to 32 examples.");

  SeededStream rng(mix_seed(c.seed, 0x5A1B2C3D4E5F6071ULL));
  Vec lambda{}, sqrt_lambda{}, w_star{}, w{}, v{};
  for (int i = 0; i < kD; ++i) {
    // κ^(−i/(d−1)) with the deterministic exp/log.
    lambda[i] = exp_det(-log_det(c.condition_number) * i / (kD - 1));
    sqrt_lambda[i] = std::sqrt(lambda[i]);
  }
  for (int i = 0; i < kD; ++i) w_star[i] = rng.normal();
  const double sigma = kLossSpikeNoise;
  const auto population_loss = [&](const Vec& x) {
    double s = 0;
    for (int i = 0; i < kD; ++i) s += lambda[i] * (x[i] - w_star[i]) * (x[i] - w_star[i]);
    return 0.5 * s + 0.5 * sigma * sigma;
  };

  LossSpikeResult r;
  r.loss_floor = 0.5 * sigma * sigma;
  r.initial_loss = population_loss(w);
  r.loss.push_back(r.initial_loss);
  r.grad_norm.push_back(0);
  const double s2 = c.spike_scale * c.spike_scale;
  r.bad_step_loss_factor = (1 - c.lr * s2 * lambda[0]) * (1 - c.lr * s2 * lambda[0]);
  r.stable_lr_limit = 2 * (1 + c.momentum) / lambda[0];
  r.bad_batch_lr_limit = r.stable_lr_limit / s2;

  std::optional<LossSpike> open;
  double open_ref = 0;
  for (int t = 1; t <= c.steps; ++t) {
    const bool bad = rng.uniform() < c.spike_rate;
    const double scale = bad ? c.spike_scale : 1.0;
    Vec g{};
    for (int b = 0; b < c.batch_size; ++b) {
      Vec x{};
      double pred = 0, target = 0;
      for (int i = 0; i < kD; ++i) {
        x[i] = scale * sqrt_lambda[i] * rng.normal();
        pred += x[i] * w[i];
        target += x[i] * w_star[i];
      }
      target += sigma * rng.normal();
      const double err = pred - target;
      for (int i = 0; i < kD; ++i) g[i] += x[i] * err;
    }
    for (double& gi : g) gi /= c.batch_size;
    const double gn = norm(g);
    if (bad) r.bad_steps.push_back(t);
    if (c.max_norm > 0) {
      const double coef = c.max_norm / (gn + 1e-6);
      if (coef < 1) {
        for (double& gi : g) gi *= coef;
        r.clipped_steps.push_back(t);
      }
    }
    for (int i = 0; i < kD; ++i) {
      v[i] = c.momentum * v[i] + g[i];
      w[i] -= c.lr * v[i];
    }
    const double loss = population_loss(w);
    r.steps_run = t;
    if (!std::isfinite(loss) || loss > 1e12 * r.initial_loss || !std::isfinite(gn)) {
      r.diverged = true;
      r.diverged_step = t;
      break;
    }
    r.loss.push_back(loss);
    r.grad_norm.push_back(gn);
    // Spike bookkeeping.
    if (open) {
      if (loss > open->peak_loss) {
        open->peak_loss = loss;
        open->peak_step = t;
      }
      if (loss <= 1.5 * open_ref) {
        open->recovery_steps = t - open->step;
        r.spikes.push_back(*open);
        open.reset();
      }
    } else {
      double ref = r.loss[static_cast<std::size_t>(t - 1)];
      for (int k = std::max(0, t - kWindow); k < t; ++k) ref = std::min(ref, r.loss[static_cast<std::size_t>(k)]);
      if (loss > 2 * ref && loss > kSpikeJump * r.loss[static_cast<std::size_t>(t - 1)]) {
        open = LossSpike{t, ref, loss, t, std::nullopt};
        open_ref = ref;
      }
    }
  }
  if (open) r.spikes.push_back(*open);
  r.spike_count = static_cast<int>(r.spikes.size());
  double sum = 0;
  int n = 0;
  for (const auto& s : r.spikes)
    if (s.recovery_steps) {
      sum += *s.recovery_steps;
      ++n;
    }
  if (n > 0) r.mean_recovery_steps = sum / n;
  r.clipped_fraction = static_cast<double>(r.clipped_steps.size()) / r.steps_run;
  r.final_loss = r.loss.back();
  r.min_loss = *std::min_element(r.loss.begin(), r.loss.end());
  return r;
}

}  // namespace mlsys
