// The overview page's calculators: attention score size and data-parallel global batch.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "test_support.hpp"

using mlsys::calc;
using mlsys::json;

TEST(AttentionScores, ClosedForm) {
  // n^2 * heads * batch elements; bf16 is 2 bytes each.
  const json r = calc("attention-scores", {{"seq", 4096}, {"heads", 32}, {"batch", 2}, {"dtype", "bf16"}});
  EXPECT_DOUBLE_EQ(r["elements"].get<double>(), 4096.0 * 4096 * 32 * 2);
  EXPECT_DOUBLE_EQ(r["bytes"].get<double>(), 4096.0 * 4096 * 32 * 2 * 2);
  // Doubling the sequence quadruples the matrix.
  const json d = calc("attention-scores", {{"seq", 8192}, {"heads", 32}, {"batch", 2}, {"dtype", "bf16"}});
  EXPECT_DOUBLE_EQ(d["bytes"].get<double>(), 4 * r["bytes"].get<double>());
  // P = softmax(S) is as large again; FlashAttention's fp32 logsumexp is one number per row and head.
  EXPECT_DOUBLE_EQ(r["with_probabilities_bytes"].get<double>(), 2 * r["bytes"].get<double>());
  EXPECT_DOUBLE_EQ(r["logsumexp_bytes"].get<double>(), 4096.0 * 32 * 2 * 4);
  // The same logsumexp as the FlashAttention backward model stores.
  const json b = calc("attention-backward-memory",
                      {{"seq", 4096}, {"heads", 32}, {"batch", 2}, {"layers", 1}, {"dtype", "bf16"}, {"execute", false}});
  EXPECT_DOUBLE_EQ(r["logsumexp_bytes"].get<double>(), b["logsumexp_bytes"].get<double>());
}

TEST(AttentionScores, PublishedExample) {
  // FlashAttention (Dao et al. 2022) motivates tiling by the N x N matrix: at N = 16K a
  // single fp16 head already needs 16384^2 * 2 B = 512 MiB.
  const json r = calc("attention-scores", {{"seq", 16384}, {"heads", 1}, {"batch", 1}, {"dtype", "fp16"}});
  EXPECT_DOUBLE_EQ(r["bytes"].get<double>(), 512.0 * 1024 * 1024);
}

TEST(AttentionScores, Defaults) {
  const json r = calc("attention-scores", json::object());
  EXPECT_DOUBLE_EQ(r["elements"].get<double>(), 4096.0 * 4096 * 32);
}

TEST(AttentionScores, RejectsBadInput) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_of("attention-scores", R"({"seq": 0})")["field"], "seq");
  EXPECT_EQ(error_of("attention-scores", R"({"heads": 1.5})")["field"], "heads");
  EXPECT_EQ(error_of("attention-scores", R"({"dtype": "fp12"})")["field"], "dtype");
  EXPECT_EQ(error_of("attention-scores", R"({"tokens": 3})")["field"], "tokens");
}

TEST(GlobalBatch, ClosedForm) {
  const json r = calc("global-batch", {{"per_device_batch", 4}, {"devices", 256}, {"accumulation", 8}, {"seq", 2048}});
  EXPECT_DOUBLE_EQ(r["sequences"].get<double>(), 4.0 * 256 * 8);
  EXPECT_DOUBLE_EQ(r["tokens"].get<double>(), 4.0 * 256 * 8 * 2048);
}

TEST(GlobalBatch, PublishedExample) {
  // Goyal et al. 2017 ("Accurate, Large Minibatch SGD"): 256 GPUs x 32 images = 8,192.
  const json r = calc("global-batch", {{"per_device_batch", 32}, {"devices", 256}, {"accumulation", 1}, {"seq", 1}});
  EXPECT_DOUBLE_EQ(r["sequences"].get<double>(), 8192);
  // GPT-3 175B (Brown et al. 2020): 3.2M-token batches = 1,536 sequences of 2,048 tokens,
  // e.g. 1 per device on 1,536 data-parallel ranks.
  const json g = calc("global-batch", {{"per_device_batch", 1}, {"devices", 1536}, {"accumulation", 1}, {"seq", 2048}});
  EXPECT_DOUBLE_EQ(g["tokens"].get<double>(), 3145728);
}

TEST(GlobalBatch, RejectsBadInput) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_of("global-batch", R"({"devices": 0})")["field"], "devices");
  EXPECT_EQ(error_of("global-batch", R"({"accumulation": -2})")["field"], "accumulation");
  EXPECT_EQ(error_of("global-batch", R"({"seq": "long"})")["field"], "seq");
}
