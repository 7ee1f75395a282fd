// The attention-and-masks lesson's models and calculators: attention-mask (pair rule, closed
// counts, masked softmax) and attention-variants (MHA, GQA, MQA).
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/transformer/attention_mask.hpp"
#include "test_support.hpp"

using mlsys::calc;
using mlsys::json;
using mlsys::MaskKind;

namespace {

constexpr MaskKind kKinds[] = {MaskKind::None, MaskKind::Causal, MaskKind::Padding, MaskKind::SlidingWindow,
                               MaskKind::CausalSlidingWindow};
constexpr MaskKind kExtraKinds[] = {MaskKind::Document, MaskKind::PrefixLM, MaskKind::SinkWindow};

}  // namespace

TEST(AttentionMask, CausalIsTriangular) {
  // A causal mask keeps the diagonal and everything below it: n(n + 1)/2 pairs (shared/API.md).
  for (long long n : {1LL, 2LL, 7LL, 64LL, 1000LL, 10'000'000LL})
    EXPECT_EQ(mlsys::mask_allowed_count(MaskKind::Causal, n, 1, 0), n * (n + 1) / 2) << n;
  const json r = calc("attention-mask", {{"seq", 4}, {"mask", "causal"}});
  EXPECT_EQ(r["allowed_count"].get<long long>(), 10);
  EXPECT_EQ(r["allowed"], json::parse("[[true,false,false,false],[true,true,false,false],[true,true,true,false],"
                                      "[true,true,true,true]]"));
}

TEST(AttentionMask, ClosedFormsMatchBruteForce) {
  // Every closed form against visiting each pair, windows below, at and beyond seq.
  for (MaskKind kind : kKinds)
    for (long long n = 1; n <= 40; ++n)
      for (long long w : {1LL, 2LL, 3LL, n - 1, n, n + 1, 2 * n})
        for (long long pad : {0LL, n / 2, n - 1}) {
          if (w < 1) continue;
          EXPECT_EQ(mlsys::mask_allowed_count(kind, n, w, pad), mlsys::mask_allowed_count_brute(kind, n, w, pad))
              << static_cast<int>(kind) << " n=" << n << " w=" << w << " pad=" << pad;
        }
}

TEST(AttentionMask, PackedPrefixAndSinkClosedFormsMatchBruteForce) {
  // Document length, prefix and sink count from 0 (or 1) to past the sequence, every window.
  for (MaskKind kind : kExtraKinds)
    for (long long n = 1; n <= 40; ++n)
      for (long long w : {1LL, 2LL, 3LL, n - 1, n, n + 1})
        for (long long e : {0LL, 1LL, 2LL, 3LL, n / 3, n / 2, n - 1, n, n + 5}) {
          if (w < 1 || (kind == MaskKind::Document && e < 1) || (kind != MaskKind::Document && e > n)) continue;
          EXPECT_EQ(mlsys::mask_allowed_count(kind, n, w, 0, e), mlsys::mask_allowed_count_brute(kind, n, w, 0, e))
              << static_cast<int>(kind) << " n=" << n << " w=" << w << " e=" << e;
        }
}

