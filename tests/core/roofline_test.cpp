// Roofline and matmul cost against their closed forms and datasheet values.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/gpu/roofline.hpp"
#include "mlsys/kernels/matmul_cost.hpp"

using mlsys::calc;
using mlsys::json;

TEST(Roofline, ClosedForm) {
  const auto r = mlsys::roofline(1e12, 1e9, 100e12, 2e12);  // intensity 1000, ridge 50
  EXPECT_DOUBLE_EQ(r.intensity, 1000);
  EXPECT_DOUBLE_EQ(r.ridge_intensity, 50);
  EXPECT_DOUBLE_EQ(r.compute_time_s, 0.01);
  EXPECT_DOUBLE_EQ(r.memory_time_s, 0.0005);
  EXPECT_DOUBLE_EQ(r.time_s, 0.01);
  EXPECT_EQ(r.bound, "compute");
  EXPECT_DOUBLE_EQ(r.attainable_flops, 100e12);
  const auto m = mlsys::roofline(1e9, 1e9, 100e12, 2e12);  // intensity 1 < 50
  EXPECT_EQ(m.bound, "memory");
  EXPECT_DOUBLE_EQ(m.attainable_flops, 2e12);
  EXPECT_DOUBLE_EQ(m.time_s, 0.0005);
}

TEST(Roofline, H100RidgeFromDatasheet) {
  // NVIDIA H100 SXM datasheet: 989.4 TFLOP/s dense BF16 (1,979 with sparsity), 3.35 TB/s.
  const json r = calc("roofline", {{"hardware", "h100-sxm"}, {"dtype", "bf16"}, {"flops", 1}, {"bytes", 1}});
  EXPECT_NEAR(r["ridge_intensity"].get<double>(), 989.4e12 / 3.35e12, 0.5);
  // A100 SXM: 312 TFLOP/s BF16 dense, 2,039 GB/s -> ridge ~153 FLOP/B.
  const json a = calc("roofline", {{"hardware", "a100-sxm-80gb"}, {"dtype", "bf16"}, {"flops", 1}, {"bytes", 1}});
  EXPECT_NEAR(a["ridge_intensity"].get<double>(), 312e12 / 2.039e12, 0.5);
}

TEST(Roofline, OverridesReplaceTheTable) {
  const json r = calc("roofline", {{"hardware", "h100-sxm"}, {"flops", 4e12}, {"bytes", 1e9},
                                   {"peak_flops", 1e12}, {"bandwidth_Bps", 1e12}});
  EXPECT_DOUBLE_EQ(r["time_s"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(r["ridge_intensity"].get<double>(), 1.0);
}

TEST(Matmul, ClosedForm) {
  const auto c = mlsys::matmul_cost(4096, 4096, 4096, 2);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(c.bytes, 3.0 * 4096 * 4096 * 2);
  EXPECT_DOUBLE_EQ(c.intensity, 4096.0 / 3.0);  // square bf16: n/3
}

TEST(Matmul, CalculatorMatchesModelAndRoofline) {
  const json r = calc("matmul", {{"m", 8}, {"n", 8192}, {"k", 8192}, {"dtype", "bf16"}, {"hardware", "h100-sxm"}});
  const auto c = mlsys::matmul_cost(8, 8192, 8192, 2);
  EXPECT_DOUBLE_EQ(r["flops"].get<double>(), c.flops);
  EXPECT_DOUBLE_EQ(r["bytes"].get<double>(), c.bytes);
  EXPECT_EQ(r["bound"], "memory");  // a decode-sized GEMM: intensity ~8 FLOP/B
  const json big = calc("matmul", {{"m", 8192}, {"n", 8192}, {"k", 8192}, {"hardware", "h100-sxm"}});
  EXPECT_EQ(big["bound"], "compute");
  EXPECT_DOUBLE_EQ(big["time_s"].get<double>(), c.flops * 1024 / 989.4e12);  // 8192 / 8 = 1024 times the FLOPs
}

TEST(Matmul, WithoutHardwareHasNoTime) {
  const json r = calc("matmul", {{"m", 2}, {"n", 3}, {"k", 4}, {"dtype", "fp32"}});
  EXPECT_DOUBLE_EQ(r["flops"].get<double>(), 48);
  EXPECT_DOUBLE_EQ(r["bytes"].get<double>(), (8 + 12 + 6) * 4.0);
  EXPECT_FALSE(r.contains("time_s"));
}

TEST(Roofline, NoOverlapUpperBound) {
  // Williams et al. assume full overlap, max(F/P, Q/B); with none the kernel takes F/P + Q/B.
  const auto r = mlsys::roofline(2e12, 1e10, 1e15, 2e12);  // 2 ms compute, 5 ms memory
  EXPECT_DOUBLE_EQ(r.time_s, 5e-3);
  EXPECT_DOUBLE_EQ(r.time_no_overlap_s, 7e-3);
  const json c = calc("roofline", {{"hardware", "h100-sxm"}, {"dtype", "bf16"}, {"flops", 1e12}, {"bytes", 1e9}});
  EXPECT_DOUBLE_EQ(c["time_no_overlap_s"].get<double>(),
                   c["compute_time_s"].get<double>() + c["memory_time_s"].get<double>());
}

// The lesson's two bounds for the 4096³ bf16 GEMM on the H100 differ by 1 + 30.0/138.9 = 1.22
// (the no-overlap time is a fifth longer), and the 4096 × 4096 layer turns compute-bound at
// b* = 1/(2/(2·295.3) − 2/4096) = 345.1 tokens, 17% above the approximation s·I*/2 = 295.3;
// an 512-wide square layer never does (1/512 + 1/512 > 2/(2·295.3)).
TEST(Roofline, NoOverlapRatioAndExactCrossover) {
  const json g = calc("roofline", {{"hardware", "h100-sxm"}, {"dtype", "bf16"}, {"flops", 137438953472.0},
                                   {"bytes", 100663296.0}});
  EXPECT_NEAR(g["no_overlap_ratio"].get<double>(), 1.2163, 1e-4);
  const json m = calc("matmul", {{"m", 1}, {"n", 4096}, {"k", 4096}, {"dtype", "bf16"}, {"hardware", "h100-sxm"}});
  const double ridge = 989.4 / 3.35;
  EXPECT_NEAR(m["crossover_m"].get<double>(), 1 / (1 / ridge - 2.0 / 4096), 1e-9);
  EXPECT_NEAR(m["crossover_m"].get<double>(), 345.1, 0.05);
  EXPECT_NEAR(m["crossover_m_approx"].get<double>(), ridge, 1e-9);
  EXPECT_NEAR(m["crossover_m_excess"].get<double>(), 0.1685, 1e-3);
  // The exact crossover is where the bound flips: below it memory, above it compute.
  const auto bound_at = [](int b) {
    return calc("matmul", {{"m", b}, {"n", 4096}, {"k", 4096}, {"dtype", "bf16"}, {"hardware", "h100-sxm"}})["bound"];
  };
  EXPECT_EQ(bound_at(345), "memory");
  EXPECT_EQ(bound_at(346), "compute");
  const json narrow = calc("matmul", {{"m", 1}, {"n", 512}, {"k", 512}, {"dtype", "bf16"}, {"hardware", "h100-sxm"}});
  EXPECT_TRUE(narrow["crossover_m"].is_null());
  EXPECT_TRUE(narrow["crossover_m_excess"].is_null());
}
