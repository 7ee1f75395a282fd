// The NVLink and network phases of a cross-node all-reduce, pipelined (the default) or one
// after the other: closed forms, the A100 measurement the pipelined model meets, the lesson's
// default case hiding at every scale only with pipelining, and the zero calculator following
// the same choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/parallel/data_parallel.hpp"

using mlsys::json;

namespace {

// 8 GPUs per node, NVLink 450 GB/s and one 50 GB/s NIC per GPU per direction, α = 1 µs.
double pipelined_allreduce(double S, int gpus) {
  const double g = 8, n = gpus / 8.0, a = 1e-6;
  return (2 * (g - 1) + 2 * (n - 1)) * a + std::max(2 * (g - 1) * S / (g * 450e9), 2 * (n - 1) * S / (g * n * 50e9));
}
double sequential_allreduce(double S, int gpus) {
  const double g = 8, n = gpus / 8.0, a = 1e-6;
  return 2 * (g - 1) * (a + S / (g * 450e9)) + 2 * (n - 1) * (a + S / (g * n * 50e9));
}

}  // namespace

TEST(DataParallelPhases, PipelinedIsTheDefaultAndSequentialTheBound) {
  const double S = 2 * 7e9;
  for (int gpus : {16, 64, 1024}) {
    const json d = mlsys::calc("data-parallel", {{"gpus", gpus}});
    const json s = mlsys::calc("data-parallel", {{"gpus", gpus}, {"phases", "sequential"}});
    EXPECT_NEAR(d["allreduce_time_s"].get<double>(), pipelined_allreduce(S, gpus), 1e-12) << gpus;
    EXPECT_NEAR(d["allreduce_time_pipelined_s"].get<double>(), pipelined_allreduce(S, gpus), 1e-12);
    EXPECT_NEAR(d["allreduce_time_sequential_s"].get<double>(), sequential_allreduce(S, gpus), 1e-12);
    EXPECT_NEAR(s["allreduce_time_s"].get<double>(), sequential_allreduce(S, gpus), 1e-12);
    EXPECT_LT(d["allreduce_time_s"].get<double>(), s["allreduce_time_s"].get<double>());
  }
  // Inside one node there is only the NVLink ring: both choices agree.
  const json in_node = mlsys::calc("data-parallel", {{"gpus", 8}});
  EXPECT_DOUBLE_EQ(in_node["allreduce_time_s"].get<double>(), in_node["allreduce_time_sequential_s"].get<double>());
  EXPECT_DOUBLE_EQ(in_node["efficiency"].get<double>(), in_node["efficiency_phases_sequential"].get<double>());
}

// NVIDIA/nccl issue 812: 192 GB/s of measured all-reduce bus bandwidth across DGX A100 nodes
// (eight 200 Gb/s HDR NICs each). The pipelined model's bus bandwidth comes within 5 % of it;
// the sequential one is a third too low.
TEST(DataParallelPhases, PipelinedBusBandwidthMeetsTheA100Measurement) {
  const json in = {{"hardware", "a100-sxm-80gb"}, {"inter_bandwidth_Bps", 25e9}, {"gpus", 1024}, {"latency_s", 0}};
  const json d = mlsys::calc("data-parallel", in);
  const double S = d["gradient_bytes"].get<double>(), p = 1024;
  const double busbw = 2 * (p - 1) / p * S / d["allreduce_time_s"].get<double>();
  EXPECT_NEAR(busbw, d["bus_bandwidth_overlapped_Bps"].get<double>(), 1e-6 * busbw);
  EXPECT_LT(std::fabs(busbw / 192e9 - 1), 0.05);
  const double seq = 2 * (p - 1) / p * S / d["allreduce_time_sequential_s"].get<double>();
  EXPECT_LT(seq / 192e9, 0.7);
}

