// Embedding-table bytes and share of parameters (mlsys/tokens/embedding_table.hpp).
#include "mlsys/tokens/embedding_table.hpp"

namespace mlsys {

EmbeddingTable embedding_table(const ModelConfig& c, double element_bytes) {
  EmbeddingTable t;
  t.vocab = static_cast<long long>(c.vocab);
  t.hidden = static_cast<long long>(c.hidden);
  t.row_bytes = c.hidden * element_bytes;
  t.embedding_params = c.vocab * c.hidden;
  t.embedding_bytes = t.embedding_params * element_bytes;
  t.head_params = c.tied_embeddings ? 0 : t.embedding_params;
  t.head_bytes = t.head_params * element_bytes;
  t.table_params = t.embedding_params + t.head_params;
  t.table_bytes = t.embedding_bytes + t.head_bytes;
  const ModelCounts counts = model_counts(c);
  t.params = counts.params;
  t.share = t.table_params / counts.params;
  t.head_flops_per_token = 2.0 * t.embedding_params;
  t.head_flops_share = t.embedding_params / counts.params_flops;
  return t;
}

}  // namespace mlsys
