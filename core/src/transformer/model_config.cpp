// Parameter and FLOP counts of a transformer config (see model_config.hpp; PaLM appendix B).
#include "mlsys/transformer/model_config.hpp"

#include <cmath>

namespace mlsys {

double attention_params_per_layer(const ModelConfig& c) {
  const double q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
  return c.hidden * q + 2 * c.hidden * kv + q * c.hidden;
}

double mlp_params_per_layer(const ModelConfig& c) { return (c.gated_mlp ? 3 : 2) * c.hidden * c.ffn_hidden; }

double default_ffn_hidden(double hidden, bool gated_mlp) {
  if (!gated_mlp) return 4 * hidden;
  constexpr double kMultiple = 256;
  const double two_thirds = std::floor(2 * (4 * hidden) / 3);
  return kMultiple * std::ceil(two_thirds / kMultiple);
}

ModelCounts model_counts(const ModelConfig& c) {
  ModelCounts r{};
  r.params_per_layer = attention_params_per_layer(c) + mlp_params_per_layer(c) + 2 * c.hidden;
  r.params_embedding = (c.tied_embeddings ? 1 : 2) * c.vocab * c.hidden;
  r.params_non_embedding = c.layers * r.params_per_layer + c.hidden;
  r.params = r.params_non_embedding + r.params_embedding;
  // The output head multiplies every token's final hidden state by a vocab × h matrix, tied to
  // the embedding or not; the input embedding is a lookup (no FLOPs).
  r.params_flops = r.params_non_embedding + c.vocab * c.hidden;
  r.flops_per_token_training = 6 * r.params_flops + 12 * c.layers * c.heads * c.head_dim * c.seq;
  r.flops_per_token_forward = r.flops_per_token_training / 3;
  return r;
}

ParamBreakdown param_breakdown(const ModelConfig& c) {
  ParamBreakdown b{};
  b.embedding = c.vocab * c.hidden;
  b.attention = c.layers * attention_params_per_layer(c);
  b.mlp = c.layers * mlp_params_per_layer(c);
  b.norms = (2 * c.layers + 1) * c.hidden;
  b.head = c.tied_embeddings ? 0 : c.vocab * c.hidden;
  return b;
}

TokenFlops token_flops(const ModelConfig& c) {
  const ModelCounts n = model_counts(c);
  const ParamBreakdown p = param_breakdown(c);
  TokenFlops f{};
  f.matmul = 6 * n.params_flops;
  f.attention = 12 * c.layers * c.heads * c.head_dim * c.seq;
  f.attention_share = f.attention / (f.matmul + f.attention);
  f.attention_equals_matmul_seq = n.params_flops / (2 * c.layers * c.heads * c.head_dim);
  f.breakdown = {6 * p.attention, 6 * p.mlp, 6 * c.vocab * c.hidden, 6 * p.norms, f.attention};
  return f;
}

}  // namespace mlsys