// The figure's default (7B, one 1,024-token sequence per GPU, H100, overlap on): with the
// phases pipelined the all-reduce (about 61 ms at 64 GPUs, 69 ms at 1,024) stays below the
// 72 ms backward pass and efficiency stays above 99.8 % at every scale; the sequential bound
// drops below 75 % past the node. The old default drew that drop as the main effect.
TEST(DataParallelPhases, DefaultCaseHidesAtEveryScaleWhenPipelined) {
  const json d = mlsys::calc("data-parallel", {{"seq", 1024}, {"series_max_gpus", 1024}});
  for (const json& q : d["series"]) {
    EXPECT_GT(q["efficiency"].get<double>(), 0.998) << q["gpus"];
    if (q["gpus"].get<int>() >= 64) {
      EXPECT_LT(q["efficiency_phases_sequential"].get<double>(), 0.75) << q["gpus"];
    }
    EXPECT_LE(q["efficiency_phases_sequential"].get<double>(), q["efficiency"].get<double>() + 1e-12);
  }
  const json q64 = mlsys::calc("data-parallel", {{"seq", 1024}, {"gpus", 64}});
  EXPECT_NEAR(q64["allreduce_time_s"].get<double>(), 0.0613, 0.0002);
  EXPECT_LT(q64["allreduce_time_s"].get<double>(), q64["backward_time_s"].get<double>());
}

// ZeRO's stage times follow the same phases; volumes do not depend on them.
TEST(DataParallelPhases, ZeroFollowsThePhases) {
  const json d = mlsys::calc("zero", {{"params", 7e9}, {"dp", 64}});
  const json s = mlsys::calc("zero", {{"params", 7e9}, {"dp", 64}, {"phases", "sequential"}});
  const double S = 2 * 7e9;
  EXPECT_NEAR(d["stages"][0]["comm_time_s"].get<double>(), pipelined_allreduce(S, 64), 1e-12);
  EXPECT_NEAR(s["stages"][0]["comm_time_s"].get<double>(), sequential_allreduce(S, 64), 1e-12);
  for (int k = 0; k < 4; ++k) {
    EXPECT_DOUBLE_EQ(d["stages"][k]["volume_bytes"].get<double>(), s["stages"][k]["volume_bytes"].get<double>());
    EXPECT_LT(d["stages"][k]["comm_time_s"].get<double>(), s["stages"][k]["comm_time_s"].get<double>());
  }
  // Pipelined, a reduce-scatter or all-gather is half an all-reduce, so stage 3 costs exactly 1.5×.
  EXPECT_NEAR(d["stages"][3]["comm_vs_baseline"].get<double>(), 1.5, 1e-12);
}

TEST(DataParallelPhases, UnknownPhasesIsAnInputError) {
  try {
    mlsys::calc("data-parallel", {{"phases", "overlapped"}});
    FAIL() << "no error";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "phases");
  }
}

// dp-pipelined-allreduce: the answer is the data-parallel calculator's pipelined all-reduce on
// the prompt's numbers; both the NVLink-bound and the network-bound case occur; adding the
// phases (the sequential bound) and taking the faster phase are both refused.
TEST(DataParallelPhases, PipelinedAllReduceExercise) {
  int nvlink_bound = 0, network_bound = 0;
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    const auto e = mlsys::make_exercise("dp-pipelined-allreduce", seed);
    const json pipe = mlsys::calc("data-parallel", e.params);
    EXPECT_NEAR(pipe["allreduce_time_s"].get<double>() * 1e3, e.answer, 1e-9 * e.answer) << seed;
    json seq_in = e.params;
    seq_in["phases"] = "sequential";
    const double seq_ms = mlsys::calc("data-parallel", seq_in)["allreduce_time_s"].get<double>() * 1e3;
    EXPECT_FALSE(mlsys::check_exercise("dp-pipelined-allreduce", seed, mlsys::format_number(seq_ms, 4))["correct"].get<bool>());
    EXPECT_TRUE(mlsys::check_exercise("dp-pipelined-allreduce", seed, mlsys::format_number(e.answer, 4))["correct"].get<bool>());
    (e.solution.find("phase, NVLink,") != std::string::npos ? nvlink_bound : network_bound)++;
  }
  EXPECT_GE(nvlink_bound, 20);
  EXPECT_GE(network_bound, 20);
}
