// Loss scaling for low-precision gradients (Micikevicius et al., "Mixed Precision Training",
// ICLR 2018): gradient magnitudes modelled as log-normal, log2|g| ~ Normal(mu, sigma), are
// multiplied by a loss scale S and rounded to a format; the fractions that round to zero,
// land in the subnormal range, or overflow. And the dynamic loss scaler of PyTorch's
// GradScaler / NVIDIA Apex (start 2^16, halve and skip the step on inf/NaN, double after
// `growth_interval` clean steps), simulated over steps.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/numerics/float_format.hpp"

namespace mlsys {

struct GradientFractions {
  double zero;       // |g·S| rounds to zero (below half the smallest subnormal)
  double subnormal;  // rounds to a nonzero subnormal: kept with fewer significant bits
  double normal;     // rounds to a normal value
  double overflow;   // rounds past max (inf, or NaN in E4M3)
};

// Closed form from the normal CDF of log2|g| against the format's rounding thresholds:
// zero below min_subnormal/2, overflow above max + ulp(max)/2.
GradientFractions gradient_fractions(double mu_log2, double sigma_log2, double loss_scale, const FloatFormat& fmt);

// Executed: `samples` magnitudes drawn (seeded SplitMix64 + Box–Muller), scaled, rounded
// with round_to_format, classified. samples <= kMaxGradientSamples.
inline constexpr long long kMaxGradientSamples = 200000;
GradientFractions sample_gradient_fractions(double mu_log2, double sigma_log2, double loss_scale,
                                            const FloatFormat& fmt, long long samples, std::uint64_t seed,
                                            std::vector<double>* log2_scaled = nullptr);

// Inverse of the standard normal CDF (Acklam's rational approximation, one Newton step).
double normal_quantile(double p);

struct ScalerStep {
  long long step;
  double scale;        // loss scale used at this step
  double log2_max_grad;  // log2 of the largest |g| of the step (before scaling)
  bool overflow;       // max|g|·scale rounded past the format's max: step skipped
};

struct ScalerRun {
  std::vector<ScalerStep> steps;
  long long skipped = 0;
  double final_scale = 0, min_scale = 0, max_scale = 0;
};

// The largest |g| of each step is drawn exactly as the maximum of `grads_per_step` log-normal
// magnitudes (inverse CDF of F^n). steps <= kMaxScalerSteps.
inline constexpr long long kMaxScalerSteps = 20000;
ScalerRun simulate_dynamic_loss_scale(double mu_log2, double sigma_log2, double grads_per_step,
                                      const FloatFormat& fmt, long long steps, double init_scale,
                                      long long growth_interval, double growth_factor, double backoff_factor,
                                      std::uint64_t seed);


// The `loss-scaling` calculator: sampled and closed-form fractions at `loss_scale`, a histogram
// of log2|g·S| (one-binade bins around the distribution, at most ~80), the sweep of the closed
// form over S = 2^-10..2^40 with the scale that loses the least (zero + overflow), and the
// format's limits. Its numbers go through exp, log and erfc, so they are rounded to 12
// significant digits: native and WebAssembly builds (different libm) then print the same.
struct HistogramBin {
  int log2_lo = 0, log2_hi = 0;
  double fraction = 0;  // of the samples
};
struct ScaleSweepPoint {
  int log2_scale = 0;
  double zero = 0, subnormal = 0, overflow = 0;
  // Probability that a step of `grads_per_step` gradients has at least one overflow, which
  // skips the whole step: 1 − (1 − overflow)^n.
  double step_overflow = 0;
};
// Smallest power-of-two scale S >= 1 lifting `smallest_gradient` to min_subnormal and to
// min_normal (empty when S·g would overflow). Not rounded.
struct RequiredScales {
  std::optional<double> subnormal, normal;
};
struct LossScalingReport {
  std::string format;
  double loss_scale = 0;
  double zero_fraction = 0, subnormal_fraction = 0, normal_fraction = 0, overflow_fraction = 0;  // sampled
  GradientFractions model{};  // closed form
  long long samples = 0;
  double log2_min_subnormal = 0, log2_min_normal = 0, log2_max = 0;
  std::vector<HistogramBin> histogram;
  std::vector<ScaleSweepPoint> sweep;
  double best_log2_scale = 0, best_lost_fraction = 0;  // per gradient: an overflow counts as one value
  // The verdict that counts overflows per step: the largest scale of the sweep whose step
  // overflows with probability at most max_skip_fraction, and what it loses to zero.
  double grads_per_step = 0, max_skip_fraction = 0;
  double safe_log2_scale = 0, safe_zero_fraction = 0, safe_step_overflow = 0;
  double max = 0, min_normal = 0, min_subnormal = 0, epsilon = 0;
  std::optional<RequiredScales> required;  // when smallest_gradient is given
};
LossScalingReport loss_scaling_report(const FloatFormat& fmt, double mu_log2, double sigma_log2, double loss_scale,
                                      long long samples, std::uint64_t seed,
                                      std::optional<double> smallest_gradient, double grads_per_step = 1e8,
                                      double max_skip_fraction = 0.01);

// Probability that at least one of n gradients with per-gradient overflow probability p
// overflows: 1 − (1 − p)^n, computed without cancellation.
double step_overflow_probability(double p, double n);

// The `dynamic-loss-scale` calculator: simulate_dynamic_loss_scale, its steps thinned to every
// step where something happens plus an even sample (at most ~1,200 points), rounded to 12
// significant digits as above.
struct ScalerPoint {
  long long step = 0;
  double scale = 0, log2_scale = 0, log2_max_grad = 0;
  bool overflow = false;
};
struct DynamicScaleReport {
  std::string format;
  long long steps = 0, skipped_steps = 0;
  double skipped_fraction = 0, final_scale = 0, min_scale = 0, max_scale = 0, log2_max = 0;
  std::vector<ScalerPoint> series;
};
DynamicScaleReport dynamic_loss_scale_report(const FloatFormat& fmt, double mu_log2, double sigma_log2,
                                             double grads_per_step, long long steps, double init_scale,
                                             long long growth_interval, double growth_factor, double backoff_factor,
                                             std::uint64_t seed);

}  // namespace mlsys
