// embedding-table (mlsys/tokens/embedding_table.hpp): vocab × hidden × bytes, the untied head,
// and the share of parameters, against the released configurations and `transformer`.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "test_support.hpp"

namespace {

using mlsys::json;

// GPT-2 124M: wte is 50257 × 768 (config.json of openai-community/gpt2) = 38,597,376
// parameters, tied to the output head; 2 bytes each in bf16.
TEST(EmbeddingTable, Gpt2SmallTiedTable) {
  const json r = mlsys::calc("embedding-table", {{"model", "gpt-2-124m"}});
  EXPECT_EQ(r["vocab"], 50257);
  EXPECT_EQ(r["embedding_params"].get<double>(), 38597376.0);
  EXPECT_EQ(r["embedding_bytes"].get<double>(), 77194752.0);
  EXPECT_EQ(r["head_bytes"].get<double>(), 0.0);
  EXPECT_EQ(r["row_bytes"].get<double>(), 1536.0);
  const json fp32 = mlsys::calc("embedding-table", {{"model", "gpt-2-124m"}, {"dtype", "fp32"}});
  EXPECT_EQ(fp32["table_bytes"].get<double>(), 154389504.0);
}

// The output head's FLOPs: 2 · 50,257 · 768 per token forward for GPT-2 small, against the
// `transformer` calculator's weight-matmul FLOPs (6·N for training, so 2·N forward): tied, N
// holds the head once, and the head is about 31 % of the matmul work. Untied Llama 3 8B: the
// head counts in N, the input table does not.
TEST(EmbeddingTable, HeadFlopsAgainstTheLayers) {
  const json r = mlsys::calc("embedding-table", {{"model", "gpt-2-124m"}});
  EXPECT_EQ(r["head_flops_per_token"].get<double>(), 2.0 * 50257 * 768);
  const json t = mlsys::calc("transformer", {{"model", "gpt-2-124m"}});
  EXPECT_NEAR(r["head_flops_share"].get<double>(),
              t["flops_per_token_breakdown"]["head"].get<double>() / t["flops_per_token_matmul"].get<double>(), 1e-12);
  EXPECT_NEAR(r["head_flops_share"].get<double>(), 0.3124, 5e-4);
  const json l = mlsys::calc("embedding-table", {{"model", "llama-3-8b"}});
  const json lt = mlsys::calc("transformer", {{"model", "llama-3-8b"}});
  EXPECT_NEAR(l["head_flops_share"].get<double>(), 128256.0 * 4096 / lt["params_flops"].get<double>(), 1e-12);
  EXPECT_LT(l["head_flops_share"].get<double>(), 0.08);
}

// Llama 2 7B: vocab 32,000, width 4,096, untied head (Touvron et al. 2023; config.json of
// meta-llama/Llama-2-7b-hf): two 131,072,000-parameter tables, 524,288,000 bytes in bf16, and
// the share agrees with `transformer`'s params_embedding / params.
TEST(EmbeddingTable, Llama2UntiedHeadAndShare) {
  const json r = mlsys::calc("embedding-table", {{"model", "llama-2-7b"}});
  EXPECT_EQ(r["head_params"].get<double>(), 131072000.0);
  EXPECT_EQ(r["table_bytes"].get<double>(), 524288000.0);
  const json t = mlsys::calc("transformer", {{"model", "llama-2-7b"}});
  EXPECT_EQ(r["table_params"], t["params_embedding"]);
  EXPECT_EQ(r["params"], t["params"]);
  EXPECT_NEAR(r["share"].get<double>(), 262144000.0 / t["params"].get<double>(), 1e-15);
  EXPECT_NEAR(r["share"].get<double>(), 0.0389, 5e-4);
}

TEST(EmbeddingTable, ExplicitShapeAndDtypes) {
  const json r = mlsys::calc("embedding-table", {{"vocab", 128256}, {"hidden", 4096}, {"heads", 32}, {"dtype", "int4"}, {"tied_embeddings", true}});
  EXPECT_EQ(r["embedding_bytes"].get<double>(), 128256.0 * 4096 * 0.5);
  EXPECT_EQ(mlsys::test::error_of("embedding-table", R"({"vocab": 0})")["field"], "vocab");
  EXPECT_EQ(mlsys::test::error_of("embedding-table", R"({"dtype": "fp12"})")["field"], "dtype");
}

}  // namespace
