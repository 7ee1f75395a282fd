// MHA, GQA and MQA of one configuration (see attention_variants.hpp).
#include "mlsys/transformer/attention_variants.hpp"

#include "mlsys/serving/kv_cache.hpp"

namespace mlsys {

namespace {

AttentionVariant variant(ModelConfig c, double kv_heads, double context, double batch, double bytes_per_element) {
  c.kv_heads = kv_heads;
  const KvCacheSize kv = kv_cache_size(c.layers, kv_heads, c.head_dim, bytes_per_element, context, batch);
  AttentionVariant v;
  v.kv_heads = kv_heads;
  v.group_size = c.heads / kv_heads;
  v.kv_bytes_per_token = kv.bytes_per_token;
  v.kv_bytes = kv.total_bytes;
  v.attention_params_per_layer = attention_params_per_layer(c);
  v.kv_reduction = c.heads / kv_heads;  // bytes scale with kv_heads alone
  v.decode_flops_per_byte = 2.0 * v.group_size / bytes_per_element;
  return v;
}

}  // namespace

AttentionVariants attention_variants(const ModelConfig& c, double context, double batch, double bytes_per_element) {
  AttentionVariants r;
  r.heads = c.heads;
  r.head_dim = c.head_dim;
  r.mha = variant(c, c.heads, context, batch, bytes_per_element);
  r.gqa = variant(c, c.kv_heads, context, batch, bytes_per_element);
  r.mqa = variant(c, 1, context, batch, bytes_per_element);
  return r;
}

}  // namespace mlsys
