// The data-loader simulation of training/input_pipeline.hpp.
#include "mlsys/training/input_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {
constexpr std::uint64_t kLoadSalt = 0x5A17D47A10ADE5ULL;  // this simulation's seed salt

void check(bool ok, const char* field, const std::string& message) {
  if (!ok) throw InputError(field, message);
}
}  // namespace

std::vector<double> pipeline_load_times(int count, double load_time_s, double load_cv, std::uint64_t seed) {
  std::vector<double> out(static_cast<std::size_t>(std::max(count, 0)), load_time_s);
  if (load_cv == 0) return out;
  SeededStream rng(mix_seed(seed, kLoadSalt));
  const double sigma2 = log_det(1 + load_cv * load_cv);
  const double sigma = std::sqrt(sigma2), mu = log_det(load_time_s) - sigma2 / 2;
  for (double& x : out) x = exp_det(mu + sigma * rng.normal());
  return out;
}

InputPipelineResult simulate_input_pipeline(int workers, int prefetch, double load_time_s, double load_cv,
                                            double step_time_s, int steps, std::uint64_t seed) {
  check(workers >= 0 && workers <= kMaxPipelineWorkers, "workers", "workers must be between 0 and 64.");
  check(prefetch >= 1 && prefetch <= kMaxPipelinePrefetch, "prefetch",
        "prefetch (batches in flight per worker) must be between 1 and 64.");
  check(std::isfinite(load_time_s) && load_time_s > 0 && load_time_s <= 1e6, "load_time_s",
        "load_time_s must be positive (at most 10^6 s).");
  check(std::isfinite(load_cv) && load_cv >= 0 && load_cv <= 4, "load_cv", "load_cv must be between 0 and 4.");
  check(std::isfinite(step_time_s) && step_time_s > 0 && step_time_s <= 1e6, "step_time_s",
        "step_time_s must be positive (at most 10^6 s).");
  check(steps >= 1 && steps <= kMaxPipelineSteps, "steps", "steps must be between 1 and 5000.");

  const std::vector<double> load = pipeline_load_times(steps, load_time_s, load_cv, seed);
  const std::size_t n = static_cast<std::size_t>(steps);
  std::vector<double> issued(n, 0), ready(n, 0), start(n, 0), end(n, 0);
  const std::size_t in_flight = static_cast<std::size_t>(std::max(workers, 1)) * static_cast<std::size_t>(prefetch);
  InputPipelineResult r{};
  double prev_end = 0, stall = 0;
  for (std::size_t k = 0; k < n; ++k) {
    double wait;
    if (workers == 0) {  // the loop loads its own batch after the previous step
      issued[k] = prev_end;
      ready[k] = prev_end + load[k];
    } else {
      const std::size_t w = static_cast<std::size_t>(workers);
      issued[k] = k < in_flight ? 0.0 : start[k - in_flight];
      const double free_at = k >= w ? ready[k - w] : 0.0;
      ready[k] = std::max(issued[k], free_at) + load[k];
    }
    // A batch ready within rounding of the previous step's end is not a stall: the same
    // instant reached along two sums of floats differs in the last bits.
    if (ready[k] - prev_end <= 1e-12 * (prev_end + ready[k])) ready[k] = std::min(ready[k], prev_end);
    start[k] = std::max(prev_end, ready[k]);
    wait = start[k] - prev_end;
    end[k] = start[k] + step_time_s;
    stall += wait;
    if (k == 0) r.warmup_s = wait;
    if (k < static_cast<std::size_t>(kPipelineTimelineSteps))
      r.timeline.push_back({static_cast<int>(k), workers == 0 ? -1 : static_cast<int>(k % static_cast<std::size_t>(workers)),
                            issued[k], load[k], ready[k], start[k], wait, end[k]});
    prev_end = end[k];
  }
  r.makespan_s = prev_end;
  r.stall_s = stall;
  r.steady_stall_s = stall - r.warmup_s;
  r.throughput_steps_per_s = steps / r.makespan_s;
  r.gpu_busy_fraction = steps * step_time_s / r.makespan_s;
  r.supply_steps_per_s = workers / load_time_s;
  r.demand_steps_per_s = 1 / step_time_s;
  r.workers_needed = std::ceil(load_time_s / step_time_s - 1e-12);
  r.in_flight = workers == 0 ? 0 : workers * prefetch;
  return r;
}

}  // namespace mlsys

// ---- The global batch and its learning rate (training/input_batch.hpp) -------------------

#include "mlsys/training/input_batch.hpp"

namespace mlsys {

BatchLrPoint batch_lr_point(double b, double b0, double lr0, double bcrit) {
  BatchLrPoint p{};
  p.batch_tokens = b;
  p.lr_linear = lr0 * (b / b0);
  p.lr_sqrt = lr0 * std::sqrt(b / b0);
  p.lr_noise_scale = lr0 * (1 + bcrit / b0) / (1 + bcrit / b);
  p.steps_factor = 1 + bcrit / b;
  p.tokens_factor = 1 + b / bcrit;
  return p;
}

BatchScalingResult batch_scaling(double per_device_batch, double devices, double accumulation, double seq,
                                 double base_batch_tokens, double base_lr, double critical_batch_tokens) {
  check(std::isfinite(base_batch_tokens) && base_batch_tokens > 0, "base_batch_tokens",
        "base_batch_tokens must be positive.");
  check(std::isfinite(base_lr) && base_lr > 0, "base_lr", "base_lr must be positive.");
  check(std::isfinite(critical_batch_tokens) && critical_batch_tokens > 0, "critical_batch_tokens",
        "critical_batch_tokens must be positive.");
  BatchScalingResult r{};
  r.sequences = per_device_batch * devices * accumulation;
  r.tokens = r.sequences * seq;
  r.scale = r.tokens / base_batch_tokens;
  const BatchLrPoint p = batch_lr_point(r.tokens, base_batch_tokens, base_lr, critical_batch_tokens);
  const BatchLrPoint p0 = batch_lr_point(base_batch_tokens, base_batch_tokens, base_lr, critical_batch_tokens);
  r.lr_linear = p.lr_linear;
  r.lr_sqrt = p.lr_sqrt;
  r.lr_noise_scale = p.lr_noise_scale;
  r.steps_factor = p.steps_factor;
  r.tokens_factor = p.tokens_factor;
  r.steps_vs_base = p.steps_factor / p0.steps_factor;
  r.tokens_vs_base = p.tokens_factor / p0.tokens_factor;
  for (int e = 14; e <= 27; ++e)
    r.curve.push_back(batch_lr_point(pow_int_det(2.0, e), base_batch_tokens, base_lr, critical_batch_tokens));
  return r;
}

}  // namespace mlsys
