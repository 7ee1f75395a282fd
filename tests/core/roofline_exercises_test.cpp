// The roofline lesson's exercises read as prose (no e-notation, "1 byte", no "a 8,192" or
// "A fp16") and reject the classic wrong answer of each: the smaller of the two roofline times.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"

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
