// Launch overhead: closed forms of the serial, pipelined and CUDA-graph models, the pipelined
// form against an explicit event simulation, and the calculator's fractions and break-even.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "test_support.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/kernels/launch.hpp"

using mlsys::calc;
using mlsys::json;
using mlsys::test::error_of;

namespace {
// CPU issues launch i during [i·o, (i+1)·o]; kernel i runs once launched and once kernel i−1 is
// done, and holds the GPU for its gap g plus its work w.
double simulate_pipelined(int n, double o, double g, double w) {
  double gpu_free = 0;
  for (int i = 0; i < n; ++i) gpu_free = std::max((i + 1) * o, gpu_free) + g + w;
  return gpu_free;
}
}  // namespace

TEST(Launch, ClosedForms) {
  const auto t = mlsys::launch_times(100, 2e-6, 5e-6, 1e-6);
  EXPECT_DOUBLE_EQ(t.work_s, 200e-6);
  EXPECT_DOUBLE_EQ(t.serial_s, 100 * 8e-6);  // launch + gap + work
  EXPECT_DOUBLE_EQ(t.pipelined_s, 5e-6 + 3e-6 + 99 * 5e-6);  // launch-rate bound
  EXPECT_DOUBLE_EQ(t.graph_s, 5e-6 + 100 * 3e-6);
  EXPECT_DOUBLE_EQ(t.serial_lost, 6.0 / 8.0);
  EXPECT_NEAR(t.graph_lost, 1 - 200.0 / 305.0, 1e-15);
  const auto big = mlsys::launch_times(100, 1e-3, 5e-6, 1e-6);  // 1 ms kernels hide the CPU entirely
  EXPECT_DOUBLE_EQ(big.pipelined_s, 5e-6 + 100 * (1e-3 + 1e-6));
  EXPECT_DOUBLE_EQ(big.graph_s, big.pipelined_s);  // nothing left for a graph to save
  EXPECT_LT(big.serial_lost, 0.007);  // 6 µs of 1,006
  const auto none = mlsys::launch_times(10, 1e-6, 0, 0);
  EXPECT_EQ(none.serial_lost, 0);
  EXPECT_EQ(none.graph_lost, 0);
}

TEST(Launch, PipelinedMatchesEventSimulation) {
  for (int n : {1, 2, 7, 100}) {
    for (double o : {0.5e-6, 5e-6, 20e-6}) {
      for (double w : {0.1e-6, 5e-6, 50e-6}) {
        for (double g : {0.0, 1e-6}) {
          EXPECT_NEAR(mlsys::launch_times(n, w, o, g).pipelined_s, simulate_pipelined(n, o, g, w), 1e-15)
              << n << " " << o << " " << g << " " << w;
        }
      }
    }
  }
}

// Regression: with a per-kernel gap only inside graphs, 100 kernels of 20 MB on the H100 took
// 702 µs as a graph and 602 µs launched eagerly. The gap is paid in both modes, so a graph only
// removes the CPU's launches (Gray, "Getting Started with CUDA Graphs", NVIDIA blog 2019): it is
// never slower than serial or pipelined eager launches of the same kernels, at any size or count.
TEST(Launch, GraphNeverSlowerThanEager) {
  const json at20 = calc("launch-overhead", {{"kernels", 100}, {"bytes_per_kernel", 2e7}, {"hardware", "h100-sxm"}});
  EXPECT_LE(at20["graph_time_s"].get<double>(), at20["pipelined_time_s"].get<double>());
  for (double kernels : {1.0, 2.0, 10.0, 100.0, 10000.0})
    for (double bytes = 1e3; bytes <= 1e11; bytes *= 3.1)
      for (double o : {0.0, 1e-6, 5e-6, 2e-5})
        for (double g : {0.0, 1e-6, 1e-5}) {
          const auto t = mlsys::launch_overhead(kernels, bytes, 0, o, g, 1e15, 3.35e12).t;
          EXPECT_LE(t.graph_s, t.pipelined_s * (1 + 1e-12)) << kernels << " " << bytes << " " << o << " " << g;
          EXPECT_LE(t.pipelined_s, t.serial_s * (1 + 1e-12)) << kernels << " " << bytes << " " << o << " " << g;
        }
}

