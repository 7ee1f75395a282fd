// Split-KV decoding: partial softmaxes over chunks of keys merged by logsumexp, and the
// latency model of Flash-Decoding's two kernels.
#include "mlsys/kernels/split_kv.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/kernels/attention_naive.hpp"
#include "mlsys/kernels/online_softmax.hpp"

namespace mlsys {

namespace {
// Online softmax of q against keys [begin, end): max, sum and normalized output.
SplitPartialResult partial(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                           int d, int begin, int end, float tau) {
  SplitPartialResult r;
  r.begin = begin;
  r.end = end;
  float m = -std::numeric_limits<float>::infinity(), l = 0;
  std::vector<float> acc(static_cast<std::size_t>(d), 0.0f);
  for (int j = begin; j < end; ++j) {
    float s = 0;
    for (int t = 0; t < d; ++t) s += q[t] * k[static_cast<std::size_t>(j) * d + t];
    s *= tau;
    if (s > m) {  // a new maximum: rescale what was accumulated
      const float alpha = (l == 0) ? 0.0f : expf_det(m - s);
      l *= alpha;
      for (auto& a : acc) a *= alpha;
      m = s;
    }
    const float e = expf_det(s - m);
    l += e;
    for (int t = 0; t < d; ++t) acc[t] += e * v[static_cast<std::size_t>(j) * d + t];
  }
  r.m = m;
  r.l = l;
  r.lse = static_cast<float>(m + log_det(l));
  r.o.resize(static_cast<std::size_t>(d));
  for (int t = 0; t < d; ++t) r.o[t] = acc[t] / l;
  return r;
}
}  // namespace

SplitKvResult split_kv_attention(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                                 int n, int d, int splits) {
  if (n < 1 || d < 1 || splits < 1 || splits > n) throw std::invalid_argument("split_kv_attention: need 1 <= splits <= n");
  const float tau = attention_scale(d);
  SplitKvResult r;
  for (int c = 0; c < splits; ++c) {
    const int begin = static_cast<int>(static_cast<long long>(c) * n / splits);
    const int end = static_cast<int>(static_cast<long long>(c + 1) * n / splits);
    r.partials.push_back(partial(q, k, v, d, begin, end, tau));
  }
  // Merge: lse = max + ln Σ e^(lse_c − max); o = Σ e^(lse_c − lse)·o_c.
  float top = -std::numeric_limits<float>::infinity();
  for (const auto& p : r.partials) top = std::max(top, p.lse);
  float sum = 0;
  for (const auto& p : r.partials) sum += expf_det(p.lse - top);
  const float lse = static_cast<float>(top + log_det(sum));
  r.merged.assign(static_cast<std::size_t>(d), 0.0f);
  for (const auto& p : r.partials) {
    const float w = expf_det(p.lse - lse);
    for (int t = 0; t < d; ++t) r.merged[t] += w * p.o[t];
  }
  r.single = partial(q, k, v, d, 0, n, tau).o;

  // fp64 reference.
  std::vector<double> s(static_cast<std::size_t>(n));
  const double tau64 = 1.0 / std::sqrt(static_cast<double>(d));
  for (int j = 0; j < n; ++j) {
    double acc = 0;
    for (int t = 0; t < d; ++t) acc += static_cast<double>(q[t]) * k[static_cast<std::size_t>(j) * d + t];
    s[j] = acc * tau64;
  }
  const auto p = softmax_fp64(s);
  r.reference.assign(static_cast<std::size_t>(d), 0.0);
  for (int j = 0; j < n; ++j)
    for (int t = 0; t < d; ++t) r.reference[t] += p[j] * v[static_cast<std::size_t>(j) * d + t];
  for (int t = 0; t < d; ++t) {
    r.max_abs_diff = std::max(r.max_abs_diff, std::fabs(static_cast<double>(r.merged[t]) - r.single[t]));
    r.merged_error = std::max(r.merged_error, std::fabs(r.merged[t] - r.reference[t]));
    r.single_error = std::max(r.single_error, std::fabs(r.single[t] - r.reference[t]));
  }
  return r;
}

SplitKvTiming split_kv_time(double n, double d, double heads, double batch, double elem_bytes, double splits,
                            double sms, double bandwidth_Bps, double launch_s) {
  if (!(n >= 1 && d >= 1 && heads >= 1 && batch >= 1 && elem_bytes > 0 && splits >= 1 && splits <= n && sms >= 1 &&
        bandwidth_Bps > 0 && launch_s >= 0))
    throw std::invalid_argument("split_kv_time: invalid sizes");
  SplitKvTiming t;
  t.splits = splits;
  t.chunk_keys = std::ceil(n / splits);
  t.blocks = batch * heads * splits;
  t.waves = std::ceil(t.blocks / sms);
  t.active_sms = std::min(t.blocks, sms);
  const double sm_bandwidth = bandwidth_Bps / sms;
  // Per block: its query, its chunk of K and V, and its output (a partial in fp32 with its
  // logsumexp, or the final output in the dtype when there is one split).
  const double out_bytes = splits > 1 ? (d + 1) * 4.0 : d * elem_bytes;
  const double block_bytes = d * elem_bytes + 2.0 * t.chunk_keys * d * elem_bytes + out_bytes;
  t.main_time_s = launch_s + t.waves * block_bytes / sm_bandwidth;
  if (splits > 1) {
    const double merge_blocks = batch * heads;
    const double merge_block_bytes = splits * (d + 1) * 4.0 + d * elem_bytes;
    t.merge_time_s = launch_s + std::ceil(merge_blocks / sms) * merge_block_bytes / sm_bandwidth;
    t.partial_bytes = batch * heads * splits * (d + 1) * 4.0;
  }
  t.time_s = t.main_time_s + t.merge_time_s;
  return t;
}

double split_kv_ideal_time(double n, double d, double heads, double batch, double elem_bytes, double bandwidth_Bps) {
  return 2.0 * batch * heads * n * d * elem_bytes / bandwidth_Bps;
}

SplitKvReport split_kv_report(const SplitKvQuery& q) {
  constexpr double kSplitMaxWork = 1048576;      // executed: N·d <= 2^20
  constexpr long long kSplitMaxContext = 65536;  // and N <= 65,536
  const long long n = q.context, d = q.head_dim, splits = q.splits;
  if (splits > n) throw InputError("splits", "'splits' cannot exceed 'context': each split needs at least one key.");
  const double s = dtype_bytes(q.dtype);
  const Accelerator* hw = find_accelerator(q.hardware);
  double sms = 0;
  if (q.sms) sms = *q.sms;
  else if (hw->json().contains("sms") && hw->json()["sms"].is_number()) sms = hw->json()["sms"].get<double>();
  else throw InputError("sms", hw->name + " has no SM count in the hardware table; give 'sms'.");
  const double bandwidth = q.bandwidth_Bps ? *q.bandwidth_Bps : hw->hbm_bandwidth_Bps;
  const double heads = static_cast<double>(q.heads), batch = static_cast<double>(q.batch);
  const double launch = q.launch_s;
  const auto at = [&](double k) {
    return split_kv_time(static_cast<double>(n), static_cast<double>(d), heads, batch, s, k, sms, bandwidth, launch);
  };
  SplitKvReport r;
  r.chosen = at(static_cast<double>(splits));
  const auto one = at(1);
  SplitKvTiming best = one;
  const long long max_splits = std::min(q.max_splits, n);
  for (long long k = 1; k <= max_splits; ++k) {
    const auto t = at(static_cast<double>(k));
    if (t.time_s < best.time_s) best = t;
    r.series.push_back(t);
  }
  r.sms = sms;
  r.bandwidth_Bps = bandwidth;
  r.kv_bytes = 2.0 * batch * heads * static_cast<double>(n) * static_cast<double>(d) * s;
  r.partial_bytes = r.chosen.partial_bytes;
  r.ideal_time_s = split_kv_ideal_time(static_cast<double>(n), static_cast<double>(d), heads, batch, s, bandwidth);
  r.no_split_time_s = one.time_s;
  r.speedup = one.time_s / r.chosen.time_s;
  r.best_splits = best.splits;
  r.best_time_s = best.time_s;
  r.executed = q.execute && n <= kSplitMaxContext && static_cast<double>(n) * static_cast<double>(d) <= kSplitMaxWork;
  if (r.executed) {
    const auto inputs = make_attention_inputs(static_cast<int>(n), static_cast<int>(d), q.seed);
    const std::vector<float> query(inputs.q.begin(), inputs.q.begin() + d);
    auto e = split_kv_attention(query, inputs.k, inputs.v, static_cast<int>(n), static_cast<int>(d),
                                static_cast<int>(splits));
    r.run = SplitKvExecuted{{}, e.max_abs_diff, e.merged_error, e.single_error};
    if (e.partials.size() <= 64) r.run->partials = std::move(e.partials);
  }
  return r;
}

}  // namespace mlsys
