// KV-cache bytes per token, sequences that fit beside the weights, and paged-block slack
// (Kwon et al. 2023, arXiv:2309.06180).
#include "mlsys/serving/kv_cache.hpp"

#include <cmath>

#include "mlsys/foundations/input_error.hpp"

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

std::vector<KvCapacityPoint> kv_capacity_series(double hbm_bytes, double memory_fraction, double weights_bytes,
                                                double kv_bytes_per_token) {
  std::vector<KvCapacityPoint> series;
  for (double ctx = 256; ctx <= 1048576; ctx *= 2) {
    const KvCapacity s = kv_capacity(hbm_bytes, memory_fraction, weights_bytes, kv_bytes_per_token, ctx);
    series.push_back({ctx, s.max_sequences, s.bytes_per_sequence});
  }
  return series;
}

KvCacheSize kv_cache_size(double layers, double kv_heads, double head_dim, double bytes_per_element, double context,
                          double batch) {
  const double per_token = kv_bytes_per_token(layers, kv_heads, head_dim, bytes_per_element);
  const double per_seq = per_token * context;
  return {per_token, per_seq, per_seq * batch};
}

KvPaging kv_paging(double tokens, double block_size, double reserve_tokens, double bytes_per_token, double sequences) {
  const double t = tokens, mc = reserve_tokens;
  if (t > mc) throw InputError("tokens", "'tokens' cannot exceed the reservation 'max_context'.");
  const KvBlocks b = kv_blocks(t, block_size, mc);
  const double bpt = bytes_per_token, n = sequences;
  KvPaging r;
  r.blocks = b.blocks * n;
  r.paged_tokens = b.paged_tokens * n;
  r.slack_tokens = b.slack_tokens * n;
  r.slack_bytes = b.slack_tokens * n * bpt;
  r.used_bytes = t * n * bpt;
  r.paged_bytes = b.paged_tokens * n * bpt;
  r.contiguous_bytes = mc * n * bpt;
  r.contiguous_waste_bytes = b.contiguous_waste_tokens * n * bpt;
  r.paged_waste_fraction = b.slack_tokens / b.paged_tokens;
  r.contiguous_waste_fraction = b.contiguous_waste_tokens / mc;
  return r;
}

}  // namespace mlsys
