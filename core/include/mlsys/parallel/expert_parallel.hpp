// Communication of expert parallelism (GShard, Lepikhin et al. 2020, arXiv:2006.16668; Switch
// Transformer, Fedus et al. 2021): the E experts of a mixture-of-experts layer are spread over
// EP ranks; each token's hidden vector (h elements) goes to the rank of each of its k experts
// (dispatch all-to-all) and comes back (combine all-to-all). With tokens spread uniformly,
// (EP−1)/EP of the T·k vectors leave the rank, twice per MoE layer in the forward pass and
// twice more in the backward pass. Times use the ring all-to-all of comm/cost_model.hpp.
#pragma once
#include <vector>

namespace mlsys {

struct ExpertParallelConfig {
  double tokens = 8192;     // T, tokens on one rank entering the MoE layer
  double hidden = 4096;     // h
  double ffn_hidden = 14336;  // expert FFN width
  bool gated = true;          // SwiGLU experts: 3 matrices, else 2
  int top_k = 2;
  int ep = 8;               // expert-parallel degree
  double dtype_bytes = 2;
  double peak_flops = 989e12;
  double link_bandwidth_Bps = 450e9;  // per direction
  double latency_s = 5e-6;
};

struct ExpertParallelResult {
  double dispatch_bytes;            // T·k·h·bytes, the rank's all-to-all buffer
  double bytes_leaving_per_all_to_all;  // (EP−1)/EP of it
  double bytes_per_layer_forward;   // dispatch + combine
  double bytes_per_layer_training;  // forward + backward (4 all-to-alls)
  double all_to_all_time_s;         // one all-to-all
  double comm_time_forward_s;       // two
  double expert_flops_forward;      // T·k·2·(2 or 3)·h·ffn, balanced load
  double expert_compute_time_s;     // at peak
  double comm_over_compute;
};

ExpertParallelResult expert_parallel(const ExpertParallelConfig& config);

}  // namespace mlsys
