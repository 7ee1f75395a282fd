// Calculators of the site's overview page (Systems and scaling): the size of the attention
// score matrix (n x n per head, Vaswani et al. 2017) and the data-parallel global batch
// (B_global = B_per_device x N_devices x N_accumulation, as in Goyal et al. 2017).
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/transformer/overview.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(AttentionScores, MLSYS_OUT(elements, "", "seq² · heads · batch"),
               MLSYS_OUT(bytes, "B", "elements · size of dtype"),
               MLSYS_OUT(with_probabilities_bytes, "B", "S and its softmax P, both materialized by standard attention: 2 · bytes"),
               MLSYS_OUT(logsumexp_bytes, "B",
                         "What FlashAttention keeps instead: one fp32 logsumexp per query row and head, seq · heads · batch · 4"));
MLSYS_DESCRIBE(GlobalBatch, MLSYS_OUT(sequences, "", "per_device_batch · devices · accumulation"),
               MLSYS_OUT(tokens, "tokens", "sequences · seq"));

void add_overview_calculators(Calculators& out) {
  out.add("attention-scores",
          "Size of the attention score matrices n x n per head and sequence: elements = seq^2 * heads * batch, bytes = "
          "elements * size of dtype; with the softmax P beside S, twice that; FlashAttention's logsumexp instead, "
          "seq * heads * batch fp32 values.",
          {integer_field("seq", "", "Sequence length n (tokens)", 4096, 1, 1LL << 24),
           integer_field("heads", "", "Attention heads", 32, 1, 1LL << 16),
           integer_field("batch", "", "Sequences in the batch", 1, 1, 1LL << 20), dtype_field("bf16")},
          [](const Inputs& in) {
            return attention_scores(static_cast<double>(in.integer("seq")), static_cast<double>(in.integer("heads")),
                                    static_cast<double>(in.integer("batch")), dtype_bytes(in.str("dtype")));
          });

  out.add("global-batch",
          "Global batch of data-parallel training: sequences = per_device_batch * devices * accumulation, tokens = "
          "sequences * seq.",
          {integer_field("per_device_batch", "", "Micro-batch per device (sequences)", 8, 1, 1LL << 20),
           integer_field("devices", "", "Data-parallel devices", 64, 1, 1LL << 24),
           integer_field("accumulation", "", "Gradient-accumulation steps", 1, 1, 1LL << 20),
           integer_field("seq", "", "Tokens per sequence", 4096, 1, 1LL << 24)},
          [](const Inputs& in) {
            return global_batch(static_cast<double>(in.integer("per_device_batch")),
                                static_cast<double>(in.integer("devices")),
                                static_cast<double>(in.integer("accumulation")), static_cast<double>(in.integer("seq")));
          });
}

}  // namespace mlsys::api
