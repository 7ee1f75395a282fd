// Low-precision summation, emulated exactly (see the header for sources).
#include "mlsys/numerics/summation.hpp"

#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {


double pairwise(const double* x, std::size_t n, const FloatFormat& acc) {
  if (n == 1) return x[0];
  const std::size_t h = n / 2;
  return round_value(pairwise(x, h, acc) + pairwise(x + h, n - h, acc), acc);
}

struct Kahan {
  double s = 0, c = 0;
  void add(double v, const FloatFormat& f) {
    const double y = round_value(v - c, f);
    const double t = round_value(s + y, f);
    c = round_value(round_value(t - s, f) - y, f);
    s = t;
  }
};

}  // namespace

std::vector<double> summation_addends(double value, long long count, bool uniform, std::uint64_t seed,
                                      const FloatFormat& fmt) {
  std::vector<double> x(static_cast<std::size_t>(count));
  SeededStream rng(mix_seed(seed, 0x632BE59BD9B4E019ULL));
  for (auto& v : x) {
    const double u = uniform ? 2.0 * rng.uniform() : 1.0;
    v = round_value(value * u, fmt);
  }
  return x;
}

double naive_sum(const std::vector<double>& x, const FloatFormat& acc) {
  double s = 0;
  for (double v : x) s = round_value(s + v, acc);
  return s;
}

double kahan_sum(const std::vector<double>& x, const FloatFormat& acc) {
  Kahan k;
  for (double v : x) k.add(v, acc);
  return k.s;
}

double pairwise_sum(const std::vector<double>& x, const FloatFormat& acc) {
  return x.empty() ? 0.0 : pairwise(x.data(), x.size(), acc);
}

double exact_sum(const std::vector<double>& x) {
  double s = 0, c = 0;  // Neumaier: exact for these few-bit addends of similar size
  for (double v : x) {
    const double t = s + v;
    c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
    s = t;
  }
  return s + c;
}

SummationSeries summation_series(const std::vector<double>& x, const FloatFormat& low, bool constant, int samples) {
  const FloatFormat& f32 = float_format("fp32");
  const long long n = static_cast<long long>(x.size());
  // Sample steps: log-spaced from 1 to n, plus every step up to `samples`/4 when n is small.
  std::vector<long long> marks;
  for (int i = 0; i <= samples; ++i) {
    const long long k = std::llround(std::pow(static_cast<double>(n), static_cast<double>(i) / samples));
    if (k >= 1 && (marks.empty() || k > marks.back())) marks.push_back(k);
  }
  SummationSeries out{};
  out.lost_additions = 0;
  double naive = 0, fp32 = 0, ex = 0, exc = 0;
  Kahan kahan;
  std::vector<double> stack;              // pairwise block sums, sizes 2^j (binary counter)
  std::vector<long long> sizes;
  std::size_t next_mark = 0;
  for (long long i = 0; i < n; ++i) {
    const double v = x[static_cast<std::size_t>(i)];
    const double before = naive;
    naive = round_value(naive + v, low);
    if (naive != before) out.last_growth_step = i + 1;
    if (v != 0 && naive == before && std::isfinite(before)) {
      ++out.lost_additions;
      if (constant && !out.stall_count) {
        out.stall_count = i;
        out.stall_sum = naive;
      }
    }
    fp32 = round_value(fp32 + v, f32);
    kahan.add(v, low);
    const double t = ex + v;
    exc += std::fabs(ex) >= std::fabs(v) ? (ex - t) + v : (v - t) + ex;
    ex = t;
    stack.push_back(v);
    sizes.push_back(1);
    while (sizes.size() >= 2 && sizes[sizes.size() - 1] == sizes[sizes.size() - 2]) {
      const double b = stack.back();
      stack.pop_back();
      sizes.pop_back();
      stack.back() = round_value(stack.back() + b, low);
      sizes.back() *= 2;
    }
    if (next_mark < marks.size() && marks[next_mark] == i + 1) {
      double pw = 0;  // current pairwise total: the blocks combined smallest first
      for (std::size_t j = stack.size(); j-- > 0;) pw = j + 1 == stack.size() ? stack[j] : round_value(pw + stack[j], low);
      out.points.push_back({i + 1, ex + exc, naive, fp32, kahan.s, pw});
      ++next_mark;
    }
  }
  const SummationPoint last = out.points.empty() ? SummationPoint{0, 0, 0, 0, 0, 0} : out.points.back();
  out.exact = last.exact;
  out.naive = last.naive;
  out.fp32 = last.fp32;
  out.kahan = last.kahan;
  out.pairwise = last.pairwise;
  return out;
}


SummationReport summation_report(const std::string& format, double value, long long count, bool uniform,
                                 std::uint64_t seed) {
  const FloatFormat& f = float_format(format);
  const bool constant = !uniform;
  const auto x = summation_addends(value, count, !constant, seed, f);
  for (double v : x)
    if (!std::isfinite(v))
      throw InputError("value", "The addends exceed the largest " + f.name + " value; choose a smaller value.");
  const SummationSeries s = summation_series(x, f, constant, 160);
  if (s.exact == 0) throw InputError("value", "Every addend rounds to zero in " + f.name + "; choose a larger value.");
  const double recursive = pairwise_sum(x, f);
  bool overflow = false;
  for (const auto& p : s.points)
    for (double v : {p.naive, p.fp32, p.kahan, p.pairwise}) overflow = overflow || !std::isfinite(v);
  auto rel = [&](double v) { return std::isfinite(v) ? std::optional<double>(std::fabs(v - s.exact) / s.exact) : std::nullopt; };
  SummationReport r;
  r.format = f.name;
  r.distribution = constant ? "constant" : "uniform";
  r.addend = x.front();
  r.count = static_cast<long long>(x.size());
  r.exact = s.exact;
  r.naive = s.naive;
  r.fp32 = s.fp32;
  r.kahan = s.kahan;
  r.pairwise = s.pairwise;
  r.pairwise_recursive = recursive;
  r.rel_error_naive = rel(s.naive);
  r.rel_error_fp32 = rel(s.fp32);
  r.rel_error_kahan = rel(s.kahan);
  r.rel_error_pairwise = rel(s.pairwise);
  r.lost_additions = s.lost_additions;
  r.stall_count = s.stall_count;
  r.stall_sum = s.stall_sum;
  r.last_growth_step = s.last_growth_step;
  r.frozen_additions = r.count - s.last_growth_step;
  r.overflow = overflow || !std::isfinite(recursive);
  r.max = f.max;
  r.series = s.points;
  return r;
}

}  // namespace mlsys
