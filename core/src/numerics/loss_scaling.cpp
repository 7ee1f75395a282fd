// Loss scaling: static fractions and the dynamic scaler (see the header for sources).
#include "mlsys/numerics/loss_scaling.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys {

namespace {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

const double kPi = 3.14159265358979323846;

}  // namespace

double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  p = std::clamp(p, 1e-300, 1 - 1e-16);
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - 0.02425) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Newton step on Phi(x) = p.
  const double e = normal_cdf(x) - p;
  const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * kPi);
  if (pdf > 0) x -= e / pdf;
  return x;
}

GradientFractions gradient_fractions(double mu_log2, double sigma_log2, double loss_scale, const FloatFormat& fmt) {
  const double shift = mu_log2 + std::log2(loss_scale);
  const double zero_t = std::log2(fmt.min_subnormal / 2);
  const double normal_t = std::log2(fmt.min_normal);
  const double over_t = std::log2(fmt.max + std::ldexp(1.0, fmt.emax - fmt.mantissa_bits - 1));
  const double p_zero = normal_cdf((zero_t - shift) / sigma_log2);
  const double p_below_normal = normal_cdf((normal_t - shift) / sigma_log2);
  const double p_over = normal_cdf((shift - over_t) / sigma_log2);
  return {p_zero, p_below_normal - p_zero, std::max(0.0, 1 - p_below_normal - p_over), p_over};
}

GradientFractions sample_gradient_fractions(double mu_log2, double sigma_log2, double loss_scale,
                                            const FloatFormat& fmt, long long samples, std::uint64_t seed,
                                            std::vector<double>* log2_scaled) {
  SeededStream rng(mix_seed(seed, 0x632BE59BD9B4E019ULL));
  long long zero = 0, sub = 0, normal = 0, over = 0;
  if (log2_scaled) log2_scaled->clear();
  for (long long i = 0; i < samples; ++i) {
    const double z = rng.normal();  // polar method with log_det: identical natively and in WASM
    const double l = mu_log2 + sigma_log2 * z;
    const double g = std::exp2(l) * loss_scale;
    if (log2_scaled) log2_scaled->push_back(l + std::log2(loss_scale));
    const Rounded r = round_to_format(g, fmt);
    if (r.special != FloatSpecial::None) ++over;
    else if (r.value == 0) ++zero;
    else if (r.subnormal) ++sub;
    else ++normal;
  }
  const double n = static_cast<double>(samples);
  return {zero / n, sub / n, normal / n, over / n};
}

ScalerRun simulate_dynamic_loss_scale(double mu_log2, double sigma_log2, double grads_per_step,
                                      const FloatFormat& fmt, long long steps, double init_scale,
                                      long long growth_interval, double growth_factor, double backoff_factor,
                                      std::uint64_t seed) {
  SeededStream rng(mix_seed(seed, 0x632BE59BD9B4E019ULL));
  ScalerRun run;
  double scale = init_scale;
  run.min_scale = run.max_scale = scale;
  long long clean = 0;
  for (long long s = 0; s < steps; ++s) {
    // max of n iid: CDF F^n, so F(max) = u^(1/n); 1 − u^(1/n) = −expm1(ln u / n) keeps precision.
    const double tail = -std::expm1(log_det(rng.uniform_open()) / grads_per_step);
    const double l = mu_log2 - sigma_log2 * normal_quantile(tail);
    const Rounded r = round_to_format(std::exp2(l) * scale, fmt);
    const bool overflow = r.special != FloatSpecial::None;
    run.steps.push_back({s, scale, l, overflow});
    run.min_scale = std::min(run.min_scale, scale);
    run.max_scale = std::max(run.max_scale, scale);
    if (overflow) {
      ++run.skipped;
      scale = std::max(scale * backoff_factor, 0x1.0p-126);
      clean = 0;
    } else if (++clean >= growth_interval) {
      scale = std::min(scale * growth_factor, 0x1.0p+126);
      clean = 0;
    }
  }
  run.final_scale = scale;
  return run;
}


namespace {
// x to 12 significant digits (0 and non-finite unchanged).
double round12(double x) { return round_sig(x, 12); }
void round12(GradientFractions& g) {
  for (double* v : {&g.zero, &g.subnormal, &g.normal, &g.overflow}) *v = round12(*v);
}

// Smallest power-of-two scale S >= 1 with g·S >= threshold (empty if it would overflow).
std::optional<double> required_scale(double g, double threshold, const FloatFormat& f) {
  double s = 1;
  while (g * s < threshold) s *= 2;
  return g * s > f.max ? std::nullopt : std::optional<double>(s);
}
}  // namespace

double step_overflow_probability(double p, double n) {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  return -std::expm1(n * std::log1p(-p));
}

