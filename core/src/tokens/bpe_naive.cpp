// The reference BPE learner: Sennrich et al. 2016's Figure 1 loop as written. Every merge
// recounts every pair of every distinct word (get_stats, in first-seen order), takes the first
// of the largest count, and rewrites every word (merge_vocab). Slow and plain: the incremental
// learner (bpe.cpp) must give the same steps.
#include <map>
#include <set>
#include <utility>

#include "tokens/bpe_corpus.hpp"

namespace mlsys {

using bpe_detail::display;

BpeResult bpe_learn_naive(const std::string& text, long long merges, bool end_of_word) {
  const bpe_detail::Corpus corpus = bpe_detail::read_corpus(text, merges, end_of_word);
  std::vector<std::vector<std::string>> words;
  long long tokens = 0;
  for (const auto& w : corpus.words) {
    words.push_back(w.symbols);
    tokens += w.count * static_cast<long long>(w.symbols.size());
  }
  std::set<std::string> vocab(corpus.base_symbols.begin(), corpus.base_symbols.end());
  long long new_tokens = 0;
  std::vector<BpeMerge> steps;
  for (long long rank = 1; rank <= merges; ++rank) {
    // get_stats: counts in the order pairs are first seen (a Python 3.7+ dict).
    using Pair = std::pair<std::string, std::string>;
    std::vector<Pair> order;
    std::map<Pair, long long> counts;
    for (std::size_t w = 0; w < words.size(); ++w)
      for (std::size_t i = 0; i + 1 < words[w].size(); ++i) {
        const Pair p{words[w][i], words[w][i + 1]};
        auto [it, added] = counts.emplace(p, 0);
        if (added) order.push_back(p);
        it->second += corpus.words[w].count;
      }
    // max(pairs, key=pairs.get): the first of the largest.
    const Pair* best = nullptr;
    for (const auto& p : order)
      if (!best || counts[p] > counts[*best]) best = &p;
    if (!best || counts[*best] < 2) break;
    const Pair pair = *best;
    const std::string token = pair.first + pair.second;
    // merge_vocab: join the pair left to right, without overlap.
    for (std::size_t w = 0; w < words.size(); ++w) {
      std::vector<std::string> joined;
      for (std::size_t i = 0; i < words[w].size(); ++i) {
        if (i + 1 < words[w].size() && words[w][i] == pair.first && words[w][i + 1] == pair.second) {
          joined.push_back(token);
          ++i;
          tokens -= corpus.words[w].count;
        } else {
          joined.push_back(words[w][i]);
        }
      }
      words[w] = std::move(joined);
    }
    if (vocab.insert(token).second) ++new_tokens;
    steps.push_back({rank, {display(pair.first), display(pair.second)}, display(token), counts[pair], tokens});
  }
  return bpe_detail::assemble(corpus, words, std::move(steps), merges, new_tokens);
}

}  // namespace mlsys
