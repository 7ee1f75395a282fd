// Calculators of the attention-and-masks lesson: `attention-mask` (which query-key pairs a
// mask allows, and the softmax under it) and `attention-variants` (MHA, GQA and MQA side by
// side; shared/API.md). The score matrix's size against the sequence length is the overview's
// `attention-scores` (seq² · heads · batch · bytes). Models in core/*/transformer/.
#include <optional>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/transformer/attention_mask.hpp"
#include "mlsys/transformer/attention_variants.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

// The model's result with the matrices left out beyond kMaxMaskMatrixSeq.
struct MaskOut {
  long long allowed_count = 0, total_pairs = 0;
  double allowed_fraction = 0;
  bool matrices = false;
  std::optional<std::vector<std::vector<bool>>> allowed;
  std::optional<std::vector<std::vector<double>>> scores, weights;
};

MaskOut mask_out(AttentionMaskResult r) {
  MaskOut o{r.allowed_count, r.total_pairs, r.allowed_fraction, r.matrices, std::nullopt, std::nullopt, std::nullopt};
  if (r.matrices) {
    o.allowed = std::move(r.allowed);
    o.scores = std::move(r.scores);
    o.weights = std::move(r.weights);
  }
  return o;
}

}  // namespace

MLSYS_DESCRIBE(MaskOut,
               MLSYS_OUT(allowed_count, "", "(query, key) pairs the mask allows, exact: none n², causal n(n+1)/2, "
                                            "padding n(n − pad), sliding-window n² − (n − w)(n − w + 1) (n² when w ≥ n), "
                                            "causal-sliding-window m·n − m(m − 1)/2 with m = min(w, n), "
                                            "document q·D(D + 1)/2 + r(r + 1)/2 (q = ⌊n/D⌋, r = n mod D), "
                                            "prefix-lm n(n + 1)/2 + p(p − 1)/2, sink-window the causal window's "
                                            "count plus Σ min(s, t) for t = 1 .. n − w"),
               MLSYS_OUT(total_pairs, "", "seq²: every (query, key) pair"),
               MLSYS_OUT(allowed_fraction, "", "allowed_count / seq²"),
               MLSYS_OUT(matrices, "", "seq ≤ 64: allowed, scores and weights are returned"),
               MLSYS_OUT(allowed, "", "seq ≤ 64: allowed[i][j], whether query i may attend key j"),
               MLSYS_OUT(scores, "", "seq ≤ 64: seeded scores uniform in [−2, 2), drawn for every pair whatever the "
                                     "mask (row-major), so masks compare entry by entry under one seed"),
               MLSYS_OUT(weights, "", "seq ≤ 64: softmax of each query row's scores over its allowed keys, 0 at "
                                      "masked keys; every row sums to 1 (no row is empty: window ≥ 1 keeps the "
                                      "diagonal and padding masks keys only, pad < seq)"));

MLSYS_DESCRIBE(AttentionVariant, MLSYS_OUT(kv_heads, "", "K/V heads: heads (MHA), kv_heads (GQA) or 1 (MQA)"),
               MLSYS_OUT(group_size, "", "Query heads sharing one K/V head: heads / kv_heads"),
               MLSYS_OUT(kv_bytes_per_token, "B", "K and V of one token: 2 · layers · kv_heads · head_dim · bytes"),
               MLSYS_OUT(kv_bytes, "B", "KV cache: kv_bytes_per_token · context · batch"),
               MLSYS_OUT(attention_params_per_layer, "",
                         "W_Q, W_K, W_V, W_O of one layer, no biases: 2·hidden·heads·head_dim + "
                         "2·hidden·kv_heads·head_dim"),
               MLSYS_OUT(kv_reduction, "", "MHA's KV cache / this variant's: heads / kv_heads"),
               MLSYS_OUT(decode_flops_per_byte, "FLOP/B",
                         "One decode step's attention FLOPs per byte of K and V read: 4 · heads · head_dim FLOPs "
                         "against 2 · kv_heads · head_dim · bytes per cached token and layer = 2 · group_size / "
                         "bytes"));
MLSYS_DESCRIBE(AttentionVariants, MLSYS_OUT(mha, "", "Multi-head attention: one K/V head per query head"),
               MLSYS_OUT(gqa, "", "Grouped-query attention with kv_heads K/V heads (Ainslie et al. 2023)"),
               MLSYS_OUT(mqa, "", "Multi-query attention: one K/V head for all query heads (Shazeer 2019)"),
               MLSYS_OUT(heads, "", "Query heads used"), MLSYS_OUT(head_dim, "", "Head size used"));

