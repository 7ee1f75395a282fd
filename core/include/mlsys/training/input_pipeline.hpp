// Input pipeline: a seeded discrete-event simulation of data-loader workers feeding a training
// loop, modelled on PyTorch's torch.utils.data.DataLoader with num_workers > 0 (map-style
// dataset, automatic batching, in_order=True):
//
//  - Each of `workers` processes builds whole batches; batch k goes to worker k mod workers
//    (PyTorch's round-robin index queues), and a worker builds its batches one at a time, in
//    the order it was given them.
//  - `prefetch` is PyTorch's prefetch_factor: the number of batches each worker may have in
//    flight (asked for and not yet taken by the training loop). At the start the loader asks
//    for workers × prefetch batches; each time the loop takes batch k it asks for batch
//    k + workers × prefetch (PyTorch's _try_put_index after each _next_data). So at most
//    workers × prefetch batches are queued, building or ready: the bounded prefetch queue.
//    PyTorch's default is 2 when num_workers > 0.
//  - The loop takes batches in order (in_order=True): batch k is used only when it is ready,
//    even if later batches are; then runs one training step of step_time_s (host and device
//    together: the loop asks for the next batch when the step ends).
//  - workers = 0 is PyTorch's num_workers = 0: the training loop loads each batch itself, so
//    every step waits for its whole load (prefetch does not apply).
//
// Load times: lognormal with mean load_time_s and coefficient of variation load_cv,
// ln X ~ N(μ, σ²) with σ² = ln(1 + cv²) and μ = ln(mean) − σ²/2; cv = 0 gives exactly the
// mean. Drawn in batch order from a SplitMix64 stream with deterministic.hpp's normal() and
// exp_det, so a seed gives the same bits natively and in WebAssembly.
//
// Times of step k (k = 0 … steps − 1):
//   issue_k = 0 for k < workers·prefetch, else start_{k − workers·prefetch}
//   ready_k = max(issue_k, ready_{k − workers}) + load_k    (its worker is free, then builds it)
//   start_k = max(end_{k−1}, ready_k),  wait_k = start_k − end_{k−1},  end_k = start_k + step_time_s
// with end_{−1} = 0. Closed forms the tests check: constant loads with
// workers·step_time_s ≥ load_time_s never wait after the first step; one worker whose load is
// twice the step leaves the device busy steps / (2·steps + 1) of the time (→ ½).
#pragma once
#include <cstdint>
#include <vector>

namespace mlsys {

inline constexpr int kMaxPipelineWorkers = 64;
inline constexpr int kMaxPipelinePrefetch = 64;
inline constexpr int kMaxPipelineSteps = 5000;
inline constexpr int kPipelineTimelineSteps = 50;

struct PipelineStep {
  int step;          // k
  int worker;        // the worker that built its batch (−1: the training loop itself, workers = 0)
  double issued_s;   // when the loader asked for the batch
  double load_s;     // its load time
  double ready_s;    // when the batch was ready
  double start_s;    // when the step began
  double wait_s;     // time the loop waited for data before it
  double end_s;      // when the step ended
};

struct InputPipelineResult {
  double throughput_steps_per_s;  // steps / makespan
  double gpu_busy_fraction;       // steps · step_time_s / makespan
  double stall_s;                 // Σ wait_k over all steps (warm-up included)
  double warmup_s;                // wait_0: the first batch's load
  double steady_stall_s;          // stall_s − warmup_s: waits after the first step
  double makespan_s;              // end of the last step (t = 0 at the start)
  double supply_steps_per_s;      // workers / load_time_s: what the workers can build on average
  double demand_steps_per_s;      // 1 / step_time_s
  double workers_needed;          // ⌈load_time_s / step_time_s⌉: fewest workers whose mean supply keeps up
  int in_flight;                  // workers · prefetch: the loader's bound on batches asked for
  std::vector<PipelineStep> timeline;  // the first kPipelineTimelineSteps steps
};

// Throws InputError naming the field: workers in [0, 64], prefetch in [1, 64], load_time_s and
// step_time_s > 0, load_cv in [0, 4], steps in [1, 5000].
InputPipelineResult simulate_input_pipeline(int workers, int prefetch, double load_time_s, double load_cv,
                                            double step_time_s, int steps, std::uint64_t seed);

// The lognormal load times of the first `count` batches (the simulation's draws, in batch order).
std::vector<double> pipeline_load_times(int count, double load_time_s, double load_cv, std::uint64_t seed);

}  // namespace mlsys
