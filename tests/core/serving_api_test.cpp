// The llm-serving calculators reject every class of bad input with an error naming the field,
// and the serve-* exercises agree with the calculators their params feed.
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "test_support.hpp"

using mlsys::calc;
using mlsys::json;
using mlsys::test::error_of;

namespace {

void expect_field(const std::string& name, const std::string& text, const std::string& field) {
  EXPECT_EQ(error_of(name, text)["field"], field) << name << " " << text;
}

}  // namespace

TEST(ServingApi, BadInputsNameTheirField) {
  // Negative, zero, NaN, huge, wrong type, unknown field, unknown hardware/dtype.
  expect_field("kv-cache", R"({"layers": -1})", "layers");
  expect_field("kv-cache", R"({"kv_heads": 0})", "kv_heads");
  expect_field("kv-cache", R"({"head_dim": 1e300})", "head_dim");
  expect_field("kv-cache", R"({"context": "long"})", "context");
  expect_field("kv-cache", R"({"dtype": "fp12"})", "dtype");
  expect_field("kv-cache", R"({"contxt": 5})", "contxt");
  expect_field("kv-cache", R"({"batch": 1.5})", "batch");
  EXPECT_EQ(error_of("kv-cache", R"({"layers": NaN})")["field"], "");  // not JSON: the whole input

  expect_field("decode", R"({"hardware": "h900"})", "hardware");
  expect_field("decode", R"({"batch": 0})", "batch");
  expect_field("decode", R"({"kv_heads": 5})", "kv_heads");
  expect_field("decode", R"({"hidden": 4001, "heads": 32})", "heads");
  expect_field("decode", R"({"weight_dtype": "fp8-e4m3", "hardware": "a100-sxm-80gb"})", "weight_dtype");
  expect_field("decode", R"({"params": -5})", "params");
  expect_field("decode", R"({"bandwidth_Bps": 0})", "bandwidth_Bps");
  expect_field("decode", R"({"prompt": 1e30})", "prompt");
  expect_field("decode-curve", R"({"max_batch": 0})", "max_batch");
  expect_field("kv-capacity", R"({"memory_fraction": 1.5})", "memory_fraction");
  expect_field("kv-capacity", R"({"hbm_bytes": -1})", "hbm_bytes");
  expect_field("kv-capacity", R"({"kv_dtype": "fp7"})", "kv_dtype");

  expect_field("speculative", R"({"alpha": 1.01})", "alpha");
  expect_field("speculative", R"({"alpha": -0.1})", "alpha");
  expect_field("speculative", R"({"gamma": 0})", "gamma");
  expect_field("speculative", R"({"draft_cost": "cheap"})", "draft_cost");
  expect_field("speculative", R"({"draft_cost": 1e12})", "draft_cost");
  expect_field("speculative-sample", R"({"vocab": 1})", "vocab");
  expect_field("speculative-sample", R"({"rounds": 200000, "gamma": 16})", "rounds");
  expect_field("speculative-sample", R"({"temperature": 0})", "temperature");

  expect_field("batching-sim", R"({"rate_rps": 0})", "rate_rps");
  expect_field("batching-sim", R"({"requests": 4000, "output_mean": 4000})", "requests");
  expect_field("batching-sim", R"({"max_batch": -3})", "max_batch");
  expect_field("batching-sim", R"({"seed": -1})", "seed");
  expect_field("batching-sim", R"({"hardware": "nope"})", "hardware");
  expect_field("kv-paging-sim", R"({"pool_tokens": 1000})", "pool_tokens");
  expect_field("kv-paging-sim", R"({"output_mean": 400})", "max_output");
  expect_field("kv-paging-sim", R"({"requests": 2000, "output_mean": 200, "max_output": 512})", "requests");
  expect_field("kv-paging-sim", R"({"block_size": 0})", "block_size");
  expect_field("kv-paging", R"({"tokens": 3000, "max_context": 2048})", "tokens");
  expect_field("kv-paging", R"({"bytes_per_token": 0})", "bytes_per_token");
}

TEST(ServingApi, ExtremeButValidInputsStayFinite) {
  EXPECT_NO_THROW(calc("kv-cache", {{"layers", 1024}, {"kv_heads", 1024}, {"head_dim", 1024}, {"dtype", "fp64"},
                                    {"context", 16777216}, {"batch", 1000000}}));
  EXPECT_NO_THROW(calc("decode", {{"layers", 1024}, {"hidden", 131072}, {"heads", 1024}, {"ffn_hidden", 1048576},
                                  {"vocab", 4194304}, {"batch", 4096}, {"context", 1048576}, {"prompt", 1048576},
                                  {"hardware", "tpu-v5e"}}));
  EXPECT_NO_THROW(calc("speculative", {{"alpha", 0.999999}, {"gamma", 64}, {"draft_cost", 0}}));
  EXPECT_NO_THROW(calc("batching-sim", {{"rate_rps", 100000}, {"requests", 4000}, {"output_mean", 125},
                                        {"max_batch", 1}}));
  EXPECT_NO_THROW(calc("kv-paging-sim", {{"requests", 2000}, {"output_mean", 100}, {"max_output", 200},
                                         {"prompt_mean", 1}, {"pool_tokens", 713}}));
}

TEST(ServingExercises, AnswersAgreeWithTheCalculators) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    auto e = mlsys::make_exercise("serve-kv-bytes-per-token", seed);
    EXPECT_NEAR(calc("kv-cache", e.params)["bytes_per_token"].get<double>() / 1e3, e.answer, 1e-9 * e.answer);

    e = mlsys::make_exercise("serve-sequences-fit", seed);
    EXPECT_EQ(calc("kv-capacity", e.params)["max_sequences"].get<double>(), e.answer) << seed;
    EXPECT_GE(e.answer, 1) << seed;

    e = mlsys::make_exercise("serve-tpot-bound", seed);
    const json d = calc("decode", e.params);
    EXPECT_EQ(d["bound"], "memory");
    EXPECT_NEAR(d["tpot_s"].get<double>() * 1e3, e.answer, 1e-9 * e.answer) << seed;

    e = mlsys::make_exercise("serve-spec-tokens", seed);
    EXPECT_NEAR(calc("speculative", e.params)["expected_tokens"].get<double>(), e.answer, 1e-12 * e.answer);

    e = mlsys::make_exercise("serve-spec-speedup", seed);
    EXPECT_NEAR(calc("speculative", e.params)["speedup"].get<double>(), e.answer, 1e-12 * e.answer);

    e = mlsys::make_exercise("serve-paged-slack", seed);
    EXPECT_NEAR(calc("kv-paging", e.params)["slack_bytes"].get<double>() / 1e6, e.answer, 1e-12 * e.answer);
  }
}
