// One complete layout for training a mixture-of-experts model on long sequences, priced by
// the lesson's models: tensor parallelism with sequence parallelism (Megatron, Korthikanti
// et al. 2022) inside a node, a context-parallel ring (zig-zag ring attention) across nodes,
// and expert parallelism folded onto the tensor-parallel GPUs of each node (Megatron-Core's
// "MoE parallel folding": the attention's TP group is the MoE layer's EP group). GPUs = tp·cp.
// Memory per GPU: mixed-precision Adam model states (bf16 weights and gradients, 4 bytes per
// parameter, and 12 bytes of fp32 master weights and moments), the 12 sharded over the ranks
// that hold the same weights when the distributed optimizer (ZeRO-1) is on: cp for the dense
// part, tp·cp/ep for the experts; plus the activations of one sequence with selective
// recomputation (FlashAttention: no s² term). Step: forward and backward of one sequence at
// peak·efficiency, nothing overlapped except ring attention's own transfers:
//   attention core   ring_attention (zig-zag, cp ranks, H/tp heads, the per-GPU NIC);
//   dense matmuls    QKV, output projection, router, output head: 2·tokens·params FLOPs
//                    forward, twice that backward;
//   experts          tokens·k/ep assignments per GPU through one gated expert (balanced);
//   TP/SP comm       per layer and direction: all-gather + reduce-scatter around attention
//                    (group_collective_cost over the node);
//   EP all-to-all    dispatch + combine of each GPU's sequence-parallel shard (expert_parallel),
//                    forward and again backward.
#pragma once
#include <string>

namespace mlsys {

struct LongContextPlanConfig {
  double seq = 131072;
  double hidden = 4096, heads = 32, kv_heads = 8, head_dim = 128, layers = 32, vocab = 32000;
  double experts = 8, ffn_hidden = 14336, top_k = 2;  // gated (SwiGLU) experts
  int tp = 8, cp = 4, ep = 8, gpus_per_node = 8;
  double peak_flops = 989e12, compute_efficiency = 1.0;
  double hbm_bytes = 80e9;
  bool distributed_optimizer = true;
  double intra_Bps = 450e9, inter_Bps = 50e9, latency_s = 5e-6;  // per direction
};

struct LongContextPlanResult {
  int gpus, nodes;
  std::string layout;              // which dimension spans which GPUs
  double dense_params, expert_params;  // whole model
  double params_per_gpu;           // dense/tp + experts/ep
  double states_bytes;             // (4 + 12 / replicas) bytes per parameter held
  double attention_activation_bytes, moe_activation_bytes;  // all layers, one sequence
  double activation_bytes;
  double memory_per_gpu_bytes;     // states + activations
  bool fits;                       // ≤ hbm_bytes
  double attention_s, dense_matmul_s, expert_s, tp_comm_s, all_to_all_s;  // per step, all layers
  double step_time_s;              // one sequence, forward + backward
  double tokens_per_s;             // seq / step_time_s (the cp ranks share one sequence)
};

// Throws InputError for a layout the GPUs cannot hold (tp beyond a node, ep not dividing the
// experts or tp·cp, heads not splitting over tp).
LongContextPlanResult long_context_plan(const LongContextPlanConfig& config);

}  // namespace mlsys
