// Byte-pair encoding learned on a text, as Sennrich, Haddow & Birch 2016 (Neural Machine
// Translation of Rare Words with Subword Units, arXiv:1508.07909, Algorithm 1 / Figure 1):
// count the adjacent symbol pairs of every word weighted by the word's frequency, merge the
// most frequent pair everywhere, repeat.
//
// Symbols are Unicode code points, not bytes: the text must be valid UTF-8 (an ill-formed
// byte, an overlong form, a surrogate or a value above U+10FFFF is an InputError naming the
// byte), and "é" (U+00E9) is one base symbol. No normalisation: "e" + U+0301 is two.
// Words are the runs between whitespace as Python's str.split() sees it (str.isspace:
// U+0009–U+000D, U+001C–U+001F, U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028,
// U+2029, U+202F, U+205F, U+3000); whitespace itself is never a token.
// With end_of_word each word ends in the marker "</w>", its own base symbol as in the paper's
// Figure 1 ('l o w </w>'; subword-nmt instead glues it to the last character), so "st</w>"
// (a word end) and "st" (inside a word) become different tokens. A text that itself contains
// "</w>" shows that token as the marker does; they stay distinct inside.
//
// Rules, in both implementations below:
// - a pair's count is its occurrences at every adjacent position weighted by word frequency,
//   as the paper's get_stats (so "a a a" counts (a, a) twice); the merge then joins the pair
//   left to right without overlap ("aa a"), as its merge_vocab;
// - ties in count go to the pair seen first in the text as currently segmented (scanning the
//   text's words in order, each left to right): what the paper's code does under Python 3.7+
//   dicts, where max() keeps the first of equal counts;
// - learning stops early when no pair occurs at least twice: a pair seen once would only
//   memorise that one spot (subword-nmt's default --min-frequency 2).
#pragma once
#include <string>
#include <vector>

namespace mlsys {

inline constexpr long long kBpeMaxTextCodePoints = 20000;
// At most this many merges a call (each costs at most a pass over the distinct words that hold
// the pair; the cap keeps a 20,000-character text well under 100 ms in the browser).
inline constexpr long long kBpeMaxMerges = 5000;
inline constexpr const char* kBpeEndOfWord = "</w>";

struct BpeMerge {
  long long rank = 0;             // 1 for the first merge learned (and applied first)
  std::vector<std::string> pair;  // [left, right] tokens joined
  std::string token;              // left + right
  long long count = 0;            // occurrences of the pair before the merge (rule above)
  long long token_count = 0;      // tokens of the whole text after this merge
};

struct BpeWord {
  std::string word;                 // as written in the text
  long long count = 0;              // occurrences in the text
  std::vector<std::string> tokens;  // its segmentation after all merges
};

struct BpeResult {
  std::vector<BpeMerge> steps;
  std::vector<std::string> tokens;        // the text's tokens after all merges, in order
  long long token_count = 0;              // tokens.size()
  long long base_token_count = 0;         // tokens with the base symbols alone
  long long vocab_size = 0;               // distinct base symbols + tokens the merges made
  std::vector<std::string> base_symbols;  // distinct code points (and the marker), first seen first
  std::vector<BpeWord> words;             // distinct words, first seen first
  long long word_count = 0;               // words in the text (with repeats)
  bool stopped_early = false;             // fewer merges than asked: no pair occurred twice
};

// Code points of a UTF-8 text; InputError("text", ...) naming the first ill-formed byte.
std::vector<char32_t> decode_utf8(const std::string& text);

// Python's str.isspace for one code point (the set listed above).
bool is_unicode_space(char32_t c);

// Learns `merges` merges (0 … kBpeMaxMerges) on `text` (valid UTF-8, 1 … 20,000 code points,
// at least one word). Incremental: after a merge only the words holding the pair are
// recounted, and the best pair is kept in an ordered set.
BpeResult bpe_learn(const std::string& text, long long merges, bool end_of_word);

// The reference: the paper's Figure 1 loop, every pair recounted over every word each merge.
BpeResult bpe_learn_naive(const std::string& text, long long merges, bool end_of_word);

}  // namespace mlsys
