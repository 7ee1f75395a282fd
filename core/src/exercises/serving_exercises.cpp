// Exercises of the llm-serving lesson: KV bytes per token of a GQA model, sequences that fit
// beside the weights, the decode TPOT bound of a batch, speculative decoding's expected tokens and
// speedup, and the slack of paged KV blocks. Numbers shown are the numbers computed with;
// `params` are the inputs of the kv-cache, kv-capacity, decode, speculative and kv-paging
// calculators.
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/serving/decode.hpp"
#include "mlsys/serving/kv_cache.hpp"
#include "mlsys/serving/speculative.hpp"
#include "mlsys/transformer/published_models.hpp"

namespace mlsys::exercises {

namespace {

// The dense rows of the published-model table (content/data/models.json: each row's paper and
// config.json); their trained context bounds the contexts drawn.
const std::vector<const PublishedModel*>& dense_models() {
  static const std::vector<const PublishedModel*> rows = [] {
    std::vector<const PublishedModel*> out;
    for (const PublishedModel& m : published_models())
      if (!m.moe()) out.push_back(&m);
    return out;
  }();
  return rows;
}

// Accelerators of the hardware table (content/data/hardware.json) by a short name; memory,
// bandwidth and peaks are the table's.
struct Chip {
  std::string id, name;
};
const std::vector<Chip>& chips() {
  static const std::vector<Chip> c = {{"h100-sxm", "H100 SXM"}, {"a100-sxm-80gb", "A100 SXM 80GB"},
                                      {"h200-sxm", "H200 SXM"}, {"mi300x", "MI300X"}, {"b200", "B200"}};
  return c;
}

std::string attention_text(const PublishedModel& m) {
  const ModelConfig& c = m.config;
  const std::string kind = c.kv_heads == c.heads ? "multi-head attention" : c.kv_heads == 1
                                                                                ? "multi-query attention"
                                                                                : "grouped-query attention";
  return m.name + " has " + format_int(c.layers) + " layers and " + kind + " with " + format_int(c.heads) +
         " query heads, " + counted(c.kv_heads, "key/value head") + " and a head size of " + format_int(c.head_dim) +
         ".";
}

// The parameter count as the prompt shows it (3 significant digits, in billions), so that the
// numbers shown are the numbers computed with.
double shown_params(const PublishedModel& m) { return std::stod(format_number(m.params / 1e9, 3)) * 1e9; }

// Contexts a request of `m` can have: the usual powers of two up to its trained context.
std::vector<int> contexts_for(const PublishedModel& m, std::vector<int> from) {
  std::vector<int> out;
  for (int t : from)
    if (t <= m.config.seq) out.push_back(t);
  return out;
}

Exercise kv_per_token(Rng& rng) {
  const PublishedModel& m = *rng.pick(dense_models());
  const ModelConfig& c = m.config;
  const std::string dtype = rng.pick(std::vector<std::string>{"bf16", "fp8-e4m3", "fp32"});
  const double s = dtype_bytes(dtype);
  const double bytes = kv_bytes_per_token(c.layers, c.kv_heads, c.head_dim, s);
  Exercise e;
  e.title = "KV-cache bytes per token";
  e.params = {{"layers", c.layers}, {"kv_heads", c.kv_heads}, {"head_dim", c.head_dim}, {"dtype", dtype},
              {"context", 1}};
  e.prompt = attention_text(m) + " Its KV cache is stored in " + dtype + " (" + bytes_per_element(s) + " per element). How many bytes of KV cache does one token occupy? Answer in KB (1 KB = 1,000 B).";
  e.unit = "KB";
  e.answer = bytes / 1e3;
  e.hint = "Every layer keeps a key and a value vector for each key/value head: 2 × layers × kv_heads × head_dim × "
           "bytes per element. Query heads do not count.";
  e.solution = (c.kv_heads == c.heads ? std::string("Grouping the heads into 8 key/value heads would cut this to ") +
                                            format_number(bytes * 8 / c.kv_heads / 1e3, 6) + " KB. "
                                      : "With " + format_int(c.heads) + " key/value heads (multi-head attention) it "
                                        "would be " + format_number(bytes * c.heads / c.kv_heads / 1e3, 6) + " KB. ") +
               "2 × " + format_int(c.layers) + " × " + format_int(c.kv_heads) + " × " + format_int(c.head_dim) +
               " × " + format_number(s, 2) + " B = " + format_int(bytes) + " B = " + format_number(e.answer, 6) +
               " KB per token.";
  require(e, find_published_model(m.id) != nullptr && c.heads >= c.kv_heads, m.id + " is a row of the model table");
  reject_mistake(e, e.answer / 2, "stored the keys or the values only");
  reject_mistake_where_distinct(e, e.answer * c.heads / c.kv_heads, "counted the query heads");
  return e;
}

Exercise sequences_fit(Rng& rng) {
  // Redraw until the setting is one a server would run: a context the model was trained for,
  // the fewest GPUs (1, 2, 4 or 8) whose budget leaves at least a quarter for the KV cache,
  // and room for at least one sequence.
  for (;;) {
    const PublishedModel& m = *rng.pick(dense_models());
    const ModelConfig& cfg = m.config;
    const Chip& chip = rng.pick(chips());
    const Accelerator& a = *find_accelerator(chip.id);
    const std::string wd = rng.pick(std::vector<std::string>{"bf16", "fp8-e4m3"});
    const std::vector<int> ctxs = contexts_for(m, {1024, 2048, 4096, 8192, 16384, 32768});
    const int context = rng.pick(ctxs);
    const double frac = 0.9;
    const double params = shown_params(m);
    const double weights = params * dtype_bytes(wd);
    int count = 0;
    for (int n : {1, 2, 4, 8})
      if (frac * n * a.hbm_bytes - weights >= 0.25 * frac * n * a.hbm_bytes) {
        count = n;
        break;
      }
    if (count == 0) continue;
    const double hbm = a.hbm_bytes * count;
    const double kvb = kv_bytes_per_token(cfg.layers, cfg.kv_heads, cfg.head_dim, 2);
    const double free = hbm * frac - weights;
    const double answer = std::floor(free / (kvb * context));
    if (answer < 1) continue;
    const double gib = a.hbm_bytes / 1073741824.0;
    Exercise e;
    e.title = "How many sequences fit?";
    e.params = {{"params", params}, {"layers", cfg.layers}, {"heads", cfg.heads}, {"kv_heads", cfg.kv_heads},
                {"head_dim", cfg.head_dim}, {"weight_dtype", wd}, {"kv_dtype", "bf16"}, {"context", context},
                {"hbm_bytes", hbm}, {"memory_fraction", frac}};
    e.prompt = attention_text(m) + " It has " + format_number(params / 1e9, 3) + " billion parameters, served in " +
               wd + " with a bf16 KV cache on " + (count > 1 ? format_int(count) + " × " : std::string("one ")) +
               chip.name + " (" + format_int(gib) + " GiB" + (count > 1 ? " each" : "") + ", 1 GiB = 2^30 B" +
               (count > 1 ? "; weights and KV cache split evenly across them" : "") +
               "). The serving engine's budget is 90% of the memory; count only the weights and the KV cache in it, "
               "which gives an upper bound (a real engine's activations and CUDA graphs take part of the budget "
               "too). At most how many sequences of " +
               format_int(context) + " tokens can hold their full KV cache at once?";
    e.unit = "";
    e.answer = answer;
    e.integer = true;
    e.hint = "Memory left for the KV cache = 0.9 × total HBM − parameters × bytes per weight. Divide by the KV bytes "
             "of one sequence (2 × layers × kv_heads × head_dim × 2 B × context) and round down.";
    e.solution = "HBM: " + format_int(count) + " × " + format_int(gib) + " GiB = " + format_number(hbm / 1e9, 5) +
                 " GB; 90% is " + format_number(hbm * frac / 1e9, 5) + " GB. Weights: " +
                 format_number(params / 1e9, 3) + " billion × " + format_number(dtype_bytes(wd), 2) + " B = " +
                 format_number(weights / 1e9, 5) + " GB, leaving " + format_number(free / 1e9, 5) +
                 " GB. One sequence: " + format_int(kvb) + " B × " + format_int(context) + " = " +
                 format_number(kvb * context / 1e9, 5) + " GB. " + format_number(free / 1e9, 5) + " / " +
                 format_number(kvb * context / 1e9, 5) + " = " + format_number(free / (kvb * context), 5) + ", so " +
                 counted(e.answer, "sequence") + " at most; the activations and CUDA graphs of a real engine leave room for " +
                 "somewhat fewer.";
    require(e, context <= cfg.seq, "the context is within the one " + m.name + " was trained for");
    require_fits(e, weights + e.answer * kvb * context, frac * hbm, "the weights and the sequences' caches in 90% of the memory");
    require_whole(e, count, "the GPUs");
    reject_mistake_where_distinct(e, std::floor((hbm - weights) / (kvb * context)), "used all of the memory, not 90%");
    reject_mistake_where_distinct(e, std::floor((count * gib * 1e9 * frac - weights) / (kvb * context)),
                                  "read GiB as 10^9 bytes");
    reject_mistake_where_distinct(e, std::floor(free / (kvb * context / 2)), "counted the keys or the values only");
    return e;
  }
}

Exercise tpot_bound(Rng& rng) {
  // Redraw until the step is one a server would run and the KV cache matters: the weights and
  // the batch's cache fit in 90% of one GPU, the context is within the model's, the step is
  // memory-bound at the chip's real peak, and the cache is at least a fifth of the bytes, so
  // that forgetting it (weights only) or counting one sequence's cache is clearly wrong.
  for (;;) {
    const PublishedModel& m = *rng.pick(dense_models());
    const ModelConfig& cfg = m.config;
    const Chip& chip = rng.pick(chips());
    const Accelerator& a = *find_accelerator(chip.id);
    const std::string wd = rng.pick(std::vector<std::string>{"bf16", "fp8-e4m3", "int4"});
    const std::vector<int> ctxs = contexts_for(m, {1024, 2048, 4096, 8192, 16384, 32768});
    const int context = rng.pick(ctxs);
    const int batch = rng.pick(std::vector<int>{4, 8, 16, 32, 64});
    const std::optional<double> peak = a.peak_for(serving_compute_dtype(wd));
    if (!peak) continue;
    const double wb = dtype_bytes(wd);
    const double kvb = kv_bytes_per_token(cfg.layers, cfg.kv_heads, cfg.head_dim, 2);
    const double params = shown_params(m);
    const double weights = params * wb, kv = static_cast<double>(batch) * context * kvb;
    if (weights + kv > 0.9 * a.hbm_bytes || kv < 0.2 * (weights + kv)) continue;
    const DecodeEstimate d = decode_estimate(served_model(cfg, params), wd, "bf16", batch, context, 1, *peak,
                                             a.hbm_bandwidth_Bps, a.hbm_bytes);
    if (d.bound != "memory") continue;
    const double tbps = a.hbm_bandwidth_Bps / 1e12;
    Exercise e;
    e.title = "The decode speed limit";
    e.params = {{"params", params}, {"layers", cfg.layers}, {"heads", cfg.heads}, {"kv_heads", cfg.kv_heads},
                {"head_dim", cfg.head_dim}, {"weight_dtype", wd}, {"kv_dtype", "bf16"}, {"batch", batch},
                {"context", context}, {"prompt", 1}, {"hardware", chip.id}};
    e.prompt = "A server decodes a batch of " + format_int(batch) + " sequences of " + m.name + " (" +
               format_number(params / 1e9, 3) + " billion parameters, " + wd + " weights, " +
               bytes_per_element(wb) + " each) on one " + chip.name + " with " + format_number(tbps, 4) +
               " TB/s of memory bandwidth. Its bf16 KV cache takes " + format_int(kvb) +
               " B per token, and each sequence already holds " + format_int(context) +
               " tokens. Ignoring compute, what is the lower bound on the time of one decode step (the time per "
               "output token), in ms?";
    e.unit = "ms";
    e.answer = d.tpot_s * 1e3;
    e.hint = "Each decode step must read every weight once and the whole KV cache of every sequence in the batch. "
             "Time ≥ bytes ÷ bandwidth.";
    e.solution = "Weights: " + format_number(params / 1e9, 3) + " billion × " + format_number(wb, 2) + " B = " +
                 format_number(weights / 1e9, 4) + " GB (alone they would take " +
                 format_number(weights / a.hbm_bandwidth_Bps * 1e3, 4) + " ms); KV cache: " + format_int(batch) +
                 " × " + format_int(context) + " × " + format_int(kvb) + " B = " + format_number(kv / 1e9, 4) +
                 " GB. Every step streams both, so each user gets at most " + format_number(1e3 / e.answer, 4) +
                 " tokens/s: (" + format_number((weights + kv) / 1e9, 5) + " GB) ÷ " + format_number(tbps, 4) +
                 " TB/s = " + format_number(e.answer, 4) + " ms per token.";
    require_fits(e, weights + kv, 0.9 * a.hbm_bytes, "the weights and the batch's KV cache in 90% of one " + chip.name);
    require(e, context <= cfg.seq, "the context is within the one " + m.name + " was trained for");
    reject_mistake(e, weights / a.hbm_bandwidth_Bps * 1e3, "read the weights only (forgot the KV cache)");
    reject_mistake(e, (weights + kv / batch) / a.hbm_bandwidth_Bps * 1e3, "read one sequence's cache, not the batch's");
    return e;
  }
}

Exercise spec_tokens(Rng& rng) {
  const double alpha = rng.integer(50, 95) / 100.0;
  const int gamma = rng.integer(2, 8);
  Exercise e;
  e.title = "Tokens per speculative round";
  e.params = {{"alpha", alpha}, {"gamma", gamma}, {"draft_cost", 0.0}};
  e.prompt = "A draft model proposes γ = " + format_int(gamma) + " tokens per round and the target accepts each with "
             "probability α = " + format_number(alpha, 2) + ", independently. How many tokens does one round emit on "
             "average (kept draft tokens plus the one the target always adds)?";
  e.unit = "";
  e.answer = speculative_expected_tokens(alpha, gamma);
  e.hint = "The round emits k + 1 tokens when the first k drafts are kept; summing α^k for k = 0..γ gives (1 − "
           "α^(γ+1)) / (1 − α).";
  e.solution = "(1 − " + format_number(alpha, 2) + "^" + format_int(gamma + 1) + ") / (1 − " +
               format_number(alpha, 2) + ") = (1 − " + format_number(std::pow(alpha, gamma + 1), 4) + ") / " +
               format_number(1 - alpha, 2) + " = " + format_number(e.answer, 4) + " tokens per target pass.";
  require(e, e.answer >= 1 && e.answer <= gamma + 1, "a round emits between 1 and \u03B3 + 1 tokens");
  reject_mistake(e, e.answer - 1, "left out the token the target always adds");
  reject_mistake_where_distinct(e, alpha * gamma + 1, "took \u03B1\u00B7\u03B3 kept drafts, as if a rejection did not end the round");
  return e;
}

Exercise spec_speedup(Rng& rng) {
  const double alpha = rng.integer(55, 92) / 100.0;
  const int gamma = rng.integer(2, 8);
  const double c = rng.pick(std::vector<double>{0.02, 0.05, 0.1, 0.15, 0.2});
  Exercise e;
  e.title = "Is speculation worth it?";
  e.params = {{"alpha", alpha}, {"gamma", gamma}, {"draft_cost", c}};
  e.prompt = "A draft model costs c = " + format_number(c, 2) + " of a target forward pass per token. With γ = " +
             format_int(gamma) + " draft tokens per round and an acceptance rate α = " + format_number(alpha, 2) +
             ", what walltime speedup over plain decoding does Leviathan et al.'s formula predict, as a ratio of "
             "walltimes?";
  e.unit = "";
  e.answer = speculative_speedup(alpha, gamma, c);
  e.hint = "A round costs γ·c + 1 target-pass times and emits (1 − α^(γ+1)) / (1 − α) tokens on average; plain "
           "decoding emits 1 token per target pass.";
  const double tokens = speculative_expected_tokens(alpha, gamma);
  e.solution = "Tokens per round = (1 − " + format_number(alpha, 2) + "^" + format_int(gamma + 1) + ") / " +
               format_number(1 - alpha, 2) + " = " + format_number(tokens, 4) + "; cost per round = " +
               format_int(gamma) + " × " + format_number(c, 2) + " + 1 = " + format_number(gamma * c + 1, 4) +
               "; speedup = " + format_number(tokens, 4) + " / " + format_number(gamma * c + 1, 4) + " = " +
               format_number(e.answer, 4) + "×.";
  require(e, c < 1 && alpha < 1, "the draft is cheaper than the target and some drafts are rejected");
  reject_mistake_where_distinct(e, tokens, "left out the draft's cost");
  return e;
}

Exercise paged_slack(Rng& rng) {
  // The sequences' caches must fit in one H100 SXM (80 GB): 256 sequences of 3,000 tokens at
  // 800 KB a token would take 629 GB.
  const double capacity = find_accelerator("h100-sxm")->hbm_bytes;
  int block = 0, n = 0, tokens = 0;
  double kvb = 0;
  KvBlocks b{};
  do {
    block = rng.pick(std::vector<int>{8, 16, 32, 64, 128});
    n = rng.pick(std::vector<int>{16, 32, 64, 128, 256});
    tokens = rng.integer(200, 3000);
    if (tokens % block == 0) tokens += 1;  // a partly filled last block
    kvb = rng.pick(std::vector<double>{131072, 163840, 327680, 819200});
    b = kv_blocks(tokens, block, 4096);
  } while (n * b.paged_tokens * kvb > capacity);
  Exercise e;
  e.title = "Slack in the last block";
  e.params = {{"tokens", tokens}, {"block_size", block}, {"max_context", 4096}, {"bytes_per_token", kvb},
              {"sequences", n}};
  e.prompt = "A paged KV cache stores " + format_int(n) + " sequences of " + format_int(tokens) +
             " tokens each in blocks of " + format_int(block) + " tokens; one token's KV takes " + format_int(kvb) +
             " B. How much memory is allocated but empty in the sequences' last blocks, in MB (1 MB = 10^6 B)?";
  e.unit = "MB";
  e.answer = b.slack_tokens * n * kvb / 1e6;
  e.abs_tolerance = 0;
  e.hint = "Each sequence holds ceil(tokens / block) blocks; the empty slots are blocks × block size − tokens. "
           "Multiply by the sequences and the bytes per token.";
  e.solution = "A contiguous reservation of 4,096 slots would leave " +
               format_number(b.contiguous_waste_tokens * n * kvb / 1e6, 5) + " MB unused. With paging, ceil(" +
               format_int(tokens) + " / " + format_int(block) + ") = " + format_int(b.blocks) + " blocks = " +
               format_int(b.paged_tokens) + " slots, " + format_int(b.slack_tokens) + " of them empty: " +
               format_int(b.slack_tokens) + " × " + format_int(n) + " × " + format_int(kvb) + " B = " +
               format_number(e.answer, 5) + " MB.";
  require(e, tokens <= 4096 && b.slack_tokens >= 1 && b.slack_tokens < block,
          "the last block is partly filled and the sequence fits the 4,096-token reservation");
  require_fits(e, n * b.paged_tokens * kvb, capacity, "the sequences' paged caches in one H100 SXM");
  reject_mistake_where_distinct(e, b.contiguous_waste_tokens * n * kvb / 1e6, "gave the waste of a contiguous reservation");
  reject_mistake(e, b.slack_tokens * kvb / 1e6, "counted one sequence's slack");
  return e;
}

}  // namespace

void add_serving_exercises(std::vector<Generator>& out) {
  out.push_back({"serve-kv-bytes-per-token", kv_per_token});
  out.push_back({"serve-sequences-fit", sequences_fit});
  out.push_back({"serve-tpot-bound", tpot_bound});
  out.push_back({"serve-spec-tokens", spec_tokens});
  out.push_back({"serve-spec-speedup", spec_speedup});
  out.push_back({"serve-paged-slack", paged_slack});
}

}  // namespace mlsys::exercises
