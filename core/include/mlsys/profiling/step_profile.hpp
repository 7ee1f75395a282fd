// A synthetic profiler trace of one data-parallel training step of a transformer (its layers,
// output head and loss) on one GPU, and the waterfall from peak to achieved FLOP/s built from the same trace.
//
// Streams: the CPU thread that dispatches kernels (each eager launch costs launch_s of CPU
// time: Meta's Holistic Trace Analysis documentation puts framework launches at 5-20 µs), the
// compute stream (weight matmuls and attention timed by the roofline at a matmul efficiency;
// elementwise chains memory-bound at HBM bandwidth, unfused or fused as in kernels/fusion.hpp)
// and the communication stream (ring all-reduce of bf16 gradient buckets, time = 2(p−1)/p ·
// bytes / bandwidth + 2(p−1)·latency, as in Patarasuk and Yuan 2009). A kernel starts when the
// CPU has launched it and graph_node_s after the previous kernel of its stream has ended (the
// GPU-side gap between dependent kernels); with a CUDA graph the whole step is one launch and
// only that GPU-side gap remains. With overlap,
// each gradient bucket is all-reduced as soon as the backward pass has produced it (as
// PyTorch DDP does); without, all buckets are reduced after the backward pass. The optimizer
// (Adam, fp32 states) runs after the last bucket. Interference between the two streams (the
// all-reduce occupying SMs and HBM bandwidth) is not modelled.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

struct StepSetup {
  double micro_batch = 8;             // sequences per GPU per step
  double peak_flops = 989.5e12;       // FLOP/s, dense, of the dtype
  double bandwidth_Bps = 3.35e12;     // HBM bytes/s
  double element_bytes = 2;           // activations and gradients (bf16)
  double matmul_efficiency = 0.75;    // share of peak the matmul and attention kernels reach
  double launch_s = 10e-6;            // CPU time to dispatch one kernel in eager mode
  double graph_node_s = 1e-6;         // GPU-side gap between consecutive kernels (eager or graph)
  double dp = 16;                     // data-parallel ranks in the all-reduce
  double comm_bandwidth_Bps = 50e9;   // per-GPU network bandwidth of the all-reduce (one direction)
  double comm_latency_s = 5e-6;       // per ring step
  double buckets = 8;                 // gradient buckets (DDP's bucket_cap_mb, as a count)
  bool fusion = false;                // elementwise chains fused into one kernel each
  bool overlap = true;                // all-reduce of each bucket overlapped with the backward pass
  bool cuda_graphs = false;           // the whole step captured and replayed as one graph
};

struct TraceKernel {
  std::string stream;  // "cpu", "compute" or "comm"
  std::string name;
  std::string kind;    // "matmul", "attention", "elementwise", "optimizer", "allreduce", "launch"
  double start_s = 0, end_s = 0;
  double flops = 0, bytes = 0;
  int layer = -1;      // −1: not tied to one layer
  std::string phase;   // "forward", "backward", "optimizer", "comm", "cpu"
};

struct Waterfall {
  double peak_flops = 0;            // per GPU
  double matmul_inefficiency = 0;   // FLOP/s lost to matmul and attention kernels below peak
  double memory_bound = 0;          // FLOP/s lost to time in elementwise and optimizer kernels
  double launch_gaps = 0;           // FLOP/s lost to compute-stream idle time waiting for the CPU
  double exposed_comm = 0;          // FLOP/s lost to compute-stream idle time waiting for the all-reduce
  double achieved_flops = 0;        // model FLOPs / step time
};

struct StepProfile {
  std::vector<TraceKernel> kernels;  // every kernel and the merged CPU launch intervals, by start
  double step_time_s = 0;
  double model_flops = 0;            // (6N + 12·L·H·Q·T)·tokens, N = params_flops (with the output head)
  double ideal_time_s = 0;           // model_flops / peak
  double tokens = 0;                 // micro_batch · seq
  double params = 0;                 // every parameter of the model (all-reduced and updated)
  double compute_busy_s = 0, comm_busy_s = 0, cpu_busy_s = 0;
  double matmul_time_s = 0, memory_time_s = 0;  // compute-stream busy time by kind
  double launch_gap_s = 0;           // compute idle, waiting for a launch
  double exposed_comm_s = 0;         // compute idle, waiting for the all-reduce
  double gap_count = 0;              // idle intervals on the compute stream longer than 1.5·graph_node_s
  double compute_kernels = 0, comm_kernels = 0;
  double mfu = 0;
  Waterfall waterfall;
};

// config: layers, hidden, heads, head_dim, ffn_hidden, seq, vocab, tied_embeddings. The trace
// has the layers, the final norm, the output head and the cross-entropy loss, and the
// embedding's backward scatter-add; model FLOPs count N as model_counts' params_flops (the
// layers, final norm and output head), so the step's MFU is the mfu calculator's at the
// step's tokens/s. Every time in seconds.
StepProfile step_profile(const ModelConfig& config, const StepSetup& setup);

// The waterfall as steps from peak down to achieved FLOP/s: launch gaps, exposed
// communication, memory-bound kernels, matmul inefficiency, in that order.
struct WaterfallStep {
  std::string id, label;
  double from_flops, to_flops, loss_flops;
  double share_of_peak;  // loss / peak
};
struct WaterfallSteps {
  double peak_flops, achieved_flops, mfu, step_time_s, ideal_time_s;
  std::vector<WaterfallStep> steps;
};
WaterfallSteps waterfall_steps(const StepProfile& profile);

// What the profiler view shows of a step: the first `max_kernels` kernels and the totals.
struct BusyFraction {
  double cpu, compute, comm;  // busy time / step time per stream
};
struct StepTrace {
  std::vector<TraceKernel> kernels;  // at most max_kernels
  double kernels_total, kernels_listed;
  double step_time_s, ideal_time_s, model_flops, tokens, tokens_per_s, params;
  double compute_kernels, comm_kernels;
  BusyFraction busy_fraction;
  double matmul_time_s, memory_bound_time_s, launch_gap_s, exposed_comm_s, comm_time_s, gaps, mfu;
  WaterfallSteps waterfall;
};
StepTrace step_trace(const StepProfile& profile, std::size_t max_kernels);

// The communication tail in closed form: a backward pass of backward_s seconds produces
// `buckets` equal gradient buckets at even intervals (bucket i ready at backward_s·i/buckets);
// each takes allreduce_s on one communication stream. With overlap a bucket starts when it is
// ready and the stream is free; without, all start after the backward pass. The exposed time
// is how long the optimizer waits after the backward pass: max(0, last end − backward_s).
struct CommTail {
  double comm_end_s = 0;
  double exposed_s = 0;
  double hidden_s = 0;  // all-reduce time that ran under the backward pass
};
CommTail comm_tail(double backward_s, int buckets, double allreduce_s, bool overlap);

}  // namespace mlsys
