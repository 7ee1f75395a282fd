// The llm-serving exercises draw only settings a server would run (a context the model was
// trained for, weights and cache that fit the GPUs named), reject the classic wrong answer of
// each (the TPOT without the KV cache, or with one sequence's cache), show no number that is
// itself accepted, and read as prose.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/transformer/published_models.hpp"

namespace {

constexpr std::uint32_t kSeeds = 300;

bool accepted(const mlsys::Exercise& e, const std::string& text) {
  return mlsys::check_exercise(e.id, e.seed, text)["correct"].get<bool>();
}
bool accepted(const mlsys::Exercise& e, double x) { return accepted(e, mlsys::format_number(x, 6)); }

// The published row a prompt names, followed by `after` (" has" or " ("); nullptr if none.
const mlsys::PublishedModel* named(const std::string& prompt, const std::string& after) {
  for (const auto& m : mlsys::published_models())
    if (prompt.find(m.name + after) != std::string::npos) return &m;
  return nullptr;
}

const char* const kIds[] = {"serve-kv-bytes-per-token", "serve-sequences-fit", "serve-tpot-bound",
                            "serve-spec-tokens",        "serve-spec-speedup",  "serve-paged-slack"};

}  // namespace

TEST(ServingExercises, TpotRejectsTheWeightsOnlyAnswer) {
  for (std::uint32_t seed = 0; seed < kSeeds; ++seed) {
    const auto e = mlsys::make_exercise("serve-tpot-bound", seed);
    const auto& p = e.params;
    const auto* chip = mlsys::find_accelerator(p["hardware"].get<std::string>());
    ASSERT_NE(chip, nullptr);
    const double wbytes = p["weight_dtype"] == "int4" ? 0.5 : p["weight_dtype"] == "bf16" ? 2.0 : 1.0;
    const double weights = p["params"].get<double>() * wbytes;
    const double kv_one = p["context"].get<double>() * 2 * p["layers"].get<double>() * p["kv_heads"].get<double>() *
                          p["head_dim"].get<double>() * 2;
    const double ms = 1e3 / chip->hbm_bandwidth_Bps;
    EXPECT_TRUE(accepted(e, e.answer)) << seed;
    EXPECT_NEAR(e.answer, (weights + p["batch"].get<double>() * kv_one) * ms, 1e-9 * e.answer) << seed;
    EXPECT_FALSE(accepted(e, weights * ms)) << seed << ": " << e.prompt;
    EXPECT_FALSE(accepted(e, (weights + kv_one) * ms)) << seed << ": " << e.prompt;
  }
}

TEST(ServingExercises, DrawsFitTheGpuAndTheModelsContext) {
  for (std::uint32_t seed = 0; seed < kSeeds; ++seed) {
    // TPOT: one GPU holds the weights and the batch's cache; the context is the model's.
    auto e = mlsys::make_exercise("serve-tpot-bound", seed);
    const auto* m = named(e.prompt, " (");
    ASSERT_NE(m, nullptr) << e.prompt;
    EXPECT_LE(e.params["context"].get<int>(), m->config.seq) << seed << ": " << e.prompt;
    const auto* chip = mlsys::find_accelerator(e.params["hardware"].get<std::string>());
    const double wbytes = e.params["weight_dtype"] == "int4" ? 0.5 : e.params["weight_dtype"] == "bf16" ? 2.0 : 1.0;
    EXPECT_LE(e.params["params"].get<double>() * wbytes, 0.9 * chip->hbm_bytes) << seed << ": " << e.prompt;

    // Sequences: the weights fit the named GPUs with room for at least one sequence.
    e = mlsys::make_exercise("serve-sequences-fit", seed);
    m = named(e.prompt, " has");
    ASSERT_NE(m, nullptr) << e.prompt;
    EXPECT_LE(e.params["context"].get<int>(), m->config.seq) << seed << ": " << e.prompt;
    const double w = e.params["params"].get<double>() * (e.params["weight_dtype"] == "bf16" ? 2.0 : 1.0);
    EXPECT_LT(w, 0.9 * e.params["hbm_bytes"].get<double>()) << seed;
    EXPECT_GE(e.answer, 1) << seed;
  }
}

// The numbers a prompt shows as numbers: whitespace-separated words, stripped of brackets and
// trailing punctuation, made only of digits (not "fp8-e4m3", "H100" or "2^30").
std::vector<std::string> shown_numbers(const std::string& prompt) {
  static const std::regex number("[0-9][0-9,]*(\\.[0-9]+)?");
  std::vector<std::string> out;
  std::istringstream words(prompt);
  for (std::string w; words >> w;) {
    while (!w.empty() && w.front() == '(') w.erase(w.begin());
    while (!w.empty() && std::string(",.;:)?").find(w.back()) != std::string::npos) w.pop_back();
    if (!std::regex_match(w, number)) continue;
    w.erase(std::remove(w.begin(), w.end(), ','), w.end());
    out.push_back(w);
  }
  return out;
}

// No number in a prompt is itself an accepted answer (an example value, or an input that happens
// to equal the result, gives the answer away); PromptsAndSolutionsReadAsProse forbids examples.
TEST(ServingExercises, NoNumberInThePromptIsTheAnswer) {
  for (const char* id : kIds)
    for (std::uint32_t seed = 0; seed < kSeeds; ++seed) {
      const auto e = mlsys::make_exercise(id, seed);
      for (const std::string& n : shown_numbers(e.prompt))
        EXPECT_FALSE(accepted(e, n)) << id << " #" << seed << " shows " << n << ": " << e.prompt;
    }
}

TEST(ServingExercises, PromptsAndSolutionsReadAsProse) {
  const std::regex e_notation("[0-9]e[-+]?[0-9]"), bad_article("\\b[Aa] (fp|int|8|11|18)"),
      plural_one("\\b1 (bytes|sequences|key/value heads)\\b"), example("e\\.g\\.");
  for (const char* id : kIds)
    for (std::uint32_t seed = 0; seed < kSeeds; ++seed) {
      const auto e = mlsys::make_exercise(id, seed);
      for (const std::string& text : {e.prompt, e.solution}) {
        EXPECT_FALSE(std::regex_search(text, e_notation)) << id << " #" << seed << ": " << text;
        EXPECT_FALSE(std::regex_search(text, bad_article)) << id << " #" << seed << ": " << text;
        EXPECT_FALSE(std::regex_search(text, plural_one)) << id << " #" << seed << ": " << text;
      }
      EXPECT_FALSE(std::regex_search(e.prompt, example)) << id << " #" << seed << ": " << e.prompt;
    }
}
