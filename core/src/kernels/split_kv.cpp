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
#include "mlsys/foundations/units.hpp"
#include "mlsys/gpu/gpu_table.hpp"
#include "mlsys/gpu/latency_hiding.hpp"
#include "mlsys/gpu/occupancy.hpp"
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

double streaming_kernel_time(double blocks, double block_bytes, double in_flight, const SplitKvMachine& m) {
  const double slots = m.sms * m.blocks_per_sm;
  // The bandwidth n resident blocks draw. latency_hiding counts warps per SM; a block is the
  // unit here, so "warps per SM" is blocks per busy SM and "bytes per warp" a block's in flight.
  const auto wave = [&](double n) {
    const double busy = std::min(n, m.sms);
    const double bw = latency_hiding(m.bandwidth_Bps, m.latency_s, busy, n / busy, in_flight).achieved_bandwidth_Bps;
    return n * block_bytes / bw;
  };
  const double full = std::floor(blocks / slots), rest = blocks - full * slots;
  return m.launch_s + (full > 0 ? full * wave(slots) : 0.0) + (rest > 0 ? wave(rest) : 0.0);
}

SplitKvTiming split_kv_time(double n, double d, double heads, double batch, double elem_bytes, double splits,
                            const SplitKvMachine& m) {
  if (!(n >= 1 && d >= 1 && heads >= 1 && batch >= 1 && elem_bytes > 0 && splits >= 1 && splits <= n &&
        m.sms >= 1 && m.blocks_per_sm >= 1 && m.bandwidth_Bps > 0 && m.latency_s > 0 && m.launch_s >= 0 &&
        m.tile_keys >= 1))
    throw std::invalid_argument("split_kv_time: invalid sizes");
  SplitKvTiming t;
  t.splits = splits;
  t.chunk_keys = std::ceil(n / splits);
  t.blocks = batch * heads * splits;
  t.waves = std::ceil(t.blocks / (m.sms * m.blocks_per_sm));
  t.active_sms = std::min(t.blocks, m.sms);
  t.resident_blocks = std::min(t.blocks, m.sms * m.blocks_per_sm);
  t.bytes_in_flight_per_block = std::min(m.tile_keys, t.chunk_keys) * d * elem_bytes;
  t.wave_bandwidth_Bps = std::min(m.bandwidth_Bps, t.resident_blocks * t.bytes_in_flight_per_block / m.latency_s);
  t.fraction_of_peak = t.wave_bandwidth_Bps / m.bandwidth_Bps;
  // Per block: its query, its chunk of K and V, and its output (a partial in fp32 with its
  // logsumexp, or the final output in the dtype when there is one split).
  const double out_bytes = splits > 1 ? (d + 1) * 4.0 : d * elem_bytes;
  const double block_bytes = d * elem_bytes + 2.0 * t.chunk_keys * d * elem_bytes + out_bytes;
  t.main_time_s = streaming_kernel_time(t.blocks, block_bytes, t.bytes_in_flight_per_block, m);
  if (splits > 1) {
    // One merge block per (sequence, head) reads its s partials, all in flight at once at most
    // a tile's worth, and writes the output.
    const double merge_block_bytes = splits * (d + 1) * 4.0 + d * elem_bytes;
    const double merge_in_flight = std::min(merge_block_bytes, m.tile_keys * d * elem_bytes);
    t.merge_time_s = streaming_kernel_time(batch * heads, merge_block_bytes, merge_in_flight, m);
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
  const SmLimits limits = sm_limits_of(*hw);  // InputError on "hardware" off NVIDIA GPUs
  const auto& row = hw->json();
  SplitKvMachine m;
  m.sms = q.sms ? *q.sms : row.at("sms").get<double>();
  m.bandwidth_Bps = q.bandwidth_Bps ? *q.bandwidth_Bps : hw->hbm_bandwidth_Bps;
  if (q.latency_s) m.latency_s = *q.latency_s;
  else if (row.contains("hbm_latency_s") && row["hbm_latency_s"].is_number()) m.latency_s = row["hbm_latency_s"].get<double>();
  else
    throw InputError("latency_s", "The hardware table has no measured HBM latency for the " + hw->name +
                                      "; give 'latency_s' or choose an A100, H100 or H200.");
  m.launch_s = q.launch_s;
  m.tile_keys = static_cast<double>(q.tile_keys);
  // The block's resources: the query rows and one tile each of K and V in shared memory.
  const long long smem = (q.query_rows + 2 * q.tile_keys) * d * static_cast<long long>(s);
  if (smem > limits.max_smem_per_block_bytes)
    throw InputError("tile_keys", "A block's query rows and K and V tiles need " + format_int(static_cast<double>(smem)) +
                                      " bytes of shared memory; one block may use at most " +
                                      format_int(static_cast<double>(limits.max_smem_per_block_bytes)) + " on the " +
                                      hw->name + ". Use fewer tile keys or query rows.");
  const KernelResources block{static_cast<int>(q.threads_per_block), static_cast<int>(q.registers_per_thread), smem};
  check_resources(*hw, limits, block);
  const Occupancy occ = occupancy(limits, block);
  if (occ.blocks_per_sm < 1) throw InputError("registers_per_thread", occ.launch_error);
  m.blocks_per_sm = occ.blocks_per_sm;
  const double heads = static_cast<double>(q.heads), batch = static_cast<double>(q.batch);
  const auto at = [&](double k) {
    return split_kv_time(static_cast<double>(n), static_cast<double>(d), heads, batch, s, k, m);
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
  r.sms = m.sms;
  r.bandwidth_Bps = m.bandwidth_Bps;
  r.latency_s = m.latency_s;
  r.blocks_per_sm = m.blocks_per_sm;
  r.smem_per_block_bytes = static_cast<double>(smem);
  r.occupancy_limiter = occ.limiter;
  // Little's law: B·L bytes in flight saturate HBM; each block with a full tile holds T·d·s.
  r.saturating_blocks = std::ceil(m.bandwidth_Bps * m.latency_s / (m.tile_keys * d * s) - 1e-9);
  r.saturating_splits = std::min(static_cast<double>(n), std::ceil(r.saturating_blocks / (batch * heads) - 1e-9));
  r.kv_bytes = 2.0 * batch * heads * static_cast<double>(n) * static_cast<double>(d) * s;
  r.partial_bytes = r.chosen.partial_bytes;
  r.ideal_time_s = split_kv_ideal_time(static_cast<double>(n), static_cast<double>(d), heads, batch, s, m.bandwidth_Bps);
  r.no_split_time_s = one.time_s;
  r.speedup = one.time_s / r.chosen.time_s;
  r.best_splits = best.splits;
  r.best_time_s = best.time_s;
  r.best_speedup = one.time_s / best.time_s;
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
