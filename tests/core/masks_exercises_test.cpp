// The attention-and-masks exercises: each answer is what its calculator returns for the drawn
// params (attention-mask, attention-variants, attention-scores), and each rejects the classic
// wrong answer (n² for a causal mask, the query heads' cache for GQA).
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"

namespace {

constexpr std::uint32_t kSeeds = 200;

bool accepted(const mlsys::Exercise& e, double x) {
  return mlsys::check_exercise(e.id, e.seed, mlsys::format_number(x, 8))["correct"].get<bool>();
}

}  // namespace

TEST(MasksExercises, AnswersAreTheCalculators) {
  for (std::uint32_t seed = 0; seed < kSeeds; ++seed) {
    for (const char* id : {"masks-causal-pairs", "masks-window-pairs", "masks-document-pairs"}) {
      const auto e = mlsys::make_exercise(id, seed);
      const auto r = mlsys::calc("attention-mask", e.params);
      EXPECT_EQ(e.answer, r["allowed_count"].get<double>()) << id << " #" << seed;
      const double n = e.params["seq"].get<double>();
      EXPECT_FALSE(accepted(e, n * n)) << id << " #" << seed;  // every pair: the mask forgotten
    }
    // A packed sequence: one causal mask over all k·D tokens is the warned-against answer.
    const auto doc = mlsys::make_exercise("masks-document-pairs", seed);
    const double n = doc.params["seq"].get<double>(), d = doc.params["doc"].get<double>();
    EXPECT_EQ(doc.answer, (n / d) * d * (d + 1) / 2) << seed;
    EXPECT_FALSE(accepted(doc, n * (n + 1) / 2)) << seed;
    EXPECT_FALSE(accepted(doc, d)) << seed;
    const auto kv = mlsys::make_exercise("masks-gqa-kv-bytes", seed);
    const auto v = mlsys::calc("attention-variants", kv.params);
    EXPECT_DOUBLE_EQ(kv.answer, v["gqa"]["kv_bytes_per_token"].get<double>() / 1e3) << seed;
    EXPECT_FALSE(accepted(kv, v["mha"]["kv_bytes_per_token"].get<double>() / 1e3)) << seed;  // query heads counted
    // Decimal kilobytes are written kB, as the figures write them; a B or KB answer reads the same.
    EXPECT_EQ(kv.unit, "kB") << seed;
    EXPECT_NE(kv.prompt.find("Answer in kB (1 kB = 1,000 B)"), std::string::npos) << seed;
    const double bytes = v["gqa"]["kv_bytes_per_token"].get<double>();
    for (const std::string& a : {mlsys::format_number(bytes / 1e3, 8) + " kB", mlsys::format_number(bytes / 1e3, 8) + " KB",
                                 mlsys::format_number(bytes, 0) + " B"}) {
      EXPECT_TRUE(mlsys::check_exercise(kv.id, kv.seed, a)["correct"].get<bool>()) << seed << " " << a;
    }

    const auto red = mlsys::make_exercise("masks-gqa-reduction", seed);
    // One K/V head is multi-query attention in the title and the solution, not a group.
    const bool mqa = red.params["kv_heads"].get<int>() == 1;
    EXPECT_EQ(red.title.find(mqa ? "MQA" : "GQA") != std::string::npos, true) << seed << " " << red.title;
    EXPECT_EQ(red.solution.find("GQA caches") == std::string::npos, mqa) << seed << " " << red.solution;
    // Shapes as published models pair them: width ÷ layers between 40 and 200.
    for (const auto* g : {&kv, &red}) {
      const double aspect = g->params["hidden"].get<double>() / g->params["layers"].get<double>();
      EXPECT_TRUE(aspect >= 40 && aspect <= 200) << g->id << " #" << seed << ": width / layers = " << aspect;
    }
    EXPECT_EQ(red.answer, mlsys::calc("attention-variants", red.params)["gqa"]["kv_reduction"].get<double>()) << seed;

    const auto sc = mlsys::make_exercise("masks-score-bytes", seed);
    EXPECT_DOUBLE_EQ(sc.answer, mlsys::calc("attention-scores", sc.params)["bytes"].get<double>() / 1e9) << seed;
  }
}