TEST(Launch, Calculator) {
  // 1 MB per kernel on the H100 (3.35 TB/s): 0.2985 µs of work next to 5 µs of launch.
  const json r = calc("launch-overhead", {{"kernels", 100}, {"bytes_per_kernel", 1e6}, {"hardware", "h100-sxm"}});
  const double w = 1e6 / 3.35e12;
  EXPECT_DOUBLE_EQ(r["work_per_kernel_s"].get<double>(), w);
  EXPECT_EQ(r["work_bound"], "memory");
  EXPECT_NEAR(r["serial_time_s"].get<double>(), 100 * (6e-6 + w), 1e-15);
  EXPECT_NEAR(r["serial_overhead_fraction"].get<double>(), 6e-6 / (6e-6 + w), 1e-12);
  EXPECT_NEAR(r["graph_time_s"].get<double>(), 5e-6 + 100 * (1e-6 + w), 1e-15);
  EXPECT_GT(r["graph_speedup"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(r["breakeven_bytes"].get<double>(), 6e-6 * 3.35e12);  // 20.1 MB per kernel
  // At the break-even size half the serial time is overhead.
  const json even = calc("launch-overhead", {{"bytes_per_kernel", 6e-6 * 3.35e12}});
  EXPECT_NEAR(even["serial_overhead_fraction"].get<double>(), 0.5, 1e-12);
  // Compute-heavy kernels use the roofline time.
  const json c = calc("launch-overhead", {{"bytes_per_kernel", 1e6}, {"flops_per_kernel", 1e12}, {"dtype", "fp32"}});
  EXPECT_EQ(c["work_bound"], "compute");
  EXPECT_NEAR(c["work_per_kernel_s"].get<double>(), 1e12 / 66.9e12, 1e-12);
}

TEST(Launch, BadInputs) {
  EXPECT_EQ(error_of("launch-overhead", R"({"kernels": 0})")["field"], "kernels");
  EXPECT_EQ(error_of("launch-overhead", R"({"kernels": 2.5})")["field"], "kernels");
  EXPECT_EQ(error_of("launch-overhead", R"({"kernels": 1e9})")["field"], "kernels");
  EXPECT_EQ(error_of("launch-overhead", R"({"bytes_per_kernel": 0})")["field"], "bytes_per_kernel");
  EXPECT_EQ(error_of("launch-overhead", R"({"bytes_per_kernel": 1e20})")["field"], "bytes_per_kernel");
  EXPECT_EQ(error_of("launch-overhead", R"({"launch_overhead_s": -1e-6})")["field"], "launch_overhead_s");
  EXPECT_EQ(error_of("launch-overhead", R"({"launch_overhead_s": 1})")["field"], "launch_overhead_s");
  EXPECT_EQ(error_of("launch-overhead", R"({"graph_node_s": -1})")["field"], "graph_node_s");
  EXPECT_EQ(error_of("launch-overhead", R"({"flops_per_kernel": -1})")["field"], "flops_per_kernel");
  EXPECT_EQ(error_of("launch-overhead", R"({"hardware": "h900"})")["field"], "hardware");
  EXPECT_EQ(error_of("launch-overhead", R"({"dtype": "fp12"})")["field"], "dtype");
  EXPECT_EQ(error_of("launch-overhead", R"({"kernels": "10"})")["field"], "kernels");
  EXPECT_EQ(error_of("launch-overhead", R"({"overhead": 1})")["field"], "overhead");
}

TEST(Launch, ExerciseAgreesWithCalculator) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    const auto e = mlsys::make_exercise("kernels-launch-fraction", seed);
    const json r = calc("launch-overhead", e.params);
    EXPECT_NEAR(r["serial_overhead_fraction"].get<double>() * 100, e.answer, 1e-9 * e.answer) << seed;
  }
}

// 100 kernels of 1 MB at 1 TB/s (1 µs each), 5 µs launches, 1 µs gaps: serial 100 · 7 µs,
// graph 5 µs + 100 · 2 µs; break-even (5 + 1) µs · 1 TB/s = 6 MB.
TEST(Launch, ModelOverhead) {
  const auto r = mlsys::launch_overhead(100, 1e6, 0, 5e-6, 1e-6, 1e15, 1e12);
  EXPECT_DOUBLE_EQ(r.work_per_kernel_s, 1e-6);
  EXPECT_EQ(r.work_bound, "memory");
  EXPECT_DOUBLE_EQ(r.t.serial_s, 100 * 7e-6);
  EXPECT_DOUBLE_EQ(r.t.graph_s, 5e-6 + 100 * 2e-6);
  EXPECT_DOUBLE_EQ(r.graph_speedup, (100 * 7e-6) / (5e-6 + 100 * 2e-6));
  EXPECT_DOUBLE_EQ(r.achieved_bandwidth_Bps, 1e8 / (100 * 7e-6));
  EXPECT_DOUBLE_EQ(r.breakeven_bytes, 6e6);
}
