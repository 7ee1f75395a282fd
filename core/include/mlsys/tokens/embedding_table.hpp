// Memory of a model's token-embedding table (and of an untied output head): one row of
// `hidden` numbers per vocabulary entry, vocab × hidden × bytes per element, and the share of
// the model's parameters those tables hold (parameters counted by model_counts,
// transformer/model_config.hpp, the `transformer` calculator's count).
#pragma once
#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

struct EmbeddingTable {
  long long vocab = 0, hidden = 0;
  double row_bytes = 0;         // one token's vector: hidden × element bytes
  double embedding_params = 0;  // vocab × hidden
  double embedding_bytes = 0;
  double head_params = 0;       // vocab × hidden when the output head is untied, else 0
  double head_bytes = 0;
  double table_params = 0;      // embedding + head (model_counts' params_embedding)
  double table_bytes = 0;
  double params = 0;            // the whole model (model_counts)
  double share = 0;             // table_params / params
  // The output head is a matmul whether tied or not: 2 · vocab · hidden FLOPs per token
  // forward, against 2 · params_flops for all the weight matmuls (model_counts: every layer's
  // matrices and the head; attention over the context not included).
  double head_flops_per_token = 0;
  double head_flops_share = 0;  // vocab · hidden / params_flops
};

EmbeddingTable embedding_table(const ModelConfig& c, double element_bytes);

}  // namespace mlsys
