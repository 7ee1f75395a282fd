// Roofline model of LLM inference: prefill (time to first token) and one decode step (time
// per output token). Prefill of p prompt tokens costs 2·N·p FLOPs per sequence for the weight
// matmuls plus causal attention 2·layers·heads·head_dim·p·(p+1); one decode step costs 2·N
// FLOPs per sequence plus 4·layers·heads·head_dim·context for attention, and must read every
// weight once plus the whole KV cache of the batch (Pope et al. 2023, arXiv:2211.05102;
// Kwon et al. 2023). Ideal bound: peak FLOP/s and full HBM bandwidth, nothing overlapped
// away, activations and kernel launches ignored; real engines reach a fraction of it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "mlsys/serving/kv_cache.hpp"
#include "mlsys/transformer/model_config.hpp"

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

// The shortest prompt whose prefill (at this batch) is compute-bound. Compute time minus
// memory time is a convex quadratic in the prompt, negative at 0 (the weights must be read
// even for an empty prompt), so it crosses zero once: shorter prompts are memory-bound, longer
// ones compute-bound. With weights dominating the bytes this is about peak·s_w / (2·bandwidth)
// tokens for one sequence (the ridge point for bf16 weights). 0 when none up to 2^24 tokens.
long long prefill_crossover_prompt(const ServingModel& m, double batch, double peak_flops, double bandwidth_Bps);

// One decode step: `batch` sequences each attending over `context` cached tokens.
PhaseCost decode_step_cost(const ServingModel& m, double batch, double context, double peak_flops,
                           double bandwidth_Bps);

// A decoder-only transformer as the server holds it: every weight resident in HBM, and the
// weights multiplied (and streamed) per token: every layer plus the output head (vocab ×
// hidden); the embedding lookup reads one row. `params`, when given, overrides both counts
// (the configuration still sets the KV cache).
struct ServedModel {
  ModelConfig config;
  double resident_params;  // every weight kept in HBM
  double matmul_params;    // weights multiplied (and streamed) per token
};
ServedModel served_model(const ModelConfig& config, std::optional<double> params);

// Weights in int4 are dequantized and multiplied in bf16 (weight-only quantization); other
// weight types run at their own peak.
std::string serving_compute_dtype(const std::string& weight_dtype);

// The roofline inputs of `m` with weights in `weight_dtype` and the KV cache in `kv_dtype`.
ServingModel serving_model(const ServedModel& m, const std::string& weight_dtype, const std::string& kv_dtype);

// A phase's cost with its two roofline times.
struct PhaseRoofline {
  PhaseCost cost;
  double compute_time_s;  // flops / peak
  double memory_time_s;   // bytes / bandwidth
};

// TTFT and TPOT of `batch` sequences: prefill of `prompt` tokens, one decode step over
// `context` cached tokens; with hbm_bytes, whether the weights and the longer of the two KV
// caches fit.
struct DecodeEstimate {
  double ttft_s, tpot_s, tokens_per_s;  // tokens_per_s = batch / tpot
  std::string bound, prefill_bound;
  PhaseRoofline prefill, decode_step;
  double decode_intensity, ridge_intensity;
  long long prefill_crossover_prompt;  // shortest compute-bound prompt at this batch
  double weight_bytes, weights_resident_bytes, kv_bytes_per_token, kv_bytes, matmul_params;
  std::string compute_dtype;
  double peak_flops, bandwidth_Bps;
  std::optional<double> hbm_bytes, memory_needed_bytes;
  std::optional<bool> fits;
};
DecodeEstimate decode_estimate(const ServedModel& m, const std::string& weight_dtype, const std::string& kv_dtype,
                               double batch, double context, double prompt, double peak_flops, double bandwidth_Bps,
                               std::optional<double> hbm_bytes);

// The decode step for batches 1 to max_batch (about 60 points, geometric), the smallest
// batch whose step is compute-bound (bisection; 0 when none up to max_batch) and, with
// hbm_bytes, the largest batch whose KV cache fits beside the weights in 90% of HBM.
struct DecodeCurvePoint {
  long long batch;
  double tpot_s, tokens_per_s, memory_time_s, compute_time_s;
  std::string bound;
};
struct DecodeCurve {
  std::vector<DecodeCurvePoint> series;
  long long crossover_batch;
  double weight_bytes, kv_bytes_per_token, peak_flops, bandwidth_Bps;
  std::optional<double> max_batch_fits;
};
DecodeCurve decode_curve(const ServedModel& m, const std::string& weight_dtype, const std::string& kv_dtype,
                         double context, long long max_batch, double peak_flops, double bandwidth_Bps,
                         std::optional<double> hbm_bytes);

// kv_capacity of `m` at `context` and for contexts 256 to 1,048,576 (doubling).
struct ServingCapacity {
  double weights_bytes, kv_bytes_per_token, hbm_bytes;
  KvCapacity capacity;
  bool weights_fit;  // free_bytes > 0
  double params;     // resident parameters
  std::vector<KvCapacityPoint> series;
};
ServingCapacity serving_capacity(const ServedModel& m, const std::string& weight_dtype, const std::string& kv_dtype,
                                 double hbm_bytes, double memory_fraction, double context);

}  // namespace mlsys
