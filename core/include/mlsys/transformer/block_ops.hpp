// The operations of one pre-norm transformer block (unfused, as separate kernels) with their
// FLOPs and HBM bytes, for prefill (batch·seq tokens) or one decode step (batch tokens
// attending to seq cached positions). Counting follows Pope et al. 2022, "Efficiently
// Scaling Transformer Inference", and the usual 2-FLOPs-per-multiply-add convention.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

struct BlockShape {
  double hidden;      // h, model width
  double heads;       // a, attention heads (head_dim = h / a)
  double ffn_hidden;  // f, MLP inner width
  double seq;         // s: tokens per sequence (prefill) or cached context (decode)
  double batch;       // b: sequences
  bool decode;        // false: prefill of b·s tokens; true: one new token per sequence
  double element_bytes;
};

struct BlockOp {
  std::string name;
  bool matmul;   // true: runs on the matrix units; false: elementwise / reduction
  double flops;  // FLOP
  double bytes;  // HBM bytes read + written
};

// Ops in execution order: ln1, qkv, scores, softmax, attn_v, out_proj, residual1, ln2,
// mlp_up, activation, mlp_down, residual2.
std::vector<BlockOp> block_ops(const BlockShape& shape);

// Every op of the block on the roofline: matmuls at `peak_flops`, elementwise ops at the
// vector rate min(vector_peak_flops, peak_flops) (peak_flops when there is none), all at
// `bandwidth_Bps`; each op's share of the block's summed time.
struct BlockOpTime {
  std::string name;
  std::string kind;  // "matmul" or "elementwise"
  double flops, bytes, intensity, peak_flops, time_s;
  std::string bound;
  double share;  // time_s / total_time_s
};
struct BlockRoofline {
  std::vector<BlockOpTime> ops;
  double total_time_s, total_flops, total_bytes;
  double ridge_intensity;  // peak_flops / bandwidth_Bps
  double bandwidth_Bps;
};
BlockRoofline block_roofline(const BlockShape& shape, double peak_flops, std::optional<double> vector_peak_flops,
                             double bandwidth_Bps);

}  // namespace mlsys
