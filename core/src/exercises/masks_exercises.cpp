// Exercises of the attention-and-masks lesson: the pairs a causal mask allows, the pairs of a
// sliding window (bidirectional or causal), the pairs of a document mask on a packed sequence, the KV bytes per token of a grouped-query
// configuration, the KV-cache reduction from MHA to GQA, and the bytes of the score matrices at
// a sequence length. Numbers shown are the numbers computed with; `params` are the inputs of
// the attention-mask, attention-variants and attention-scores calculators.
#include "generators.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/serving/kv_cache.hpp"
#include "mlsys/transformer/attention_mask.hpp"

namespace mlsys::exercises {

namespace {

Exercise causal_pairs(Rng& rng) {
  const int n = static_cast<int>(rng.integer(12, 4096));
  const auto count = static_cast<double>(mask_allowed_count(MaskKind::Causal, n, 1, 0));
  Exercise e;
  e.title = "Pairs a causal mask allows";
  e.params = {{"seq", n}, {"mask", "causal"}};
  e.prompt = "A decoder runs masked self-attention over a sequence of " + format_int(n) +
             " tokens: query i may attend key j only when j ≤ i (each token sees itself and the tokens before it). "
             "How many (query, key) pairs does the mask allow?";
  e.unit = "";
  e.answer = count;
  e.integer = true;
  e.hint = "Query i (counting from 1) sees i keys. Add 1 + 2 + … + n.";
  e.solution = "1 + 2 + … + n = n(n + 1)/2 = " + format_int(n) + " × " + format_int(n + 1) + " / 2 = " +
               format_int(count) + " pairs, " + format_number(100.0 * count / (double(n) * n), 4) +
               "% of the n² scores: just over half, so a kernel that skips the masked tiles does about half the work. "
               "Allowed pairs: " + format_int(count) + ".";
  require(e, count == double(n) * (n + 1) / 2, "the count is n(n + 1)/2");
  reject_mistake(e, double(n) * (n - 1) / 2, "left out the diagonal (each token sees itself)");
  reject_mistake(e, double(n) * n / 2, "took half of the n\u00B2 scores");
  return e;
}

Exercise document_pairs(Rng& rng) {
  // Packed training sequences (Llama 3 masks attention between the documents of one sequence):
  // k documents of D tokens each, causal inside each, nothing across. At most 16 × 1,024 tokens:
  // the count stays below 10^7, where the suite's check that answer + 0.25 is rejected still
  // reads at eight significant digits.
  const int d = static_cast<int>(rng.integer(16, 1024));
  const int k = static_cast<int>(rng.integer(2, 16));
  const long long n = static_cast<long long>(k) * d;
  const auto count = static_cast<double>(mask_allowed_count(MaskKind::Document, n, 1, 0, d));
  const double causal = double(n) * (n + 1) / 2;
  Exercise e;
  e.title = "Pairs of a document mask on a packed sequence";
  e.params = {{"seq", n}, {"mask", "document"}, {"doc", d}};
  e.prompt = "A training sequence of " + format_int(n) + " tokens packs " + format_int(k) + " documents of " +
             format_int(d) + " tokens each, end to end. The mask is causal inside each document and forbids every "
             "pair across documents, so no token attends to another document. How many (query, key) pairs does the "
             "mask allow?";
  e.unit = "";
  e.answer = count;
  e.integer = true;
  e.hint = "Each document is its own causal triangle of D(D + 1)/2 pairs; there are k of them.";
  e.solution = "k · D(D + 1)/2 = " + format_int(k) + " × " + format_int(d) + " × " + format_int(d + 1) + " / 2 = " +
               format_int(count) + " pairs. A plain causal mask over the whole sequence would allow n(n + 1)/2 = " +
               format_int(causal) + ", " + format_number(causal / count, 3) +
               " times as many: the document mask removes the cross-document pairs, and a kernel that skips their "
               "tiles skips their FLOPs. Allowed pairs: " + format_int(count) + ".";
  require(e, count == k * (double(d) * (d + 1) / 2), "the count is k·D(D + 1)/2");
  require(e, count < causal, "the documents mask some pairs");
  reject_mistake(e, causal, "used one causal mask over the whole packed sequence");
  reject_mistake(e, k * (double(d) * (d - 1) / 2), "left out the diagonal (each token sees itself)");
  reject_mistake(e, k * double(d) * d, "let each document attend both ways");
  reject_mistake(e, k * (double(d) * d / 2), "took half of each document's D² scores");
  return e;
}

Exercise window_pairs(Rng& rng) {
  const bool causal = rng.integer(0, 1) == 1;
  // At most 3,000 tokens: the count stays below 10^7 (0.75·n² at most), where the suite's
  // check that answer + 0.25 is rejected still reads at eight significant digits.
  const int n = static_cast<int>(rng.integer(64, 3000));
  const int w = static_cast<int>(rng.integer(4, n / 2));
  const MaskKind kind = causal ? MaskKind::CausalSlidingWindow : MaskKind::SlidingWindow;
  const auto count = static_cast<double>(mask_allowed_count(kind, n, w, 0));
  Exercise e;
  e.title = causal ? "Pairs of a causal sliding window" : "Pairs of a sliding window";
  e.params = {{"seq", n}, {"mask", causal ? "causal-sliding-window" : "sliding-window"}, {"window", w}};
  e.prompt = "Self-attention over " + format_int(n) + " tokens uses a " +
             (causal ? "causal sliding window of " + format_int(w) +
                           ": query i may attend key j when j ≤ i and i − j < " + format_int(w) +
                           " (the token itself and the ones just before it)."
                     : "sliding window of " + format_int(w) + ": query i may attend key j when |i − j| < " +
                           format_int(w) + " (the token itself and its neighbours on both sides).") +
             " How many (query, key) pairs does the mask allow?";
  e.unit = "";
  e.answer = count;
  e.integer = true;
  const double far = n - w;
  if (causal) {
    e.hint = "Count by distance d = i − j: the diagonal d = 0 has n pairs, d = 1 has n − 1, …, down to d = w − 1.";
    e.solution = "Distances 0 … " + format_int(w - 1) + " below the diagonal hold n − d pairs each: w·n − w(w − 1)/2 = " +
                 format_int(w) + " × " + format_int(n) + " − " + format_int(w) + " × " + format_int(w - 1) + " / 2 = " +
                 format_int(count) + " pairs, against " + format_int(double(n) * (n + 1) / 2) +
                 " for the full causal mask. Allowed pairs: " + format_int(count) + ".";
  } else {
    e.hint = "Count what is left out: the pairs with |i − j| ≥ w. At distance d there are 2(n − d) of them.";
    e.solution = "Left out: Σ over d = " + format_int(w) + " … " + format_int(n - 1) + " of 2(n − d) = (n − w)(n − w + 1) = " +
                 format_int(far) + " × " + format_int(far + 1) + " = " + format_int(far * (far + 1)) + ". Allowed: n² − " +
                 format_int(far * (far + 1)) + " = " + format_int(double(n) * n) + " − " + format_int(far * (far + 1)) +
                 " = " + format_int(count) + " pairs.";
  }
  require(e, w >= 1 && w < n, "the window (" + format_int(w) + ") is shorter than the sequence");
  require(e, count < double(n) * n, "the window masks some pairs");
  if (causal) {
    reject_mistake(e, double(w) * n, "gave every query w keys, the first ones too");
    reject_mistake(e, double(w + 1) * n - double(w + 1) * w / 2, "let the window reach w tokens back (off by one)");
  } else {
    reject_mistake(e, double(2 * w - 1) * n, "gave every query 2w \u2212 1 keys, the edges too");
  }
  return e;
}

// A grouped-query configuration: query heads, K/V heads dividing them, and the head size.
struct GqaConfig {
  int layers, heads, kv_heads, head_dim;
};
// How a prompt names the layout: one K/V head is multi-query attention, not a group.
std::string kv_layout(const GqaConfig& c) {
  return c.kv_heads == 1 ? "multi-query attention (one key/value head shared by every query head)"
                         : "grouped-query attention with " + counted(c.kv_heads, "key/value head");
}

GqaConfig draw_gqa(Rng& rng) {
  GqaConfig c{};
  c.heads = rng.pick(std::vector<int>{16, 24, 32, 40, 48, 64, 96, 128});
  c.head_dim = rng.pick(std::vector<int>{64, 80, 96, 128});
  // Depths that published models pair with such a width: width ÷ layers between 40 and 200
  // (GPT-2 medium 43, Llama 2 7B 128, GPT-3 175B 128, PaLM 540B 156), so no prompt names a
  // 126-layer model 1,280 wide.
  const int hidden = c.heads * c.head_dim;
  std::vector<int> depths;
  for (int l : {12, 16, 20, 24, 28, 32, 40, 48, 60, 64, 80, 96, 126})
    if (hidden >= 40 * l && hidden <= 200 * l) depths.push_back(l);
  c.layers = rng.pick(depths);
  std::vector<int> groups;  // K/V head counts that divide heads, below it
  for (int g : {1, 2, 4, 8, 16})
    if (c.heads % g == 0 && g < c.heads) groups.push_back(g);
  c.kv_heads = rng.pick(groups);
  return c;
}

Exercise gqa_kv_bytes(Rng& rng) {
  const GqaConfig c = draw_gqa(rng);
  const std::string dtype = rng.pick(std::vector<std::string>{"bf16", "fp8-e4m3", "fp32"});
  const double s = dtype_bytes(dtype);
  const int hidden = c.heads * c.head_dim;
  const double bytes = kv_bytes_per_token(c.layers, c.kv_heads, c.head_dim, s);
  Exercise e;
  e.title = "KV bytes per token under grouped-query attention";
  e.params = {{"layers", c.layers}, {"hidden", hidden}, {"heads", c.heads}, {"kv_heads", c.kv_heads},
              {"context", 1}, {"dtype", dtype}};
  e.prompt = "A model of width " + format_int(hidden) + " has " + format_int(c.layers) + " layers and " +
             format_int(c.heads) + " query heads (head size = width ÷ heads), " + kv_layout(c) + ", and a KV cache in " + dtype + " (" + bytes_per_element(s) +
             " per element). How many bytes of KV cache does one token take? Answer in kB (1 kB = 1,000 B).";
  e.unit = "kB";
  e.answer = bytes / 1e3;
  e.hint = "head_dim = width ÷ heads. Each layer stores one key and one value vector per key/value head: 2 × layers "
           "× kv_heads × head_dim × bytes per element. The query heads do not count.";
  e.solution = "head_dim = " + format_int(hidden) + " / " + format_int(c.heads) + " = " + format_int(c.head_dim) +
               "; 2 × " + format_int(c.layers) + " × " + format_int(c.kv_heads) + " × " + format_int(c.head_dim) +
               " × " + format_number(s, 2) + " = " + format_int(bytes) + " B = " + format_number(e.answer, 6) + " kB.";
  require(e, c.heads % c.kv_heads == 0 && c.kv_heads < c.heads, "the key/value heads divide the query heads");
  reject_mistake(e, e.answer / 2, "stored the keys or the values only");
  reject_mistake(e, e.answer * c.heads / c.kv_heads, "counted the query heads");
  return e;
}

Exercise gqa_reduction(Rng& rng) {
  const GqaConfig c = draw_gqa(rng);
  const int hidden = c.heads * c.head_dim;
  const int factor = c.heads / c.kv_heads;
  Exercise e;
  const bool mqa = c.kv_heads == 1;
  e.title = mqa ? "KV cache from MHA to MQA" : "KV cache from MHA to GQA";
  e.params = {{"layers", c.layers}, {"hidden", hidden}, {"heads", c.heads}, {"kv_heads", c.kv_heads}};
  e.prompt = article(format_int(c.layers), true) + format_int(c.layers) + "-layer model of width " + format_int(hidden) + " uses multi-head " +
             "attention with a head size of " + format_int(c.head_dim) + ". It is retrained with " + kv_layout(c) + ", keeping its query heads. By what factor does its KV cache shrink, at any context and batch?";
  e.unit = "";
  e.answer = factor;
  e.integer = true;
  e.hint = "Multi-head attention has one key/value head per query head, and heads = width ÷ head size. The cache "
           "is proportional to the number of key/value heads.";
  e.solution = "Query heads = " + format_int(hidden) + " / " + format_int(c.head_dim) + " = " + format_int(c.heads) +
               ", so MHA caches " + format_int(c.heads) + " key/value heads per layer; " +
               (mqa ? "MQA caches one, shared by all " + format_int(factor) + " query heads"
                    : "GQA caches " + format_int(c.kv_heads) + ", each shared by a group of " + format_int(factor) + " query heads") +
               ". The factor is " + format_int(c.heads) + " / " + format_int(c.kv_heads) + " = " +
               format_int(factor) + ".";
  require(e, c.heads % c.kv_heads == 0 && c.kv_heads < c.heads, "the key/value heads divide the query heads");
  require_whole(e, e.answer, "the reduction factor");
  return e;
}

Exercise score_bytes(Rng& rng) {
  // A layer's scores that one H100 SXM could hold (80 GB): larger ones cannot be materialized,
  // which is the lesson's argument for FlashAttention.
  const double capacity = find_accelerator("h100-sxm")->hbm_bytes;
  int n = 0, heads = 0, batch = 0;
  std::string dtype;
  double s = 0, bytes = 0;
  do {
    n = 1024 * static_cast<int>(rng.integer(1, 64));
    heads = rng.pick(std::vector<int>{8, 12, 16, 24, 32, 40, 64});
    batch = static_cast<int>(rng.integer(1, 8));
    dtype = rng.pick(std::vector<std::string>{"fp32", "bf16"});
    s = dtype_bytes(dtype);
    bytes = double(n) * n * heads * batch * s;
  } while (bytes > capacity);
  Exercise e;
  e.title = "Bytes of the score matrices";
  e.params = {{"seq", n}, {"heads", heads}, {"batch", batch}, {"dtype", dtype}};
  e.prompt = "Standard attention materializes the scores S = QKᵀ, one " + format_int(n) + " × " + format_int(n) +
             " matrix per head and sequence. One layer has " + format_int(heads) + " heads and a batch of " +
             counted(batch, "sequence") + ", with scores in " + dtype + ". How many GB do that layer's score matrices " +
             "take (1 GB = 10^9 B)?";
  e.unit = "GB";
  e.answer = bytes / 1e9;
  e.hint = "Elements = seq² × heads × batch; multiply by " + bytes_per_element(s) + ". A causal mask does not shrink "
           "the materialized matrix: the masked entries are stored too.";
  e.solution = format_int(n) + "² × " + format_int(heads) + " × " + format_int(batch) + " × " + format_number(s, 2) +
               " B = " + format_int(bytes) + " B = " + format_number(e.answer, 5) + " GB.";
  require_fits(e, bytes, capacity, "the layer's score matrices in one H100 SXM");
  reject_mistake(e, e.answer / 2, "halved it for the causal mask, which stores the masked entries too");
  if (batch > 1) reject_mistake(e, e.answer / batch, "left out the batch");
  return e;
}

}  // namespace

void add_masks_exercises(std::vector<Generator>& out) {
  out.push_back({"masks-causal-pairs", causal_pairs});
  out.push_back({"masks-window-pairs", window_pairs});
  out.push_back({"masks-document-pairs", document_pairs});
  out.push_back({"masks-gqa-kv-bytes", gqa_kv_bytes});
  out.push_back({"masks-gqa-reduction", gqa_reduction});
  out.push_back({"masks-score-bytes", score_bytes});
}

}  // namespace mlsys::exercises
