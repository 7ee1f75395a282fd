// Elementwise-chain fusion: unfused traffic (each of L kernels reads its inputs and writes its
// output) against fused traffic (inputs once, output once), and their roofline times.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "test_support.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/kernels/fusion.hpp"

using mlsys::calc;
using mlsys::json;
using mlsys::test::error_of;

TEST(Fusion, ByteFormulas) {
  const double n = 1 << 20;
  for (int l = 1; l <= 16; ++l) {
    const auto unary = mlsys::elementwise_chain(n, l, 0, 1, 2);
    EXPECT_DOUBLE_EQ(unary.unfused_bytes, 2.0 * l * n * 2);  // 2·L·N·s
    EXPECT_DOUBLE_EQ(unary.fused_bytes, 2.0 * n * 2);        // read once, write once
    EXPECT_DOUBLE_EQ(unary.unfused_bytes / unary.fused_bytes, l);
    EXPECT_DOUBLE_EQ(unary.flops, l * n);
    EXPECT_EQ(unary.unfused_kernels, l);
  }
  // Bias add, GELU, dropout-free residual add: 3 ops, 2 binary, fp32.
  const auto c = mlsys::elementwise_chain(1000, 3, 2, 4, 4);
  EXPECT_DOUBLE_EQ(c.unfused_bytes, (3 + 2 + 3) * 1000.0 * 4);  // 3N + 2N + 3N elements
  EXPECT_DOUBLE_EQ(c.fused_bytes, 4 * 1000.0 * 4);              // x, bias, residual in; y out
  EXPECT_DOUBLE_EQ(c.unfused_bytes - c.fused_bytes, 2.0 * (3 - 1) * 1000 * 4);  // 2(L−1)·N·s saved
}

TEST(Fusion, CalculatorTimesOnTheRoofline) {
  // H100 SXM: 3.35 TB/s; elementwise work at the fp32 vector peak, 66.9 TFLOP/s (datasheet).
  const json r = calc("fusion", {{"n", 1 << 24}, {"ops", 6}, {"dtype", "bf16"}, {"hardware", "h100-sxm"}});
  const double n = 1 << 24;
  EXPECT_DOUBLE_EQ(r["unfused_bytes"].get<double>(), 12 * n * 2);
  EXPECT_DOUBLE_EQ(r["fused_bytes"].get<double>(), 2 * n * 2);
  EXPECT_DOUBLE_EQ(r["vector_peak_flops"].get<double>(), 66.9e12);
  EXPECT_EQ(r["unfused_bound"], "memory");
  EXPECT_EQ(r["fused_bound"], "memory");
  EXPECT_NEAR(r["unfused_time_s"].get<double>(), 12 * n * 2 / 3.35e12, 1e-18);
  EXPECT_NEAR(r["fused_time_s"].get<double>(), 2 * n * 2 / 3.35e12, 1e-18);
  EXPECT_NEAR(r["speedup"].get<double>(), 6, 1e-12);
  EXPECT_NEAR(r["time_saved_s"].get<double>(), 10 * n * 2 / 3.35e12, 1e-18);
}

TEST(Fusion, ManyFlopsPerElementMakeTheFusedKernelComputeBound) {
  // 64 ops of 40 FLOPs per element (e.g. erf-based GELUs) in fp32 on the H100: the fused kernel
  // does 2560 FLOPs per 8 bytes, far right of the vector ridge (~20 FLOP/B), so fusion stops
  // paying once arithmetic takes over.
  const json r = calc("fusion", {{"ops", 64}, {"flops_per_element", 40}, {"dtype", "fp32"}});
  EXPECT_EQ(r["fused_bound"], "compute");
  EXPECT_LT(r["speedup"].get<double>(), r["traffic_ratio"].get<double>());
  EXPECT_NEAR(r["fused_time_s"].get<double>(), 64 * 40 * 16e6 / 66.9e12, 1e-15);  // default n = 16 million
}

TEST(Fusion, OverridesAndChipsWithoutFp32) {
  const json o = calc("fusion", {{"ops", 2}, {"peak_flops", 1e12}, {"bandwidth_Bps", 1e12}, {"n", 1000}});
  EXPECT_DOUBLE_EQ(o["vector_peak_flops"].get<double>(), 1e12);
  EXPECT_DOUBLE_EQ(o["unfused_time_s"].get<double>(), 2 * (2 * 1000 * 2) / 1e12);
  // The TPU rows have no fp32 rate: the bf16 peak is used.
  const json t = calc("fusion", {{"hardware", "tpu-v5e"}});
  EXPECT_DOUBLE_EQ(t["vector_peak_flops"].get<double>(), 197e12);
}

TEST(Fusion, BadInputs) {
  EXPECT_EQ(error_of("fusion", R"({"ops": 2, "binary_ops": 3})")["field"], "binary_ops");
  EXPECT_EQ(error_of("fusion", R"({"ops": 0})")["field"], "ops");
  EXPECT_EQ(error_of("fusion", R"({"ops": 65})")["field"], "ops");
  EXPECT_EQ(error_of("fusion", R"({"n": 0})")["field"], "n");
  EXPECT_EQ(error_of("fusion", R"({"n": 1e20})")["field"], "n");
  EXPECT_EQ(error_of("fusion", R"({"n": 1.5})")["field"], "n");
  EXPECT_EQ(error_of("fusion", R"({"flops_per_element": -1})")["field"], "flops_per_element");
  EXPECT_EQ(error_of("fusion", R"({"dtype": "fp12"})")["field"], "dtype");
  EXPECT_EQ(error_of("fusion", R"({"hardware": "h900"})")["field"], "hardware");
  EXPECT_EQ(error_of("fusion", R"({"hardware": "tpu-v4", "dtype": "fp32"})")["field"], "dtype");
  EXPECT_EQ(error_of("fusion", R"({"bandwidth_Bps": -5})")["field"], "bandwidth_Bps");
  EXPECT_EQ(error_of("fusion", R"({"ops": "4"})")["field"], "ops");
  EXPECT_EQ(error_of("fusion", R"({"layers": 4})")["field"], "layers");
}

