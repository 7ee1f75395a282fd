// The collectives lesson's calculators (`collective` as in shared/API.md, `collective-execute`,
// `collective-sweep`, `hierarchical-allreduce`) and exercises: closed forms, nccl-tests' bus
// bandwidth (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md), auto
// choice, every class of bad input, and each exercise's answer against its calculator.
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/comm/cost_model.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"
#include "test_support.hpp"

namespace {

using mlsys::calc;
using mlsys::json;
using mlsys::test::error_of;

TEST(CommApi, CollectiveRingAllReduce) {
  const json r = calc("collective", {{"op", "allreduce"}, {"algorithm", "ring"}, {"ranks", 8}, {"bytes", 1e9},
                                     {"latency_s", 0.0}, {"bandwidth_Bps", 450e9}});
  EXPECT_DOUBLE_EQ(r["time_s"].get<double>(), 2.0 * 7 / 8 * 1e9 / 450e9);
  EXPECT_EQ(r["steps"].get<double>(), 14);
  EXPECT_DOUBLE_EQ(r["bytes_sent_per_rank"].get<double>(), 1.75e9);
  EXPECT_DOUBLE_EQ(r["algbw_Bps"].get<double>(), 1e9 / r["time_s"].get<double>());
  EXPECT_NEAR(r["busbw_Bps"].get<double>(), 450e9, 1e-3);  // ring at zero latency: busbw = link bandwidth
  EXPECT_EQ(r["algorithm"], "ring");
}

TEST(CommApi, AutoPicksLatencyOptimalSmallAndRingLarge) {
  const json base = {{"op", "allreduce"}, {"algorithm", "auto"}, {"ranks", 64}, {"latency_s", 5e-6},
                     {"bandwidth_Bps", 50e9}};
  json small = base, large = base;
  small["bytes"] = 1e3;
  large["bytes"] = 1e10;
  EXPECT_EQ(calc("collective", small)["algorithm"], "recursive-doubling");
  // Large: halving-doubling has the ring's bytes with fewer steps on a power of two; the ring
  // wins on other rank counts.
  EXPECT_EQ(calc("collective", large)["algorithm"], "halving-doubling");
  large["ranks"] = 48;
  EXPECT_EQ(calc("collective", large)["algorithm"], "ring");
  // With a second level, hierarchical wins for large buffers across nodes.
  large["gpus_per_node"] = 8;
  large["bandwidth_Bps"] = 450e9;
  large["inter_bandwidth_Bps"] = 50e9;
  const json h = calc("collective", large);
  EXPECT_EQ(h["algorithm"], "hierarchical");
  for (const auto& c : h["candidates"]) EXPECT_GE(c["time_s"].get<double>(), h["time_s"].get<double>());
  // Non-powers of two: recursive doubling is not a candidate.
  small["ranks"] = 12;
  EXPECT_EQ(calc("collective", small)["algorithm"], "tree");
}

TEST(CommApi, OneRankIsFreeAndFinite) {
  const json r = calc("collective", {{"ranks", 1}, {"bytes", 1e6}});
  EXPECT_EQ(r["time_s"].get<double>(), 0);
  EXPECT_EQ(r["algbw_Bps"].get<double>(), 0);
}

TEST(CommApi, ExecuteMatchesModel) {
  for (const char* alg : {"ring", "tree", "recursive-doubling", "halving-doubling"}) {
    const json r = calc("collective-execute", {{"op", "allreduce"}, {"algorithm", alg}, {"ranks", 8}});
    EXPECT_TRUE(r["equals_direct"].get<bool>()) << alg;
    EXPECT_EQ(r["steps"], r["model"]["steps"]) << alg;
    EXPECT_DOUBLE_EQ(r["bytes_sent_per_rank"].get<double>(), r["model"]["bytes_sent_per_rank"].get<double>()) << alg;
    EXPECT_NEAR(r["time_s"].get<double>(), r["model"]["time_s"].get<double>(), 1e-15) << alg;
    EXPECT_EQ(r["snapshots"].size(), r["steps"].get<std::size_t>() + 1);
  }
  const json h = calc("collective-execute", {{"op", "allreduce"}, {"algorithm", "hierarchical"}, {"ranks", 8},
                                             {"gpus_per_node", 4}});
  EXPECT_EQ(h["steps"].get<double>(), 2 * 3 + 2 * 1);
}

TEST(CommApi, SweepCrossoverIsWhereTheLinesMeet) {
  const json r = calc("collective-sweep", {{"ranks", 16}, {"latency_s", 5e-6}, {"bandwidth_Bps", 50e9}});
  bool found = false;
  for (const auto& c : r["crossovers"]) {
    if (c["algorithm"] != "recursive-doubling") continue;
    found = true;
    const double s = c["bytes"].get<double>();
    EXPECT_DOUBLE_EQ(s, 26 * 5e-6 * 50e9 / (4 - 30.0 / 16));
    const json base = {{"ranks", 16}, {"bytes", s}, {"latency_s", 5e-6}, {"bandwidth_Bps", 50e9}};
    json a = base, b = base;
    a["algorithm"] = "ring";
    b["algorithm"] = "recursive-doubling";
    EXPECT_NEAR(calc("collective", a)["time_s"].get<double>(), calc("collective", b)["time_s"].get<double>(), 1e-12);
  }
  EXPECT_TRUE(found);
  // Broadcast: the tree against the pipelined chain, found by bisection.
  const json bc = calc("collective-sweep", {{"op", "broadcast"}, {"ranks", 16}});
  ASSERT_EQ(bc["crossovers"].size(), 1u);
  EXPECT_TRUE(bc["crossovers"][0]["exists"].get<bool>());
}

TEST(CommApi, HierarchicalBeatsFlatRingAcrossNodes) {
  // H100 SXM: 900 GB/s NVLink both directions summed, so 450 GB/s per direction.
  const json r = calc("hierarchical-allreduce", {{"nodes", 4}, {"gpus_per_node", 8}, {"bytes", 1e9}, {"latency_s", 0.0},
                                                 {"inter_latency_s", 0.0}});
  EXPECT_DOUBLE_EQ(r["intra_bandwidth_Bps"].get<double>(), 450e9);
  EXPECT_DOUBLE_EQ(r["intra_time_s"].get<double>(), 2.0 * 7 / 8 * 1e9 / 450e9);
  EXPECT_DOUBLE_EQ(r["inter_time_s"].get<double>(), 2.0 * 3 / 32 * 1e9 / 50e9);
  EXPECT_DOUBLE_EQ(r["flat_ring_time_s"].get<double>(), 2.0 * 31 / 32 * 1e9 / 50e9);
  EXPECT_GT(r["speedup"].get<double>(), 3);
}

TEST(CommApi, BadInputs) {
  EXPECT_EQ(error_of("collective", R"({"ranks": 0})")["field"], "ranks");
  EXPECT_EQ(error_of("collective", R"({"ranks": -3})")["field"], "ranks");
  EXPECT_EQ(error_of("collective", R"({"ranks": 2.5})")["field"], "ranks");
  EXPECT_EQ(error_of("collective", R"({"ranks": 1e12})")["field"], "ranks");
  EXPECT_EQ(error_of("collective", R"({"bytes": -1})")["field"], "bytes");
  EXPECT_EQ(error_of("collective", R"({"bytes": NaN})")["field"], "");
  EXPECT_EQ(error_of("collective", R"({"bytes": 1e400})")["field"], "");
  EXPECT_EQ(error_of("collective", R"({"bytes": "1"})")["field"], "bytes");
  EXPECT_EQ(error_of("collective", R"({"bandwidth_Bps": 0})")["field"], "bandwidth_Bps");
  EXPECT_EQ(error_of("collective", R"({"latency_s": -1e-6})")["field"], "latency_s");
  EXPECT_EQ(error_of("collective", R"({"op": "gather"})")["field"], "op");
  EXPECT_EQ(error_of("collective", R"({"algorithm": "butterfly"})")["field"], "algorithm");
  EXPECT_EQ(error_of("collective", R"({"typo": 1})")["field"], "typo");
  EXPECT_EQ(error_of("collective", R"({"algorithm": "recursive-doubling", "ranks": 12})")["field"], "algorithm");
  EXPECT_EQ(error_of("collective", R"({"algorithm": "tree", "op": "alltoall"})")["field"], "algorithm");
  EXPECT_EQ(error_of("collective", R"({"algorithm": "hierarchical"})")["field"], "gpus_per_node");
  EXPECT_EQ(error_of("collective", R"({"algorithm": "hierarchical", "ranks": 12, "gpus_per_node": 8})")["field"],
            "gpus_per_node");
  EXPECT_EQ(error_of("collective", R"({"algorithm": "hierarchical", "op": "broadcast", "gpus_per_node": 4})")["field"],
            "algorithm");
  EXPECT_EQ(error_of("collective-execute", R"({"ranks": 17})")["field"], "ranks");
  EXPECT_EQ(error_of("collective-execute", R"({"ranks": 8, "elements": 12})")["field"], "elements");
  EXPECT_EQ(error_of("collective-execute", R"({"algorithm": "auto"})")["field"], "algorithm");
  EXPECT_EQ(error_of("collective-execute", R"({"op": "broadcast", "chunks": 0})")["field"], "chunks");
  EXPECT_EQ(error_of("collective-sweep", R"({"min_bytes": 1e6, "max_bytes": 1e3})")["field"], "max_bytes");
  EXPECT_EQ(error_of("collective-sweep", R"({"points": 1})")["field"], "points");
  EXPECT_EQ(error_of("collective-sweep", R"({"ranks": 1})")["field"], "ranks");
  EXPECT_EQ(error_of("hierarchical-allreduce", R"({"hardware": "h900"})")["field"], "hardware");
  EXPECT_EQ(error_of("hierarchical-allreduce", R"({"nodes": 0})")["field"], "nodes");
  EXPECT_EQ(error_of("hierarchical-allreduce", R"({"inter_bandwidth_Bps": 0})")["field"], "inter_bandwidth_Bps");
  EXPECT_EQ(error_of("hierarchical-allreduce", R"({"gpus_per_node": 100})")["field"], "gpus_per_node");
}

TEST(CommExercises, AnswersAgreeWithCalculators) {
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    auto e = mlsys::make_exercise("collectives-ring-allreduce-time", seed);
    EXPECT_NEAR(calc("collective", e.params)["time_s"].get<double>() * 1e3, e.answer, 1e-9 * e.answer);
    e = mlsys::make_exercise("collectives-ring-bytes", seed);
    EXPECT_NEAR(calc("collective", e.params)["bytes_sent_per_rank"].get<double>() / 1e9, e.answer, 1e-9 * e.answer);
    e = mlsys::make_exercise("collectives-crossover", seed);
    const json sw = calc("collective-sweep", e.params);
    bool seen = false;
    for (const auto& c : sw["crossovers"])
      if (c["algorithm"] == "recursive-doubling") {
        EXPECT_NEAR(c["bytes"].get<double>() / 1e6, e.answer, 1e-9 * e.answer);
        seen = true;
      }
    EXPECT_TRUE(seen);
    e = mlsys::make_exercise("collectives-bus-bandwidth", seed);
    const json b = calc("collective", e.params);  // zero-latency ring at busbw reproduces the measured time
    EXPECT_NEAR(b["busbw_Bps"].get<double>() / 1e9, e.answer, 1e-9 * e.answer);
    EXPECT_NE(e.prompt.find(mlsys::format_number(b["time_s"].get<double>() * 1e3, 3)), std::string::npos) << e.prompt;
    e = mlsys::make_exercise("collectives-hierarchical", seed);
    EXPECT_NEAR(calc("hierarchical-allreduce", e.params)["time_s"].get<double>() * 1e3, e.answer, 1e-9 * e.answer);
    e = mlsys::make_exercise("collectives-alltoall-nodes", seed);
    const json a = calc("hierarchical-allreduce", e.params);
    EXPECT_NEAR(a["inter_time_s"].get<double>() * 1e3, e.answer, 1e-9 * e.answer);
    // The all-reduce's answer (÷ g) is rejected.
    EXPECT_FALSE(mlsys::check_exercise(e.id, seed, mlsys::format_number(e.answer / 8, 4))["correct"].get<bool>());
    // So is the all-reduce's own cross-node time, and the solution's factor between the two is
    // g/2 = 4, the all-reduce's 2(N − 1)/N · S/g against (N − 1)/N · S (it once said 8).
    EXPECT_FALSE(mlsys::check_exercise(e.id, seed, mlsys::format_number(e.answer / 4, 4))["correct"].get<bool>());
    EXPECT_NE(e.solution.find("4 times less"), std::string::npos) << e.solution;
    EXPECT_EQ(e.solution.find("8 times less"), std::string::npos) << e.solution;
    const json ar = calc("hierarchical-allreduce", {{"nodes", e.params["nodes"]}, {"bytes", e.params["bytes"]}});
    EXPECT_DOUBLE_EQ(a["inter_bytes_per_rank"].get<double>() / ar["inter_bytes_per_rank"].get<double>(), 4.0);
  }
}

