// KV-cache size and capacity. Every layer keeps one key and one value vector per KV head and
// token: 2 · layers · kv_heads · head_dim · bytes per token (Kwon et al. 2023, vLLM,
// arXiv:2309.06180, §3: 800 KB per token for OPT-13B in fp16). Grouped-query attention
// (Ainslie et al. 2023) and multi-query attention (Shazeer 2019) shrink kv_heads.
#pragma once
#include <vector>

namespace mlsys {

// Bytes of K and V for one token: 2 · layers · kv_heads · head_dim · bytes_per_element.
double kv_bytes_per_token(double layers, double kv_heads, double head_dim, double bytes_per_element);

struct KvCapacity {
  double budget_bytes;        // hbm_bytes · memory_fraction
  double free_bytes;          // budget − weights (may be negative: the weights do not fit)
  double bytes_per_sequence;  // kv_bytes_per_token · context
  double max_sequences;       // floor(free / bytes_per_sequence), 0 when nothing fits
  double max_tokens;          // floor(free / kv_bytes_per_token)
};

// Sequences of `context` tokens whose KV cache fits in HBM beside the weights.
// hbm_bytes > 0, 0 < memory_fraction <= 1, weights_bytes >= 0, kv_bytes_per_token > 0, context >= 1.
KvCapacity kv_capacity(double hbm_bytes, double memory_fraction, double weights_bytes, double kv_bytes_per_token,
                       double context);

// kv_capacity at contexts 256, 512, ..., 1,048,576.
struct KvCapacityPoint {
  double context, max_sequences, bytes_per_sequence;
};
std::vector<KvCapacityPoint> kv_capacity_series(double hbm_bytes, double memory_fraction, double weights_bytes,
                                                double kv_bytes_per_token);

// KV cache of `batch` sequences of `context` tokens.
struct KvCacheSize {
  double bytes_per_token, bytes_per_sequence, total_bytes;
};
KvCacheSize kv_cache_size(double layers, double kv_heads, double head_dim, double bytes_per_element, double context,
                          double batch);

// Paged KV storage of one sequence of `tokens` tokens in blocks of `block_size` tokens
// (PagedAttention) against a contiguous reservation of `reserve_tokens` slots.
struct KvBlocks {
  double blocks;              // ceil(tokens / block_size)
  double slack_tokens;        // blocks · block_size − tokens (internal fragmentation)
  double paged_tokens;        // blocks · block_size
  double contiguous_waste_tokens;  // reserve_tokens − tokens
};
KvBlocks kv_blocks(double tokens, double block_size, double reserve_tokens);

// kv_blocks for `sequences` equal sequences, in tokens and bytes. Throws InputError on
// "tokens" when tokens > reserve_tokens.
struct KvPaging {
  double blocks, paged_tokens, slack_tokens, slack_bytes, used_bytes, paged_bytes, contiguous_bytes,
      contiguous_waste_bytes;
  double paged_waste_fraction;       // slack / paged tokens
  double contiguous_waste_fraction;  // unused share of the reservation
};
KvPaging kv_paging(double tokens, double block_size, double reserve_tokens, double bytes_per_token, double sequences);

}  // namespace mlsys
