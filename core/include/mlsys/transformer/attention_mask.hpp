// Attention masks of the attention-and-masks lesson: which keys j a query i may attend to.
// Conventions (shared/API.md, "Conventions the second-half calculators follow"), 0-based i, j:
//   none                   every pair;
//   causal                 j <= i (Vaswani et al. 2017, the decoder's masked self-attention);
//   padding                j < seq − pad: the last `pad` tokens are padding and are masked as
//                          keys only; every query row, a padded one included, keeps the real
//                          keys (PyTorch's key_padding_mask; a padded query's output is
//                          discarded downstream);
//   sliding-window         |i − j| < window: window − 1 keys on each side plus the token itself,
//                          2·window − 1 in all (Longformer's window w of ½w a side, Beltagy et
//                          al. 2020, is window = ½w + 1 here);
//   causal-sliding-window  j <= i and i − j < window: the last `window` tokens, the query's own
//                          included (Mistral 7B, Jiang et al. 2023, "at most W tokens"; Hugging
//                          Face transformers' sliding_window_overlay, kv_idx > q_idx − window;
//                          PyTorch FlexAttention's example q_idx − kv_idx <= W keeps W + 1);
//   document               j <= i within one packed document: documents of `extra` tokens laid
//                          end to end (the last one shorter), causal inside each, nothing across
//                          (Llama 3's mask between documents of one sequence);
//   prefix-lm              j <= i or j < prefix (`extra`): the prefix sees itself both ways, the
//                          rest is causal (T5's prefix LM, Raffel et al. 2020);
//   sink-window            j <= i and (i − j < window or j < sinks, `extra`): a causal window plus
//                          the first tokens always visible (StreamingLLM, Xiao et al. 2024).
// No row is ever empty (window >= 1 keeps the diagonal, pad < seq keeps a real key); were one
// empty, its weights would be all zero rather than 0/0.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mlsys {

enum class MaskKind { None, Causal, Padding, SlidingWindow, CausalSlidingWindow, Document, PrefixLM, SinkWindow };

// "none", "causal", "padding", "sliding-window", "causal-sliding-window", "document",
// "prefix-lm", "sink-window"; InputError on "mask".
MaskKind parse_mask_kind(const std::string& name);

// The largest seq whose matrices (allowed, scores, weights) are returned.
inline constexpr long long kMaxMaskMatrixSeq = 64;
// The largest seq whose allowed pairs are counted (closed forms, exact in 64-bit integers).
inline constexpr long long kMaxMaskSeq = 10'000'000;

// Whether query i may attend key j (0 <= i, j < seq). `extra` is the document length
// (document), the prefix length (prefix-lm) or the number of sinks (sink-window).
bool mask_allows(MaskKind kind, long long seq, long long window, long long pad, long long i, long long j,
                 long long extra = 1);

// Allowed (query, key) pairs in closed form, for 1 <= seq <= kMaxMaskSeq, window >= 1,
// 0 <= pad < seq (window and pad are read only by the masks that use them):
//   none n², causal n(n+1)/2, padding n(n − pad),
//   sliding-window n² − (n − w)(n − w + 1) for w <= n (else n²),
//   causal-sliding-window m·n − m(m − 1)/2 with m = min(w, n),
//   document q·D(D + 1)/2 + r(r + 1)/2 with q = ⌊n/D⌋, r = n mod D,
//   prefix-lm n(n + 1)/2 + p(p − 1)/2,
//   sink-window the causal window's count plus Σ min(s, t) over t = 1 .. n − w.
long long mask_allowed_count(MaskKind kind, long long seq, long long window, long long pad, long long extra = 1);
// The same by visiting every pair (the naive reference of the tests).
long long mask_allowed_count_brute(MaskKind kind, long long seq, long long window, long long pad,
                                   long long extra = 1);

struct AttentionMaskResult {
  long long allowed_count = 0;
  long long total_pairs = 0;    // seq²
  double allowed_fraction = 0;  // allowed_count / seq²
  bool matrices = false;        // seq <= kMaxMaskMatrixSeq: the three matrices below are filled
  std::vector<std::vector<bool>> allowed;     // [query][key]
  std::vector<std::vector<double>> scores;    // seeded scores, uniform in [−2, 2), drawn for every pair
  std::vector<std::vector<double>> weights;   // row softmax over the allowed keys, 0 elsewhere
};

// The mask, its counts and, for seq <= 64, the softmax of seeded scores under it. Scores do not
// depend on the mask (they are drawn for every pair in row-major order from `seed`), so two
// masks with one seed can be compared entry by entry. InputError naming seq, window, pad, doc,
// prefix or sinks.
AttentionMaskResult attention_mask(MaskKind kind, long long seq, long long window, long long pad, std::uint64_t seed,
                                   long long extra = 1);

}  // namespace mlsys
