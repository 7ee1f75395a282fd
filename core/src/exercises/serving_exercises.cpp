// Exercises of the llm-serving lesson: KV bytes per token of a GQA model, sequences that fit
// beside the weights, the decode TPOT bound, speculative decoding's expected tokens and
// speedup, and the slack of paged KV blocks. Numbers shown are the numbers computed with;
// `params` are the inputs of the kv-cache, kv-capacity, decode, speculative and kv-paging
// calculators.
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/serving/kv_cache.hpp"
#include "mlsys/serving/speculative.hpp"

namespace mlsys::exercises {

namespace {

// Published attention shapes (model cards / config.json of each model).
struct Shape {
  std::string name;
  int layers, heads, kv_heads, head_dim;
  double params_b;  // billions, as usually quoted
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {
      {"Llama 3 8B", 32, 32, 8, 128, 8.0},      {"Llama 3 70B", 80, 64, 8, 128, 70.6},
      {"Mistral 7B", 32, 32, 8, 128, 7.2},      {"Qwen2 72B", 80, 64, 8, 128, 72.7},
      {"Llama 2 70B", 80, 64, 8, 128, 69.0},    {"Llama 2 7B", 32, 32, 32, 128, 6.7},
      {"Falcon 40B", 60, 128, 8, 64, 40.0},     {"Qwen2 7B", 28, 28, 4, 128, 7.6},
  };
  return s;
}

std::string attention_text(const Shape& m) {
  const std::string kind = m.kv_heads == m.heads ? "multi-head attention" : m.kv_heads == 1
                                                                                ? "multi-query attention"
                                                                                : "grouped-query attention";
  return m.name + " has " + format_int(m.layers) + " layers and " + kind + " with " + format_int(m.heads) +
         " query heads, " + format_int(m.kv_heads) + " key/value heads and a head size of " + format_int(m.head_dim) +
         ".";
}

Exercise kv_per_token(Rng& rng) {
  const Shape& m = rng.pick(shapes());
  const std::string dtype = rng.pick(std::vector<std::string>{"bf16", "fp8-e4m3", "fp32"});
  const double s = dtype_bytes(dtype);
  const double bytes = kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim, s);
  Exercise e;
  e.title = "KV-cache bytes per token";
  e.params = {{"layers", m.layers}, {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim}, {"dtype", dtype},
              {"context", 1}};
  e.prompt = attention_text(m) + " Its KV cache is stored in " + dtype + " (" + bytes_per_element(s) + " per element). How many bytes of KV cache does one token occupy? Answer in KB (1 KB = 1,000 B).";
  e.unit = "KB";
  e.answer = bytes / 1e3;
  e.hint = "Every layer keeps a key and a value vector for each key/value head: 2 × layers × kv_heads × head_dim × "
           "bytes per element. Query heads do not count.";
  e.solution = (m.kv_heads == m.heads ? std::string("Grouping the heads into 8 key/value heads would cut this to ") +
                                            format_number(bytes * 8 / m.kv_heads / 1e3, 6) + " KB. "
                                      : "With " + format_int(m.heads) + " key/value heads (multi-head attention) it "
                                        "would be " + format_number(bytes * m.heads / m.kv_heads / 1e3, 6) + " KB. ") +
               "2 × " + format_int(m.layers) + " × " + format_int(m.kv_heads) + " × " + format_int(m.head_dim) +
               " × " + format_number(s, 2) + " B = " + format_int(bytes) + " B = " + format_number(e.answer, 6) +
               " KB per token.";
  return e;
}

Exercise sequences_fit(Rng& rng) {
  const Shape& m = rng.pick(shapes());
  struct Gpu {
    std::string name;
    int gib;
    int count;
  };
  // Enough memory for the weights: one GPU for the small models, eight for the large ones.
  const bool big = m.params_b > 20;
  const Gpu g = big ? rng.pick(std::vector<Gpu>{{"H100 SXM", 80, 8}, {"H200 SXM", 141, 4}, {"MI300X", 192, 2},
                                                {"B200", 180, 4}})
                    : rng.pick(std::vector<Gpu>{{"H100 SXM", 80, 1}, {"A100 SXM", 80, 1}, {"L40S", 48, 1},
                                                {"H200 SXM", 141, 1}});
  const std::string wd = big ? rng.pick(std::vector<std::string>{"bf16", "fp8-e4m3"}) : "bf16";
  const int context = rng.pick(std::vector<int>{2048, 4096, 8192, 16384, 32768});
  const double frac = 0.9;
  const double hbm = static_cast<double>(g.gib) * g.count * 1073741824.0;
  const double weights = m.params_b * 1e9 * dtype_bytes(wd);
  const double kvb = kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim, 2);
  const double free = hbm * frac - weights;
  Exercise e;
  e.title = "How many sequences fit?";
  e.params = {{"params", m.params_b * 1e9}, {"layers", m.layers}, {"heads", m.heads}, {"kv_heads", m.kv_heads},
              {"head_dim", m.head_dim}, {"weight_dtype", wd}, {"kv_dtype", "bf16"}, {"context", context},
              {"hbm_bytes", hbm}, {"memory_fraction", frac}};
  e.prompt = attention_text(m) + " It has " + format_number(m.params_b, 3) + " billion parameters, served in " + wd +
             " with a bf16 KV cache on " + (g.count > 1 ? format_int(g.count) + " × " : std::string("one ")) + g.name + " (" +
             format_int(g.gib) + " GiB" + (g.count > 1 ? " each" : "") + ", 1 GiB = 2^30 B" +
             (g.count > 1 ? "; weights and KV cache split evenly across them" : "") + "). The server may use 90% of the memory for weights and KV cache. How many sequences of " +
             format_int(context) + " tokens can hold their full KV cache at once?";
  e.unit = "";
  e.answer = std::floor(free / (kvb * context));
  e.integer = true;
  e.hint = "Memory left for the KV cache = 0.9 × total HBM − parameters × bytes per weight. Divide by the KV bytes of "
           "one sequence (2 × layers × kv_heads × head_dim × 2 B × context) and round down.";
  e.solution = "HBM: " + format_int(g.count) + " × " + format_int(g.gib) + " GiB = " + format_number(hbm / 1e9, 5) +
               " GB; 90% is " + format_number(hbm * frac / 1e9, 5) + " GB. Weights: " + format_number(m.params_b, 3) +
               "e9 × " + format_number(dtype_bytes(wd), 2) + " B = " + format_number(weights / 1e9, 5) +
               " GB, leaving " + format_number(free / 1e9, 5) + " GB. One sequence: " + format_int(kvb) + " B × " +
               format_int(context) + " = " + format_number(kvb * context / 1e9, 5) + " GB. " +
               format_number(free / 1e9, 5) + " / " + format_number(kvb * context / 1e9, 5) + " = " +
               format_number(free / (kvb * context), 5) + ", so " + format_int(e.answer) + " sequences.";
  return e;
}

