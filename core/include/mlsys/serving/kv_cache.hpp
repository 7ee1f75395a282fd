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

// Paged KV storage of one sequence of `tokens` tokens in blocks of `block_size` tokens
// (PagedAttention) against a contiguous reservation of `reserve_tokens` slots.
struct KvBlocks {
  double blocks;              // ceil(tokens / block_size)
  double slack_tokens;        // blocks · block_size − tokens (internal fragmentation)
  double paged_tokens;        // blocks · block_size
  double contiguous_waste_tokens;  // reserve_tokens − tokens
};
KvBlocks kv_blocks(double tokens, double block_size, double reserve_tokens);

}  // namespace mlsys
