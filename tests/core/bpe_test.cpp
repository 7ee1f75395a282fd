// bpe (mlsys/tokens/bpe.hpp): Sennrich et al. 2016's toy vocabulary, the tie-break, the
// overlap rule, Unicode and UTF-8 checking, every bad input, and the incremental learner
// against the paper's naive loop on seeded random texts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/tokens/bpe.hpp"
#include "test_support.hpp"

namespace {

using mlsys::BpeResult;
using mlsys::json;
using Strings = std::vector<std::string>;

// The paper's Figure 1 vocabulary {low: 5, lower: 2, newest: 6, widest: 3} as a text.
std::string toy_text() {
  std::string t;
  for (const auto& [word, n] : std::vector<std::pair<std::string, int>>{{"low", 5}, {"lower", 2}, {"newest", 6}, {"widest", 3}})
    for (int i = 0; i < n; ++i) t += word + " ";
  return t;
}

std::string pair_text(const mlsys::BpeMerge& m) { return m.pair[0] + " " + m.pair[1]; }

// Sennrich, Haddow & Birch 2016, arXiv:1508.07909, Figure 1: its Python loop on this
// vocabulary with num_merges = 10 prints the pairs below in this order (Python 3.7+ dicts,
// where max keeps the first of equal counts). The counts are get_stats' (e s: 6 + 3 = 9).
TEST(Bpe, SennrichToyVocabularyMergesInThePapersOrder) {
  const BpeResult r = mlsys::bpe_learn(toy_text(), 10, true);
  const Strings pairs = {"e s",   "es t",  "est </w>", "l o",         "lo w",
                         "n e",   "ne w",  "new est</w>", "low </w>", "w i"};
  const std::vector<long long> counts = {9, 9, 9, 7, 7, 6, 6, 6, 5, 3};
  ASSERT_EQ(r.steps.size(), pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(pair_text(r.steps[i]), pairs[i]) << "merge " << i + 1;
    EXPECT_EQ(r.steps[i].count, counts[i]) << "merge " << i + 1;
    EXPECT_EQ(r.steps[i].rank, static_cast<long long>(i) + 1);
  }
  EXPECT_EQ(r.steps[7].token, "newest</w>");
  // Base symbols l o w </w> e r n s t i d (the marker counts, API.md's convention): 11 + 10.
  EXPECT_EQ(r.base_symbols, (Strings{"l", "o", "w", "</w>", "e", "r", "n", "s", "t", "i", "d"}));
  EXPECT_EQ(r.vocab_size, 21);
  // 5·4 + 2·6 + 6·7 + 3·7 = 95 base tokens; each merge removes its count (no overlaps here).
  EXPECT_EQ(r.base_token_count, 95);
  long long tokens = r.base_token_count;
  for (const auto& s : r.steps) EXPECT_EQ(s.token_count, tokens -= s.count);
  EXPECT_EQ(r.token_count, 28);
  EXPECT_EQ(r.words[3].word, "widest");
  EXPECT_EQ(r.words[3].tokens, (Strings{"wi", "d", "est</w>"}));
  EXPECT_EQ(r.word_count, 16);
  EXPECT_FALSE(r.stopped_early);
}

// Equal counts go to the pair seen first in the text, not to the alphabetically first one.
TEST(Bpe, TiesGoToThePairSeenFirst) {
  EXPECT_EQ(pair_text(mlsys::bpe_learn("cd ab cd ab", 1, false).steps[0]), "c d");
  EXPECT_EQ(pair_text(mlsys::bpe_learn("ab cd ab cd", 1, false).steps[0]), "a b");
  // Inside a word, the leftmost: x y z twice, (x, y) and (y, z) both 2.
  EXPECT_EQ(pair_text(mlsys::bpe_learn("xyz xyz", 1, false).steps[0]), "x y");
  // "First seen" under the current segmentation: in the toy text after e s, (es, t) wins
  // over (t, </w>) (both 9) because es now stands before t (SennrichToyVocabulary...).
}

// get_stats counts every adjacent position; merge_vocab joins left to right without overlap.
TEST(Bpe, RepeatedSymbolsCountEveryPositionAndJoinLeftToRight) {
  const BpeResult r = mlsys::bpe_learn("aaa aaa", 5, false);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(pair_text(r.steps[0]), "a a");
  EXPECT_EQ(r.steps[0].count, 4);        // two positions in each of two words
  EXPECT_EQ(r.steps[0].token_count, 4);  // "aa a" twice: one join per word
  EXPECT_EQ(pair_text(r.steps[1]), "aa a");
  EXPECT_EQ(r.tokens, (Strings{"aaa", "aaa"}));
  EXPECT_TRUE(r.stopped_early);
}

TEST(Bpe, StopsWhenNoPairOccursTwice) {
  const BpeResult r = mlsys::bpe_learn("abc", 4, true);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(r.tokens, (Strings{"a", "b", "c", "</w>"}));
  EXPECT_EQ(r.vocab_size, 4);
  const BpeResult none = mlsys::bpe_learn("abc abc", 0, true);
  EXPECT_FALSE(none.stopped_early);
  EXPECT_EQ(none.token_count, 8);
}

TEST(Bpe, WithoutEndOfWordTokensNeverMarkWordEnds) {
  const BpeResult r = mlsys::bpe_learn(toy_text(), 10, false);
  EXPECT_EQ(r.base_symbols.size(), 10u);
  EXPECT_EQ(r.base_token_count, 95 - 16);
  for (const auto& t : r.tokens) EXPECT_EQ(t.find("</w>"), std::string::npos) << t;
  EXPECT_EQ(pair_text(r.steps[0]), "e s");
  EXPECT_EQ(pair_text(r.steps[2]), "l o");  // est is done: no </w> to join
}

// Symbols are code points: é (2 bytes) and 😀 (4 bytes) are one symbol each; no normalisation.
TEST(Bpe, SymbolsAreUnicodeCodePoints) {
  const BpeResult r = mlsys::bpe_learn("h\u00e9 h\u00e9 \U0001F600\U0001F600 \U0001F600\U0001F600 e\u0301", 2, false);
  EXPECT_EQ(r.base_symbols, (Strings{"h", "\u00e9", "\U0001F600", "e", "\u0301"}));
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].token, "h\u00e9");
  EXPECT_EQ(r.steps[1].token, "\U0001F600\U0001F600");
  EXPECT_EQ(r.tokens, (Strings{"h\u00e9", "h\u00e9", "\U0001F600\U0001F600", "\U0001F600\U0001F600", "e", "\u0301"}));
}

