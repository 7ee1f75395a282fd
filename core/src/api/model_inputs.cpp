// Transformer configuration from validated inputs (see model_inputs.hpp).
#include "model_inputs.hpp"

namespace mlsys::api {

ModelConfig model_config_from(const Inputs& in) {
  ModelConfig c;
  const long long heads = in.integer("heads");
  c.layers = static_cast<double>(in.integer("layers"));
  c.hidden = static_cast<double>(in.integer("hidden"));
  c.heads = static_cast<double>(heads);
  if (in.has("head_dim")) {
    c.head_dim = static_cast<double>(in.integer("head_dim"));
  } else {
    if (in.integer("hidden") % heads != 0)
      throw InputError("heads", "'hidden' must be divisible by 'heads' (or give 'head_dim').");
    c.head_dim = c.hidden / c.heads;
  }
  const long long kv_heads = in.has("kv_heads") ? in.integer("kv_heads") : heads;
  if (kv_heads > heads || heads % kv_heads != 0) throw InputError("kv_heads", "'kv_heads' must divide 'heads'.");
  c.kv_heads = static_cast<double>(kv_heads);
  c.ffn_hidden = in.has("ffn_hidden") ? static_cast<double>(in.integer("ffn_hidden")) : 4 * c.hidden;
  if (in.has("seq")) c.seq = static_cast<double>(in.integer("seq"));
  c.vocab = in.has("vocab") ? static_cast<double>(in.integer("vocab")) : 32000;
  c.gated_mlp = in.has("gated_mlp") && in.boolean("gated_mlp");
  c.tied_embeddings = !in.has("tied_embeddings") || in.boolean("tied_embeddings");
  return c;
}

}  // namespace mlsys::api
