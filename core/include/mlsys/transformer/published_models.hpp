// Published decoder-only transformer configurations (content/data/models.json, compiled in):
// each row a released model's shape, its published parameter count and the document the
// numbers come from.
#pragma once
#include <string>
#include <vector>

#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

struct PublishedModel {
  std::string id, name;
  ModelConfig config;         // for a mixture-of-experts row: one expert's MLP width
  double params = 0;          // the published total parameter count
  int experts = 0;            // experts per MoE layer; 0 for a dense model
  int experts_per_token = 0;  // experts routed per token (top-k); 0 for a dense model
  std::string source, notes;
  std::size_t row = 0;        // index in the table
  double training_tokens = 0;  // tokens D of the published pre-training run; 0 when not published
  std::string training_tokens_source;

  bool moe() const { return experts > 0; }
};

// All rows, in table order.
const std::vector<PublishedModel>& published_models();

// The row with this id, or nullptr.
const PublishedModel* find_published_model(const std::string& id);

// The table's "about" text.
const char* published_models_about();

// The engine's parameter counts of a row (model_counts' accounting). Dense rows: total and
// active are model_counts(config).params. MoE rows (every layer's MLP replaced by `experts`
// experts of width ffn_hidden, `experts_per_token` of them routed per token, plus a router
// of hidden × experts per layer): total counts every expert, active the routed ones.
struct PublishedCounts {
  double params_total;   // every weight stored
  double params_active;  // weights one token passes through
};
PublishedCounts published_counts(const PublishedModel& m);

}  // namespace mlsys
