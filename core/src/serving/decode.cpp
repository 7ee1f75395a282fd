// Roofline costs of prefill and of one decode step (Pope et al. 2023, arXiv:2211.05102).
#include "mlsys/serving/decode.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/dtype.hpp"

namespace mlsys {

namespace {

PhaseCost bound(double flops, double bytes, double peak_flops, double bandwidth_Bps) {
  const double tc = flops / peak_flops, tm = bytes / bandwidth_Bps;
  return {flops, bytes, std::max(tc, tm), tc >= tm ? "compute" : "memory"};
}

}  // namespace

PhaseCost prefill_cost(const ServingModel& m, double batch, double prompt, double peak_flops, double bandwidth_Bps) {
  // Causal attention: query i scores i keys (QK^T) and mixes i values (PV), 2·head_dim FLOPs
  // each: sum over i of 4·head_dim·i = 2·head_dim·p·(p+1) per head and layer.
  const double attention = 2.0 * m.layers * m.heads * m.head_dim * prompt * (prompt + 1);
  const double flops = batch * (2.0 * m.matmul_params * prompt + attention);
  // Weights read once for the whole pass; the K and V of every prompt token written.
  const double bytes = m.weight_bytes + batch * prompt * m.kv_bytes_per_token;
  return bound(flops, bytes, peak_flops, bandwidth_Bps);
}

long long prefill_crossover_prompt(const ServingModel& m, double batch, double peak_flops, double bandwidth_Bps) {
  const auto compute_bound = [&](long long p) {
    return prefill_cost(m, batch, static_cast<double>(p), peak_flops, bandwidth_Bps).bound == "compute";
  };
  constexpr long long kMax = 1LL << 24;
  if (!compute_bound(kMax)) return 0;
  long long lo = 1, hi = kMax;  // a single sign change (convex, negative at 0): bisect
  while (lo < hi) {
    const long long mid = (lo + hi) / 2;
    if (compute_bound(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

PhaseCost decode_step_cost(const ServingModel& m, double batch, double context, double peak_flops,
                           double bandwidth_Bps) {
  // One new query per sequence scores `context` keys and mixes `context` values.
  const double attention = 4.0 * m.layers * m.heads * m.head_dim * context;
  const double flops = batch * (2.0 * m.matmul_params + attention);
  const double bytes = m.weight_bytes + batch * context * m.kv_bytes_per_token;
  return bound(flops, bytes, peak_flops, bandwidth_Bps);
}

ServedModel served_model(const ModelConfig& config, std::optional<double> params) {
  ServedModel m;
  m.config = config;
  const ModelConfig& c = m.config;
  if (params) {
    m.resident_params = m.matmul_params = *params;
  } else {
    const ModelCounts n = model_counts(c);
    m.resident_params = n.params;
    // Every layer plus the output head (vocab × hidden); the embedding lookup reads one row.
    m.matmul_params = n.params_non_embedding + c.vocab * c.hidden;
  }
  return m;
}

std::string serving_compute_dtype(const std::string& weight_dtype) {
  return weight_dtype == "int4" ? "bf16" : weight_dtype;
}

ServingModel serving_model(const ServedModel& m, const std::string& weight_dtype, const std::string& kv_dtype) {
  const ModelConfig& c = m.config;
  return {m.matmul_params, m.matmul_params * dtype_bytes(weight_dtype),
          kv_bytes_per_token(c.layers, c.kv_heads, c.head_dim, dtype_bytes(kv_dtype)), c.layers, c.heads, c.head_dim};
}

namespace {

PhaseRoofline phase_roofline(const PhaseCost& p, double peak_flops, double bandwidth_Bps) {
  return {p, p.flops / peak_flops, p.bytes / bandwidth_Bps};
}

}  // namespace

DecodeEstimate decode_estimate(const ServedModel& m, const std::string& weight_dtype, const std::string& kv_dtype,
                               double batch, double context, double prompt, double peak_flops, double bandwidth_Bps,
                               std::optional<double> hbm_bytes) {
  const ServingModel sm = serving_model(m, weight_dtype, kv_dtype);
  const PhaseCost pre = prefill_cost(sm, batch, prompt, peak_flops, bandwidth_Bps);
  const PhaseCost dec = decode_step_cost(sm, batch, context, peak_flops, bandwidth_Bps);
  DecodeEstimate r;
  r.ttft_s = pre.time_s;
  r.tpot_s = dec.time_s;
  r.tokens_per_s = batch / dec.time_s;
  r.bound = dec.bound;
  r.prefill_bound = pre.bound;
  r.prefill = phase_roofline(pre, peak_flops, bandwidth_Bps);
  r.decode_step = phase_roofline(dec, peak_flops, bandwidth_Bps);
  r.decode_intensity = dec.flops / dec.bytes;
  r.ridge_intensity = peak_flops / bandwidth_Bps;
  r.prefill_crossover_prompt = prefill_crossover_prompt(sm, batch, peak_flops, bandwidth_Bps);
  r.weight_bytes = sm.weight_bytes;
  r.weights_resident_bytes = m.resident_params * dtype_bytes(weight_dtype);
  r.kv_bytes_per_token = sm.kv_bytes_per_token;
  r.kv_bytes = batch * context * sm.kv_bytes_per_token;
  r.matmul_params = m.matmul_params;
  r.compute_dtype = serving_compute_dtype(weight_dtype);
  r.peak_flops = peak_flops;
  r.bandwidth_Bps = bandwidth_Bps;
  if (hbm_bytes) {
    const double need =
        m.resident_params * dtype_bytes(weight_dtype) + batch * std::max(context, prompt) * sm.kv_bytes_per_token;
    r.hbm_bytes = *hbm_bytes;
    r.memory_needed_bytes = need;
    r.fits = need <= *hbm_bytes;
  }
  return r;
}

DecodeCurve decode_curve(const ServedModel& m, const std::string& weight_dtype, const std::string& kv_dtype,
                         double context, long long max_batch, double peak_flops, double bandwidth_Bps,
                         std::optional<double> hbm_bytes) {
  const ServingModel sm = serving_model(m, weight_dtype, kv_dtype);
  const long long max_b = max_batch;
  std::vector<long long> bs;
  for (int i = 0; i <= 60; ++i) bs.push_back(std::llround(std::pow(static_cast<double>(max_b), i / 60.0)));
  bs.erase(std::unique(bs.begin(), bs.end()), bs.end());
  DecodeCurve r;
  for (long long b : bs) {
    const PhaseCost d = decode_step_cost(sm, static_cast<double>(b), context, peak_flops, bandwidth_Bps);
    r.series.push_back(
        {b, d.time_s, static_cast<double>(b) / d.time_s, d.bytes / bandwidth_Bps, d.flops / peak_flops, d.bound});
  }
  long long crossover = 0;  // the step's bound is monotone in the batch: bisect
  if (decode_step_cost(sm, static_cast<double>(max_b), context, peak_flops, bandwidth_Bps).bound == "compute") {
    long long lo = 1, hi = max_b;
    while (lo < hi) {
      const long long mid = (lo + hi) / 2;
      if (decode_step_cost(sm, static_cast<double>(mid), context, peak_flops, bandwidth_Bps).bound == "compute")
        hi = mid;
      else
        lo = mid + 1;
    }
    crossover = lo;
  }
  r.crossover_batch = crossover;
  r.weight_bytes = sm.weight_bytes;
  r.kv_bytes_per_token = sm.kv_bytes_per_token;
  r.peak_flops = peak_flops;
  r.bandwidth_Bps = bandwidth_Bps;
  if (hbm_bytes) {
    const double free = 0.9 * *hbm_bytes - m.resident_params * dtype_bytes(weight_dtype);  // kv-capacity's default share
    r.max_batch_fits = free > 0 ? std::floor(free / (context * sm.kv_bytes_per_token)) : 0.0;
  }
  return r;
}

ServingCapacity serving_capacity(const ServedModel& m, const std::string& weight_dtype, const std::string& kv_dtype,
                                 double hbm_bytes, double memory_fraction, double context) {
  ServingCapacity r;
  r.weights_bytes = m.resident_params * dtype_bytes(weight_dtype);
  r.kv_bytes_per_token =
      kv_bytes_per_token(m.config.layers, m.config.kv_heads, m.config.head_dim, dtype_bytes(kv_dtype));
  r.hbm_bytes = hbm_bytes;
  r.capacity = kv_capacity(hbm_bytes, memory_fraction, r.weights_bytes, r.kv_bytes_per_token, context);
  r.weights_fit = r.capacity.free_bytes > 0;
  r.params = m.resident_params;
  r.series = kv_capacity_series(hbm_bytes, memory_fraction, r.weights_bytes, r.kv_bytes_per_token);
  return r;
}

}  // namespace mlsys
