// Loss scaling for low-precision gradients (Micikevicius et al., "Mixed Precision Training",
// ICLR 2018): gradient magnitudes modelled as log-normal, log2|g| ~ Normal(mu, sigma), are
// multiplied by a loss scale S and rounded to a format; the fractions that round to zero,
// land in the subnormal range, or overflow. And the dynamic loss scaler of PyTorch's
// GradScaler / NVIDIA Apex (start 2^16, halve and skip the step on inf/NaN, double after
// `growth_interval` clean steps), simulated over steps.
#pragma once
#include <cstdint>
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

}  // namespace mlsys