TEST(AttentionMask, PackedPrefixAndSinkRules) {
  // Packed documents of 3 tokens: query 4 (second document) sees keys 3 and 4 only, never the
  // first document (Llama 3's mask between documents of one sequence).
  const json d = calc("attention-mask", {{"seq", 8}, {"mask", "document"}, {"doc", 3}});
  EXPECT_EQ(d["allowed"][4], json::parse("[false,false,false,true,true,false,false,false]"));
  EXPECT_EQ(d["allowed_count"].get<long long>(), 2 * 6 + 3);  // two triangles of 3, one of 2
  // One document as long as the sequence is the causal mask.
  EXPECT_EQ(mlsys::mask_allowed_count(MaskKind::Document, 4096, 1, 0, 4096),
            mlsys::mask_allowed_count(MaskKind::Causal, 4096, 1, 0));
  // Prefix LM with a prefix of 3: query 0 sees the whole prefix, query 5 is causal.
  const json p = calc("attention-mask", {{"seq", 6}, {"mask", "prefix-lm"}, {"prefix", 3}});
  EXPECT_EQ(p["allowed"][0], json::parse("[true,true,true,false,false,false]"));
  EXPECT_EQ(p["allowed"][4], json::parse("[true,true,true,true,true,false]"));
  EXPECT_EQ(p["allowed_count"].get<long long>(), 21 + 3);  // n(n + 1)/2 + p(p − 1)/2
  EXPECT_EQ(mlsys::mask_allowed_count(MaskKind::PrefixLM, 9, 1, 0, 9), 81);  // all prefix: no mask
  // Sink window: window 2 and one sink; query 5 sees the sink 0 and keys 4, 5.
  const json k = calc("attention-mask", {{"seq", 6}, {"mask", "sink-window"}, {"window", 2}, {"sinks", 1}});
  EXPECT_EQ(k["allowed"][5], json::parse("[true,false,false,false,true,true]"));
  // StreamingLLM's setting at scale: 4 sinks beside a 4,096-token window over 32,768 tokens add
  // 4 keys to every query past the window, less the first three partial rows (6 pairs).
  EXPECT_EQ(calc("attention-mask", {{"seq", 32768}, {"mask", "sink-window"}, {"window", 4096}, {"sinks", 4}})
                ["allowed_count"].get<long long>(),
            4096LL * 32768 - 4096LL * 4095 / 2 + 4LL * (32768 - 4096) - 6);
}

TEST(AttentionMask, WindowConventions) {
  // Causal window w keeps the token and the w − 1 before it (Hugging Face's
  // sliding_window_overlay: kv_idx > q_idx − w): query 5 with w = 3 sees keys 3, 4, 5.
  const json c = calc("attention-mask", {{"seq", 8}, {"mask", "causal-sliding-window"}, {"window", 3}});
  EXPECT_EQ(c["allowed"][5], json::parse("[false,false,false,true,true,true,false,false]"));
  // Bidirectional |i − j| < w: w − 1 a side, 2w − 1 in all.
  const json b = calc("attention-mask", {{"seq", 8}, {"mask", "sliding-window"}, {"window", 3}});
  EXPECT_EQ(b["allowed"][4], json::parse("[false,false,true,true,true,true,true,false]"));
  // Window 1 is the diagonal alone.
  EXPECT_EQ(mlsys::mask_allowed_count(MaskKind::SlidingWindow, 100, 1, 0), 100);
  // Mistral 7B's W = 4096 over a 16,384-token prompt (Jiang et al. 2023): 4096·16384 − 4096·4095/2.
  EXPECT_EQ(calc("attention-mask", {{"seq", 16384}, {"mask", "causal-sliding-window"}, {"window", 4096}})["allowed_count"]
                .get<long long>(),
            4096LL * 16384 - 4096LL * 4095 / 2);
}

TEST(AttentionMask, PaddingMasksKeysOnly) {
  const json r = calc("attention-mask", {{"seq", 5}, {"mask", "padding"}, {"pad", 2}});
  EXPECT_EQ(r["allowed_count"].get<long long>(), 15);  // n(n − pad)
  for (const auto& row : r["allowed"])                   // a padded query row too keeps the 3 real keys
    EXPECT_EQ(row, json::parse("[true,true,true,false,false]"));
}

