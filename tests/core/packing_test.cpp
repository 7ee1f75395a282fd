// Feeding-data lesson: `packing` (padding, best-fit-decreasing packing and concatenate-and-
// split) against the closed forms of fixed lengths, and the attention pairs of a plain causal
// mask versus a per-document mask (Krell et al. 2021, arXiv:2107.02027; Llama 3's document
// mask, arXiv:2407.21783).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/training/packing.hpp"

using mlsys::json;

TEST(Packing, FixedLengthsMatchTheClosedForms) {
  // Length L, sequence M: padding keeps L/M; packing puts k = ⌊M/L⌋ whole documents in each
  // sequence, k·L/M; concatenate-and-split wastes only the last sequence's tail.
  for (int M : {128, 512, 2048, 4096})
    for (int L : {1, 50, 100, 300, 511, 512, 1000, 2048})
      if (L <= M) {
        const int k = M / L;
        const int n = 4 * k;  // a multiple of k: every packed sequence is full
        const auto pad = mlsys::pack_sequences(M, "fixed", L, n, "pad", 1);
        EXPECT_DOUBLE_EQ(pad.efficiency, static_cast<double>(L) / M) << M << " " << L;
        const auto pack = mlsys::pack_sequences(M, "fixed", L, n, "pack", 1);
        EXPECT_EQ(pack.sequences, 4) << M << " " << L;
        EXPECT_DOUBLE_EQ(pack.efficiency, static_cast<double>(k) * L / M) << M << " " << L;
        const auto cat = mlsys::pack_sequences(M, "fixed", L, n, "concat", 1);
        const double total = static_cast<double>(n) * L;
        EXPECT_EQ(cat.sequences, static_cast<long long>(std::ceil(total / M)));
        EXPECT_DOUBLE_EQ(cat.efficiency, total / (std::ceil(total / M) * M));
      }
  // Concatenate-and-split reaches 1 when the total is a multiple of M.
  EXPECT_DOUBLE_EQ(mlsys::pack_sequences(1000, "fixed", 300, 10, "concat", 1).efficiency, 1.0);
}

TEST(Packing, LongDocumentsAreTruncatedOrSplit) {
  // 3,000-token documents in 1,024-token sequences: pad and pack keep 1,024 each; concat splits.
  const auto pad = mlsys::pack_sequences(1024, "fixed", 3000, 10, "pad", 1);
  EXPECT_EQ(pad.useful_tokens, 10240);
  EXPECT_EQ(pad.truncated_tokens, 10 * (3000 - 1024));
  const auto cat = mlsys::pack_sequences(1024, "fixed", 3000, 10, "concat", 1);
  EXPECT_EQ(cat.useful_tokens, 30000);
  EXPECT_EQ(cat.truncated_tokens, 0);
  EXPECT_EQ(cat.sequences, 30);  // ⌈30000/1024⌉
  // A huge document with max_len 1 takes the closed-form path, not one loop turn per token.
  const auto one = mlsys::pack_sequences(1, "fixed", 131072, 20000, "concat", 1);
  EXPECT_EQ(one.sequences, 131072LL * 20000);
  EXPECT_DOUBLE_EQ(one.efficiency, 1.0);
}

TEST(Packing, AttentionPairsUnderCausalAndDocumentMasks) {
  // Two 100-token documents packed into one 200-token sequence: the causal mask allows
  // 200·201/2 = 20,100 pairs, the document mask 2 · 100·101/2 = 10,100; 10,000 cross documents.
  const auto p = mlsys::pack_sequences(200, "fixed", 100, 2, "pack", 1);
  EXPECT_EQ(p.sequences, 1);
  EXPECT_EQ(p.causal_pairs, 20100);
  EXPECT_EQ(p.document_pairs, 10100);
  EXPECT_NEAR(p.cross_document_share, 10000.0 / 20100, 1e-15);
  // Padding never mixes documents.
  EXPECT_EQ(mlsys::pack_sequences(200, "uniform", 80, 100, "pad", 3).cross_document_share, 0);
  // k documents of length L in a full sequence: cross share = 1 − (L+1)/(kL+1).
  const auto q = mlsys::pack_sequences(4096, "fixed", 512, 80, "pack", 1);
  EXPECT_NEAR(q.cross_document_share, 1 - 513.0 / 4097, 1e-12);
}

