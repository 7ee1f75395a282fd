// The text side of BPE: strict UTF-8 decoding, Python's whitespace split, counted words of
// code points, and the result assembled from the learned segmentations.
#include "tokens/bpe_corpus.hpp"

#include <cstdio>
#include <map>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys {

namespace {

std::string hex_byte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(b));
  return buf;
}

std::string utf8_of(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s;
}

}  // namespace

// Well-formed UTF-8 (Unicode 15, table 3-7): the second byte's range depends on the first, which
// rules out overlong forms (C0, C1, E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and values
// above U+10FFFF (F4 90.., F5..FF).
std::vector<char32_t> decode_utf8(const std::string& text) {
  std::vector<char32_t> out;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = p[i];
    int extra = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    char32_t c = b;
    if (b < 0x80) {
      extra = 0;
    } else if (b >= 0xC2 && b <= 0xDF) {
      extra = 1, c = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      extra = 2, c = b & 0x0F;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      extra = 3, c = b & 0x07;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      throw InputError("text", "Field 'text' is not valid UTF-8: the byte " + hex_byte(b) + " at offset " +
                                   std::to_string(i) + " cannot start a character.");
    }
    for (int k = 1; k <= extra; ++k) {
      const bool present = i + static_cast<std::size_t>(k) < n;
      const unsigned char t = present ? p[i + static_cast<std::size_t>(k)] : 0;
      const bool ok = present && (k == 1 ? (t >= lo && t <= hi) : (t >= 0x80 && t <= 0xBF));
      if (!ok)
        throw InputError("text", "Field 'text' is not valid UTF-8: the character starting at byte offset " +
                                     std::to_string(i) + " (" + hex_byte(b) + ") is " +
                                     (present ? "ill-formed" : "cut off at the end") + ".");
      c = (c << 6) | (t & 0x3F);
    }
    out.push_back(c);
    i += static_cast<std::size_t>(extra) + 1;
  }
  return out;
}

bool is_unicode_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

namespace bpe_detail {

Corpus read_corpus(const std::string& text, long long merges, bool end_of_word) {
  if (merges < 0 || merges > kBpeMaxMerges)
    throw InputError("merges", "Field 'merges' must be from 0 to " + format_int(static_cast<double>(kBpeMaxMerges)) + ".");
  if (text.empty()) throw InputError("text", "Field 'text' is empty: give at least one word.");
  // Bound the work before decoding: 20,000 code points are at most 80,000 bytes.
  if (text.size() > 4 * static_cast<std::size_t>(kBpeMaxTextCodePoints))
    throw InputError("text", "Field 'text' is longer than " + format_int(static_cast<double>(kBpeMaxTextCodePoints)) +
                                 " characters (" + format_int(static_cast<double>(text.size())) + " bytes).");
  const std::vector<char32_t> cps = decode_utf8(text);
  if (static_cast<long long>(cps.size()) > kBpeMaxTextCodePoints)
    throw InputError("text", "Field 'text' has " + format_int(static_cast<double>(cps.size())) +
                                 " characters (Unicode code points); at most " +
                                 format_int(static_cast<double>(kBpeMaxTextCodePoints)) + " are allowed.");
  Corpus c;
  std::map<std::string, std::size_t> index_of_word;
  std::map<std::string, bool> seen_symbol;
  const auto note_symbol = [&](const std::string& s) {
    if (!seen_symbol[s]) {
      seen_symbol[s] = true;
      c.base_symbols.push_back(s);
    }
  };
  for (std::size_t i = 0; i < cps.size();) {
    if (is_unicode_space(cps[i])) {
      ++i;
      continue;
    }
    CorpusWord w;
    for (; i < cps.size() && !is_unicode_space(cps[i]); ++i) {
      w.symbols.push_back(utf8_of(cps[i]));
      w.text += w.symbols.back();
    }
    if (end_of_word) w.symbols.push_back(kMarker);
    const auto [it, added] = index_of_word.emplace(w.text, c.words.size());
    if (added) {
      for (const auto& s : w.symbols) note_symbol(s);
      c.words.push_back(std::move(w));
    }
    ++c.words[it->second].count;
    c.occurrences.push_back(it->second);
  }
  if (c.words.empty()) throw InputError("text", "Field 'text' holds only whitespace: give at least one word.");
  return c;
}

std::string display(const std::string& token) {
  if (!token.empty() && token.back() == kMarker[0]) return token.substr(0, token.size() - 1) + kBpeEndOfWord;
  return token;
}

BpeResult assemble(const Corpus& corpus, const std::vector<std::vector<std::string>>& segmentations,
                   std::vector<BpeMerge> steps, long long merges_asked, long long new_tokens) {
  BpeResult r;
  r.stopped_early = static_cast<long long>(steps.size()) < merges_asked;
  r.steps = std::move(steps);
  for (const auto& s : corpus.base_symbols) r.base_symbols.push_back(display(s));
  r.vocab_size = static_cast<long long>(corpus.base_symbols.size()) + new_tokens;
  for (std::size_t w = 0; w < corpus.words.size(); ++w) {
    BpeWord out{corpus.words[w].text, corpus.words[w].count, {}};
    for (const auto& t : segmentations[w]) out.tokens.push_back(display(t));
    r.base_token_count += corpus.words[w].count * static_cast<long long>(corpus.words[w].symbols.size());
    r.words.push_back(std::move(out));
  }
  for (std::size_t w : corpus.occurrences)
    for (const auto& t : r.words[w].tokens) r.tokens.push_back(t);
  r.token_count = static_cast<long long>(r.tokens.size());
  r.word_count = static_cast<long long>(corpus.occurrences.size());
  return r;
}

}  // namespace bpe_detail

}  // namespace mlsys
