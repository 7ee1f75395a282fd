// Exercises of the lesson tokens-and-embeddings: the count of the first BPE merge on a small
// corpus, the corpus's tokens after k merges, the vocabulary after k merges, the bytes of an
// embedding table (and untied head), and the share of a published model's parameters in its
// embedding tables. Answers come from the models of `bpe` and `embedding-table`
// (core/src/tokens/), so the calculators and the exercises agree.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "generators.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/tokens/bpe.hpp"
#include "mlsys/tokens/embedding_table.hpp"
#include "mlsys/transformer/published_models.hpp"

namespace mlsys::exercises {

namespace {

// True when a number the reader sees in `prompt` is within 2% of `answer`: such a draw is
// redrawn, so copying a number of the question is never right.
bool answer_in_prompt(double answer, const std::string& prompt) {
  for (const auto& p : printed_numbers(prompt))
    if (std::fabs(p.value - answer) <= 0.02 * std::fabs(answer)) return true;
  return false;
}

// Words that share stems and endings (no doubled letters, so no pair overlaps itself), as in
// Sennrich et al.'s toy vocabulary.
const std::vector<std::string>& word_pool() {
  static const std::vector<std::string> pool = {"low",   "lower", "lowest", "new",    "newer",  "newest", "wide",
                                                "wider", "widest", "old",   "older",  "oldest", "bold",   "bolder",
                                                "hold",  "holder", "slow",  "slower", "slowest", "nest"};
  return pool;
}

struct Corpus {
  std::vector<std::pair<std::string, int>> words;  // in text order
  std::string text;                               // each word repeated count times
  std::string listing;                            // "low ×5, lower ×2 and newest ×6"
};

Corpus draw_corpus(Rng& rng) {
  Corpus c;
  const int n = rng.integer(3, 4);
  while (static_cast<int>(c.words.size()) < n) {
    const std::string& w = rng.pick(word_pool());
    bool dup = false;
    for (const auto& [seen, k] : c.words) dup = dup || seen == w;
    if (dup) continue;
    const int count = rng.integer(2, 9);
    c.words.emplace_back(w, count);
  }
  for (std::size_t i = 0; i < c.words.size(); ++i) {
    const auto& [w, k] = c.words[i];
    for (int j = 0; j < k; ++j) c.text += (c.text.empty() ? "" : " ") + w;
    c.listing += (i == 0 ? "" : i + 1 == c.words.size() ? " and " : ", ") + w + " \u00D7" + std::to_string(k);
  }
  return c;
}

const char* const kBpeRules =
    " BPE splits each word into characters plus an end-of-word symbol </w>, counts each adjacent pair over the "
    "corpus (a pair in a word seen k times counts k), and merges the most frequent pair everywhere; a tie goes to "
    "the pair that appears first when the corpus is read in the order listed.";

std::string merge_story(const BpeResult& r, std::size_t k) {
  std::string s;
  for (std::size_t i = 0; i < k; ++i) {
    const BpeMerge& m = r.steps[i];
    s += "Merge " + std::to_string(i + 1) + ": " + m.pair[0] + " + " + m.pair[1] + " (" +
         counted(static_cast<double>(m.count), "occurrence") + ") leaves " + format_int(static_cast<double>(m.token_count)) +
         " tokens. ";
  }
  return s;
}

Exercise first_merge_count(Rng& rng) {
  Exercise e;
  for (;;) {
    const Corpus c = draw_corpus(rng);
    const BpeResult r = bpe_learn(c.text, 1, true);
    if (r.steps.empty()) continue;
    const BpeMerge& m = r.steps[0];
    e.title = "The first BPE merge";
    e.params = {{"text", c.text}, {"merges", 1}, {"end_of_word", true}};
    e.prompt = "A corpus holds the words " + c.listing + "." + kBpeRules +
               " How many times does the first merged pair occur in the corpus?";
    e.unit = "";
    e.answer = static_cast<double>(m.count);
    e.integer = true;
    if (answer_in_prompt(e.answer, e.prompt)) continue;
    e.hint = "List the adjacent pairs of each word (with </w> at its end), add each word's count to every pair it "
             "holds, and take the largest total.";
    // Where the pair stands (base symbols: the marker is the byte 0xFF inside the learner).
    const std::string pair = m.pair[0] + (m.pair[1] == kBpeEndOfWord ? "\xFF" : m.pair[1]);
    std::string where, sum;
    double unweighted = 0;  // the pair's occurrences counting each distinct word once
    for (const auto& [w, k] : c.words) {
      const std::string spelled = w + "\xFF";
      int times = 0;
      for (auto at = spelled.find(pair); at != std::string::npos; at = spelled.find(pair, at + pair.size())) ++times;
      if (times == 0) continue;
      unweighted += times;
      where += (where.empty() ? "" : ", ") + w;
      sum += (sum.empty() ? "" : " + ") + (times > 1 ? std::to_string(times) + " \u00D7 " : "") + std::to_string(k);
    }
    e.solution = "The most frequent pair (the first seen among equals) is " + m.pair[0] + " + " + m.pair[1] +
                 ", in " + where + ": " + sum + " = " + format_int(e.answer) + " occurrences.";
    require(e, r.word_count >= 6 && r.word_count <= 36, "a corpus a reader can count by hand: " +
                                                            std::to_string(r.word_count) + " words");
    require(e, e.answer >= 2 && e.answer <= static_cast<double>(r.base_token_count - r.word_count),
            "the pair count lies between 2 and the corpus's adjacent pairs");
    reject_mistake(e, unweighted, "counted each distinct word once, not as often as it occurs");
    return e;
  }
}

Exercise tokens_after_merges(Rng& rng) {
  Exercise e;
  for (;;) {
    const Corpus c = draw_corpus(rng);
    const long long k = rng.integer(2, 4);
    const BpeResult r = bpe_learn(c.text, k, true);
    if (static_cast<long long>(r.steps.size()) < k) continue;
    e.title = "Tokens after a few BPE merges";
    e.params = {{"text", c.text}, {"merges", k}, {"end_of_word", true}};
    e.prompt = "A corpus holds the words " + c.listing + "." + kBpeRules + " After " + std::to_string(k) +
               " merges, how many tokens does the corpus take (every </w> counts as a token)?";
    e.unit = "";
    e.answer = static_cast<double>(r.token_count);
    e.integer = true;
    if (answer_in_prompt(e.answer, e.prompt)) continue;
    e.hint = "Start from the characters plus one </w> per word occurrence. Each merge removes one token per "
             "occurrence of its pair; recount the pairs after each merge.";
    e.solution = "Before any merge the corpus has " + format_int(static_cast<double>(r.base_token_count)) +
                 " tokens (characters and one </w> per word). " + merge_story(r, static_cast<std::size_t>(k)) +
                 "After " + std::to_string(k) + " merges: " + format_int(e.answer) + " tokens.";
    require(e, e.answer < static_cast<double>(r.base_token_count) && e.answer >= static_cast<double>(r.word_count),
            "the merges shorten the corpus, at most to one token per word");
    reject_mistake(e, static_cast<double>(r.base_token_count - k), "removed one token per merge, not one per occurrence");
    return e;
  }
}

Exercise vocab_after_merges(Rng& rng) {
  Exercise e;
  for (;;) {
    const Corpus c = draw_corpus(rng);
    const long long k = rng.integer(3, 12);
    const BpeResult r = bpe_learn(c.text, k, true);
    if (static_cast<long long>(r.steps.size()) < k || r.vocab_size != static_cast<long long>(r.base_symbols.size()) + k)
      continue;
    e.title = "Vocabulary after BPE merges";
    e.params = {{"text", c.text}, {"merges", k}, {"end_of_word", true}};
    e.prompt = "BPE with an end-of-word symbol </w> (a symbol of its own) learns " + std::to_string(k) +
               " merges on a corpus of the words " + c.listing +
               "; every merge makes a new token. How many entries does the vocabulary then hold, base symbols "
               "included?";
    e.unit = "";
    e.answer = static_cast<double>(r.vocab_size);
    e.integer = true;
    if (answer_in_prompt(e.answer, e.prompt)) continue;
    e.hint = "The base vocabulary is every distinct character of the corpus plus </w>; each merge adds one token.";
    std::string symbols;
    for (const auto& s : r.base_symbols) symbols += (symbols.empty() ? "" : " ") + s;
    e.solution = "The base symbols are " + symbols + ": " + format_int(static_cast<double>(r.base_symbols.size())) +
                 " of them. The merges add " + std::to_string(k) + ", so the vocabulary holds " +
                 format_int(static_cast<double>(r.base_symbols.size())) + " + " + std::to_string(k) + " = " +
                 format_int(e.answer) + " entries.";
    require_whole(e, e.answer, "the vocabulary size");
    reject_mistake(e, e.answer - 1, "left </w> out of the base symbols");
    reject_mistake(e, static_cast<double>(r.base_symbols.size()), "counted the base symbols only");
    return e;
  }
}

Exercise embedding_bytes(Rng& rng) {
  Exercise e;
  for (;;) {
    ModelConfig cfg;
    cfg.vocab = static_cast<double>(rng.pick(std::vector<long long>{32000, 50257, 65536, 100277, 128256, 151936, 256000}));
    cfg.hidden = static_cast<double>(rng.pick(std::vector<long long>{768, 1024, 2048, 3072, 4096, 5120, 8192}));
    cfg.heads = cfg.hidden / 64;
    cfg.kv_heads = cfg.heads;
    cfg.head_dim = 64;
    cfg.ffn_hidden = 4 * cfg.hidden;
    cfg.tied_embeddings = rng.integer(0, 1) == 1;
    const std::string dtype = rng.pick(std::vector<std::string>{"fp32", "bf16", "fp8-e4m3"});
    const EmbeddingTable t = embedding_table(cfg, dtype_bytes(dtype));
    e.title = "Bytes of an embedding table";
    e.params = {{"vocab", t.vocab},   {"hidden", t.hidden},  {"heads", static_cast<long long>(cfg.heads)},
                {"dtype", dtype},     {"tied_embeddings", cfg.tied_embeddings}};
    e.prompt = "A language model has a vocabulary of " + format_int(cfg.vocab) + " tokens and width " +
               format_int(cfg.hidden) + ", and stores its weights in " + dtype + "; its output head is " +
               (cfg.tied_embeddings ? "tied to the input embedding (the same matrix)"
                                    : "untied (a second matrix of the same shape)") +
               ". How much memory do its token-embedding weights (table and head) take, in MB (1 MB = 10^6 bytes)?";
    e.unit = "MB";
    e.answer = t.table_bytes / 1e6;
    if (answer_in_prompt(e.answer, e.prompt)) continue;
    e.hint = "One row of width numbers per token: vocab × hidden × bytes per element (" + dtype + ": " +
             bytes_per_element(dtype_bytes(dtype)) + "), twice when the head is untied.";
    e.solution = format_int(cfg.vocab) + " × " + format_int(cfg.hidden) + " = " + format_int(t.embedding_params) +
                 " parameters" + (cfg.tied_embeddings ? " (the head reuses them)" : ", twice for the untied head: " +
                                                                                     format_int(t.table_params)) +
                 "; × " + format_number(dtype_bytes(dtype), 2) + " B = " + format_int(t.table_bytes) + " B = " +
                 format_number(e.answer, 4) + " MB.";
    require_fits(e, t.table_bytes, find_accelerator("h100-sxm")->hbm_bytes, "the tables in one H100 SXM");
    require(e, cfg.heads * cfg.head_dim == cfg.hidden, "width = heads \u00D7 head size");
    if (cfg.tied_embeddings)
      reject_mistake(e, 2 * e.answer, "counted the tied head as a second matrix");
    else
      reject_mistake(e, e.answer / 2, "counted one matrix, forgetting the untied head");
    return e;
  }
}

// A published model's share, as released or with its vocabulary changed (everything else
// kept): the reader then recounts the total too.
Exercise embedding_share(Rng& rng) {
  std::vector<const PublishedModel*> dense;
  for (const auto& m : published_models())
    if (!m.moe()) dense.push_back(&m);
  Exercise e;
  for (;;) {
    const PublishedModel& m = *dense[static_cast<std::size_t>(rng.integer(0, static_cast<int>(dense.size()) - 1))];
    const bool changed = rng.integer(0, 2) > 0;
    const double vocab = static_cast<double>(rng.pick(std::vector<long long>{32000, 32768, 49152, 50257, 65536, 100277, 128256, 151936, 200000, 256000}));
    if (changed && vocab == m.config.vocab) continue;
    ModelConfig cfg = m.config;
    if (changed) cfg.vocab = vocab;
    const EmbeddingTable released = embedding_table(m.config, 2), t = embedding_table(cfg, 2);
    const double copies = m.config.tied_embeddings ? 1 : 2;
    e.title = "Share of parameters in the embeddings";
    e.params = {{"model", m.id}};
    if (changed) e.params["vocab"] = static_cast<long long>(vocab);
    // GPT-2's count leaves out its learned position table and biases (123.6M of the checkpoint's
    // 124.4M): the prompt names it by its size class and says what the count omits.
    const bool gpt2 = m.id == "gpt-2-124m";
    e.prompt = (gpt2 ? std::string("GPT-2 small") : m.name) + " has a vocabulary of " + format_int(m.config.vocab) + " tokens, width " +
               format_int(m.config.hidden) + " and " +
               (m.config.tied_embeddings ? "an output head tied to its input embedding"
                                         : "an untied output head (a second vocabulary × width matrix)") +
               "; counting matrices, norms and embeddings" +
               (gpt2 ? std::string(" (not its learned position table or biases)") : std::string()) + " it has " +
               format_int(released.params) + " parameters. " +
               (changed ? "With its vocabulary changed to " + format_int(vocab) +
                              " tokens and everything else kept, what percentage of its parameters would be"
                        : std::string("What percentage of them are")) +
               " in the embedding table and output head?";
    e.unit = "%";
    e.answer = 100 * t.share;
    if (answer_in_prompt(e.answer, e.prompt)) continue;
    e.hint = "The table is vocab × width; an untied head is another of the same size. Divide by the total" +
             std::string(changed ? ", which changes by the change of those tables." : ".");
    const std::string tables = format_int(cfg.vocab) + " × " + format_int(cfg.hidden) +
                               (copies == 2 ? " × 2 (untied) = " : " (tied: counted once) = ") + format_int(t.table_params);
    const std::string total =
        changed ? "the total becomes " + format_int(released.params) + " + (" + format_int(cfg.vocab) + " − " +
                      format_int(m.config.vocab) + ") × " + format_int(cfg.hidden) + (copies == 2 ? " × 2" : "") +
                      " = " + format_int(t.params)
                : "the total is " + format_int(t.params);
    e.solution = "Tables: " + tables + "; " + total + "; the share is " + format_number(e.answer, 3) + "%.";
    require(e, find_published_model(m.id) != nullptr, m.id + " is a row of the model table");
    require(e, e.answer > 0 && e.answer < 100, "the share lies between 0 and 100%");
    if (changed)
      reject_mistake_where_distinct(e, 100 * t.table_params / released.params,
                                    "kept the released total, forgetting that the tables' change changes it");
    if (!m.config.tied_embeddings)
      reject_mistake_where_distinct(e, 100 * (t.table_params / 2) / t.params, "counted the untied head's matrix once");
    return e;
  }
}

}  // namespace

void add_tokens_exercises(std::vector<Generator>& out) {
  out.push_back({"bpe-first-merge-count", first_merge_count});
  out.push_back({"bpe-tokens-after-merges", tokens_after_merges});
  out.push_back({"bpe-vocab-after-merges", vocab_after_merges});
  out.push_back({"embedding-table-bytes", embedding_bytes});
  out.push_back({"embedding-params-share", embedding_share});
}

}  // namespace mlsys::exercises
