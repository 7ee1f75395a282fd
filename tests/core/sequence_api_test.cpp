// Calculators and exercises of the sequence-context-expert lesson through the public API:
// results agree with the models, hardware links are half the table's scale-up bandwidth,
// exercises agree with their calculators, and every class of bad input is a clear error.
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "test_support.hpp"

using mlsys::json;
using mlsys::test::error_of;

TEST(SequenceApi, RingAttentionUsesHalfTheScaleUpBandwidth) {
  const json hw = mlsys::calc("hardware", {{"id", "h100-sxm"}});
  const json r = mlsys::calc("ring-attention", {{"hardware", "h100-sxm"}});
  EXPECT_DOUBLE_EQ(r["link_bandwidth_Bps"].get<double>(), hw["scaleup_bandwidth_Bps"].get<double>() / 2);
  EXPECT_DOUBLE_EQ(r["peak_flops"].get<double>(), hw["peak_flops"]["bf16"].get<double>());
  EXPECT_EQ(r["method"], "executed");
  EXPECT_EQ(r["tiles_per_rank"].size(), 8u);
  const json z = mlsys::calc("ring-attention", {{"partition", "zigzag"}});
  EXPECT_DOUBLE_EQ(z["imbalance"].get<double>(), 1.0);
  EXPECT_LT(z["time_s"].get<double>(), r["time_s"].get<double>());
}

TEST(SequenceApi, SeriesAndScalarsAgree) {
  const json r = mlsys::calc("sequence-parallel-memory", {{"tp", 8}, {"max_tp", 8}});
  ASSERT_EQ(r["series"].size(), 4u);
  EXPECT_DOUBLE_EQ(r["series"][3]["tp_sp_bytes"].get<double>(), r["tp_sp_bytes_per_layer"].get<double>());
  EXPECT_DOUBLE_EQ(r["tp_sp_bytes"].get<double>(), 96 * r["tp_sp_bytes_per_layer"].get<double>());
  // Agrees with the training-memory calculator's per-layer activations (same Korthikanti model).
  const json tm = mlsys::calc("training-memory", {{"layers", 96}, {"hidden", 12288}, {"heads", 96}, {"seq", 4096},
                                                  {"vocab", 50257}, {"tp", 8}, {"sequence_parallel", true}});
  EXPECT_DOUBLE_EQ(tm["activations_per_layer_bytes"].get<double>(), r["tp_sp_bytes_per_layer"].get<double>());
}

TEST(SequenceApi, ExercisesAgreeWithCalculators) {
  for (std::uint32_t seed = 0; seed < 25; ++seed) {
    auto e = mlsys::make_exercise("seq-sp-activation", seed);
    const bool sp = e.prompt.find("no sequence parallelism") == std::string::npos;
    EXPECT_NEAR(mlsys::calc("sequence-parallel-memory", e.params)[sp ? "tp_sp_bytes_per_layer" : "tp_only_bytes_per_layer"]
                        .get<double>() / 1e6, e.answer, 1e-9 * e.answer);
    e = mlsys::make_exercise("seq-ring-min-block", seed);  // the threshold itself
    EXPECT_NEAR(mlsys::calc("ring-attention", e.params)["min_block_tokens_bandwidth"].get<double>(), e.answer,
                1e-9 * e.answer);
    e = mlsys::make_exercise("seq-ulysses-bytes", seed);
    EXPECT_NEAR(mlsys::calc("ulysses", e.params)["ulysses_bytes_per_rank"].get<double>() / 1e6, e.answer,
                1e-9 * e.answer);
    e = mlsys::make_exercise("moe-dropped-tokens", seed);
    EXPECT_EQ(mlsys::calc("moe-routing", e.params)["dropped"].get<double>(), e.answer);
    e = mlsys::make_exercise("moe-all-to-all-bytes", seed);
    EXPECT_NEAR(mlsys::calc("expert-parallel", e.params)["bytes_per_layer_forward"].get<double>() / 1e6, e.answer,
                1e-9 * e.answer);
  }
}

TEST(SequenceApi, BadInputsAreClearErrors) {
  struct Case {
    const char* calc;
    const char* text;
    const char* field;
  };
  const Case cases[] = {
      {"sequence-parallel-memory", R"({"seq": -1})", "seq"},
      {"sequence-parallel-memory", R"({"hidden": 0})", "hidden"},
      {"sequence-parallel-memory", R"({"tp": 1e12})", "tp"},
      {"sequence-parallel-memory", R"({"recompute": "some"})", "recompute"},
      {"sequence-parallel-memory", R"({"seqq": 4})", "seqq"},
      {"ring-attention", R"({"seq": 1000})", "seq"},
      {"ring-attention", R"({"seq": 131072.5})", "seq"},
      {"ring-attention", R"({"ranks": 0})", "ranks"},
      {"ring-attention", R"({"ranks": "eight"})", "ranks"},
      {"ring-attention", R"({"kv_heads": 12})", "kv_heads"},
      {"ring-attention", R"({"partition": "random"})", "partition"},
      {"ring-attention", R"({"hardware": "h900"})", "hardware"},
      {"ring-attention", R"({"dtype": "fp7"})", "dtype"},
      {"ring-attention", R"({"hardware": "tpu-v5e", "dtype": "fp64"})", "dtype"},
      {"ring-attention", R"({"compute_efficiency": 0})", "compute_efficiency"},
      {"ring-attention", R"({"link_bandwidth_Bps": -5})", "link_bandwidth_Bps"},
      {"ring-attention", R"({"latency_s": 1e300})", "latency_s"},
      {"ulysses", R"({"heads": 40, "kv_heads": 8, "ranks": 16})", "ranks"},
      {"ulysses", R"({"heads": 96, "kv_heads": 32, "ranks": 3})", "kv_heads"},
      {"ulysses", R"({"ranks": 1})", "ranks"},
      {"ulysses", R"({"seq": 0})", "seq"},
      {"moe-routing", R"({"tokens": 65536, "experts": 256})", "tokens"},
      {"moe-routing", R"({"top_k": 9})", "top_k"},
      {"moe-routing", R"({"experts": 4, "top_k": 6})", "top_k"},
      {"moe-routing", R"({"capacity_factor": 0})", "capacity_factor"},
      {"moe-routing", R"({"balance": 1.5})", "balance"},
      {"moe-routing", R"({"seed": -1})", "seed"},
      {"moe-routing", R"({"skew": true})", "skew"},
      {"expert-parallel", R"({"ep": 0})", "ep"},
      {"expert-parallel", R"({"tokens": 1e30})", "tokens"},
      {"expert-parallel", R"({"hidden": 4096.5})", "hidden"},
      {"expert-parallel", R"({"expert": 8})", "expert"},
  };
  for (const auto& c : cases) EXPECT_EQ(error_of(c.calc, c.text)["field"], c.field) << c.calc << " " << c.text;
  error_of("ring-attention", R"({"seq": NaN})");
  error_of("ulysses", "[1, 2]");
  error_of("expert-parallel", R"({"tokens": )");
}