TEST(AttentionMask, WeightsAreASoftmaxOverAllowedKeys) {
  for (const char* mask : {"none", "causal", "padding", "sliding-window", "causal-sliding-window", "document",
                           "prefix-lm", "sink-window"}) {
    const json r = calc("attention-mask", {{"seq", 64}, {"mask", mask}, {"window", 5}, {"pad", 9}, {"seed", 7}});
    ASSERT_TRUE(r["matrices"].get<bool>());
    for (std::size_t i = 0; i < 64; ++i) {
      double sum = 0;
      for (std::size_t j = 0; j < 64; ++j) {
        const double w = r["weights"][i][j].get<double>();
        if (!r["allowed"][i][j].get<bool>()) {
          EXPECT_EQ(w, 0.0) << mask << " " << i << "," << j;
        }
        EXPECT_TRUE(std::isfinite(w) && w >= 0);
        sum += w;
      }
      EXPECT_NEAR(sum, 1.0, 1e-12) << mask << " row " << i;
    }
    // Larger score, larger weight within a row: the softmax is monotone over the allowed keys
    // (compared with the row's first allowed key; a padding row does not see key 63).
    const json& s = r["scores"][63];
    const json& w = r["weights"][63];
    std::size_t first = 0;
    while (!r["allowed"][63][first].get<bool>()) ++first;
    for (std::size_t j = first + 1; j < 64; ++j)
      if (r["allowed"][63][j].get<bool>()) {
        EXPECT_EQ(s[j].get<double>() < s[first].get<double>(), w[j].get<double>() < w[first].get<double>()) << mask;
      }
  }
  // The scores do not depend on the mask, and the first causal row puts all its weight on key 0.
  const json a = calc("attention-mask", {{"seq", 6}, {"mask", "none"}, {"seed", 3}});
  const json c = calc("attention-mask", {{"seq", 6}, {"mask", "causal"}, {"seed", 3}});
  EXPECT_EQ(a["scores"], c["scores"]);
  EXPECT_EQ(c["weights"][0][0].get<double>(), 1.0);
  EXPECT_NE(a["scores"], calc("attention-mask", {{"seq", 6}, {"mask", "none"}, {"seed", 4}})["scores"]);
}

TEST(AttentionMask, LongSequencesCountOnly) {
  const json r = calc("attention-mask", {{"seq", 10'000'000}, {"mask", "none"}});
  EXPECT_EQ(r["allowed_count"].get<long long>(), 100'000'000'000'000LL);
  EXPECT_FALSE(r["matrices"].get<bool>());
  EXPECT_FALSE(r.contains("weights"));
  EXPECT_FALSE(r.contains("allowed"));
  EXPECT_TRUE(calc("attention-mask", {{"seq", 64}})["matrices"].get<bool>());
  EXPECT_FALSE(calc("attention-mask", {{"seq", 65}})["matrices"].get<bool>());
}

TEST(AttentionMask, RejectsBadInput) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_of("attention-mask", R"({"seq": 0})")["field"], "seq");
  EXPECT_EQ(error_of("attention-mask", R"({"seq": 10000001})")["field"], "seq");
  EXPECT_EQ(error_of("attention-mask", R"({"seq": 2.5})")["field"], "seq");
  EXPECT_EQ(error_of("attention-mask", R"({"mask": "diagonal"})")["field"], "mask");
  EXPECT_EQ(error_of("attention-mask", R"({"window": 0})")["field"], "window");
  EXPECT_EQ(error_of("attention-mask", R"({"pad": -1})")["field"], "pad");
  EXPECT_EQ(error_of("attention-mask", R"({"seq": 4, "mask": "padding", "pad": 4})")["field"], "pad");
  EXPECT_EQ(error_of("attention-mask", R"({"seq": 4, "pad": 4})")["field"], "pad");
  EXPECT_EQ(error_of("attention-mask", R"({"seed": "x"})")["field"], "seed");
  EXPECT_EQ(error_of("attention-mask", R"({"mask": "document", "doc": 0})")["field"], "doc");
  EXPECT_EQ(error_of("attention-mask", R"({"seq": 8, "mask": "prefix-lm", "prefix": 9})")["field"], "prefix");
  EXPECT_EQ(error_of("attention-mask", R"({"seq": 8, "mask": "sink-window", "sinks": 9})")["field"], "sinks");
  EXPECT_EQ(error_of("attention-mask", R"({"causal": true})")["field"], "causal");
  EXPECT_EQ(error_of("attention-mask", R"({"seq": NaN})")["field"], "");
}