// Words split where Python's str.split() splits: U+00A0 and U+3000 are whitespace, U+200B is not.
TEST(Bpe, WordsSplitOnUnicodeWhitespace) {
  EXPECT_EQ(mlsys::bpe_learn("ab\u00a0ab\u3000ab\tab\nab", 0, false).word_count, 5);
  EXPECT_EQ(mlsys::bpe_learn("ab\u200bab", 0, false).word_count, 1);
  EXPECT_TRUE(mlsys::is_unicode_space(0x85));
  EXPECT_TRUE(mlsys::is_unicode_space(0x1F));
  EXPECT_FALSE(mlsys::is_unicode_space(0x180E));  // not whitespace since Unicode 6.3
}

TEST(Bpe, InvalidUtf8IsAClearError) {
  for (const char* bad : {"\xff", "ab \xc3(", "\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                "\x80", "ok \xf0\x9f\x98"}) {
    try {
      mlsys::bpe_learn(bad, 1, true);
      ADD_FAILURE() << "accepted " << json(bad).dump(-1, ' ', true, json::error_handler_t::replace);
    } catch (const mlsys::InputError& e) {
      EXPECT_EQ(e.field, "text");
      EXPECT_NE(std::string(e.what()).find("UTF-8"), std::string::npos) << e.what();
    }
  }
  // The C++ entry point with such a string, and JSON text that holds raw bad bytes or a lone
  // surrogate escape.
  const json out = [] {
    try {
      return mlsys::calc("bpe", {{"text", "ab\xff"}});
    } catch (const mlsys::InputError& e) {
      return mlsys::error_json(e.field, e.what());
    }
  }();
  EXPECT_EQ(out["error"]["field"], "text");
  for (const std::string& text : {std::string("{\"text\": \"ab\xff\"}"), std::string("{\"text\": \"\\ud800 x\"}")}) {
    const json e = mlsys::test::error_of("bpe", text);
    EXPECT_NE(e["message"].get<std::string>().find("UTF-8"), std::string::npos) << e;
  }
}

TEST(Bpe, LengthIsCountedInCodePoints) {
  std::string ok;
  for (int i = 0; i < 20000; ++i) ok += "\u00e9";  // 40,000 bytes, 20,000 characters
  EXPECT_EQ(mlsys::bpe_learn(ok, 3, true).base_token_count, 20001);
  EXPECT_THROW(mlsys::bpe_learn(ok + "e", 3, true), mlsys::InputError);
  EXPECT_THROW(mlsys::bpe_learn(std::string(80001, 'a'), 3, true), mlsys::InputError);  // refused before decoding
}

TEST(Bpe, BadInputsAreErrorsNamingTheField) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_of("bpe", R"({"text": ""})")["field"], "text");
  EXPECT_EQ(error_of("bpe", R"({"text": " \t\n "})")["field"], "text");
  EXPECT_EQ(error_of("bpe", "{\"text\": \"" + std::string(20001, 'a') + "\"}")["field"], "text");
  EXPECT_EQ(error_of("bpe", R"({"text": 5})")["field"], "text");
  EXPECT_EQ(error_of("bpe", R"({"merges": -1})")["field"], "merges");
  EXPECT_EQ(error_of("bpe", R"({"merges": 5001})")["field"], "merges");
  EXPECT_EQ(error_of("bpe", R"({"merges": 2.5})")["field"], "merges");
  EXPECT_EQ(error_of("bpe", R"({"end_of_word": 1})")["field"], "end_of_word");
  EXPECT_EQ(error_of("bpe", R"({"vocab": 100})")["field"], "vocab");
  EXPECT_THROW(mlsys::bpe_learn("ab", mlsys::kBpeMaxMerges + 1, true), mlsys::InputError);
  EXPECT_THROW(mlsys::bpe_learn_naive("", 1, true), mlsys::InputError);
}

