// Exercises of the sequence-context-expert lesson: the ring's smallest block is a threshold
// read within 1% (the bound, the whole block above it, "N tokens"), and a kernel below peak
// lowers it; the draws cover what the lesson teaches (tensor parallelism with and without
// sequence parallelism, stored scores, grouped-query Ulysses); the causal-imbalance,
// backward-ring and load-balancing exercises agree with their calculators; templates read as
// English.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"

namespace {

bool correct(const std::string& id, std::uint32_t seed, const std::string& answer) {
  return mlsys::check_exercise(id, seed, answer)["correct"].get<bool>();
}

std::string whole(double x) { return std::to_string(static_cast<long>(x)); }

}  // namespace

TEST(SequenceExercises, RingBlockIsAThresholdReadWithinOnePercent) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    const auto e = mlsys::make_exercise("seq-ring-min-block", seed);
    EXPECT_FALSE(e.integer);
    const std::string up = whole(std::ceil(e.answer - 1e-9));
    EXPECT_TRUE(correct("seq-ring-min-block", seed, up)) << seed << " " << up;
    EXPECT_TRUE(correct("seq-ring-min-block", seed, up + " tokens")) << seed;
    EXPECT_TRUE(correct("seq-ring-min-block", seed, mlsys::format_number(e.answer, 6))) << seed;
    EXPECT_TRUE(correct("seq-ring-min-block", seed, whole(std::round(e.answer * 1.005)))) << seed;
    EXPECT_FALSE(correct("seq-ring-min-block", seed, whole(std::round(e.answer * 1.03)))) << seed;
    // A faster kernel on the same link needs a larger block; a slower one a smaller block.
    auto faster = e.params;
    faster["peak_flops"] = 2 * e.params["peak_flops"].get<double>();
    EXPECT_NEAR(mlsys::calc("ring-attention", faster)["min_block_tokens_bandwidth"].get<double>(), 2 * e.answer,
                1e-9 * e.answer);
  }
}

TEST(SequenceExercises, DrawsCoverTheLessonsCases) {
  int sp = 0, tp_only = 0, stored_scores = 0, gqa = 0;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const auto a = mlsys::make_exercise("seq-sp-activation", seed);
    (a.prompt.find("no sequence parallelism") == std::string::npos ? sp : tp_only) += 1;
    stored_scores += a.params["recompute"] == "none";
    const auto u = mlsys::make_exercise("seq-ulysses-bytes", seed);
    gqa += u.params["kv_heads"].get<int>() < u.params["heads"].get<int>();
  }
  EXPECT_GT(sp, 40);
  EXPECT_GT(tp_only, 40);
  EXPECT_GT(stored_scores, 30);
  EXPECT_GT(gqa, 30);
}

TEST(SequenceExercises, NewExercisesAgreeWithCalculators) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    auto e = mlsys::make_exercise("seq-causal-imbalance", seed);
    const auto ring = mlsys::calc("ring-attention", e.params);
    EXPECT_EQ(ring["method"], "executed");
    EXPECT_NEAR(ring["imbalance"].get<double>(), e.answer, 1e-12 * e.answer) << seed;
    e = mlsys::make_exercise("seq-ring-backward-bytes", seed);
    EXPECT_NEAR(mlsys::calc("ring-attention", e.params)["backward_kv_bytes_sent_per_rank"].get<double>() / 1e6, e.answer,
                1e-9 * e.answer);
    // The prompt shows the mean probabilities to three digits; the answer uses those.
    e = mlsys::make_exercise("moe-balance-loss", seed);
    EXPECT_NEAR(mlsys::calc("moe-routing", e.params)["balance_score"].get<double>() * 0.01, e.answer, 0.01 * e.answer);
  }
}

TEST(SequenceExercises, TemplatesReadAsEnglish) {
  const std::regex same_both_sides(R"((^|[^0-9,.])([0-9][0-9,]*) = \2($|[^0-9,.]))");
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    EXPECT_EQ(mlsys::make_exercise("moe-all-to-all-bytes", seed).prompt.find("top 1 "), std::string::npos) << seed;
    EXPECT_EQ(mlsys::make_exercise("moe-dropped-tokens", seed).prompt.find("top 1 "), std::string::npos) << seed;
    const auto d = mlsys::make_exercise("moe-dropped-tokens", seed);
    EXPECT_FALSE(std::regex_search(d.solution, same_both_sides)) << seed << ": " << d.solution;
  }
}
