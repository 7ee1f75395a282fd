// What both BPE learners share (mlsys/tokens/bpe.hpp): the checked text split into counted
// words of base symbols, and the result assembled from the words' final segmentations.
#pragma once
#include <string>
#include <vector>

#include "mlsys/tokens/bpe.hpp"

namespace mlsys::bpe_detail {

// Inside the learners the end-of-word marker is the byte 0xFF, which valid UTF-8 never holds,
// so a text that spells "</w>" cannot be mistaken for it; display() writes it as "</w>".
inline const std::string kMarker = "\xFF";

struct CorpusWord {
  std::string text;                  // as written
  long long count = 0;               // occurrences in the text
  std::vector<std::string> symbols;  // base symbols (UTF-8 of each code point, then the marker)
};

struct Corpus {
  std::vector<CorpusWord> words;         // distinct, first seen first
  std::vector<std::size_t> occurrences;  // index into words of each word of the text, in order
  std::vector<std::string> base_symbols; // distinct, first seen first
};

// Checks the inputs (InputError naming "text" or "merges") and splits the text.
Corpus read_corpus(const std::string& text, long long merges, bool end_of_word);

// A token as a reader sees it: the marker written "</w>".
std::string display(const std::string& token);

// The result from the final segmentation of each distinct word (internal tokens).
BpeResult assemble(const Corpus& corpus, const std::vector<std::vector<std::string>>& segmentations,
                   std::vector<BpeMerge> steps, long long merges_asked, long long new_tokens);

}  // namespace mlsys::bpe_detail
