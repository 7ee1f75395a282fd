// Megatron-LM tensor parallelism of one transformer layer (Shoeybi et al. 2019,
// arXiv:1909.08053, section 3; Narayanan et al. 2021, arXiv:2104.04473, section 3.2): the MLP's
// first matrix is split by columns and its second by rows, attention is split by heads (Q, K, V
// by columns, the output projection by rows), so each half-block needs one all-reduce of the
// s·b·h activations in the forward pass (operator g) and one in the backward pass (operator f):
// two all-reduces forward and two backward per layer and micro-batch.
// The all-reduces are priced as a parallel group's collective (comm/cost_model.hpp,
// group_collective_cost): a ring over the scale-up link while the group fits in one node; across
// nodes the hierarchical algorithm, a reduce-scatter inside each node, an all-reduce of each GPU's
// 1/g shard across the nodes with every GPU on its own NIC, an all-gather inside the node. The
// group is placed on whole nodes (t a multiple of gpus_per_node once it crosses one).
#pragma once

#include "mlsys/comm/cost_model.hpp"

namespace mlsys {

// One layer of width h (MLP inner width f, multi-head attention) fed a micro-batch of b
// sequences of s tokens, split over t GPUs.
struct TensorParallelLayer {
  double hidden;       // h
  double ffn_hidden;   // f (4h in GPT)
  double seq;          // s, tokens per sequence
  double micro_batch;  // b, sequences
  int tp;              // t, GPUs sharing the layer
  double act_bytes = 2;  // bytes per activation element (bf16)
};

struct TensorParallelCost {
  double allreduce_bytes;            // S = s·b·h·act_bytes, the buffer of one all-reduce
  int allreduces_forward;            // 2 (after attention, after the MLP)
  int allreduces_backward;           // 2 (before attention and the MLP, on the input gradients)
  double allreduce_bytes_per_layer;  // (2 + 2)·S, buffers of one layer, forward + backward
  double sent_bytes_per_gpu;         // what one GPU sends for them: 4 · 2(t−1)/t · S (ring or hierarchical)
  double flops_forward_per_gpu;      // (2·b·s·(4h² + 2·h·f) + 4·b·s²·h) / t
  double flops_per_gpu;              // forward + backward (3× forward) on one GPU
  double comm_time_s;                // the four all-reduces
  double comm_intra_s;               // their time on the scale-up link (NVLink)
  double comm_inter_s;               // their time on the NICs between nodes (0 inside one node)
  int nodes;                         // nodes the group spans: ⌈t / gpus_per_node⌉
  double compute_time_s;             // flops_per_gpu / peak
  double ratio;                      // comm_time_s / compute_time_s
  // Per-GPU weight shards (rows × columns) of the column-then-row split.
  double qkv_cols_per_gpu;   // 3h/t columns of W_QKV (h rows), i.e. a/t heads
  double mlp_cols_per_gpu;   // f/t columns of the first MLP matrix (h rows)
  double mlp_rows_per_gpu;   // f/t rows of the second MLP matrix (h columns)
  double weight_params_per_gpu;  // (4h² + 2·h·f) / t
};

// Cost of one layer and micro-batch (forward and backward) on one GPU of the tensor-parallel
// group of t GPUs on nodes of `gpus_per_node`: all-reduces as group_collective_cost over `intra`
// (scale-up, per direction) and `inter` (one GPU's NIC, per direction), compute at `peak_flops`
// FLOP/s. Throws InputError("tp") when t crosses a node but is not a whole number of nodes.
TensorParallelCost tensor_parallel_layer(const TensorParallelLayer& layer, double peak_flops, int gpus_per_node, Link intra,
                                         Link inter);

}  // namespace mlsys
