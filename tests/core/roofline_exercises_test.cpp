// The roofline lesson's exercises read as prose (no e-notation, "1 byte", no "a 8,192" or
// "A fp16") and reject the classic wrong answer of each: the smaller of the two roofline times.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace {

bool accepted(const mlsys::Exercise& e, double x) {
  return mlsys::check_exercise(e.id, e.seed, mlsys::format_number(x, 6))["correct"].get<bool>();
}

}  // namespace

TEST(RooflineExercises, PromptsAndSolutionsReadAsProse) {
  const std::regex e_notation("[0-9]e[-+]?[0-9]"), bad_article("\\b[Aa] (fp|int|8|11|18)"), plural_one("\\b1 bytes");
  for (const char* id : {"roofline-ridge", "roofline-time", "matmul-intensity", "matmul-crossover-batch",
                         "elementwise-time", "gpu-wave-utilization", "gpu-bytes-in-flight", "gpu-warps-to-hide-latency",
                         "gpu-occupancy", "gpu-max-registers", "gpu-tensor-core-speedup"})
    for (std::uint32_t seed = 0; seed < 100; ++seed) {
      const auto e = mlsys::make_exercise(id, seed);
      for (const std::string& text : {e.prompt, e.solution}) {
        EXPECT_FALSE(std::regex_search(text, e_notation)) << id << " #" << seed << ": " << text;
        EXPECT_FALSE(std::regex_search(text, bad_article)) << id << " #" << seed << ": " << text;
        EXPECT_FALSE(std::regex_search(text, plural_one)) << id << " #" << seed << ": " << text;
      }
    }
}

TEST(RooflineExercises, TheShorterRoofIsWrong) {
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const auto e = mlsys::make_exercise("roofline-time", seed);
    const double compute_us = e.params["flops"].get<double>() / e.params["peak_flops"].get<double>() * 1e6;
    const double memory_us = e.params["bytes"].get<double>() / e.params["bandwidth_Bps"].get<double>() * 1e6;
    EXPECT_TRUE(accepted(e, std::max(compute_us, memory_us))) << seed;
    EXPECT_FALSE(accepted(e, std::min(compute_us, memory_us))) << seed;
  }
}

// A kernel's traffic never exceeds what the chip's HBM holds (394 GB on a 141 GB H200 was drawn).
TEST(RooflineExercises, KernelTrafficFitsTheChipsMemory) {
  for (std::uint32_t seed = 0; seed < 2000; ++seed) {
    const auto e = mlsys::make_exercise("roofline-time", seed);
    const auto& hw = *mlsys::find_accelerator(e.params["hardware"].get<std::string>());
    EXPECT_LE(e.params["bytes"].get<double>(), hw.hbm_bytes) << seed << ": " << e.prompt;
  }
}

// The ridge exercise draws from the whole accelerator table, and two in three ask for the
// ridge of measured roofs (a GEMM at 60-80% of the peak, a copy at 85-95% of the bandwidth):
// presses rarely repeat (the old draw had 19 prompts in all), and the datasheet ridge is wrong where the roofs are measured.
TEST(RooflineExercises, RidgeDrawsVaryAndMeasuredRoofsCount) {
  std::set<std::string> prompts;
  int measured = 0;
  for (std::uint32_t seed = 0; seed < 400; ++seed) {
    const auto e = mlsys::make_exercise("roofline-ridge", seed);
    prompts.insert(e.prompt);
    const double fc = e.params["compute_fraction"].get<double>(), fm = e.params["bandwidth_fraction"].get<double>();
    const auto& hw = *mlsys::find_accelerator(e.params["hardware"].get<std::string>());
    const double datasheet = *hw.peak_for(e.params["dtype"].get<std::string>()) / hw.hbm_bandwidth_Bps;
    EXPECT_NEAR(e.answer, datasheet * fc / fm, 2e-3 * e.answer) << seed;
    EXPECT_TRUE(accepted(e, e.answer)) << seed;
    if (fc < 1) {
      ++measured;
      EXPECT_FALSE(accepted(e, datasheet)) << seed;
      EXPECT_FALSE(accepted(e, datasheet * fm / fc)) << seed;
    }
  }
  EXPECT_GT(measured, 220);
  EXPECT_GT(prompts.size(), 150u);
}