// The lesson's exercises over many seeds: the ring-bytes draw never has p = 2 (where the answer
// is the buffer itself and "each GPU sends S" would be right), the mistake is refused; a
// decimal comma ("0,154") is refused with a message rather than read as 154; a bus bandwidth
// given in gigabits per second is converted, not read as gigabytes.
TEST(CommExercises, DrawsAndReadingsTheLessonWarnsAbout) {
  for (std::uint32_t seed = 0; seed < 60; ++seed) {
    const auto e = mlsys::make_exercise("collectives-ring-bytes", seed);
    EXPECT_GE(e.params["ranks"].get<int>(), 4);
    const double S = e.params["bytes"].get<double>() / 1e9;
    EXPECT_FALSE(mlsys::check_exercise(e.id, seed, mlsys::format_number(S, 4) + " GB")["correct"].get<bool>());
  }
  const auto t = mlsys::make_exercise("collectives-ring-allreduce-time", 1);
  const std::string right = mlsys::format_number(t.answer, 4);
  std::string comma = right;
  comma[comma.find('.')] = ',';
  const json c = mlsys::check_exercise(t.id, 1, comma);
  EXPECT_FALSE(c["correct"].get<bool>());
  EXPECT_TRUE(c["value"].is_null());
  EXPECT_NE(c["message"].get<std::string>().find("use a point"), std::string::npos);
  EXPECT_TRUE(mlsys::check_exercise(t.id, 1, right)["correct"].get<bool>());
  const auto b = mlsys::make_exercise("collectives-bus-bandwidth", 1);
  EXPECT_TRUE(mlsys::check_exercise(b.id, 1, mlsys::format_number(b.answer * 8, 5) + " Gb/s")["correct"].get<bool>());
  EXPECT_FALSE(mlsys::check_exercise(b.id, 1, mlsys::format_number(b.answer, 5) + " Gb/s")["correct"].get<bool>());
}

}  // namespace

