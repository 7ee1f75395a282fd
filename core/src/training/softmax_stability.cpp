// Softmax overflow per format and the max-subtraction fix: see softmax_stability.hpp.
#include "mlsys/training/softmax_stability.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/numerics/float_format.hpp"

namespace mlsys {

namespace {

const FloatFormat& format_of(const std::string& name) {
  if (name != "fp32" && name != "bf16" && name != "fp16")
    throw InputError("format", "Use fp32, bf16 or fp16 (got '" + name + "').");
  return float_format(name);
}

struct Kernels {
  std::optional<std::vector<double>> naive;
  std::vector<double> stable;
  std::vector<double> exact;
  bool exp_overflow = false, sum_overflow = false, sum_underflow = false;
  int naive_nan_count = 0;  // NaN entries of the row the framework returns
  std::optional<double> naive_sum;
  double log_z = 0;
  double stable_sum = 0;  // the stable kernel's fp32 sum of e^(x − max)
};

// Runs the naive, stable and exact softmax of the stored logits x (already in the format).
Kernels run_kernels(const std::vector<double>& x, const FloatFormat& f) {
  const FloatFormat& f32 = float_format("fp32");
  const auto r32 = [&](double v) { return round_value(v, f32); };
  const auto rf = [&](double v) { return round_value(v, f); };
  const std::size_t n = x.size();
  Kernels k;
  // Naive: e = exp(x) stored in F; s = sum(e) with an fp32 accumulator, stored in F; p = e / s.
  std::vector<double> e(n);
  for (std::size_t i = 0; i < n; ++i) {
    e[i] = rf(r32(exp_det(x[i])));
    if (std::isinf(e[i])) k.exp_overflow = true;
  }
  if (k.exp_overflow) {
    // The sum is +inf; e_i / inf is inf/inf = NaN for each overflowed exponential and
    // finite/inf = 0 for the rest: one NaN per overflowed entry, zeros elsewhere.
    for (double v : e) k.naive_nan_count += std::isinf(v) ? 1 : 0;
  }
  if (!k.exp_overflow) {
    double acc = 0;
    for (double v : e) acc = r32(acc + v);
    const double s = rf(acc);
    if (std::isinf(s)) {
      k.sum_overflow = true;
    } else {
      k.naive_sum = s;
    }
    if (s == 0) {
      k.sum_underflow = true;  // every e^x rounded to 0: 0/0 is NaN, the result is undefined
      k.naive_nan_count = static_cast<int>(n);
    } else {
      std::vector<double> p(n);
      for (std::size_t i = 0; i < n; ++i) p[i] = std::isinf(s) ? 0.0 : rf(r32(e[i] / s));
      k.naive = p;
    }
  }
  // Stable (fused, fp32 intermediates): m = max, exp(x − m), fp32 sum, divide, store in F.
  const double m = *std::max_element(x.begin(), x.end());
  std::vector<double> es(n);
  double acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    es[i] = r32(exp_det(r32(x[i] - m)));
    acc = r32(acc + es[i]);
  }
  k.stable.resize(n);
  for (std::size_t i = 0; i < n; ++i) k.stable[i] = rf(r32(es[i] / acc));
  k.stable_sum = acc;
  // Exact, in double.
  double sum = 0;
  std::vector<double> ex(n);
  for (std::size_t i = 0; i < n; ++i) {
    ex[i] = exp_det(x[i] - m);
    sum += ex[i];
  }
  k.exact.resize(n);
  for (std::size_t i = 0; i < n; ++i) k.exact[i] = ex[i] / sum;
  k.log_z = m + log_det(sum);
  return k;
}

}  // namespace

double softmax_round(double x, const std::string& format) { return round_value(x, format_of(format)); }

std::vector<double> logit_pattern(double max_logit, int count, double spacing) {
  if (count < 1 || count > kMaxSoftmaxLogits) throw InputError("count", "Use 1 to 4096 logits.");
  std::vector<double> x(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) x[static_cast<std::size_t>(i)] = max_logit - i * spacing;
  return x;
}

SoftmaxStabilityResult softmax_stability(const std::vector<double>& logits, const std::string& format, bool sweep) {
  const FloatFormat& f = format_of(format);
  if (logits.empty()) throw InputError("logits", "Give at least one logit.");
  if (logits.size() > static_cast<std::size_t>(kMaxSoftmaxLogits))
    throw InputError("logits", "Use at most 4096 logits.");
  SoftmaxStabilityResult r;
  r.format = format;
  r.format_max = f.max;
  r.overflow_threshold = log_det(f.max);
  r.logits.reserve(logits.size());
  for (double v : logits) {
    const double s = round_value(v, f);
    if (!std::isfinite(s)) throw InputError("logits", "A logit is past the format's largest value.");
    r.logits.push_back(s);
  }
  r.max_logit = *std::max_element(r.logits.begin(), r.logits.end());
  const Kernels k = run_kernels(r.logits, f);
  r.naive = k.naive;
  r.stable = k.stable;
  r.exact = k.exact;
  r.exp_overflow = k.exp_overflow;
  r.sum_overflow = k.sum_overflow;
  r.sum_underflow = k.sum_underflow;
  r.overflow = k.exp_overflow || k.sum_overflow;
  r.naive_sum = k.naive_sum;
  r.naive_nan_count = k.naive_nan_count;
  r.log_z = k.log_z;
  r.sum_overflow_threshold = r.overflow_threshold - (k.log_z - r.max_logit);
  for (std::size_t i = 0; i < r.exact.size(); ++i)
    r.stable_max_abs_error = std::max(r.stable_max_abs_error, std::fabs(r.stable[i] - r.exact[i]));
  if (r.naive) {
    double err = 0;
    for (std::size_t i = 0; i < r.exact.size(); ++i) err = std::max(err, std::fabs((*r.naive)[i] - r.exact[i]));
    r.naive_max_abs_error = err;
  }
  if (sweep) {
    if (logits.size() > static_cast<std::size_t>(kMaxSoftmaxSweepLogits))
      throw InputError("sweep", "The sweep takes at most 256 logits.");
    // The pattern of offsets from the largest logit, in exact arithmetic before storing.
    std::vector<double> offsets(logits.size());
    const double top = *std::max_element(logits.begin(), logits.end());
    for (std::size_t i = 0; i < logits.size(); ++i) offsets[i] = logits[i] - top;
    const auto top_index = static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    std::vector<SoftmaxSweepPoint> points;
    const int steps = static_cast<int>(kSoftmaxSweepMax / kSoftmaxSweepStep);
    std::vector<double> x(logits.size());
    for (int s = 0; s <= steps; ++s) {
      const double m = s * kSoftmaxSweepStep;
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = round_value(m + offsets[i], f);
      const Kernels kk = run_kernels(x, f);
      SoftmaxSweepPoint p;
      p.max_logit = m;
      if (kk.naive) p.naive_top = (*kk.naive)[top_index];
      p.stable_top = kk.stable[top_index];
      p.exact_top = kk.exact[top_index];
      p.exp_overflow = kk.exp_overflow;
      p.sum_overflow = kk.sum_overflow;
      p.sum_underflow = kk.sum_underflow;
      p.log_z = kk.log_z;
      if (kk.naive_sum && *kk.naive_sum > 0) p.naive_log_sum = log_det(*kk.naive_sum);
      p.stable_log_sum = log_det(kk.stable_sum);
      points.push_back(p);
    }
    r.sweep = std::move(points);
  }
  return r;
}

}  // namespace mlsys