TEST(AttentionVariants, Llama2_70B) {
  // Llama 2 70B (Touvron et al. 2023; config.json): 80 layers, width 8,192, 64 heads, 8 KV
  // heads of 128. GQA's KV bytes per token in bf16: 2·80·8·128·2 = 327,680.
  const json r = calc("attention-variants", {{"layers", 80}, {"hidden", 8192}, {"heads", 64}, {"kv_heads", 8},
                                             {"context", 4096}, {"batch", 2}, {"dtype", "bf16"}});
  EXPECT_EQ(r["gqa"]["kv_bytes_per_token"].get<double>(), 327680);
  EXPECT_EQ(r["gqa"]["kv_bytes"].get<double>(), 327680.0 * 4096 * 2);
  EXPECT_EQ(r["mha"]["kv_bytes_per_token"].get<double>(), 327680.0 * 8);
  EXPECT_EQ(r["mqa"]["kv_bytes_per_token"].get<double>(), 327680.0 / 8);
  EXPECT_EQ(r["gqa"]["kv_reduction"].get<double>(), 8);
  EXPECT_EQ(r["mqa"]["group_size"].get<double>(), 64);
  // W_Q and W_O are 8192², W_K and W_V 8192 × 1024 each under GQA, 8192² under MHA.
  EXPECT_EQ(r["gqa"]["attention_params_per_layer"].get<double>(), 2.0 * 8192 * 8192 + 2.0 * 8192 * 1024);
  EXPECT_EQ(r["mha"]["attention_params_per_layer"].get<double>(), 4.0 * 8192 * 8192);
  EXPECT_EQ(r["mqa"]["attention_params_per_layer"].get<double>(), 2.0 * 8192 * 8192 + 2.0 * 8192 * 128);
  // Decode: 4·64·128 FLOPs per cached token and layer against 2·kv_heads·128·2 bytes. MHA reads
  // one byte per FLOP, GQA-8 eight FLOPs, MQA 64: the group size (bf16).
  EXPECT_EQ(r["mha"]["decode_flops_per_byte"].get<double>(), 1);
  EXPECT_EQ(r["gqa"]["decode_flops_per_byte"].get<double>(), 8);
  EXPECT_EQ(r["mqa"]["decode_flops_per_byte"].get<double>(), 64);
  EXPECT_EQ(calc("attention-variants", {{"dtype", "fp8-e4m3"}})["gqa"]["decode_flops_per_byte"].get<double>(), 16);
  // The defaults are Llama 2 70B, and so is its published row.
  EXPECT_EQ(calc("attention-variants", json::object())["gqa"]["kv_bytes_per_token"].get<double>(), 327680);
  EXPECT_EQ(calc("attention-variants", {{"model", "llama-2-70b"}})["gqa"]["kv_bytes_per_token"].get<double>(), 327680);
}

TEST(AttentionVariants, MatchesKvCacheCalculator) {
  // The KV bytes are the kv-cache model's, not a second formula.
  const json v = calc("attention-variants", {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"kv_heads", 4},
                                             {"context", 1000}, {"batch", 3}, {"dtype", "fp8-e4m3"}});
  const json k = calc("kv-cache", {{"layers", 32}, {"kv_heads", 4}, {"head_dim", 128}, {"context", 1000},
                                   {"batch", 3}, {"dtype", "fp8-e4m3"}});
  EXPECT_EQ(v["gqa"]["kv_bytes"], k["total_bytes"]);
  EXPECT_EQ(v["gqa"]["kv_bytes_per_token"], k["bytes_per_token"]);
}

TEST(AttentionVariants, RejectsBadInput) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_of("attention-variants", R"({"kv_heads": 3})")["field"], "kv_heads");
  EXPECT_EQ(error_of("attention-variants", R"({"kv_heads": 128})")["field"], "kv_heads");
  EXPECT_EQ(error_of("attention-variants", R"({"heads": 6})")["field"], "heads");
  EXPECT_EQ(error_of("attention-variants", R"({"layers": 0})")["field"], "layers");
  EXPECT_EQ(error_of("attention-variants", R"({"context": 0})")["field"], "context");
  EXPECT_EQ(error_of("attention-variants", R"({"batch": -1})")["field"], "batch");
  EXPECT_EQ(error_of("attention-variants", R"({"dtype": "fp12"})")["field"], "dtype");
  EXPECT_EQ(error_of("attention-variants", R"({"model": "gpt-5"})")["field"], "model");
  EXPECT_EQ(error_of("attention-variants", R"({"kv_heads": 8, "extra": 1})")["field"], "extra");
}
