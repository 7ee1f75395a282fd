// Reading a transformer configuration from a calculator's validated inputs, shared by every
// calculator that takes one (layers, hidden, heads and the optional shape fields).
#pragma once
#include "mlsys/transformer/model_config.hpp"
#include "registry.hpp"

namespace mlsys::api {

// Absent optional fields take the model's conventions: head_dim = hidden / heads (which must
// divide), kv_heads = heads (which it must divide), ffn_hidden = 4·hidden, vocab 32,000, an
// ungated MLP and tied embeddings; seq keeps ModelConfig's default when the calculator has none.
ModelConfig model_config_from(const Inputs& in);

}  // namespace mlsys::api