// A text that spells "</w>" keeps its letters apart from the marker inside the learner.
TEST(Bpe, LiteralMarkerTextStaysApartFromTheMarker) {
  const BpeResult r = mlsys::bpe_learn("</w> </w> </w>", 10, true);
  EXPECT_EQ(r.base_symbols, (Strings{"<", "/", "w", ">", "</w>"}));
  EXPECT_EQ(r.vocab_size, 5 + static_cast<long long>(r.steps.size()));
  EXPECT_EQ(r.words[0].tokens, (Strings{"</w></w>"}));  // the word's 4 letters, then the marker
}

// A seeded random text over a small alphabet: many ties, repeated letters, long words.
std::string random_text(std::uint64_t seed, const Strings& alphabet, int length) {
  mlsys::SeededStream rng(mlsys::mix_seed(seed, 0xB9E5A1D3ULL));
  std::string t;
  for (int i = 0; i < length; ++i)
    t += alphabet[static_cast<std::size_t>(rng.integer(0, static_cast<int>(alphabet.size()) - 1))];
  return t;
}

json as_json(const BpeResult& r) {
  json steps = json::array();
  for (const auto& s : r.steps) steps.push_back({s.rank, s.pair, s.token, s.count, s.token_count});
  json words = json::array();
  for (const auto& w : r.words) words.push_back({w.word, w.count, w.tokens});
  return {steps, r.tokens, r.token_count, r.base_token_count, r.vocab_size, r.base_symbols, words, r.word_count,
          r.stopped_early};
}

TEST(Bpe, IncrementalLearnerMatchesThePapersLoop) {
  int merges_seen = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    const Strings alphabet = seed % 3 == 0   ? Strings{"a", "b", " "}
                             : seed % 3 == 1 ? Strings{"a", "b", "c", "d", "e", " ", " "}
                                             : Strings{"a", "a", "b", "\u00e9", "\u3000"};
    const std::string text = random_text(seed, alphabet, 60 + static_cast<int>(seed) * 7) + " x";
    for (bool eow : {true, false}) {
      const BpeResult fast = mlsys::bpe_learn(text, 400, eow), naive = mlsys::bpe_learn_naive(text, 400, eow);
      EXPECT_EQ(as_json(fast), as_json(naive)) << "seed " << seed << " end_of_word " << eow << ": " << text;
      merges_seen += static_cast<int>(fast.steps.size());
      // Each distinct word's tokens spell it (the marker last).
      for (const auto& w : fast.words) {
        std::string spelled;
        for (const auto& t : w.tokens) spelled += t;
        EXPECT_EQ(spelled, w.word + (eow ? "</w>" : ""));
      }
    }
  }
  EXPECT_GT(merges_seen, 1000);
}

TEST(Bpe, CalculatorDefaultsReplayTheToyVocabulary) {
  const json r = mlsys::calc("bpe", json::object());
  EXPECT_EQ(r["steps"][0]["pair"], (json{"e", "s"}));
  EXPECT_EQ(r["steps"].size(), 10u);
  EXPECT_EQ(r["vocab_size"], 21);
  EXPECT_EQ(r["token_count"], r["tokens"].size());
}

}  // namespace
