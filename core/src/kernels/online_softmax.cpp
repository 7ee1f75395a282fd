// Softmax: unsafe, safe (three passes) and online (Milakov & Gimelshein 2018), with the
// deterministic exp/log of foundations/deterministic.hpp.
#include "mlsys/kernels/online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

std::vector<float> make_scores(int n, const std::string& pattern, float scale, std::uint64_t seed) {
  if (n < 1) throw std::invalid_argument("make_scores: n must be >= 1");
  std::vector<float> x(static_cast<std::size_t>(n));
  SeededStream rng(mix_seed(seed, 0x1234567ULL));
  for (int i = 0; i < n; ++i) {
    const double ramp = n == 1 ? 0.0 : -1.0 + 2.0 * i / (n - 1);
    double u;
    if (pattern == "random") u = 2.0 * rng.uniform() - 1.0;
    else if (pattern == "rising") u = ramp;
    else if (pattern == "falling") u = -ramp;
    else throw std::invalid_argument("make_scores: unknown pattern '" + pattern + "'");
    x[i] = static_cast<float>(scale * u);
  }
  return x;
}

std::vector<float> make_values(int n, std::uint64_t seed) {
  std::vector<float> v(static_cast<std::size_t>(n));
  SeededStream rng(mix_seed(seed, 0x7654321ULL));
  for (auto& x : v) x = static_cast<float>(2.0 * rng.uniform() - 1.0);
  return v;
}

std::vector<double> softmax_fp64(const std::vector<double>& x) {
  if (x.empty()) throw std::invalid_argument("softmax of an empty vector");
  const double m = *std::max_element(x.begin(), x.end());
  std::vector<double> p(x.size());
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += p[i] = exp_det(x[i] - m);
  for (auto& v : p) v /= sum;
  return p;
}

UnsafeSoftmax softmax_unsafe(const std::vector<float>& x) {
  UnsafeSoftmax r;
  r.p.resize(x.size());
  float sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    r.p[i] = expf_det(x[i]);
    if (std::isinf(r.p[i])) r.out_of_range = true;
    sum += r.p[i];
  }
  if (std::isinf(sum) || sum == 0) r.out_of_range = true;
  for (auto& v : r.p) v /= sum;
  return r;
}

std::vector<float> softmax_safe(const std::vector<float>& x) {
  if (x.empty()) throw std::invalid_argument("softmax of an empty vector");
  const float m = *std::max_element(x.begin(), x.end());  // pass 1
  std::vector<float> p(x.size());
  float sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += p[i] = expf_det(x[i] - m);  // pass 2
  for (auto& v : p) v /= sum;                                                     // pass 3
  return p;
}

OnlineSoftmaxResult online_softmax(const std::vector<float>& scores, const std::vector<float>& values, int block) {
  if (scores.empty() || scores.size() != values.size() || block < 1)
    throw std::invalid_argument("online_softmax: need n >= 1 scores, as many values, and block >= 1");
  const int n = static_cast<int>(scores.size());
  const float neg_inf = -std::numeric_limits<float>::infinity();
  OnlineSoftmaxResult r;
  float m = neg_inf, l = 0, o = 0;
  for (int b = 0, begin = 0; begin < n; ++b, begin += block) {
    const int end = std::min(n, begin + block);
    OnlineSoftmaxStep s;
    s.block = b;
    s.begin = begin;
    s.end = end;
    s.block_max = *std::max_element(scores.begin() + begin, scores.begin() + end);
    s.m_old = m;
    s.m_new = std::max(m, s.block_max);
    // Rescale what was accumulated against the old maximum so it is relative to the new one.
    s.rescale = m == neg_inf ? 0.0f : expf_det(m - s.m_new);
    l *= s.rescale;
    o *= s.rescale;
    for (int i = begin; i < end; ++i) {
      const float e = expf_det(scores[i] - s.m_new);
      l += e;
      o += e * values[i];
    }
    m = s.m_new;
    s.l = l;
    s.o = o;
    r.steps.push_back(s);
  }
  r.m = m;
  r.l = l;
  r.output = o / l;
  r.p.resize(scores.size());
  for (int i = 0; i < n; ++i) r.p[i] = expf_det(scores[i] - m) / l;
  return r;
}

double SoftmaxPartial::lse() const { return m + log_det(l); }

