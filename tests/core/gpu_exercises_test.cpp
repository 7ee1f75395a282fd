// The gpu-architecture exercises agree with the calculators: the drawn numbers (params) fed to
// the calculator give the answer, for many seeds.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"

using mlsys::calc;
using mlsys::json;

TEST(GpuExercises, OccupancyAgreesWithCalculator) {
  std::set<std::string> limiters;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const auto e = mlsys::make_exercise("gpu-occupancy", seed);
    const json r = calc("occupancy", e.params);
    EXPECT_NEAR(100 * r["occupancy"].get<double>(), e.answer, 1e-9) << seed;
    limiters.insert(r["limiter"].get<std::string>());
  }
  // The draws exercise every limit but the 32-block one (which needs tiny blocks).
  EXPECT_GE(limiters.size(), 3u);
}

// The solution names the binding limit in the lesson's and the figure's words (warp slots,
// registers, shared memory), never the calculator's ids ("threads", "smem").
TEST(GpuExercises, OccupancySolutionNamesTheLimitInTheLessonsWords) {
  const std::map<std::string, std::string> words = {
      {"threads", "(limited by warp slots)"}, {"registers", "(limited by registers)"},
      {"smem", "(limited by shared memory)"}, {"blocks", "(limited by the block limit)"}};
  std::set<std::string> seen;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const auto e = mlsys::make_exercise("gpu-occupancy", seed);
    const std::string limiter = calc("occupancy", e.params)["limiter"].get<std::string>();
    EXPECT_NE(e.solution.find(words.at(limiter)), std::string::npos) << seed << ": " << e.solution;
    EXPECT_EQ(e.solution.find("limited by smem"), std::string::npos) << seed;
    EXPECT_EQ(e.solution.find("limited by threads"), std::string::npos) << seed;
    seen.insert(limiter);
  }
  EXPECT_GE(seen.size(), 3u);
}

TEST(GpuExercises, MaxRegistersIsTheLargestThatKeepsTheWarps) {
  const std::regex target(R"(\((\d+) warps\))");
  for (std::uint32_t seed = 0; seed < 100; ++seed) {
    const auto e = mlsys::make_exercise("gpu-max-registers", seed);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(e.prompt, m, target)) << e.prompt;
    const long long warps = std::stoll(m[1]);
    json p = e.params;
    ASSERT_EQ(p["registers_per_thread"].get<double>(), e.answer);
    EXPECT_GE(calc("occupancy", p)["active_warps"].get<long long>(), warps) << seed;
    if (e.answer >= 255) continue;
    p["registers_per_thread"] = e.answer + 1;
    long long fewer = 0;
    try {
      fewer = calc("occupancy", p)["active_warps"].get<long long>();
    } catch (const mlsys::InputError&) {
      fewer = 0;  // the block cannot launch at all
    }
    EXPECT_LT(fewer, warps) << seed;
  }
}

TEST(GpuExercises, WaveUtilizationAgreesWithCalculator) {
  for (std::uint32_t seed = 0; seed < 100; ++seed) {
    const auto e = mlsys::make_exercise("gpu-wave-utilization", seed);
    const json r = calc("waves", e.params);
    EXPECT_NEAR(100 * r["utilization"].get<double>(), e.answer, 1e-9) << seed;
  }
}

TEST(GpuExercises, LittlesLawAnswersAgreeWithCalculator) {
  for (std::uint32_t seed = 0; seed < 100; ++seed) {
    const auto b = mlsys::make_exercise("gpu-bytes-in-flight", seed);
    const json rb = calc("latency-hiding", b.params);
    EXPECT_NEAR(rb["needed_bytes_in_flight_per_sm"].get<double>() / 1e3, b.answer, 1e-9 * b.answer) << seed;
    const auto w = mlsys::make_exercise("gpu-warps-to-hide-latency", seed);
    const json rw = calc("latency-hiding", w.params);
    EXPECT_EQ(rw["warps_needed_per_sm"].get<double>(), w.answer) << seed;
  }
}

TEST(GpuExercises, TensorCoreSpeedupAgreesWithCalculator) {
  for (std::uint32_t seed = 0; seed < 100; ++seed) {
    const auto e = mlsys::make_exercise("gpu-tensor-core-speedup", seed);
    const json r = calc("compute-units", e.params);
    // The prompt rounds the peaks to 4 significant digits.
    EXPECT_NEAR(r["switch"]["new_step_time_s"].get<double>() * 1e3, e.answer, 1e-3 * e.answer) << seed;
  }
}

// No draw asks for more warps than an SM holds: the H200 with one 4-byte load per thread needs
// 10,290 / 128 = 80.4 warps, which no SM has, so such settings are never drawn (the answer 81
// would reward an impossible number).
TEST(GpuExercises, WarpsToHideLatencyNeverExceedTheSm) {
  for (std::uint32_t seed = 0; seed < 3000; ++seed) {
    const auto e = mlsys::make_exercise("gpu-warps-to-hide-latency", seed);
    const json r = calc("latency-hiding", e.params);
    EXPECT_TRUE(r["feasible"].get<bool>()) << seed;
    EXPECT_LE(e.answer, r["max_warps_per_sm"].get<double>()) << seed;
  }
}
