// Roofline costs of prefill and of one decode step (Pope et al. 2023, arXiv:2211.05102).
#include "mlsys/serving/decode.hpp"

#include <algorithm>

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

PhaseCost decode_step_cost(const ServingModel& m, double batch, double context, double peak_flops,
                           double bandwidth_Bps) {
  // One new query per sequence scores `context` keys and mixes `context` values.
  const double attention = 4.0 * m.layers * m.heads * m.head_dim * context;
  const double flops = batch * (2.0 * m.matmul_params + attention);
  const double bytes = m.weight_bytes + batch * context * m.kv_bytes_per_token;
  return bound(flops, bytes, peak_flops, bandwidth_Bps);
}

}  // namespace mlsys