Exercise tpot_bound(Rng& rng) {
  const Shape& m = rng.pick(shapes());
  struct Chip {
    std::string name;
    double tbps;
  };
  const Chip c = rng.pick(std::vector<Chip>{{"H100 SXM", 3.35}, {"H200 SXM", 4.8}, {"A100 SXM 80GB", 2.039},
                                            {"MI300X", 5.3}, {"B200", 8.0}});
  const std::string wd = rng.pick(std::vector<std::string>{"bf16", "fp8-e4m3", "int4"});
  const int context = rng.pick(std::vector<int>{1024, 4096, 8192, 32768});
  const double wb = dtype_bytes(wd);
  const double kvb = kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim, 2);
  const double bytes = m.params_b * 1e9 * wb + context * kvb;
  Exercise e;
  e.title = "The decode speed limit";
  e.params = {{"params", m.params_b * 1e9}, {"layers", m.layers}, {"heads", m.heads}, {"kv_heads", m.kv_heads},
              {"head_dim", m.head_dim}, {"weight_dtype", wd}, {"kv_dtype", "bf16"}, {"batch", 1},
              {"context", context}, {"prompt", 1}, {"peak_flops", 1e15}, {"bandwidth_Bps", c.tbps * 1e12}};
  e.prompt = "A single user chats with " + m.name + " (" + format_number(m.params_b, 3) + " billion parameters, " +
             wd + " weights, " + bytes_per_element(wb) + " each) on one " + c.name + " with " +
             format_number(c.tbps, 4) + " TB/s of memory bandwidth. Its bf16 KV cache takes " + format_int(kvb) +
             " B per token and already holds " + format_int(context) +
             " tokens. Ignoring compute, what is the lower bound on the time per output token, in ms?";
  e.unit = "ms";
  e.answer = bytes / (c.tbps * 1e12) * 1e3;
  e.hint = "Each decode step must read every weight once and the whole KV cache of the sequence. Time ≥ bytes ÷ "
           "bandwidth.";
  e.solution = "Weights: " + format_number(m.params_b, 3) + "e9 × " + format_number(wb, 2) + " B = " +
               format_number(m.params_b * wb, 4) + " GB; KV cache: " + format_int(context) + " × " + format_int(kvb) +
               " B = " + format_number(context * kvb / 1e9, 4) + " GB. Every token streams both, so this user gets at "
               "most " + format_number(1e3 / e.answer, 4) + " tokens/s: (" + format_number(bytes / 1e9, 5) +
               " GB) ÷ " + format_number(c.tbps, 4) + " TB/s = " + format_number(e.answer, 4) + " ms per token.";
  return e;
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
             ", what walltime speedup over plain decoding does Leviathan et al.'s formula predict (as a ratio, "
             "e.g. 2.1)?";
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
  return e;
}

Exercise paged_slack(Rng& rng) {
  const int block = rng.pick(std::vector<int>{8, 16, 32, 64, 128});
  const int n = rng.pick(std::vector<int>{16, 32, 64, 128, 256});
  int tokens = rng.integer(200, 3000);
  if (tokens % block == 0) tokens += 1;  // a partly filled last block
  const double kvb = rng.pick(std::vector<double>{131072, 163840, 327680, 819200});
  const KvBlocks b = kv_blocks(tokens, block, 4096);
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
