// Roofline model of LLM inference: prefill (time to first token) and one decode step (time
// per output token). Prefill of p prompt tokens costs 2·N·p FLOPs per sequence for the weight
// matmuls plus causal attention 2·layers·heads·head_dim·p·(p+1); one decode step costs 2·N
// FLOPs per sequence plus 4·layers·heads·head_dim·context for attention, and must read every
// weight once plus the whole KV cache of the batch (Pope et al. 2023, arXiv:2211.05102;
// Kwon et al. 2023). Ideal bound: peak FLOP/s and full HBM bandwidth, nothing overlapped
// away, activations and kernel launches ignored; real engines reach a fraction of it.
#pragma once
#include <string>

namespace mlsys {

struct ServingModel {
  double matmul_params;       // N: parameters multiplied per token (layers + output head)
  double weight_bytes;        // bytes of weights streamed from HBM per forward pass
  double kv_bytes_per_token;  // 2 · layers · kv_heads · head_dim · kv bytes
  double layers, heads, head_dim;
};

struct PhaseCost {
  double flops;
  double bytes;
  double time_s;       // max(flops / peak, bytes / bandwidth)
  std::string bound;   // "compute" or "memory"
};

// Prefill of `prompt` tokens for each of `batch` sequences (one forward pass).
PhaseCost prefill_cost(const ServingModel& m, double batch, double prompt, double peak_flops, double bandwidth_Bps);

// One decode step: `batch` sequences each attending over `context` cached tokens.
PhaseCost decode_step_cost(const ServingModel& m, double batch, double context, double peak_flops,
                           double bandwidth_Bps);

}  // namespace mlsys
