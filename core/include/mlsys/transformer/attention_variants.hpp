// Multi-head, grouped-query and multi-query attention side by side (attention-and-masks
// lesson). MHA keeps one K and V head per query head (Vaswani et al. 2017), GQA one per group
// of heads / kv_heads query heads (Ainslie et al. 2023, arXiv:2305.13245), MQA a single one
// (Shazeer 2019, arXiv:1911.02150). The KV cache is the serving lesson's model
// (serving/kv_cache.hpp: 2 · layers · kv_heads · head_dim · bytes per token) and the
// parameters the transformer model's W_Q, W_K, W_V, W_O (model_config.hpp, no biases).
#pragma once
#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

struct AttentionVariant {
  double kv_heads = 0;                    // K/V heads
  double group_size = 0;                  // query heads sharing one K/V head: heads / kv_heads
  double kv_bytes_per_token = 0;          // 2 · layers · kv_heads · head_dim · bytes
  double kv_bytes = 0;                    // · context · batch
  double attention_params_per_layer = 0;  // 2·hidden·heads·head_dim + 2·hidden·kv_heads·head_dim
  double kv_reduction = 0;                // MHA's KV bytes / this variant's: heads / kv_heads
  // One decode step's attention FLOPs per byte of K and V read: each cached token costs
  // 4 · heads · head_dim FLOPs a layer (q·k and p·v for every query head) and brings
  // 2 · kv_heads · head_dim · bytes, so 2 · group_size / bytes (the Scaling Book's "attention
  // intensity is the group size" in bf16).
  double decode_flops_per_byte = 0;
};

struct AttentionVariants {
  AttentionVariant mha, gqa, mqa;
  double heads = 0, head_dim = 0;
};

// `c` gives layers, hidden, heads, kv_heads (the GQA variant's) and head_dim; context >= 1
// tokens per sequence, batch >= 1 sequences, bytes_per_element > 0 (the KV cache's dtype).
AttentionVariants attention_variants(const ModelConfig& c, double context, double batch, double bytes_per_element);

}  // namespace mlsys