TEST(Packing, RandomLengthsPackFarBetterThanTheyPad) {
  // Krell et al. 2021: at sequence length 512 over half of BERT's Wikipedia pre-training
  // tokens are padding, and packing removes nearly all of it. A skewed lognormal corpus with
  // a mean of a quarter of max_len pads to about 25% efficiency and packs above 95%.
  const auto pad = mlsys::pack_sequences(2048, "lognormal", 512, 2000, "pad", 5);
  const auto pack = mlsys::pack_sequences(2048, "lognormal", 512, 2000, "pack", 5);
  EXPECT_LT(pad.efficiency, 0.3);
  EXPECT_GT(pack.efficiency, 0.95);
  EXPECT_EQ(pad.useful_tokens, pack.useful_tokens);
  // Uniform lengths have the requested mean.
  const auto u = mlsys::pack_sequences(8192, "uniform", 700, 20000, "pad", 2);
  EXPECT_NEAR(u.mean_length, 700, 10);
  const auto ln = mlsys::pack_sequences(131072, "lognormal", 700, 20000, "pad", 2, 0.5);
  EXPECT_NEAR(ln.mean_length, 700, 15);
}

TEST(Packing, SeededAndValidated) {
  const json in = {{"method", "pack"}, {"seed", 4}};
  EXPECT_EQ(mlsys::calc("packing", in).dump(), mlsys::calc("packing", in).dump());
  EXPECT_THROW(mlsys::pack_sequences(0, "fixed", 10, 10, "pad", 1), mlsys::InputError);
  EXPECT_THROW(mlsys::pack_sequences(10, "zipf", 10, 10, "pad", 1), mlsys::InputError);
  EXPECT_THROW(mlsys::pack_sequences(10, "fixed", 10, 10, "stack", 1), mlsys::InputError);
  EXPECT_THROW(mlsys::pack_sequences(10, "fixed", 10, 20001, "pad", 1), mlsys::InputError);
}

TEST(Packing, DynamicPaddingAndBucketingPadToTheBatchLongest) {
  // Hand example: lengths drawn, then batches of batch_rows documents padded to their longest.
  const auto lengths = mlsys::draw_lengths("uniform", 300, 10, 3);
  double slots_dynamic = 0, useful = 0;
  for (std::size_t b = 0; b < lengths.size(); b += 4) {
    int longest = 0;
    for (std::size_t i = b; i < std::min(lengths.size(), b + 4); ++i) longest = std::max(longest, lengths[i]);
    slots_dynamic += static_cast<double>(std::min(lengths.size(), b + 4) - b) * longest;
  }
  for (int l : lengths) useful += l;
  const auto dyn = mlsys::pack_sequences(2048, "uniform", 300, 10, "dynamic", 3, 1.0, 4);
  EXPECT_DOUBLE_EQ(dyn.slot_tokens, slots_dynamic);
  EXPECT_DOUBLE_EQ(dyn.efficiency, useful / slots_dynamic);
  EXPECT_EQ(dyn.sequences, 10);
  // Fixed lengths: every batch is already uniform, so both reach 100 % where padding to
  // max_len keeps L/M.
  for (const char* m : {"dynamic", "bucket"})
    EXPECT_DOUBLE_EQ(mlsys::pack_sequences(2048, "fixed", 300, 64, m, 1).efficiency, 1.0) << m;
  // Lognormal lengths: a batch of 16 usually holds one long document, so dynamic padding gains
  // little over padding to max_len; sorting by length first (bucketing) recovers most of it,
  // and packing still beats both. One row per batch makes dynamic padding exact.
  const auto pad = mlsys::pack_sequences(2048, "lognormal", 600, 1000, "pad", 1);
  const auto d16 = mlsys::pack_sequences(2048, "lognormal", 600, 1000, "dynamic", 1);
  const auto b16 = mlsys::pack_sequences(2048, "lognormal", 600, 1000, "bucket", 1);
  const auto pack = mlsys::pack_sequences(2048, "lognormal", 600, 1000, "pack", 1);
  EXPECT_LT(pad.efficiency, d16.efficiency);
  EXPECT_LT(d16.efficiency, 0.5);
  EXPECT_GT(b16.efficiency, 0.9);
  EXPECT_LT(b16.efficiency, pack.efficiency);
  EXPECT_EQ(b16.useful_tokens, pack.useful_tokens);
  EXPECT_DOUBLE_EQ(mlsys::pack_sequences(2048, "lognormal", 600, 1000, "dynamic", 1, 1.0, 1).efficiency, 1.0);
  EXPECT_THROW(mlsys::pack_sequences(2048, "fixed", 300, 10, "dynamic", 1, 1.0, 0), mlsys::InputError);
  EXPECT_EQ(mlsys::calc("packing", {{"method", "bucket"}, {"batch_rows", 16}}).at("efficiency"),
            b16.efficiency);
}
