// The tokens exercises agree with the calculators their params name: the answer of each draw
// is what `bpe` or `embedding-table` returns for those inputs.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"

namespace {

using mlsys::json;

double answer_from_calculator(const std::string& id, const json& params) {
  if (id == "embedding-table-bytes") return mlsys::calc("embedding-table", params)["table_bytes"].get<double>() / 1e6;
  if (id == "embedding-params-share") return 100 * mlsys::calc("embedding-table", params)["share"].get<double>();
  const json r = mlsys::calc("bpe", params);
  if (id == "bpe-first-merge-count") return r["steps"][0]["count"].get<double>();
  if (id == "bpe-tokens-after-merges") return r["token_count"].get<double>();
  return r["vocab_size"].get<double>();  // bpe-vocab-after-merges
}

TEST(TokensExercises, AnswersAreTheCalculatorsResults) {
  for (const char* id : {"bpe-first-merge-count", "bpe-tokens-after-merges", "bpe-vocab-after-merges",
                         "embedding-table-bytes", "embedding-params-share"}) {
    for (std::uint32_t seed = 0; seed < 40; ++seed) {
      const mlsys::Exercise e = mlsys::make_exercise(id, seed);
      EXPECT_NEAR(e.answer, answer_from_calculator(id, e.params), 1e-9 * e.answer) << id << " #" << seed << " " << e.params;
    }
  }
}

// GPT-2's count (matrices, norms and the token table: 123,551,232) leaves out the checkpoint's
// position table and biases (124,439,808 in all), so its prompts never call it "124M".
TEST(TokensExercises, Gpt2IsNamedBySizeClassWithWhatItsCountLeavesOut) {
  int gpt2 = 0;
  for (std::uint32_t seed = 0; seed < 400; ++seed) {
    const mlsys::Exercise e = mlsys::make_exercise("embedding-params-share", seed);
    EXPECT_EQ(e.prompt.find("124M"), std::string::npos) << seed;
    if (e.params["model"] != "gpt-2-124m") continue;
    ++gpt2;
    EXPECT_EQ(e.prompt.rfind("GPT-2 small has", 0), 0u) << e.prompt;
    EXPECT_NE(e.prompt.find("(not its learned position table or biases) it has 123,551,232 parameters"), std::string::npos)
        << e.prompt;
  }
  EXPECT_GT(gpt2, 0);
}

// The toy corpus of Sennrich et al. 2016 (low ×5, lower ×2, newest ×6, widest ×3) gives the
// first merge e + s with 6 + 3 = 9, which the first-merge exercise's reading of the rules gives.
TEST(TokensExercises, FirstMergeCountOfTheToyCorpus) {
  const json r = mlsys::calc("bpe", {{"merges", 1}});
  EXPECT_EQ(r["steps"][0]["count"], 9);
}

}  // namespace
