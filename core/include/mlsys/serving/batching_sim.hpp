// Discrete-event simulation of a request stream served with static (request-level) batching
// and continuous (iteration-level) batching, Yu et al. 2022 (Orca, OSDI). Arrivals are a
// seeded Poisson process; prompt lengths are uniform on [1, 2·prompt_mean − 1] and output
// lengths uniform on [1, 2·output_mean − 1]. One engine step costs the roofline of a forward
// pass: max((weights + KV bytes read) / bandwidth, 2·N·tokens / peak) (serving/decode.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mlsys {

struct Request {
  double arrival_s;
  int prompt;   // tokens
  int output;   // tokens to generate (>= 1)
};

// `count` requests: Poisson arrivals at `rate_rps` per second, seeded SplitMix64.
std::vector<Request> request_stream(int count, double rate_rps, int prompt_mean, int output_mean, std::uint64_t seed);

struct StepModel {
  double weight_bytes;        // streamed once per step
  double kv_bytes_per_token;  // read for every cached token of every running sequence
  double flops_per_token;     // 2·N
  double peak_flops, bandwidth_Bps;
  double step_time_s(double tokens, double cached_tokens) const;
};

struct BatchingResult {
  std::string policy;            // "static" or "continuous"
  double makespan_s;             // first arrival (t = 0) to last completion
  double output_tokens;
  double tokens_per_s;           // output tokens / makespan
  double requests_per_s;         // completed requests / makespan
  double latency_p50_s, latency_p90_s, latency_p99_s, latency_mean_s;  // arrival -> last token
  double ttft_p50_s, ttft_p99_s, ttft_mean_s;                          // arrival -> first token
  double tpot_mean_s;            // (latency − ttft) / (output − 1), over requests with output > 1
  double mean_batch;             // sequences per decode step, averaged over steps
  double mean_in_system;         // time average of requests arrived and not finished (integrated)
  double littles_law_in_system;  // Little's law L = λ·W: requests_per_s · latency_mean_s
  double steps;
  double padded_tokens;          // static only: steps spent on sequences already finished
  // Saturation throughput: requests/s when the stream's requests all wait at t = 0 (a
  // backlog, so every batch is as full as max_batch allows). Below it the queue drains;
  // above it the queue and the latencies grow without bound. Set by compare_batching.
  double capacity_rps = 0;
  // Little's law with the offered arrival rate: rate_rps · latency_mean_s. Over a finite run
  // that starts and ends empty, mean_in_system equals requests_per_s · latency_mean_s by
  // construction (both are Σ latency / makespan); the arrival rate is the independent
  // quantity, and it matches mean_in_system only when the run is long and the queue stable.
  // Set by compare_batching.
  double arrival_law_in_system = 0;
};

// policy: "static" (take up to max_batch waiting requests when idle, run until all finish)
// or "continuous" (each step admits waiting requests up to max_batch and retires finished ones).
BatchingResult simulate_batching(const std::vector<Request>& requests, const StepModel& model, int max_batch,
                                 const std::string& policy);

// The step model of a model of `params` parameters (weights in `weight_dtype` streamed each
// step, 2·params FLOPs per token).
StepModel step_model(double params, const std::string& weight_dtype, double kv_bytes_per_token, double peak_flops,
                     double bandwidth_Bps);

// The same requests all arriving at t = 0: the backlog that measures a policy's capacity.
std::vector<Request> as_backlog(std::vector<Request> requests);

// One seeded request stream (request_stream) served by both policies, and each policy's
// capacity on the same requests as a backlog.
struct BatchingComparison {
  BatchingResult static_batching, continuous;
  int requests;
  double offered_tokens_per_s;  // rate_rps · mean output tokens of the stream
  double decode_step_s;         // one sequence's step with nothing cached
};
BatchingComparison compare_batching(int requests, double rate_rps, int prompt_mean, int output_mean,
                                    std::uint64_t seed, const StepModel& model, int max_batch);

// p-quantile (0..1) of `values` by the nearest-rank method; values must be non-empty.
double quantile_nearest_rank(std::vector<double> values, double p);

}  // namespace mlsys
