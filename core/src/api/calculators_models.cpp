// Calculator `models`: the published transformer configurations (content/data/models.json),
// the whole table or one row, with the engine's parameter count beside the published one.
#include "mlsys/transformer/published_models.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

struct ModelEntry {
  std::string id, name;
  long long layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, seq;
  bool gated_mlp, tied_embeddings;
  std::optional<long long> experts, experts_per_token;
  double params, params_counted, params_active_counted;
  std::string source, notes;
  std::optional<double> training_tokens;  // rows whose pre-training run is published
  std::optional<std::string> training_tokens_source;
};

struct ModelsOut {
  std::optional<std::vector<ModelEntry>> models;
  std::optional<ModelEntry> entry;
};

ModelEntry entry_of(const PublishedModel& m) {
  const auto n = [](double x) { return static_cast<long long>(x); };
  const ModelConfig& c = m.config;
  const PublishedCounts counted = published_counts(m);
  ModelEntry e{m.id, m.name, n(c.layers), n(c.hidden), n(c.heads), n(c.kv_heads), n(c.head_dim), n(c.ffn_hidden),
               n(c.vocab), n(c.seq), c.gated_mlp, c.tied_embeddings, std::nullopt, std::nullopt, m.params,
               counted.params_total, counted.params_active, m.source, m.notes, std::nullopt, std::nullopt};
  if (m.training_tokens > 0) {
    e.training_tokens = m.training_tokens;
    e.training_tokens_source = m.training_tokens_source;
  }
  if (m.moe()) {
    e.experts = m.experts;
    e.experts_per_token = m.experts_per_token;
  }
  return e;
}

}  // namespace

MLSYS_DESCRIBE(ModelEntry, MLSYS_OUT(id, "", "Model id (the value of other calculators' `model` field)"),
               MLSYS_OUT(name, "", "Model name as published"), MLSYS_OUT(layers, "", "Transformer layers L"),
               MLSYS_OUT(hidden, "", "Model width h"), MLSYS_OUT(heads, "", "Attention (query) heads"),
               MLSYS_OUT(kv_heads, "", "Key/value heads: = heads multi-head, 1 multi-query, between grouped-query"),
               MLSYS_OUT(head_dim, "", "Size of one head (not always hidden / heads)"),
               MLSYS_OUT(ffn_hidden, "", "MLP inner width (each of the three matrices of a gated MLP; one expert's)"),
               MLSYS_OUT(vocab, "", "Rows of the embedding table as released"),
               MLSYS_OUT(seq, "tokens", "Context the model was trained at (its final stage)"),
               MLSYS_OUT(gated_mlp, "", "Gated MLP (SwiGLU/GeGLU): three matrices of width ffn_hidden"),
               MLSYS_OUT(tied_embeddings, "", "Output head shares the input embedding matrix"),
               MLSYS_OUT(experts, "", "Experts per mixture-of-experts layer (MoE models only)"),
               MLSYS_OUT(experts_per_token, "", "Experts routed per token, top-k (MoE models only)"),
               MLSYS_OUT(params, "", "Published total parameter count"),
               MLSYS_OUT(params_counted, "",
                         "The engine's count of the configuration (matrices, norm gains, embeddings; every expert and "
                         "the routers of an MoE model; no biases or learned position embeddings)"),
               MLSYS_OUT(params_active_counted, "",
                         "The engine's count of the weights one token passes through (= params_counted for a dense model)"),
               MLSYS_OUT(source, "", "Publication the numbers come from"),
               MLSYS_OUT(notes, "", "Caveats: architecture the columns do not capture, count differences"),
               MLSYS_OUT(training_tokens, "tokens",
                         "Tokens D of the published pre-training run (rows whose publication gives it): 6·params·D is "
                         "its training compute (training-time with this model)"),
               MLSYS_OUT(training_tokens_source, "", "Publication of training_tokens"));

MLSYS_DESCRIBE(ModelsOut, MLSYS_OUT(models, "", "Every published configuration, in table order (without id)"),
               MLSYS_FLAT(entry));

void add_models_calculators(Calculators& out) {
  std::vector<std::string> ids;
  for (const auto& m : published_models()) ids.push_back(m.id);
  out.add("models",
          "Published decoder-only transformer configurations (paper tables and released config.json files), the whole "
          "table or one row by id, with the engine's parameter count beside the published one.",
          {optional(string_field("id", "Model id; without it, every model", json(), ids))}, [](const Inputs& in) {
            ModelsOut r;
            if (in.has("id")) {
              r.entry = entry_of(*find_published_model(in.str("id")));
            } else {
              r.models.emplace();
              for (const auto& m : published_models()) r.models->push_back(entry_of(m));
            }
            return r;
          });
}

}  // namespace mlsys::api
