// Data parallelism, ZeRO and FSDP: step time, exposed gradient communication and scaling
// efficiency of data-parallel training; memory and communication volume of the ZeRO stages
// (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models", arXiv:1910.02054, sections 5 and 7); and the tokens per GPU per step that hide
// FSDP's all-gathers and reduce-scatters behind compute (Zhao et al. 2023, "PyTorch FSDP",
// arXiv:2304.11277). Compute follows the 6·N·tokens rule (forward 2·N, backward 4·N FLOPs
// per token) at peak × MFU; communication is group_collective_cost of the alpha-beta model
// (comm/cost_model.hpp): a ring over NVLink inside one node, the hierarchical algorithm across
// nodes with every GPU on its own NIC, so a node's NICs carry its traffic together. Times in
// seconds, sizes in bytes, bandwidths per direction in B/s.
#pragma once
#include <optional>
#include <vector>

#include "mlsys/comm/cost_model.hpp"
#include "mlsys/memory/training_memory.hpp"

namespace mlsys {

// The network a data-parallel group sees: the scale-up link (NVLink) inside a node and one
// NIC per GPU across nodes (rail-aligned, as in a DGX H100), so a node of g GPUs sends
// g·inter_bandwidth_Bps across nodes with all its NICs together.
struct DpNetwork {
  double intra_bandwidth_Bps;  // per GPU per direction inside a node
  double inter_bandwidth_Bps;  // per GPU (one NIC) per direction across nodes
  double latency_s;            // α of one communication step, on either link
  int gpus_per_node;
  // Across nodes, run the NVLink and network phases of a collective pipelined (NCCL sends
  // chunks through both at once): the latency of every step plus the slower phase's bandwidth
  // term. False: one phase after the other (the conservative bound).
  bool pipelined_phases = false;
};

// One collective of `bytes` over a group of `ranks` GPUs (group_collective_cost; with
// net.pipelined_phases across nodes, (steps)·α + max(intra, inter bandwidth terms) of the
// hierarchical breakdown). Throws InputError("gpus") when the group spans a partial node.
CollectiveCost dp_collective(Collective op, int ranks, double bytes, const DpNetwork& net);

// The group's effective bus bandwidth, latency aside, in nccl-tests' convention (busbw =
// factor · S / t, the same for all-reduce, all-gather and reduce-scatter here): the NVLink
// bandwidth inside one node; across N nodes of g GPUs
//   (p−1)/p / [ (g−1)/(g·B_intra) + (N−1)/(g·N·B_inter) ],
// the two phases of the hierarchical algorithm one after the other.
double dp_bus_bandwidth(int ranks, const DpNetwork& net);
// The same if the NVLink and network phases overlapped completely (NCCL pipelines them):
// (p−1)/p / max(...) of the two terms above; the bound measured bus bandwidths approach.
double dp_bus_bandwidth_overlapped(int ranks, const DpNetwork& net);

// Latency of one bucket's all-reduce with the algorithm NCCL would pick for it: the ring (or
// hierarchical ring) takes 2(p−1) steps (2(g−1) + 2(N−1) across nodes); NCCL's trees
// (chains inside a node, double binary trees across nodes, Jeaugey 2019, "Massively Scale
// Your Deep Learning Training with NCCL 2.4") take 2(g−1) + 2⌈log2 N⌉ at full bandwidth. The
// faster of the two: α times the fewer steps.
double dp_bucket_latency(int ranks, const DpNetwork& net);

// Compute of one optimizer step on one GPU: 6·params·tokens FLOPs at peak_flops · mfu.
struct DpCompute {
  double params;          // Ψ, parameters of the replicated model
  double tokens_per_gpu;  // tokens one GPU processes per optimizer step (all micro-batches)
  double accumulation;    // micro-batches per step (gradient accumulation)
  double peak_flops;      // FLOP/s
  double mfu;             // fraction of peak reached, (0, 1]
};

struct DpStep {
  double compute_time_s;        // forward + backward of every micro-batch
  double forward_time_s;        // a third of compute
  double backward_time_s;       // two thirds of compute
  double last_backward_time_s;  // backward of the last micro-batch: the only one the all-reduce can hide behind
  double gradient_bytes;        // Ψ · grad_bytes
  double allreduce_time_s;      // one all-reduce of the whole gradient (net.pipelined_phases decides the phases)
  double allreduce_time_sequential_s;  // the same with the NVLink and network phases one after the other
  double allreduce_time_pipelined_s;   // the same with the two phases pipelined
  double bucket_count;          // ceil(gradient_bytes / bucket_bytes)
  double bucket_allreduce_time_s;  // one bucket's all-reduce on an idle stream: latency + bandwidth
  double bucket_latency_s;      // its latency (dp_bucket_latency)
  double bucketed_comm_time_s;  // all buckets queued back to back: one latency + n bandwidth terms
  double exposed_comm_s;        // communication not hidden behind compute
  double step_time_s;           // compute + exposed
  double link_bandwidth_Bps;    // the group's effective bus bandwidth (dp_bus_bandwidth)
  double bus_bandwidth_overlapped_Bps;  // the same with the two phases overlapped
  bool inter_node;              // the group spans nodes
};

// One data-parallel step over `gpus` replicas. Without overlap the whole gradient is
// all-reduced after the backward pass. With overlap (PyTorch DDP's gradient buckets) the
// gradient is cut into n equal buckets that become ready at an even pace during the last
// micro-batch's backward pass (bucket i at i·T_b/n) and are all-reduced one after another on
// one stream, pipelined: a bucket that finds the stream idle pays its latency L and its
// bandwidth term β; one queued behind another starts its first steps while the previous
// one drains, so it adds only β. Bucket i ends at max(ready_i + L + β, end_{i−1} + β), the
// last at max(T_b + L + β, T_b/n + L + n·β), and the exposed part is
//   max(L + β, T_b/n + L + n·β − T_b),
// never more than the whole all-reduce after the backward pass (n·β is its bandwidth term,
// L at most its latency).
DpStep dp_step(const DpCompute& c, double grad_bytes, double bucket_bytes, bool overlap, int gpus,
               const DpNetwork& net);

// Tokens one GPU processes per optimizer step: seq · micro_batch · accumulation; throws
// InputError("accumulation") above 1e12.
double dp_tokens_per_gpu(double seq, double micro_batch, double accumulation);

// A step at some GPU count against the step on one GPU (weak scaling: same per-GPU batch).
struct DpScaling {
  DpStep step;
  double efficiency;              // T(1) / T(gpus)
  double step_time_no_overlap_s;  // compute + the whole all-reduce
  // T(1) / T(gpus) with the same overlap but the NVLink and network phases one after the
  // other (equal to efficiency inside one node or when net.pipelined_phases is false).
  double efficiency_phases_sequential;
};
struct DpSeriesPoint {
  long long gpus;
  DpScaling at;
  double efficiency_no_overlap;  // T(1) / step_time_no_overlap_s
};
struct DpTraining {
  DpScaling at;
  double tokens_per_gpu, global_batch_sequences, global_batch_tokens, tokens_per_s;
  double peak_flops, intra_bandwidth_Bps, inter_bandwidth_Bps;
  std::optional<std::vector<DpSeriesPoint>> series;  // 1, 2, 4, ... GPUs up to series_max_gpus
};
// The step over `gpus` replicas of `micro_batch` sequences (dp_step) with its scaling
// efficiency, global batch and throughput; with series_max_gpus, the same at powers of two.
DpTraining dp_training(const DpCompute& c, double micro_batch, double grad_bytes, double bucket_bytes, bool overlap,
                       int gpus, const DpNetwork& net, std::optional<long long> series_max_gpus);

// ZeRO stage s (0 = plain data parallelism) over dp ranks.
struct ZeroStage {
  int stage;
  double weights_bytes, grads_bytes, optimizer_bytes, model_states_bytes;  // per GPU (model_states())
  double volume_psi;             // elements sent per GPU per step in units of Ψ (paper, section 7): 2, 2, 2, 3
  double volume_elements;        // exact ring count: volume_psi · Ψ · (p−1)/p
  double volume_bytes;           // volume_elements · comm_bytes
  double comm_time_s;            // its collectives in the alpha-beta model
  double allgather_time_s;       // parameter all-gathers (stage 1–2: one, after the update; stage 3: two, forward and backward)
  double reducescatter_time_s;   // gradient reduce-scatter (stage 0: the reduce-scatter half of the all-reduce)
  double comm_vs_baseline;       // comm_time_s / stage 0's (1 on one rank)
};
struct ZeroStages {
  std::vector<ZeroStage> stages;  // 0, 1, 2, 3
  double link_bandwidth_Bps;      // effective bus bandwidth of the dp group (dp_bus_bandwidth)
};
// Stages 0–3 for Ψ = params, mixed precision with `adam` or SGD, `comm_bytes` per element.
ZeroStages zero_stages(double params, bool adam, int dp, double comm_bytes, const DpNetwork& net);

// FSDP (ZeRO-3) with the model wrapped in `units` equal units: per unit an all-gather of its
// parameters before the forward and again before the backward, a reduce-scatter of its
// gradients after the backward.
struct FsdpOverlap {
  double comm_time_s;         // 2 all-gathers + 1 reduce-scatter per unit, every unit
  double allgather_time_s;    // one unit's all-gather (the first one cannot be prefetched)
  double compute_time_s;      // at tokens_per_gpu
  double tokens_min;          // tokens per GPU per step with compute = comm_time_s
  // The bandwidth term alone: b·(p−1)/p·peak·mfu / (2·B_bus), B_bus = dp_bus_bandwidth, i.e.
  // b·peak·mfu/2 · [(g−1)/(g·B_intra) + (N−1)/(g·N·B_inter)] across N nodes of g GPUs.
  double tokens_min_bandwidth;
  double tokens_limit;          // its limit for many nodes: b·peak·mfu/2 · [(g−1)/(g·B_intra) + 1/(g·B_inter)]
  double tokens_min_network;    // the network phase alone, b·peak·mfu/2 · (N−1)/(g·N·B_inter): the threshold if NVLink overlapped it
  double tokens_limit_network;  // its limit for many nodes: b·peak·mfu / (2·g·B_inter), node egress g·B_inter
  double exposed_comm_s;      // prefetch: max(first all-gather, comm − compute); without: every all-gather + the reduce-scatters not hidden by the backward pass
  double step_time_s;         // compute + exposed
  double link_bandwidth_Bps;  // effective bus bandwidth of the sharding group (dp_bus_bandwidth)
  bool hidden;                // compute_time_s >= comm_time_s
  double peak_flops;          // c.peak_flops
};
FsdpOverlap fsdp_overlap(const DpCompute& c, double param_bytes, int units, bool prefetch, int gpus,
                         const DpNetwork& net);

}  // namespace mlsys
