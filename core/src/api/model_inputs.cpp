// The transformer configuration's fields and reading (see model_inputs.hpp).
#include "model_inputs.hpp"

namespace mlsys::api {

std::vector<Field> transformer_fields(const json& defaults, long long max_layers) {
  const auto def = [&](const char* key) { return defaults.contains(key) ? defaults.at(key) : json(); };
  const auto wanted = [&](const char* key) { return defaults.contains(key); };
  std::vector<Field> f = {
      integer_field("layers", "", "Transformer layers L", def("layers"), 1, max_layers),
      integer_field("hidden", "", "Model width h", def("hidden"), 64, 131072),
      integer_field("heads", "", "Attention (query) heads a", def("heads"), 1, 1024)};
  const auto add = [&](Field field) {
    if (!wanted(field.name.c_str())) return;
    if (field.default_value.is_null()) field.required = false;
    f.push_back(std::move(field));
  };
  add(integer_field("kv_heads", "",
                    "Key/value heads: = heads is multi-head, 1 is multi-query, between is grouped-query attention; "
                    "default heads",
                    def("kv_heads"), 1, 1024));
  add(integer_field("head_dim", "", "Size of one head; default hidden / heads", def("head_dim"), 8, 1024));
  add(integer_field("ffn_hidden", "", "MLP inner width; default 4·hidden", def("ffn_hidden"), 1, 1048576));
  add(integer_field("seq", "tokens", "Tokens per sequence s", def("seq"), 1, 1048576));
  add(integer_field("vocab", "", "Vocabulary size", def("vocab"), 1, 4194304));
  if (wanted("gated_mlp"))
    f.push_back(boolean_field("gated_mlp", "Gated MLP (SwiGLU): three matrices of width ffn_hidden instead of two",
                              def("gated_mlp").get<bool>()));
  if (wanted("tied_embeddings"))
    f.push_back(boolean_field("tied_embeddings", "Output head shares the input embedding matrix",
                              def("tied_embeddings").get<bool>()));
  return f;
}

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

Field recompute_field(const std::string& default_value) {
  return string_field("recompute", "Activation recomputation: none, selective (attention core) or full (layer input only)",
                      default_value, {"none", "selective", "full"});
}

Recompute recompute_from(const Inputs& in) {
  const std::string r = in.str("recompute");
  return r == "full" ? Recompute::Full : r == "selective" ? Recompute::Selective : Recompute::None;
}

}  // namespace mlsys::api
