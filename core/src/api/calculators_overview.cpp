// Calculators of the site's overview page (Systems and scaling): the size of the attention
// score matrix (n x n per head, Vaswani et al. 2017) and the data-parallel global batch
// (B_global = B_per_device x N_devices x N_accumulation, as in Goyal et al. 2017).
#include "mlsys/foundations/dtype.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

// Elements and bytes of the materialized score matrices S = QK^T: seq x seq per head,
// per sequence of the batch (what standard attention writes to memory, FlashAttention avoids).
struct AttentionScores {
  double elements;
  double bytes;
};

AttentionScores attention_scores(double seq, double heads, double batch, double bytes_per_element) {
  const double elements = seq * seq * heads * batch;
  return {elements, elements * bytes_per_element};
}

// Sequences and tokens in one optimizer step of data parallelism with gradient accumulation.
struct GlobalBatch {
  double sequences;
  double tokens;
};

GlobalBatch global_batch(double per_device_batch, double devices, double accumulation, double seq) {
  const double sequences = per_device_batch * devices * accumulation;
  return {sequences, sequences * seq};
}

}  // namespace

void add_overview_calculators(std::vector<Calculator>& out) {
  out.push_back({"attention-scores",
                 "Size of the attention score matrices n x n per head and sequence: elements = seq^2 * heads * "
                 "batch, bytes = elements * size of dtype.",
                 {integer_field("seq", "", "Sequence length n (tokens)", 4096, 1, 1LL << 24),
                  integer_field("heads", "", "Attention heads", 32, 1, 1LL << 16),
                  integer_field("batch", "", "Sequences in the batch", 1, 1, 1LL << 20), dtype_field("bf16")},
                 [](const Inputs& in) -> json {
                   const auto r = attention_scores(static_cast<double>(in.integer("seq")),
                                                   static_cast<double>(in.integer("heads")),
                                                   static_cast<double>(in.integer("batch")),
                                                   dtype_bytes(in.str("dtype")));
                   return {{"elements", r.elements}, {"bytes", r.bytes}};
                 }});

  out.push_back({"global-batch",
                 "Global batch of data-parallel training: sequences = per_device_batch * devices * accumulation, "
                 "tokens = sequences * seq.",
                 {integer_field("per_device_batch", "", "Micro-batch per device (sequences)", 8, 1, 1LL << 20),
                  integer_field("devices", "", "Data-parallel devices", 64, 1, 1LL << 24),
                  integer_field("accumulation", "", "Gradient-accumulation steps", 1, 1, 1LL << 20),
                  integer_field("seq", "", "Tokens per sequence", 4096, 1, 1LL << 24)},
                 [](const Inputs& in) -> json {
                   const auto r = global_batch(static_cast<double>(in.integer("per_device_batch")),
                                               static_cast<double>(in.integer("devices")),
                                               static_cast<double>(in.integer("accumulation")),
                                               static_cast<double>(in.integer("seq")));
                   return {{"sequences", r.sequences}, {"tokens", r.tokens}};
                 }});
}

}  // namespace mlsys::api
