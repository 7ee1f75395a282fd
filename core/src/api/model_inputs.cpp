// The transformer configuration's fields and reading (see model_inputs.hpp).
#include "model_inputs.hpp"

#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>

#include "mlsys/transformer/published_models.hpp"

namespace mlsys::api {

std::vector<Field> transformer_fields(const json& defaults, long long max_layers) {
  const auto def = [&](const char* key) { return defaults.contains(key) ? defaults.at(key) : json(); };
  const auto wanted = [&](const char* key) { return defaults.contains(key); };
  std::vector<std::string> ids;
  // Dense models only: these calculators model every layer's MLP as one dense MLP, which a
  // mixture of experts is not.
  for (const auto& m : published_models())
    if (!m.moe() && m.config.layers <= static_cast<double>(max_layers)) ids.push_back(m.id);
  std::vector<Field> f = {
      optional(string_field("model", "Published model (content/data/models.json): its configuration for every field not given",
                            json(), ids)),
      optional(integer_field("layers", "", "Transformer layers L", def("layers"), 1, max_layers)),
      optional(integer_field("hidden", "", "Model width h", def("hidden"), 64, 131072)),
      optional(integer_field("heads", "", "Attention (query) heads a", def("heads"), 1, 1024))};
  const auto add = [&](Field field) {
    if (!wanted(field.name.c_str())) return;
    if (field.default_value.is_null()) field.required = false;
    f.push_back(std::move(field));
  };
  // The three fields that follow others (model_config_from): their descriptions say from which.
  const auto number = [](const json& v) {  // 14336 -> "14,336"
    const std::string digits = std::to_string(v.get<long long>());
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  };
  const json kv = def("kv_heads"), hd = def("head_dim"), ffn = def("ffn_hidden");
  add(integer_field("kv_heads", "",
                    "Key/value heads: = heads is multi-head, 1 is multi-query, between is grouped-query attention; " +
                        (kv.is_null() ? std::string("default heads")
                                      : "default " + number(kv) + " while heads keeps its default, else heads"),
                    kv, 1, 1024));
  add(integer_field("head_dim", "",
                    "Size of one head; " + (hd.is_null() ? std::string("default hidden / heads")
                                                         : "default " + number(hd) +
                                                               " while hidden and heads keep their defaults, else "
                                                               "hidden / heads"),
                    hd, 8, 1024));
  add(integer_field("ffn_hidden", "",
                    "MLP inner width; default " +
                        (ffn.is_null() ? std::string() : number(ffn) + " while hidden and gated_mlp keep their defaults, else ") +
                        "from hidden: 4·hidden, or with gated_mlp LLaMA's 2/3 of 4·hidden rounded up to a multiple of 256",
                    ffn, 1, 1048576));
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

namespace {

// The published model named by `model`, or nullptr without one.
const PublishedModel* preset_of(const Inputs& in) {
  if (!in.has("model")) return nullptr;
  const std::string id = in.str("model");
  const PublishedModel* m = find_published_model(id);
  if (!m) throw InputError("model", "Unknown model '" + id + "'; the calculator `models` lists them.");
  return m;
}

}  // namespace

ModelConfig model_config_from(const Inputs& in, bool kv_heads_follow_heads) {
  const PublishedModel* preset = preset_of(in);
  // The caller's value, else the preset's, else the calculator's default; nullopt when none.
  const auto integer = [&](const char* name, double ModelConfig::*member) -> std::optional<long long> {
    if (in.given(name)) return in.integer(name);
    if (preset) return static_cast<long long>(preset->config.*member);
    if (in.has(name)) return in.integer(name);
    return std::nullopt;
  };
  // A field that follows others: the same, except that the calculator's default gives way
  // (nullopt: the rule applies) once the caller changes one of the fields it follows, so that
  // a model given by its fields does not keep the default model's width or heads.
  const auto following = [&](const char* name, double ModelConfig::*member,
                             std::initializer_list<const char*> follows) -> std::optional<long long> {
    if (in.given(name) || preset) return integer(name, member);
    const auto v = following_field(in, name, follows);
    return v ? std::optional<long long>(static_cast<long long>(*v)) : std::nullopt;
  };
  const auto flag = [&](const char* name, bool ModelConfig::*member) -> std::optional<bool> {
    if (in.given(name)) return in.boolean(name);
    if (preset) return preset->config.*member;
    if (in.has(name)) return in.boolean(name);
    return std::nullopt;
  };
  const auto required = [&](const char* name, double ModelConfig::*member) {
    const auto v = integer(name, member);
    if (!v) throw InputError(name, std::string("Field '") + name + "' is required.");
    return *v;
  };
  ModelConfig c;
  const long long layers = required("layers", &ModelConfig::layers);
  const long long hidden = required("hidden", &ModelConfig::hidden);
  const long long heads = required("heads", &ModelConfig::heads);
  c.layers = static_cast<double>(layers);
  c.hidden = static_cast<double>(hidden);
  c.heads = static_cast<double>(heads);
  if (const auto head_dim = following("head_dim", &ModelConfig::head_dim, {"hidden", "heads"})) {
    c.head_dim = static_cast<double>(*head_dim);
  } else {
    if (hidden % heads != 0)
      throw InputError("heads", "'hidden' must be divisible by 'heads' (or give 'head_dim').");
    c.head_dim = c.hidden / c.heads;
    // The same bounds as a given head_dim: 1,024 heads of a width-4,096 model would be heads of 4.
    if (c.head_dim < 8) throw InputError("heads", "hidden / heads is the head size, at least 8: use fewer 'heads'.");
    if (c.head_dim > 1024) throw InputError("heads", "hidden / heads is the head size, at most 1,024: use more 'heads'.");
  }
  const auto kv = kv_heads_follow_heads ? following("kv_heads", &ModelConfig::kv_heads, {"heads"})
                                        : integer("kv_heads", &ModelConfig::kv_heads);
  const long long kv_heads = kv.value_or(heads);
  if (kv_heads > heads || heads % kv_heads != 0)
    throw InputError("kv_heads", "'kv_heads' (" + std::to_string(kv_heads) + ") must divide 'heads' (" +
                                     std::to_string(heads) + ").");
  c.kv_heads = static_cast<double>(kv_heads);
  if (const auto seq = integer("seq", &ModelConfig::seq)) c.seq = static_cast<double>(*seq);
  const auto vocab = integer("vocab", &ModelConfig::vocab);
  c.vocab = vocab ? static_cast<double>(*vocab) : 32000;
  c.gated_mlp = flag("gated_mlp", &ModelConfig::gated_mlp).value_or(false);
  c.tied_embeddings = flag("tied_embeddings", &ModelConfig::tied_embeddings).value_or(true);
  const auto ffn_hidden = following("ffn_hidden", &ModelConfig::ffn_hidden, {"hidden", "gated_mlp"});
  c.ffn_hidden = ffn_hidden ? static_cast<double>(*ffn_hidden) : default_ffn_hidden(c.hidden, c.gated_mlp);
  return c;
}

json model_defaults(const std::string& id) {
  const PublishedModel* m = find_published_model(id);
  if (!m) throw std::invalid_argument("model_defaults: no published model '" + id + "'");
  const ModelConfig& c = m->config;
  const auto n = [](double x) { return static_cast<long long>(x); };
  return {{"layers", n(c.layers)},         {"hidden", n(c.hidden)},         {"heads", n(c.heads)},
          {"kv_heads", n(c.kv_heads)},     {"head_dim", n(c.head_dim)},     {"ffn_hidden", n(c.ffn_hidden)},
          {"vocab", n(c.vocab)},           {"seq", n(c.seq)},               {"gated_mlp", c.gated_mlp},
          {"tied_embeddings", c.tied_embeddings}};
}

json training_defaults() {
  return {{"layers", 32},        {"hidden", 4096},   {"heads", 32},          {"kv_heads", nullptr},
          {"head_dim", nullptr}, {"ffn_hidden", nullptr}, {"seq", 2048},   {"vocab", 32000},
          {"gated_mlp", false},  {"tied_embeddings", true}};
}

json published_defaults(const std::string& id) {
  json d = model_defaults(id);
  d["kv_heads"] = nullptr;
  d["head_dim"] = nullptr;
  d.erase("seq");
  return d;
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
