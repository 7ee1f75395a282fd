#include "mlsys/optimizers/schedule.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {
}

void check_schedule(const ScheduleSettings& s) {
  static const std::vector<std::string> kNames = {"constant", "step", "linear", "cosine", "warmup-cosine", "wsd"};
  if (std::find(kNames.begin(), kNames.end(), s.schedule) == kNames.end())
    throw InputError("schedule", "Unknown schedule '" + s.schedule + "'.");
  if (s.total_steps < 1 || s.total_steps > kMaxScheduleSteps)
    throw InputError("total_steps", "Give 1 to " + std::to_string(kMaxScheduleSteps) + " total steps.");
  if (s.min_lr > s.peak_lr) throw InputError("min_lr", "min_lr must not exceed peak_lr.");
  if (s.warmup_steps < 0 || s.warmup_steps > s.total_steps)
    throw InputError("warmup_steps", "warmup_steps must be between 0 and total_steps.");
  if (s.schedule == "step" && !s.step_size)
    throw InputError("step_size", "The step schedule needs 'step_size' (steps between two decays).");
  if (s.schedule == "wsd") {
    if (!s.decay_steps) throw InputError("decay_steps", "The wsd schedule needs 'decay_steps' (its final decay).");
    if (*s.decay_steps < 1 || s.warmup_steps + *s.decay_steps > s.total_steps)
      throw InputError("decay_steps", "decay_steps must be at least 1 and fit after the warm-up: warmup_steps + "
                                      "decay_steps ≤ total_steps.");
  }
}

double lr_at_step(const ScheduleSettings& s, long long t) {
  if (t < s.warmup_steps) return s.peak_lr * static_cast<double>(t) / static_cast<double>(s.warmup_steps);
  const double range = s.peak_lr - s.min_lr;
  // Progress through the decay, 0 at the end of the warm-up; t < total_steps keeps it below 1.
  const double p = static_cast<double>(t - s.warmup_steps) / static_cast<double>(s.total_steps - s.warmup_steps);
  if (s.schedule == "constant") return s.peak_lr;
  if (s.schedule == "linear") return s.min_lr + range * (1 - p);
  if (s.schedule == "cosine" || s.schedule == "warmup-cosine") return s.min_lr + range * 0.5 * (1 + cos_pi_det(p));
  if (s.schedule == "step") {
    // torch.optim.lr_scheduler.StepLR counted from the end of the warm-up, floored at min_lr.
    const long long decays = (t - s.warmup_steps) / *s.step_size;
    return std::max(s.min_lr, s.peak_lr * pow_int_det(s.gamma, decays));
  }
  // wsd: peak until total − decay, then linearly toward min_lr, which it would reach at t = total.
  const long long start = s.total_steps - *s.decay_steps;
  if (t < start) return s.peak_lr;
  return s.peak_lr - range * static_cast<double>(t - start) / static_cast<double>(*s.decay_steps);
}

ScheduleSample sample_schedule(const ScheduleSettings& s) {
  ScheduleSample out;
  const long long n = std::min(s.total_steps, kMaxScheduleSamples);
  out.steps.reserve(static_cast<std::size_t>(n));
  out.lr.reserve(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) {
    // Evenly spaced, exact in integers: i·(total − 1)/(n − 1) ≤ 10⁹·10⁵ fits in 64 bits.
    const long long t = n == 1 ? 0 : i * (s.total_steps - 1) / (n - 1);
    out.steps.push_back(t);
    out.lr.push_back(lr_at_step(s, t));
  }
  return out;
}

}  // namespace mlsys