void add_masks_calculators(Calculators& out) {
  out.add("attention-mask",
          "Which keys j each query i may attend to (0-based): none (all), causal (j ≤ i), padding (keys j < seq − pad; "
          "padded queries keep the real keys), sliding-window (|i − j| < window), causal-sliding-window (j ≤ i and "
          "i − j < window), document (j ≤ i inside one packed document of doc tokens), prefix-lm (j ≤ i or j < "
          "prefix) or sink-window (j ≤ i and i − j < window, or j < sinks). allowed_count in closed form for seq up "
          "to 10^7; for seq ≤ 64 also the mask, seeded scores and their softmax under it.",
          {integer_field("seq", "tokens", "Sequence length n (queries = keys = n); the matrices are returned up to 64",
                         8, 1, kMaxMaskSeq),
           string_field("mask",
                        "none, causal, padding, sliding-window, causal-sliding-window, document, prefix-lm or "
                        "sink-window",
                        "causal",
                        {"none", "causal", "padding", "sliding-window", "causal-sliding-window", "document",
                         "prefix-lm", "sink-window"}),
           integer_field("window", "tokens",
                         "Sliding windows only: query i sees keys with |i − j| < window (bidirectional: window − 1 a "
                         "side plus itself; Longformer's w is 2·(window − 1)) or, causal, its last `window` tokens "
                         "itself included (Mistral's W; Hugging Face's kv_idx > q_idx − window; PyTorch FlexAttention's "
                         "example q_idx − kv_idx ≤ W is window = W + 1)",
                         4, 1, kMaxMaskSeq),
           integer_field("pad", "tokens",
                         "Padding mask only: trailing padding tokens, masked as keys only (as PyTorch's "
                         "key_padding_mask: every query row, a padded one too, keeps the real keys); less than seq",
                         0, 0, kMaxMaskSeq - 1),
           integer_field("doc", "tokens",
                         "Document mask only: tokens per packed document; documents of doc tokens lie end to end "
                         "(the last one shorter) and each is causal, with no pair across documents",
                         4, 1, kMaxMaskSeq),
           integer_field("prefix", "tokens",
                         "Prefix-LM mask only: the first prefix tokens attend each other both ways; the rest is "
                         "causal (at most seq)",
                         4, 0, kMaxMaskSeq),
           integer_field("sinks", "tokens",
                         "Sink-window mask only: the first sinks tokens stay visible to every later query beside "
                         "its causal window (StreamingLLM's attention sinks; at most seq)",
                         1, 0, kMaxMaskSeq),
           seed_field()},
          [](const Inputs& in) {
            const MaskKind kind = parse_mask_kind(in.str("mask"));
            const long long extra = kind == MaskKind::Document   ? in.integer("doc")
                                    : kind == MaskKind::PrefixLM ? in.integer("prefix")
                                    : kind == MaskKind::SinkWindow ? in.integer("sinks")
                                                                   : 1;
            return mask_out(attention_mask(kind, in.integer("seq"), in.integer("window"), in.integer("pad"),
                                           static_cast<std::uint64_t>(in.integer("seed")), extra));
          });

  std::vector<Field> variant_fields =
      transformer_fields({{"layers", 80}, {"hidden", 8192}, {"heads", 64}, {"kv_heads", 8}, {"head_dim", nullptr}});
  for (Field& f : variant_fields)  // the shared description says it follows heads; here it is GQA's 8
    if (f.name == "kv_heads")
      f.description = "Key/value heads of the GQA variant (must divide heads); default 8, whatever heads is";
  variant_fields.push_back(integer_field("context", "tokens", "Tokens cached per sequence", 4096, 1, 16777216));
  variant_fields.push_back(integer_field("batch", "", "Sequences", 1, 1, 1000000));
  variant_fields.push_back(dtype_field("bf16"));
  out.add("attention-variants",
          "Multi-head, grouped-query (kv_heads K/V heads) and multi-query (one K/V head) attention of one model: KV "
          "bytes per token 2 · layers · kv_heads · head_dim · bytes (the kv-cache model), the cache for context · "
          "batch tokens, and W_Q, W_K, W_V, W_O parameters per layer. Defaults: Llama 2 70B (80 layers, width 8,192, "
          "64 heads, 8 KV heads).",
          variant_fields, [](const Inputs& in) {
            return attention_variants(model_config_from(in, /*kv_heads_follow_heads=*/false),
                                      static_cast<double>(in.integer("context")),
                                      static_cast<double>(in.integer("batch")), dtype_bytes(in.str("dtype")));
          });
}

}  // namespace mlsys::api