TEST(Fusion, ExerciseAgreesWithCalculator) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    const auto e = mlsys::make_exercise("kernels-fusion-saving", seed);
    const json r = calc("fusion", e.params);
    EXPECT_EQ(r["unfused_bound"], "memory") << seed;
    EXPECT_EQ(r["fused_bound"], "memory") << seed;
    EXPECT_NEAR(r["total_time_saved_s"].get<double>() * 1e6, e.answer, 1e-9 * e.answer) << seed;
  }
}

// "New numbers" draws a random seed: two draws should rarely give the same answer (3 digits).
// Powers-of-two sizes made it common (bf16 of 2^k elements = fp32 of 2^(k−1)): about 0.8 % of
// pairs of draws agreed; sizes of tokens × features bring that near 0.2 %.
TEST(Fusion, ExerciseAnswersRarelyRepeat) {
  std::map<std::string, double> count;
  const double draws = 4000;
  for (std::uint32_t seed = 0; seed < draws; ++seed)
    ++count[mlsys::format_number(mlsys::make_exercise("kernels-fusion-saving", seed).answer, 3)];
  // Chance that two different draws agree: sum c·(c − 1) / (N·(N − 1)).
  double collide = 0;
  for (const auto& [answer, c] : count) collide += c * (c - 1) / (draws * (draws - 1));
  EXPECT_LT(collide, 0.004) << count.size() << " distinct answers";
}

// Roofline times of the chain: n = 10^6 bf16, L = 4 ops of which b = 1 binary, 1 FLOP each, on
// 1 TFLOP/s and 1 TB/s. Unary kernels move 4 MB (4 µs), the binary one 6 MB (6 µs): 18 µs
// unfused; fused, 6 MB in 6 µs, 3× faster.
TEST(Fusion, ModelTimes) {
  const auto r = mlsys::fusion_times(1e6, 4, 1, 1, 2, 1e12, 1e12);
  EXPECT_DOUBLE_EQ(r.chain.unfused_bytes, 1.8e7);
  EXPECT_DOUBLE_EQ(r.chain.fused_bytes, 6e6);
  EXPECT_DOUBLE_EQ(r.unfused_time_s, 3 * 4e-6 + 6e-6);
  EXPECT_DOUBLE_EQ(r.fused_time_s, 6e-6);
  EXPECT_DOUBLE_EQ(r.speedup, 3.0);
  EXPECT_EQ(r.unfused_bound, "memory");
  EXPECT_DOUBLE_EQ(r.ridge_intensity, 1.0);
  EXPECT_THROW(mlsys::check_chain(2, 3), mlsys::InputError);
  const auto& h100 = *mlsys::find_accelerator("h100-sxm");
  EXPECT_DOUBLE_EQ(mlsys::vector_peak(&h100, false, 1e18), *h100.peak_for("fp32"));
  EXPECT_DOUBLE_EQ(mlsys::vector_peak(&h100, true, 1e18), 1e18);
  EXPECT_DOUBLE_EQ(mlsys::vector_peak(nullptr, false, 5.0), 5.0);
}

// Fusing L ops into one kernel also removes L − 1 launches. The exercise's draws are small (a
// 384 × 5,120 bf16 tensor saves 1.5 µs of traffic per pair of ops on an MI300X), so the launches
// it removes are of the same size: it states a launch cost and counts both, and an answer that
// counts the bytes alone is wrong.
TEST(Fusion, ExerciseCountsTheLaunchesFusionRemoves) {
  const json r = calc("fusion", {{"n", 1e6}, {"ops", 4}, {"bandwidth_Bps", 1e12}, {"peak_flops", 1e14},
                                 {"launch_overhead_s", 5e-6}});
  EXPECT_NEAR(r["launch_time_saved_s"].get<double>(), 15e-6, 1e-15);  // 3 launches removed
  EXPECT_NEAR(r["total_time_saved_s"].get<double>(), r["time_saved_s"].get<double>() + 15e-6, 1e-15);
  EXPECT_EQ(calc("fusion", json::object())["launch_time_saved_s"].get<double>(), 0);  // bytes only by default
  for (std::uint32_t seed = 0; seed < 60; ++seed) {
    const auto e = mlsys::make_exercise("kernels-fusion-saving", seed);
    const json c = calc("fusion", e.params);
    const double launch_us = e.params["launch_overhead_s"].get<double>() * 1e6;
    EXPECT_NE(e.prompt.find(mlsys::format_number(launch_us, 2) + " \u00B5s"), std::string::npos) << e.prompt;
    const double bytes_only = c["time_saved_s"].get<double>() * 1e6;
    EXPECT_FALSE(mlsys::check_exercise("kernels-fusion-saving", seed, mlsys::format_number(bytes_only, 6))["correct"])
        << seed;
    EXPECT_TRUE(mlsys::check_exercise("kernels-fusion-saving", seed, mlsys::format_number(e.answer, 6))["correct"])
        << seed;
  }
}