LossScalingReport loss_scaling_report(const FloatFormat& f, double mu, double sigma, double scale, long long samples,
                                      std::uint64_t seed, std::optional<double> smallest_gradient,
                                      double grads_per_step, double max_skip_fraction) {
  std::vector<double> logs;
  LossScalingReport r;
  r.format = f.name;
  r.loss_scale = round12(scale);
  const GradientFractions sampled = sample_gradient_fractions(mu, sigma, scale, f, samples, seed, &logs);
  r.zero_fraction = round12(sampled.zero);
  r.subnormal_fraction = round12(sampled.subnormal);
  r.normal_fraction = round12(sampled.normal);
  r.overflow_fraction = round12(sampled.overflow);
  r.model = gradient_fractions(mu, sigma, scale, f);
  round12(r.model);
  // Histogram of log2|g·S| in bins of one binade around the distribution.
  const double centre = mu + std::log2(scale);
  const int lo = static_cast<int>(std::floor(centre - 4.5 * sigma)), hi = static_cast<int>(std::ceil(centre + 4.5 * sigma));
  const int width = std::max(1, (hi - lo + 79) / 80);  // at most ~80 bins
  std::vector<long long> counts(static_cast<std::size_t>((hi - lo) / width + 1), 0);
  for (double l : logs) {
    const int b = static_cast<int>(std::floor((l - lo) / width));
    if (b >= 0 && b < static_cast<int>(counts.size())) ++counts[static_cast<std::size_t>(b)];
  }
  for (std::size_t i = 0; i < counts.size(); ++i)
    r.histogram.push_back({lo + static_cast<int>(i) * width, lo + static_cast<int>(i + 1) * width,
                           round12(static_cast<double>(counts[i]) / static_cast<double>(logs.size()))});
  double best = 0, best_loss = 2;
  // The first scale of the sweep is always taken as safe, so that the verdict exists even
  // where every scale skips more steps than allowed (then it is the smallest scale).
  bool have_safe = false;
  for (int k = -10; k <= 40; ++k) {
    const GradientFractions g = gradient_fractions(mu, sigma, std::ldexp(1.0, k), f);
    const double step = step_overflow_probability(g.overflow, grads_per_step);
    r.sweep.push_back({k, round12(g.zero), round12(g.subnormal), round12(g.overflow), round12(step)});
    if (g.zero + g.overflow < best_loss - 1e-12) best_loss = g.zero + g.overflow, best = k;
    if (!have_safe || step <= max_skip_fraction) {
      have_safe = true;
      r.safe_log2_scale = k;
      r.safe_zero_fraction = round12(g.zero);
      r.safe_step_overflow = round12(step);
    }
  }
  r.grads_per_step = round12(grads_per_step);
  r.max_skip_fraction = round12(max_skip_fraction);
  r.samples = static_cast<long long>(logs.size());
  r.log2_min_subnormal = round12(std::log2(f.min_subnormal));
  r.log2_min_normal = round12(std::log2(f.min_normal));
  r.log2_max = round12(std::log2(f.max));
  r.best_log2_scale = round12(best);
  r.best_lost_fraction = round12(best_loss);
  r.max = round12(f.max);
  r.min_normal = round12(f.min_normal);
  r.min_subnormal = round12(f.min_subnormal);
  r.epsilon = round12(f.epsilon);
  if (smallest_gradient) {
    const double g = *smallest_gradient;
    r.required = RequiredScales{required_scale(g, f.min_subnormal, f), required_scale(g, f.min_normal, f)};
  }
  return r;
}

DynamicScaleReport dynamic_loss_scale_report(const FloatFormat& f, double mu_log2, double sigma_log2,
                                             double grads_per_step, long long steps, double init_scale,
                                             long long growth_interval, double growth_factor, double backoff_factor,
                                             std::uint64_t seed) {
  const ScalerRun r = simulate_dynamic_loss_scale(mu_log2, sigma_log2, grads_per_step, f, steps, init_scale,
                                                  growth_interval, growth_factor, backoff_factor, seed);
  DynamicScaleReport out;
  // Keep every step where something happens, plus an even sample: at most ~1,200 points.
  const long long every = std::max<long long>(1, static_cast<long long>(r.steps.size()) / 600);
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    const bool changed = i == 0 || r.steps[i - 1].scale != s.scale || r.steps[i - 1].overflow;
    if (s.overflow || changed || s.step % every == 0 || i + 1 == r.steps.size())
      out.series.push_back(
          {s.step, round12(s.scale), round12(std::log2(s.scale)), round12(s.log2_max_grad), s.overflow});
  }
  const double n = static_cast<double>(r.steps.size());
  out.format = f.name;
  out.steps = static_cast<long long>(r.steps.size());
  out.skipped_steps = r.skipped;
  out.skipped_fraction = round12(static_cast<double>(r.skipped) / n);
  out.final_scale = round12(r.final_scale);
  out.min_scale = round12(r.min_scale);
  out.max_scale = round12(r.max_scale);
  out.log2_max = round12(std::log2(f.max));
  return out;
}

}  // namespace mlsys
