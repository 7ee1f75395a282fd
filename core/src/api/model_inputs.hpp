// The transformer configuration that several calculators take, declared once: its fields
// (with each calculator's defaults) and the ModelConfig read from them.
#pragma once
#include "mlsys/memory/training_memory.hpp"
#include "mlsys/transformer/model_config.hpp"
#include "registry.hpp"

namespace mlsys::api {

// Fields model, layers, hidden, heads, kv_heads, head_dim, ffn_hidden, seq, vocab, gated_mlp
// and tied_embeddings, in that order, for the keys `defaults` names: a key with a value is that
// field's default, a key with null makes it optional without a default (the model's
// convention below applies), a key left out leaves the field out. The descriptions of
// kv_heads, head_dim and ffn_hidden say which fields they follow (model_config_from). model,
// layers, hidden and heads are always there; `model` (optional, no default) is a published model's id
// (content/data/models.json), offered only for the models with at most `max_layers` layers.
// layers, hidden and heads are never required by the schema (a model can give them);
// model_config_from reports the one missing. `max_layers` caps layers where a calculator's
// work grows with it.
std::vector<Field> transformer_fields(const json& defaults, long long max_layers = 1024);

// With `model`, every configuration field the caller did not give (in.given) takes that
// published model's value, whether or not the calculator has the field or a default for it;
// fields the caller gave override the model's (its head_dim stays unless head_dim is given).
// Without `model`, a field the caller did not give takes the calculator's default, except the
// three that follow others (following_field), which follow them as soon as the caller changes
// one of those from its default (a model given by its fields is that model, not the default
// model with some fields changed): head_dim = hidden / heads (which must divide) once hidden or
// heads changes, kv_heads = heads once heads changes (unless kv_heads_follow_heads is false:
// attention-variants' kv_heads is the grouped-query variant's, not the model's), ffn_hidden =
// default_ffn_hidden(hidden, gated_mlp) once hidden or gated_mlp changes (4·hidden, or LLaMA's
// rule for a gated MLP). With no default they follow always. Other absent optional fields: vocab 32,000, an ungated
// MLP and tied embeddings; seq keeps ModelConfig's default when the calculator has none.
// kv_heads must divide heads either way.
ModelConfig model_config_from(const Inputs& in, bool kv_heads_follow_heads = true);

// A published model's configuration as transformer_fields defaults: {layers, hidden, heads,
// kv_heads, head_dim, ffn_hidden, vocab, seq, gated_mlp, tied_embeddings}, for calculators
// whose defaults are that model. Throws std::invalid_argument for an id not in the table.
json model_defaults(const std::string& id);

// The same with kv_heads and head_dim left optional (no default: they always follow heads
// and hidden) and without seq.
json published_defaults(const std::string& id);

// The defaults of the training calculators (memory, profiling): a 7B-class model of width
// 4096, 32 layers and heads, sequences of 2,048 tokens, a non-gated MLP of 4·hidden (the
// optional fields follow the conventions above) and tied embeddings.
json training_defaults();

// "recompute": none, selective (attention core) or full (layer input only), and its reading.
Field recompute_field(const std::string& default_value);
Recompute recompute_from(const Inputs& in);

}  // namespace mlsys::api
