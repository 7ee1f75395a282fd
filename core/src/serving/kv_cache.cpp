// KV-cache bytes per token, sequences that fit beside the weights, and paged-block slack
// (Kwon et al. 2023, arXiv:2309.06180).
#include "mlsys/serving/kv_cache.hpp"

#include <cmath>

namespace mlsys {

double kv_bytes_per_token(double layers, double kv_heads, double head_dim, double bytes_per_element) {
  return 2.0 * layers * kv_heads * head_dim * bytes_per_element;
}

KvCapacity kv_capacity(double hbm_bytes, double memory_fraction, double weights_bytes, double kv_bytes_per_token,
                       double context) {
  KvCapacity c;
  c.budget_bytes = hbm_bytes * memory_fraction;
  c.free_bytes = c.budget_bytes - weights_bytes;
  c.bytes_per_sequence = kv_bytes_per_token * context;
  c.max_sequences = c.free_bytes > 0 ? std::floor(c.free_bytes / c.bytes_per_sequence) : 0;
  c.max_tokens = c.free_bytes > 0 ? std::floor(c.free_bytes / kv_bytes_per_token) : 0;
  return c;
}

KvBlocks kv_blocks(double tokens, double block_size, double reserve_tokens) {
  KvBlocks b;
  b.blocks = std::ceil(tokens / block_size);
  b.paged_tokens = b.blocks * block_size;
  b.slack_tokens = b.paged_tokens - tokens;
  b.contiguous_waste_tokens = reserve_tokens - tokens;
  return b;
}

}  // namespace mlsys
