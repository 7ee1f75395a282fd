// `transformer` calculator: parameter counts of published models and PaLM's FLOP accounting.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/transformer/model_config.hpp"

using mlsys::json;

TEST(TransformerConfig, Gpt3ParameterCount) {
  // Brown et al. 2020, Table 2.1: GPT-3 175B has 96 layers, d_model 12288, 96 heads, and a
  // 50257-token vocabulary with tied embeddings. Our count leaves out biases and the 2048 learned
  // position embeddings (~25M), so it lands within 0.5% of 175B.
  const json r = mlsys::calc("transformer", {{"layers", 96}, {"hidden", 12288}, {"heads", 96}, {"vocab", 50257},
                                             {"seq", 2048}});
  EXPECT_NEAR(r["params"].get<double>(), 175e9, 0.005 * 175e9);
  EXPECT_DOUBLE_EQ(r["params_embedding"].get<double>(), 50257.0 * 12288);
  EXPECT_DOUBLE_EQ(r["params_per_layer"].get<double>(), 12.0 * 12288 * 12288 + 2 * 12288);
}

TEST(TransformerConfig, Llama2_7bExactCount) {
  // Touvron et al. 2023 (Llama 2): 7B has 32 layers, width 4096, 32 heads, SwiGLU MLP of width
  // 11008, 32000-token vocabulary, untied output head: 6,738,415,616 parameters (the count of the
  // released checkpoint, which has no biases).
  const json r = mlsys::calc("transformer", {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"ffn_hidden", 11008},
                                             {"vocab", 32000}, {"gated_mlp", true}, {"tied_embeddings", false}});
  EXPECT_DOUBLE_EQ(r["params"].get<double>(), 6738415616.0);
  EXPECT_DOUBLE_EQ(r["params_embedding"].get<double>(), 2.0 * 32000 * 4096);
}

TEST(TransformerConfig, GroupedQueryAttentionShrinksKV) {
  // Llama 2 70B: 80 layers, 8192 wide, 64 query heads, 8 KV heads, SwiGLU 28672, vocab 32000,
  // untied: about 69B parameters (68,976,648,192 in the released checkpoint).
  const json r = mlsys::calc("transformer", {{"layers", 80}, {"hidden", 8192}, {"heads", 64}, {"kv_heads", 8},
                                             {"ffn_hidden", 28672}, {"vocab", 32000}, {"gated_mlp", true},
                                             {"tied_embeddings", false}});
  EXPECT_DOUBLE_EQ(r["params"].get<double>(), 68976648192.0);
}

TEST(TransformerConfig, PalmFlopAccounting) {
  // PaLM (Chowdhery et al. 2022), appendix B: 6N + 12·L·H·Q·T per token, N non-embedding.
  const json r = mlsys::calc("transformer", {{"layers", 96}, {"hidden", 12288}, {"heads", 96}, {"vocab", 50257},
                                             {"seq", 2048}});
  const double n = 96 * (12.0 * 12288 * 12288 + 2 * 12288) + 12288;
  EXPECT_DOUBLE_EQ(r["params_non_embedding"].get<double>(), n);
  EXPECT_DOUBLE_EQ(r["flops_per_token_training"].get<double>(), 6 * n + 12.0 * 96 * 96 * 128 * 2048);
  EXPECT_DOUBLE_EQ(r["flops_per_token_forward"].get<double>() * 3, r["flops_per_token_training"].get<double>());
  // The attention term is 12·L·h·s / (6·12·L·h²) = s / (6h) of the weight term: 2.8% for GPT-3.
  EXPECT_NEAR(12.0 * 96 * 12288 * 2048 / (6 * n), 2048.0 / (6 * 12288), 1e-4);
}

TEST(TransformerConfig, GatedMlpUsesThreeMatrices) {
  mlsys::ModelConfig c;
  c.hidden = 1024, c.ffn_hidden = 2816, c.gated_mlp = true;
  EXPECT_DOUBLE_EQ(mlsys::mlp_params_per_layer(c), 3.0 * 1024 * 2816);
  c.gated_mlp = false;
  EXPECT_DOUBLE_EQ(mlsys::mlp_params_per_layer(c), 2.0 * 1024 * 2816);
}

TEST(TransformerConfig, BadInputs) {
  const auto field_of = [](const json& in) {
    try {
      mlsys::calc("transformer", in);
    } catch (const mlsys::InputError& e) {
      return e.field;
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(field_of({{"hidden", 1000}, {"heads", 7}}), "heads");
  EXPECT_EQ(field_of({{"heads", 32}, {"kv_heads", 5}}), "kv_heads");
  EXPECT_EQ(field_of({{"layers", 0}}), "layers");
  EXPECT_EQ(field_of({{"layers", -3}}), "layers");
  EXPECT_EQ(field_of({{"layers", 1.5}}), "layers");
  EXPECT_EQ(field_of({{"hidden", "4096"}}), "hidden");
  EXPECT_EQ(field_of({{"vocab", 1e300}}), "vocab");
  EXPECT_EQ(field_of({{"gated_mlp", 1}}), "gated_mlp");
  EXPECT_EQ(field_of({{"layer", 2}}), "layer");
}
