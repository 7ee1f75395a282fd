// Per-op FLOPs and bytes of one transformer block; see block_ops.hpp for the conventions.
// Elementwise costs: layer norm ~8 FLOP per element (mean, variance, normalize, scale,
// shift), softmax ~5 (max, subtract, exp, sum, divide), GELU ~8, residual add 1.
#include "mlsys/transformer/block_ops.hpp"

#include <algorithm>

#include "mlsys/gpu/roofline.hpp"

namespace mlsys {

namespace {
BlockOp matmul_op(const std::string& name, double m, double n, double k, double e) {
  return {name, true, 2 * m * n * k, (m * k + k * n + m * n) * e};
}
// Reads `read` elements, writes `write` elements, `flops_per` FLOP per read element.
BlockOp elementwise_op(const std::string& name, double read, double write, double flops_per, double e) {
  return {name, false, flops_per * read, (read + write) * e};
}
}  // namespace

std::vector<BlockOp> block_ops(const BlockShape& s) {
  const double e = s.element_bytes, h = s.hidden, a = s.heads, f = s.ffn_hidden, b = s.batch;
  const double d = h / a;                        // head dimension
  const double q = s.decode ? 1.0 : s.seq;       // query positions per sequence
  const double kv = s.seq;                       // key/value positions per sequence
  const double tokens = b * q;                   // rows through the dense layers
  const double scores = b * a * q * kv;          // attention score elements

  std::vector<BlockOp> ops;
  ops.push_back(elementwise_op("ln1", tokens * h, tokens * h, 8, e));
  ops.push_back(matmul_op("qkv", tokens, 3 * h, h, e));
  // Q·Kᵀ per sequence and head: [q, d] x [d, kv]; reads Q and K, writes the scores.
  ops.push_back({"scores", true, 2 * scores * d, (b * a * (q * d + kv * d) + scores) * e});
  ops.push_back(elementwise_op("softmax", scores, scores, 5, e));
  // P·V per sequence and head: [q, kv] x [kv, d]; reads P and V, writes the output.
  ops.push_back({"attn_v", true, 2 * scores * d, (scores + b * a * (kv * d + q * d)) * e});
  ops.push_back(matmul_op("out_proj", tokens, h, h, e));
  ops.push_back(elementwise_op("residual1", 2 * tokens * h, tokens * h, 0.5, e));
  ops.push_back(elementwise_op("ln2", tokens * h, tokens * h, 8, e));
  ops.push_back(matmul_op("mlp_up", tokens, f, h, e));
  ops.push_back(elementwise_op("activation", tokens * f, tokens * f, 8, e));
  ops.push_back(matmul_op("mlp_down", tokens, h, f, e));
  ops.push_back(elementwise_op("residual2", 2 * tokens * h, tokens * h, 0.5, e));
  return ops;
}

BlockRoofline block_roofline(const BlockShape& shape, double peak_flops, std::optional<double> vector_peak_flops,
                             double bandwidth_Bps) {
  const double vector_peak = vector_peak_flops ? std::min(*vector_peak_flops, peak_flops) : peak_flops;
  BlockRoofline r{{}, 0, 0, 0, peak_flops / bandwidth_Bps, bandwidth_Bps};
  for (const auto& op : block_ops(shape)) {
    const double peak = op.matmul ? peak_flops : vector_peak;
    const auto t = roofline(op.flops, op.bytes, peak, bandwidth_Bps);
    r.ops.push_back({op.name, op.matmul ? "matmul" : "elementwise", op.flops, op.bytes, t.intensity, peak, t.time_s,
                     t.bound, 0});
    r.total_time_s += t.time_s;
    r.total_flops += op.flops;
    r.total_bytes += op.bytes;
  }
  for (auto& op : r.ops) op.share = op.time_s / r.total_time_s;
  return r;
}

}  // namespace mlsys
