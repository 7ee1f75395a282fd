// The incremental BPE learner (rules in mlsys/tokens/bpe.hpp). Every symbol of every distinct
// word is a node of a linked list, numbered in text order (words first seen first, each left
// to right); a merge keeps its left node, so node numbers stay in text order. Each pair keeps
// its weighted count and the set of nodes where it starts, and an ordered set ranks the pairs
// by (count descending, first node): the paper's max with ties to the pair seen first. A merge
// visits only the occurrences of its pair and updates the pairs beside each one, so its cost
// is that of its occurrences, not of the text. bpe_naive.cpp is the reference it is tested
// against.
#include <cstdint>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "tokens/bpe_corpus.hpp"

namespace mlsys {

namespace {

using bpe_detail::display;

constexpr int kNone = -1;

// (−count, first node, pair): the set's first element is the next merge.
using Rank = std::tuple<long long, int, std::uint64_t>;

struct PairStats {
  long long count = 0;  // occurrences weighted by word frequency
  std::set<int> at;     // nodes where the pair starts, in text order
  bool ranked = false;
  Rank rank{};
};

class Learner {
 public:
  explicit Learner(const bpe_detail::Corpus& corpus) : corpus_(corpus) {
    for (std::size_t w = 0; w < corpus.words.size(); ++w) {
      head_.push_back(static_cast<int>(token_.size()));
      const auto& symbols = corpus.words[w].symbols;
      for (std::size_t i = 0; i < symbols.size(); ++i) {
        const int node = static_cast<int>(token_.size());
        token_.push_back(id_of(symbols[i]));
        word_.push_back(w);
        prev_.push_back(i == 0 ? kNone : node - 1);
        next_.push_back(i + 1 == symbols.size() ? kNone : node + 1);
      }
      tokens_ += corpus.words[w].count * static_cast<long long>(symbols.size());
    }
    base_ = static_cast<long long>(text_.size());
    std::unordered_set<std::uint64_t> touched;
    for (int node = 0; node < static_cast<int>(token_.size()); ++node)
      if (next_[static_cast<std::size_t>(node)] != kNone) add(node, +1, touched);
    for (std::uint64_t key : touched) rerank(key);
  }

  // One merge, or false when no pair occurs twice.
  bool step(long long rank, std::vector<BpeMerge>& steps) {
    if (ranking_.empty() || -std::get<0>(*ranking_.begin()) < 2) return false;  // rule: at least twice
    const long long count = -std::get<0>(*ranking_.begin());
    const std::uint64_t best = std::get<2>(*ranking_.begin());
    const int a = left_of(best), b = right_of(best);
    const int merged = id_of(text_[static_cast<std::size_t>(a)] + text_[static_cast<std::size_t>(b)]);
    const std::set<int> sites = pairs_.at(best).at;  // a copy: the loop edits the set
    std::unordered_set<std::uint64_t> touched;
    for (int i : sites) {
      // Skip an occurrence an earlier one in this merge consumed ("a a a" joins as "aa a").
      const int j = next_[u(i)];
      if (token_[u(i)] != a || j == kNone || token_[u(j)] != b) continue;
      const int p = prev_[u(i)], n = next_[u(j)];
      if (p != kNone) add(p, -1, touched);
      add(i, -1, touched);
      if (n != kNone) add(j, -1, touched);
      token_[u(i)] = merged;
      next_[u(i)] = n;
      if (n != kNone) prev_[u(n)] = i;
      token_[u(j)] = kNone;  // j leaves the list
      tokens_ -= corpus_.words[word_[u(i)]].count;
      if (p != kNone) add(p, +1, touched);
      if (n != kNone) add(i, +1, touched);
    }
    for (std::uint64_t key : touched) rerank(key);
    steps.push_back({rank, {display(text_[u(a)]), display(text_[u(b)])}, display(text_[u(merged)]), count, tokens_});
    return true;
  }

  std::vector<std::vector<std::string>> segmentations() const {
    std::vector<std::vector<std::string>> out;
    for (int h : head_) {
      std::vector<std::string> t;
      for (int node = h; node != kNone; node = next_[u(node)]) t.push_back(text_[u(token_[u(node)])]);
      out.push_back(std::move(t));
    }
    return out;
  }

  long long new_tokens() const { return static_cast<long long>(text_.size()) - base_; }

 private:
  static std::size_t u(int i) { return static_cast<std::size_t>(i); }
  static std::uint64_t key_of(int a, int b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  }
  static int left_of(std::uint64_t key) { return static_cast<int>(key >> 32); }
  static int right_of(std::uint64_t key) { return static_cast<int>(key & 0xFFFFFFFFu); }

  // The id of a token, made on first sight. A merge that rebuilds an existing token (the same
  // text split elsewhere) reuses its id, so the vocabulary counts it once.
  int id_of(const std::string& text) {
    const auto [it, added] = ids_.emplace(text, static_cast<int>(text_.size()));
    if (added) text_.push_back(text);
    return it->second;
  }

  // Adds (+1) or removes (−1) the occurrence of the pair that starts at `node`.
  void add(int node, int sign, std::unordered_set<std::uint64_t>& touched) {
    const std::uint64_t key = key_of(token_[u(node)], token_[u(next_[u(node)])]);
    PairStats& p = pairs_[key];
    p.count += sign * corpus_.words[word_[u(node)]].count;
    if (sign > 0) p.at.insert(node);
    else p.at.erase(node);
    touched.insert(key);
  }

  // Puts a pair back in the ranking under its current count and first occurrence.
  void rerank(std::uint64_t key) {
    auto it = pairs_.find(key);
    PairStats& p = it->second;
    if (p.ranked) ranking_.erase(p.rank);
    p.ranked = false;
    if (p.at.empty()) {
      pairs_.erase(it);
      return;
    }
    p.rank = {-p.count, *p.at.begin(), key};
    p.ranked = true;
    ranking_.insert(p.rank);
  }

  const bpe_detail::Corpus& corpus_;
  // Nodes: token id, word, neighbours (kNone at a word's ends); a node that left its list has
  // token kNone.
  std::vector<int> token_, prev_, next_;
  std::vector<std::size_t> word_;
  std::vector<int> head_;          // first node of each word (never removed: merges keep the left)
  std::vector<std::string> text_;  // token id → token (internal form)
  std::unordered_map<std::string, int> ids_;
  std::unordered_map<std::uint64_t, PairStats> pairs_;
  std::set<Rank> ranking_;
  long long tokens_ = 0;
  long long base_ = 0;
};

}  // namespace

BpeResult bpe_learn(const std::string& text, long long merges, bool end_of_word) {
  const bpe_detail::Corpus corpus = bpe_detail::read_corpus(text, merges, end_of_word);
  Learner learner(corpus);
  std::vector<BpeMerge> steps;
  for (long long rank = 1; rank <= merges && learner.step(rank, steps); ++rank) {
  }
  return bpe_detail::assemble(corpus, learner.segmentations(), std::move(steps), merges, learner.new_tokens());
}

}  // namespace mlsys
