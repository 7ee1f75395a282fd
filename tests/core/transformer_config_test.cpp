// `transformer` calculator: parameter counts of published models and PaLM's FLOP accounting.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/transformer/model_config.hpp"
#include "mlsys/transformer/published_models.hpp"

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
  // PaLM (Chowdhery et al. 2022, arXiv:2204.02311), appendix B: 6N + 12·L·H·Q·T per token, N
  // every parameter in a token's matmuls: the layers, the final norm and the output head
  // (tied to the embedding here, so N is all parameters).
  const json r = mlsys::calc("transformer", {{"layers", 96}, {"hidden", 12288}, {"heads", 96}, {"vocab", 50257},
                                             {"seq", 2048}});
  const double n = 96 * (12.0 * 12288 * 12288 + 2 * 12288) + 12288;
  EXPECT_DOUBLE_EQ(r["params_non_embedding"].get<double>(), n);
  EXPECT_DOUBLE_EQ(r["params_flops"].get<double>(), n + 50257.0 * 12288);
  EXPECT_DOUBLE_EQ(r["params_flops"].get<double>(), r["params"].get<double>());
  EXPECT_DOUBLE_EQ(r["flops_per_token_training"].get<double>(), 6 * (n + 50257.0 * 12288) + 12.0 * 96 * 96 * 128 * 2048);
  EXPECT_DOUBLE_EQ(r["flops_per_token_forward"].get<double>() * 3, r["flops_per_token_training"].get<double>());
  // The attention term is 12·L·h·s / (6·12·L·h²) = s / (6h) of the layers' term: 2.8% for GPT-3.
  EXPECT_NEAR(12.0 * 96 * 12288 * 2048 / (6 * n), 2048.0 / (6 * 12288), 1e-4);
}

namespace {
json published(const std::string& id) {
  const mlsys::PublishedModel* m = mlsys::find_published_model(id);
  const mlsys::ModelConfig& c = m->config;
  return {{"layers", c.layers},     {"hidden", c.hidden},         {"heads", c.heads},
          {"kv_heads", c.kv_heads}, {"head_dim", c.head_dim},     {"ffn_hidden", c.ffn_hidden},
          {"vocab", c.vocab},       {"seq", c.seq},               {"gated_mlp", c.gated_mlp},
          {"tied_embeddings", c.tied_embeddings}};
}
// Training FLOPs per token with N the non-embedding count (the engine's count before the output
// head was added): what leaving the head out loses.
double without_head(const json& t, const json& cfg) {
  return t["flops_per_token_training"].get<double>() - 6 * cfg["vocab"].get<double>() * cfg["hidden"].get<double>();
}
}  // namespace

TEST(TransformerConfig, OutputHeadInTheTrainingFlops) {
  // Tied: N is every parameter; untied: all but the input embedding table (a lookup).
  for (const char* id : {"gpt-2-124m", "llama-2-7b", "llama-3-8b", "gemma-7b", "palm-540b"}) {
    const json cfg = published(id), t = mlsys::calc("transformer", cfg);
    const double vh = cfg["vocab"].get<double>() * cfg["hidden"].get<double>();
    EXPECT_DOUBLE_EQ(t["params_flops"].get<double>(),
                     t["params"].get<double>() - (cfg["tied_embeddings"].get<bool>() ? 0 : vh)) << id;
    EXPECT_DOUBLE_EQ(t["params_flops"].get<double>(), t["params_non_embedding"].get<double>() + vh) << id;
  }
  // nanoGPT's estimate_mfu (karpathy/nanoGPT model.py) uses 6N + 12·L·H·Q·T with N =
  // get_num_params(): all GPT-2 parameters but the position embeddings, the tied token
  // embedding included "because these params are actually used as weights in the final layer":
  // 123,653,376 for GPT-2 124M, biases included (ours has none: 0.1% less).
  const json g = published("gpt-2-124m"), gt = mlsys::calc("transformer", g);
  EXPECT_NEAR(gt["params_flops"].get<double>(), 123653376.0, 0.001 * 123653376.0);
  // Leaving the head out loses 27% of GPT-2 124M's FLOPs per token at T = 1024 and 5.4% of
  // Llama 3 8B's at T = 8192 (Llama 3 8B: 8,030,261,248 parameters, a 128,256 x 4096 untied head).
  EXPECT_NEAR(without_head(gt, g) / gt["flops_per_token_training"].get<double>() - 1, -0.27, 0.005);
  const json l = published("llama-3-8b"), lt = mlsys::calc("transformer", l);
  EXPECT_DOUBLE_EQ(lt["params_flops"].get<double>(), 8030261248.0 - 128256.0 * 4096);
  EXPECT_NEAR(without_head(lt, l) / lt["flops_per_token_training"].get<double>() - 1, -0.054, 0.0005);
  // Llama 3.2 1B (Meta's model card / config.json: 16 layers, width 2048, 32 heads, 8 KV heads of
  // 64, SwiGLU 8192, vocabulary 128,256, tied): 1,235,814,400 parameters, all in N; without the
  // head its FLOPs per token at T = 8192 are 15% short.
  const json s = {{"layers", 16},      {"hidden", 2048}, {"heads", 32},      {"kv_heads", 8},
                  {"head_dim", 64},    {"ffn_hidden", 8192}, {"vocab", 128256}, {"seq", 8192},
                  {"gated_mlp", true}, {"tied_embeddings", true}};
  const json st = mlsys::calc("transformer", s);
  EXPECT_DOUBLE_EQ(st["params"].get<double>(), 1235814400.0);
  EXPECT_DOUBLE_EQ(st["params_flops"].get<double>(), 1235814400.0);
  EXPECT_NEAR(without_head(st, s) / st["flops_per_token_training"].get<double>() - 1, -0.15, 0.005);
}

TEST(TransformerConfig, Gpt3TrainingComputeFromFlopsPerToken) {
  // Brown et al. 2020 (arXiv:2005.14165), appendix D / Table D.1: GPT-3 175B took 3.14e23 FLOP
  // (3,640 PF-days) on 300B tokens, counted as 6 FLOPs per parameter per token, attention left
  // out: 6·N·D with N all 175B parameters (the tied embedding is the output layer).
  const json t = mlsys::calc("transformer", published("gpt-3-175b"));
  const double six_n = t["flops_per_token_training"].get<double>() - 12.0 * 96 * 96 * 128 * 2048;
  EXPECT_NEAR(six_n * 300e9, 3.14e23, 0.005 * 3.14e23);
  EXPECT_NEAR(six_n / 6, 175e9, 0.005 * 175e9);
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