// A DP/FSDP/TP group: a ring over NVLink inside one node, hierarchical across nodes with each
// GPU on its own NIC. 14 GB on 64 H100s (NVLink 450 GB/s, NDR 50 GB/s per GPU, no latency):
// 2·(7/8)·14e9/450e9 inside + 2·(7/8)·(14e9/8)/50e9 across = 54.4 + 61.3 = 115.7 ms, against
// 551 ms for one flat ring at one NIC's 50 GB/s.
TEST(CommApi, GroupCollectiveIsHierarchicalAcrossNodes) {
  using namespace mlsys;
  const Link nvlink{0, 450e9}, nic{0, 50e9};
  const double S = 14e9;
  EXPECT_DOUBLE_EQ(group_collective_cost(Collective::AllReduce, 8, 8, S, nvlink, nic).time_s,
                   collective_cost(Collective::AllReduce, CollectiveAlgorithm::Ring, 8, S, nvlink).time_s);
  const double t = group_collective_cost(Collective::AllReduce, 64, 8, S, nvlink, nic).time_s;
  EXPECT_NEAR(t, 2 * 7.0 / 8 * S / 450e9 + 2 * 7.0 / 8 * S / 8 / 50e9, 1e-12);
  EXPECT_NEAR(t, 0.1157, 5e-4);
  EXPECT_NEAR(collective_cost(Collective::AllReduce, CollectiveAlgorithm::Ring, 64, S, nic).time_s, 0.551, 1e-3);
  EXPECT_THROW(group_collective_cost(Collective::AllReduce, 12, 8, S, nvlink, nic), InputError);
}