MergedPartial merge_partials(const SoftmaxPartial& a, const SoftmaxPartial& b) {
  MergedPartial r;
  const double m = std::max(a.m, b.m);
  r.scale_a = exp_det(a.m - m);
  r.scale_b = exp_det(b.m - m);
  const double la = a.l * r.scale_a, lb = b.l * r.scale_b;
  const double l = la + lb;
  r.weight_a = la / l;
  r.weight_b = lb / l;
  r.merged = {m, l, r.weight_a * a.o + r.weight_b * b.o};
  return r;
}

OnlineSoftmaxStepper online_softmax_stepper(int n, long long block_size, const std::string& pattern, float scale,
                                            std::uint64_t seed, long long step) {
  const long long kMaxBlocks = kMaxSoftmaxBlocks;
  const int block = static_cast<int>(std::min<long long>(block_size, n));
  if ((n + block - 1) / block > kMaxBlocks)
    throw InputError("block", "'length' / 'block' gives " + std::to_string((n + block - 1) / block) +
                                  " blocks; at most " + std::to_string(kMaxBlocks) + " (use a block of at least " +
                                  std::to_string((n + kMaxBlocks - 1) / kMaxBlocks) + ").");
  const auto scores = make_scores(n, pattern, scale, seed);
  const auto values = make_values(n, seed);
  const auto r = online_softmax(scores, values, block);

  // fp64 reference: the same recurrence in double for each prefix, and the two-pass softmax.
  std::vector<double> x(scores.begin(), scores.end());
  const auto p_exact = softmax_fp64(x);
  double exact_output = 0;
  for (int i = 0; i < n; ++i) exact_output += p_exact[i] * values[i];

  OnlineSoftmaxStepper out;
  double m = -std::numeric_limits<double>::infinity(), l = 0, o = 0;
  for (const auto& s : r.steps) {
    const double m_new = std::max(m, static_cast<double>(s.block_max));
    const double a = std::isinf(m) ? 0.0 : exp_det(m - m_new);
    l *= a;
    o *= a;
    for (int i = s.begin; i < s.end; ++i) {
      const double e = exp_det(x[i] - m_new);
      l += e;
      o += e * values[i];
    }
    m = m_new;
    const double estimate = static_cast<double>(s.o) / s.l;
    out.steps.push_back({s.block, s.begin, s.end, s.block_max,
                         std::isinf(s.m_old) ? std::nullopt : std::optional<float>(s.m_old), s.m_new, s.rescale, s.l,
                         s.o, estimate, o / l, std::fabs(estimate - o / l)});
  }
  double prob_error = 0;
  for (int i = 0; i < n; ++i) prob_error = std::max(prob_error, std::fabs(r.p[i] - p_exact[i]));
  const auto naive = softmax_unsafe(scores);
  out.blocks = r.steps.size();
  out.block = block;
  out.scores = scores;
  out.values = values;
  out.m = r.m;
  out.l = r.l;
  out.output = r.output;
  out.exact_output = exact_output;
  out.output_error = std::fabs(r.output - exact_output);
  out.probabilities = r.p;
  out.max_prob_error = prob_error;
  out.rescales = std::count_if(r.steps.begin() + 1, r.steps.end(),
                               [](const OnlineSoftmaxStep& s) { return s.m_new > s.m_old; });
  out.naive_out_of_range = naive.out_of_range;
  // The weights e^(x − m) of the keys read by the chosen step, relative to the running max after
  // it, and (before the rescale) relative to the max before it: what the stepper draws.
  const int k = static_cast<int>(std::min<long long>(step, static_cast<long long>(r.steps.size())));
  const auto& cur = r.steps[static_cast<std::size_t>(k - 1)];
  std::vector<float> after(static_cast<std::size_t>(cur.end)), before(static_cast<std::size_t>(cur.begin));
  for (int i = 0; i < cur.end; ++i) after[i] = expf_det(scores[i] - cur.m_new);
  for (int i = 0; i < cur.begin; ++i) before[i] = expf_det(scores[i] - cur.m_old);
  out.step = k;
  out.step_weights = after;
  out.step_weights_before = before;
  if (!naive.out_of_range) {
    double e = 0;
    for (int i = 0; i < n; ++i) e = std::max(e, std::fabs(naive.p[i] - p_exact[i]));
    out.naive_max_prob_error = e;
  }
  return out;
}

}  // namespace mlsys
