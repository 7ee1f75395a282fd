// Choosing a 3-D parallel layout: every tensor × pipeline × data factorization of a GPU count
// that Megatron-LM can run (tensor parallelism inside a node, heads and layers divisible, the
// global batch split into whole micro-batches), with the memory per GPU from the training-memory
// model (Korthikanti et al. 2022) and a step time from compute, tensor-parallel all-reduces,
// pipeline point-to-point messages and bubble (the executed 1F1B schedule) and the data-parallel
// gradient all-reduce; after Narayanan et al. 2021 (arXiv:2104.04473), section 3.
//
// Placement. Ranks are numbered tensor-fastest, then data, then pipeline (Megatron's default
// order) on nodes of g = gpus_per_node consecutive ranks, every GPU with its own NIC.
//   - A tensor-parallel group is t consecutive ranks, inside one node because t divides g.
//   - A data-parallel group is every t-th rank of a block of t·d consecutive ranks. When t·d ≤ g
//     the whole group sits in one node (t·d then divides g); otherwise it spans t·d/g nodes
//     with g/t of its d ranks on each node (t = 8 on 8-GPU nodes: one rank per node; t = 2:
//     four). Its gradient exchange is group_collective_cost over d ranks with g/t per node:
//     a ring on NVLink inside a node, across nodes the hierarchical algorithm on the NICs of
//     its ranks (the other t − 1 groups of the node run at the same time on their own NICs).
//   - Neighbouring pipeline stages are t·d ranks apart: on different nodes once the GPUs fill
//     more than one node.
// These placements tile the nodes only when t divides g and t·d divides g or is a multiple
// of g, which the search requires once the GPUs span more than one node.
#pragma once
#include <string>
#include <vector>

#include "mlsys/comm/cost_model.hpp"
#include "mlsys/memory/training_memory.hpp"
#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

struct LayoutProblem {
  ModelConfig model;
  int gpus = 64;
  int gpus_per_node = 8;
  double global_batch = 512;  // sequences per optimizer step
  double micro_batch = 1;     // sequences per micro-batch
  double peak_flops = 989.4e12;       // dense bf16 FLOP/s of one GPU
  double hbm_bytes = 80.0 * (1 << 30);  // memory of one GPU
  double matmul_efficiency = 0.6;     // fraction of peak the layers' matmuls reach
  Link intra;  // inside a node (NVLink), per direction
  Link inter;  // between nodes (one NIC per GPU), per direction
  int zero_stage = 1;
  bool sequence_parallel = true;
  Recompute recompute = Recompute::Selective;
  int only_tp = 0, only_pp = 0;  // > 0: list only layouts with this tensor / pipeline degree
};

struct Layout {
  int tp, pp, dp;
  int microbatches;             // per pipeline per step: global_batch / (dp · micro_batch)
  double memory_per_gpu_bytes;  // first pipeline stage, training_memory()
  double model_states_bytes, activations_bytes;
  bool fits;                    // memory_per_gpu_bytes <= hbm_bytes
  double forward_s, backward_s;  // one micro-batch through one stage, TP all-reduces included
  double compute_s;             // compute part of a step on one GPU, m · (F + B) without communication
  double tp_comm_s;             // tensor-parallel all-reduces of a step on one GPU
  double p2p_s;                 // one activation message between stages
  double pipeline_s;            // the 1F1B schedule of the step (bubble and p2p included)
  double bubble_fraction;       // idle share of the pipeline time
  double dp_comm_s;             // gradient reduce-scatter + parameter all-gather, not overlapped
  int dp_ranks_per_node;        // ranks of one data-parallel group on one node (see Placement)
  double step_time_s;           // pipeline_s + dp_comm_s
  double tokens_per_s;
  double mfu;                   // model FLOPs (6N + attention) per second / (gpus · peak)
  bool pipeline_executed;       // false: the schedule's closed form was used
  std::string pipeline_method;  // "executed" or "closed-form"
};

struct LayoutSearch {
  std::vector<Layout> layouts;  // search_layouts()
  double hbm_bytes;             // memory of one GPU
  double params;                // of the model
  int valid_layouts, fitting_layouts, skipped_factorizations;
  double intra_bandwidth_Bps;
  std::string assumptions;      // what the model assumes, in words
};
// search_layouts() with its counts; throws InputError ("tp" or "pp" when they restrict the
// list, else "gpus") when no layout is valid.
LayoutSearch layout_search(const LayoutProblem& problem);

// Layouts that satisfy the constraints (tp ≤ gpus_per_node, tp | heads and kv_heads, pp |
// layers, tp·pp | gpus, dp·micro_batch | global_batch, and across nodes the placement's: tp |
// gpus_per_node, tp·dp | gpus_per_node or gpus_per_node | tp·dp), sorted: fitting first, then by step
// time, then by memory. `skipped` counts the factorizations rejected by the constraints (those
// left out by only_tp / only_pp are not counted).
std::vector<Layout> search_layouts(const LayoutProblem& problem, int* skipped = nullptr);

// The one layout (tp, pp, dp) of `problem`; assumes it satisfies the constraints.
Layout evaluate_layout(const LayoutProblem& problem, int tp, int pp, int dp);

}  // namespace mlsys
