// Calculators of the llm-serving lesson: `kv-cache`, `decode` and `speculative` (shared/API.md),
// and `kv-capacity`, `decode-curve`, `batching-sim`, `kv-paging`, `kv-paging-sim`,
// `speculative-sample` (executed sampler).
#include <algorithm>
#include <cmath>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/serving/batching_sim.hpp"
#include "mlsys/serving/decode.hpp"
#include "mlsys/serving/kv_cache.hpp"
#include "mlsys/serving/kv_paging.hpp"
#include "mlsys/serving/speculative.hpp"
#include "mlsys/transformer/model_config.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {



// A decoder-only transformer (defaults: Llama-2-7B, multi-head attention), or `params`.
std::vector<Field> model_fields() {
  return {integer_field("layers", "", "Transformer layers", 32, 1, 1024),
          integer_field("hidden", "", "Model width h", 4096, 64, 131072),
          integer_field("heads", "", "Query heads", 32, 1, 1024),
          optional(integer_field("kv_heads", "",
                                 "Key/value heads: = heads is multi-head, 1 is multi-query, between is grouped-query "
                                 "attention; default heads",
                                 json(), 1, 1024)),
          optional(integer_field("head_dim", "", "Size of one head; default hidden / heads", json(), 8, 1024)),
          integer_field("ffn_hidden", "", "MLP inner width", 11008, 1, 1048576),
          integer_field("vocab", "", "Vocabulary size", 32000, 1, 4194304),
          boolean_field("gated_mlp", "Gated MLP (SwiGLU): three matrices of width ffn_hidden", true),
          boolean_field("tied_embeddings", "Output head shares the input embedding matrix", false),
          optional(number_field("params", "", "Parameter count; overrides the config's count (layers, kv_heads and "
                                              "head_dim still set the KV cache)",
                                json(), 1e6, 1e13))};
}

struct Model {
  ModelConfig config;
  double resident_params;  // every weight kept in HBM
  double matmul_params;    // weights multiplied (and streamed) per token
};

Model model_from(const Inputs& in) {
  Model m;
  m.config = model_config_from(in);
  const ModelConfig& c = m.config;
  if (in.has("params")) {
    m.resident_params = m.matmul_params = in.num("params");
  } else {
    const ModelCounts n = model_counts(c);
    m.resident_params = n.params;
    // Every layer plus the output head (vocab × hidden); the embedding lookup reads one row.
    m.matmul_params = n.params_non_embedding + c.vocab * c.hidden;
  }
  return m;
}

// Weights in int4 are dequantized and multiplied in bf16 (weight-only quantization); other
// weight types run at their own peak.
std::string compute_dtype(const std::string& weight_dtype) { return weight_dtype == "int4" ? "bf16" : weight_dtype; }

Machine machine_for(const Inputs& in, const std::string& weight_dtype) {
  try {
    return machine_from(in, compute_dtype(weight_dtype));
  } catch (const InputError& e) {
    if (e.field == "dtype") throw InputError("weight_dtype", e.what());
    throw;
  }
}

ServingModel serving_model(const Model& m, const std::string& weight_dtype, const std::string& kv_dtype) {
  const ModelConfig& c = m.config;
  return {m.matmul_params, m.matmul_params * dtype_bytes(weight_dtype),
          kv_bytes_per_token(c.layers, c.kv_heads, c.head_dim, dtype_bytes(kv_dtype)), c.layers, c.heads, c.head_dim};
}

std::vector<Field> with(std::vector<Field> a, const std::vector<Field>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Field> dtype_pair() {
  return {string_field("weight_dtype", "Weight data type (int4: weight-only, multiplied in bf16)", "bf16", dtype_names()),
          string_field("kv_dtype", "KV-cache data type", "bf16", dtype_names())};
}

json phase_json(const PhaseCost& p, const Machine& m) {
  return {{"flops", p.flops},
          {"bytes", p.bytes},
          {"time_s", p.time_s},
          {"bound", p.bound},
          {"compute_time_s", p.flops / m.peak_flops},
          {"memory_time_s", p.bytes / m.bandwidth_Bps}};
}

json batching_json(const BatchingResult& r) {
  return {{"tokens_per_s", r.tokens_per_s},
          {"requests_per_s", r.requests_per_s},
          {"latency_p50_s", r.latency_p50_s},
          {"latency_p90_s", r.latency_p90_s},
          {"latency_p99_s", r.latency_p99_s},
          {"latency_mean_s", r.latency_mean_s},
          {"ttft_p50_s", r.ttft_p50_s},
          {"ttft_p99_s", r.ttft_p99_s},
          {"ttft_mean_s", r.ttft_mean_s},
          {"tpot_mean_s", r.tpot_mean_s},
          {"mean_batch", r.mean_batch},
          {"mean_in_system", r.mean_in_system},
          {"littles_law_in_system", r.requests_per_s * r.latency_mean_s},
          {"steps", r.steps},
          {"makespan_s", r.makespan_s},
          {"output_tokens", r.output_tokens},
          {"padded_tokens", r.padded_tokens}};
}

json paging_json(const PagingResult& r) {
  return {{"block_size", r.block_size},
          {"steps", r.steps},
          {"mean_batch", r.mean_batch},
          {"max_batch", r.max_batch},
          {"tokens_per_step", r.tokens_per_step},
          {"used_fraction", r.used_fraction},
          {"reserved_fraction", r.reserved_fraction},
          {"internal_fraction", r.internal_fraction},
          {"external_fraction", r.external_fraction},
          {"free_fraction", r.free_fraction},
          {"waste_fraction", r.waste_fraction},
          {"preemptions", r.preemptions}};
}

}  // namespace

void add_serving_calculators(Calculators& out) {
  out.push_back(
      {"kv-cache",
       "Bytes of the KV cache: each layer stores a key and a value vector per KV head and token, "
       "2 · layers · kv_heads · head_dim · bytes per token (Kwon et al. 2023: 800 KB per token for OPT-13B in fp16).",
       {integer_field("layers", "", "Transformer layers", 32, 1, 1024),
        integer_field("kv_heads", "", "Key/value heads (grouped-query: fewer than the query heads)", 8, 1, 1024),
        integer_field("head_dim", "", "Size of one head", 128, 1, 1024), dtype_field("bf16"),
        integer_field("context", "tokens", "Tokens cached per sequence", 4096, 1, 16777216),
        integer_field("batch", "", "Sequences", 1, 1, 1000000)},
       [](const Inputs& in) -> json {
         const double per_token =
             kv_bytes_per_token(static_cast<double>(in.integer("layers")), static_cast<double>(in.integer("kv_heads")),
                                static_cast<double>(in.integer("head_dim")), dtype_bytes(in.str("dtype")));
         const double per_seq = per_token * static_cast<double>(in.integer("context"));
         return {{"bytes_per_token", per_token},
                 {"bytes_per_sequence", per_seq},
                 {"total_bytes", per_seq * static_cast<double>(in.integer("batch"))}};
       }});

  std::vector<Field> cap_fields = with(model_fields(), dtype_pair());
  cap_fields.push_back(integer_field("context", "tokens", "Tokens cached per sequence", 4096, 1, 16777216));
  cap_fields.push_back(hardware_field(true));
  cap_fields.push_back(optional(number_field("hbm_bytes", "B", "Memory per GPU; overrides the hardware table", json(),
                                             1e6, 1e14, false)));
  cap_fields.push_back(number_field("memory_fraction", "",
                                    "Share of HBM the server may use for weights and KV (vLLM's "
                                    "gpu_memory_utilization; the rest holds activations and the runtime)",
                                    0.9, 0.05, 1.0));
  out.push_back(
      {"kv-capacity",
       "How many sequences of `context` tokens fit in HBM beside the weights: (hbm · memory_fraction − weights) / "
       "(kv_bytes_per_token · context), rounded down; `series` repeats it for contexts 256 to 1,048,576.",
       cap_fields, [](const Inputs& in) -> json {
         const Model m = model_from(in);
         const std::string wd = in.str("weight_dtype"), kd = in.str("kv_dtype");
         const double hbm = in.has("hbm_bytes") ? in.num("hbm_bytes") : find_accelerator(in.str("hardware"))->hbm_bytes;
         const double weights = m.resident_params * dtype_bytes(wd);
         const double kvb = kv_bytes_per_token(m.config.layers, m.config.kv_heads, m.config.head_dim, dtype_bytes(kd));
         const double frac = in.num("memory_fraction");
         const KvCapacity c = kv_capacity(hbm, frac, weights, kvb, static_cast<double>(in.integer("context")));
         json series = json::array();
         for (double ctx = 256; ctx <= 1048576; ctx *= 2) {
           const KvCapacity s = kv_capacity(hbm, frac, weights, kvb, ctx);
           series.push_back({{"context", ctx}, {"max_sequences", s.max_sequences}, {"bytes_per_sequence", s.bytes_per_sequence}});
         }
         return {{"weights_bytes", weights},       {"kv_bytes_per_token", kvb},
                 {"bytes_per_sequence", c.bytes_per_sequence}, {"hbm_bytes", hbm},
                 {"budget_bytes", c.budget_bytes}, {"free_bytes", c.free_bytes},
                 {"weights_fit", c.free_bytes > 0}, {"max_sequences", c.max_sequences},
                 {"max_tokens", c.max_tokens},     {"params", m.resident_params},
                 {"series", series}};
       }});

  std::vector<Field> dec_fields = with(model_fields(), dtype_pair());
  dec_fields.push_back(integer_field("batch", "", "Sequences decoded together", 1, 1, 4096));
  dec_fields.push_back(integer_field("context", "tokens", "Tokens in each sequence's KV cache during decode", 4096, 1,
                                     1048576));
  dec_fields.push_back(integer_field("prompt", "tokens", "Prompt tokens per sequence (prefill)", 2048, 1, 1048576));
  dec_fields.push_back(hardware_field(true));
  for (auto& f : machine_override_fields()) dec_fields.push_back(f);
  out.push_back(
      {"decode",
       "Roofline bounds of LLM inference. TTFT: one prefill pass over `prompt` tokens of `batch` sequences, "
       "max(FLOPs / peak, bytes / bandwidth) with FLOPs = batch · (2·N·prompt + 2·layers·heads·head_dim·prompt·"
       "(prompt+1)) (causal attention) and bytes = weights + KV written. TPOT: one decode step, max((weights + "
       "batch·context·KV bytes per token) / bandwidth, batch·(2·N + 4·layers·heads·head_dim·context) / peak). N = "
       "parameters multiplied per token (layers and output head). Ideal bounds: full peak and bandwidth, no "
       "overheads; the peak is the weight dtype's (int4 weights multiply in bf16).",
       dec_fields, [](const Inputs& in) -> json {
         const Model m = model_from(in);
         const std::string wd = in.str("weight_dtype"), kd = in.str("kv_dtype");
         const Machine mc = machine_for(in, wd);
         const ServingModel sm = serving_model(m, wd, kd);
         const double batch = static_cast<double>(in.integer("batch"));
         const double context = static_cast<double>(in.integer("context"));
         const double prompt = static_cast<double>(in.integer("prompt"));
         const PhaseCost pre = prefill_cost(sm, batch, prompt, mc.peak_flops, mc.bandwidth_Bps);
         const PhaseCost dec = decode_step_cost(sm, batch, context, mc.peak_flops, mc.bandwidth_Bps);
         json r = {{"ttft_s", pre.time_s},
                   {"tpot_s", dec.time_s},
                   {"tokens_per_s", batch / dec.time_s},
                   {"bound", dec.bound},
                   {"prefill_bound", pre.bound},
                   {"prefill", phase_json(pre, mc)},
                   {"decode_step", phase_json(dec, mc)},
                   {"decode_intensity", dec.flops / dec.bytes},
                   {"ridge_intensity", mc.peak_flops / mc.bandwidth_Bps},
                   {"weight_bytes", sm.weight_bytes},
                   {"weights_resident_bytes", m.resident_params * dtype_bytes(wd)},
                   {"kv_bytes_per_token", sm.kv_bytes_per_token},
                   {"kv_bytes", batch * context * sm.kv_bytes_per_token},
                   {"matmul_params", m.matmul_params},
                   {"compute_dtype", compute_dtype(wd)},
                   {"peak_flops", mc.peak_flops},
                   {"bandwidth_Bps", mc.bandwidth_Bps}};
         if (in.has("hardware")) {
           const double hbm = find_accelerator(in.str("hardware"))->hbm_bytes;
           const double need = m.resident_params * dtype_bytes(wd) +
                               batch * std::max(context, prompt) * sm.kv_bytes_per_token;
           r["hbm_bytes"] = hbm;
           r["memory_needed_bytes"] = need;
           r["fits"] = need <= hbm;
         }
         return r;
       }});

  std::vector<Field> curve_fields = with(model_fields(), dtype_pair());
  curve_fields.push_back(integer_field("context", "tokens", "Tokens in each sequence's KV cache", 4096, 1, 1048576));
  curve_fields.push_back(integer_field("max_batch", "", "Largest batch of the series", 512, 1, 4096));
  curve_fields.push_back(hardware_field(true));
  for (auto& f : machine_override_fields()) curve_fields.push_back(f);
  out.push_back(
      {"decode-curve",
       "The decode step of `decode` for batches 1 to max_batch (about 60 points): TPOT, tokens/s, the memory and "
       "compute times, and the smallest batch at which the step turns compute-bound (0 if none up to max_batch); with hardware, the largest batch whose KV cache fits beside the weights in 90% of HBM.",
       curve_fields, [](const Inputs& in) -> json {
         const Model m = model_from(in);
         const std::string wd = in.str("weight_dtype"), kd = in.str("kv_dtype");
         const Machine mc = machine_for(in, wd);
         const ServingModel sm = serving_model(m, wd, kd);
         const double context = static_cast<double>(in.integer("context"));
         const long long max_b = in.integer("max_batch");
         std::vector<long long> bs;
         for (int i = 0; i <= 60; ++i)
           bs.push_back(std::llround(std::pow(static_cast<double>(max_b), i / 60.0)));
         bs.erase(std::unique(bs.begin(), bs.end()), bs.end());
         json series = json::array();
         for (long long b : bs) {
           const PhaseCost d = decode_step_cost(sm, static_cast<double>(b), context, mc.peak_flops, mc.bandwidth_Bps);
           series.push_back({{"batch", b},
                             {"tpot_s", d.time_s},
                             {"tokens_per_s", static_cast<double>(b) / d.time_s},
                             {"memory_time_s", d.bytes / mc.bandwidth_Bps},
                             {"compute_time_s", d.flops / mc.peak_flops},
                             {"bound", d.bound}});
         }
         long long crossover = 0;  // the step's bound is monotone in the batch: bisect
         if (decode_step_cost(sm, static_cast<double>(max_b), context, mc.peak_flops, mc.bandwidth_Bps).bound ==
             "compute") {
           long long lo = 1, hi = max_b;
           while (lo < hi) {
             const long long mid = (lo + hi) / 2;
             if (decode_step_cost(sm, static_cast<double>(mid), context, mc.peak_flops, mc.bandwidth_Bps).bound ==
                 "compute")
               hi = mid;
             else
               lo = mid + 1;
           }
           crossover = lo;
         }
         json r = {{"series", series},
                   {"crossover_batch", crossover},
                   {"weight_bytes", sm.weight_bytes},
                   {"kv_bytes_per_token", sm.kv_bytes_per_token},
                   {"peak_flops", mc.peak_flops},
                   {"bandwidth_Bps", mc.bandwidth_Bps}};
         if (in.has("hardware")) {
           const double hbm = find_accelerator(in.str("hardware"))->hbm_bytes;
           const double free = 0.9 * hbm - m.resident_params * dtype_bytes(wd);  // kv-capacity's default share
           r["max_batch_fits"] = free > 0 ? std::floor(free / (context * sm.kv_bytes_per_token)) : 0.0;
         }
         return r;
       }});

  constexpr double kMaxSimTokens = 1e6;  // requests · (2·output_mean): bounds one call's work
  out.push_back(
      {"batching-sim",
       "Event-driven simulation of one seeded request stream (Poisson arrivals at rate_rps; prompt and output "
       "lengths uniform on [1, 2·mean − 1]) served by static batching (take up to max_batch waiting requests when "
       "idle, run until the longest finishes, return all together) and by continuous batching (admit and retire at "
       "every step). A step costs max((weights + KV bytes touched) / bandwidth, 2·N·tokens / peak). Results per "
       "policy: throughput, latency and TTFT percentiles (nearest rank), mean batch, and the time-average number "
       "of requests in the system next to Little's law λ·W.",
       {number_field("params", "", "Parameters N (weights streamed each step, 2·N FLOPs per token)", 8e9, 1e6, 1e13),
        string_field("weight_dtype", "Weight data type (int4 multiplies in bf16)", "bf16", dtype_names()),
        number_field("kv_bytes_per_token", "B", "KV bytes per token (kv-cache calculator)", 131072, 1.0, 1e8),
        hardware_field(true), machine_override_fields()[0], machine_override_fields()[1],
        number_field("rate_rps", "1/s", "Mean request arrival rate (requests per second)", 4, 0.001, 100000, true),
        integer_field("requests", "", "Requests in the stream", 400, 1, 4000),
        integer_field("prompt_mean", "tokens", "Mean prompt length", 512, 1, 32768),
        integer_field("output_mean", "tokens", "Mean output length", 256, 1, 4096),
        integer_field("max_batch", "", "Most sequences in one step", 32, 1, 1024), seed_field()},
       [](const Inputs& in) -> json {
         const int n = static_cast<int>(in.integer("requests"));
         const int om = static_cast<int>(in.integer("output_mean"));
         if (static_cast<double>(n) * (2.0 * om) > kMaxSimTokens)
           throw InputError("requests", "The simulation is capped at requests × 2·output_mean ≤ 1,000,000 tokens; use "
                                        "fewer requests or shorter outputs.");
         const std::string wd = in.str("weight_dtype");
         const Machine mc = machine_for(in, wd);
         const StepModel sm{in.num("params") * dtype_bytes(wd), in.num("kv_bytes_per_token"), 2 * in.num("params"),
                            mc.peak_flops, mc.bandwidth_Bps};
         const auto reqs = request_stream(n, in.num("rate_rps"), static_cast<int>(in.integer("prompt_mean")), om,
                                          static_cast<std::uint64_t>(in.integer("seed")));
         const int mb = static_cast<int>(in.integer("max_batch"));
         const BatchingResult st = simulate_batching(reqs, sm, mb, "static");
         const BatchingResult co = simulate_batching(reqs, sm, mb, "continuous");
         double out_tokens = 0;
         for (const auto& r : reqs) out_tokens += r.output;
         return {{"static", batching_json(st)},
                 {"continuous", batching_json(co)},
                 {"requests", n},
                 {"offered_tokens_per_s", in.num("rate_rps") * out_tokens / n},
                 {"decode_step_s", sm.step_time_s(1, 0)},
                 {"simulated", "event-driven, every request"}};
       }});

  out.push_back(
      {"kv-paging",
       "Paged KV storage of `sequences` sequences of `tokens` tokens in blocks of block_size tokens, against a "
       "contiguous reservation of max_context slots each: blocks, last-block slack (internal fragmentation) and "
       "the reservation's unused slots, in tokens and bytes.",
       {integer_field("tokens", "tokens", "Tokens in the sequence", 1000, 1, 16777216),
        integer_field("block_size", "tokens", "Tokens per KV block", 16, 1, 4096),
        integer_field("max_context", "tokens", "Contiguous reservation per sequence (the longest allowed)", 2048, 1,
                      16777216),
        number_field("bytes_per_token", "B", "KV bytes per token (kv-cache calculator)", 131072, 1.0, 1e8),
        integer_field("sequences", "", "Sequences of this length", 1, 1, 1000000)},
       [](const Inputs& in) -> json {
         const double t = static_cast<double>(in.integer("tokens")), mc = static_cast<double>(in.integer("max_context"));
         if (t > mc) throw InputError("tokens", "'tokens' cannot exceed the reservation 'max_context'.");
         const KvBlocks b = kv_blocks(t, static_cast<double>(in.integer("block_size")), mc);
         const double bpt = in.num("bytes_per_token"), n = static_cast<double>(in.integer("sequences"));
         return {{"blocks", b.blocks * n},
                 {"paged_tokens", b.paged_tokens * n},
                 {"slack_tokens", b.slack_tokens * n},
                 {"slack_bytes", b.slack_tokens * n * bpt},
                 {"used_bytes", t * n * bpt},
                 {"paged_bytes", b.paged_tokens * n * bpt},
                 {"contiguous_bytes", mc * n * bpt},
                 {"contiguous_waste_bytes", b.contiguous_waste_tokens * n * bpt},
                 {"paged_waste_fraction", b.slack_tokens / b.paged_tokens},
                 {"contiguous_waste_fraction", b.contiguous_waste_tokens / mc}};
       }});

  constexpr double kMaxPagingTokens = 200000;  // requests · output_mean, for the ten simulations of one call
  out.push_back(
      {"kv-paging-sim",
       "One seeded backlog of requests served by continuous batching from a KV pool of pool_tokens slots, under "
       "contiguous reservation (prompt + max_output slots per request, first fit) and under paged blocks of "
       "block_size tokens (allocated on demand; the newest request is preempted and later recomputed when the pool "
       "runs out), after Kwon et al. 2023. Each step splits the pool into used, reserved-for-later, internal and "
       "external fragmentation, and free; `series` repeats the paged run for block sizes 1 to 256.",
       {integer_field("requests", "", "Requests in the backlog", 200, 1, 2000),
        integer_field("prompt_mean", "tokens", "Mean prompt length (uniform on [1, 2·mean − 1])", 256, 1, 8192),
        integer_field("output_mean", "tokens", "Mean output length (uniform on [1, 2·mean − 1])", 128, 1, 4096),
        integer_field("max_output", "tokens", "Longest output allowed: the contiguous allocator reserves it", 512, 1,
                      8192),
        integer_field("pool_tokens", "tokens", "KV slots in the pool", 16384, 256, 4194304),
        integer_field("block_size", "tokens", "Tokens per KV block", 16, 1, 256), seed_field()},
       [](const Inputs& in) -> json {
         const int n = static_cast<int>(in.integer("requests")), pm = static_cast<int>(in.integer("prompt_mean"));
         const int om = static_cast<int>(in.integer("output_mean")), mo = static_cast<int>(in.integer("max_output"));
         const int pool = static_cast<int>(in.integer("pool_tokens"));
         if (2 * om - 1 > mo)
           throw InputError("max_output", "'max_output' must be at least 2·output_mean − 1, the longest drawn output.");
         if (static_cast<double>(n) * om > kMaxPagingTokens)
           throw InputError("requests", "The simulation is capped at requests × output_mean ≤ 200,000 tokens.");
         const int longest = 2 * pm - 1 + mo;
         if (pool < longest + 512)
           throw InputError("pool_tokens", "'pool_tokens' must hold the longest request (2·prompt_mean − 1 + "
                                           "max_output) plus two of the largest blocks (512 slots): at least " +
                                               std::to_string(longest + 512) + ".");
         const auto reqs = paging_stream(n, pm, om, static_cast<std::uint64_t>(in.integer("seed")));
         const int bs = static_cast<int>(in.integer("block_size"));
         const PagingResult contiguous = simulate_contiguous(reqs, pool, mo);
         const PagingResult paged = simulate_paged(reqs, pool, bs);
         json series = json::array();
         for (int b = 1; b <= 256; b *= 2) {
           const PagingResult p = b == bs ? paged : simulate_paged(reqs, pool, b);
           series.push_back({{"block_size", b},
                             {"waste_fraction", p.waste_fraction},
                             {"internal_fraction", p.internal_fraction},
                             {"used_fraction", p.used_fraction},
                             {"mean_batch", p.mean_batch},
                             {"steps", p.steps},
                             {"preemptions", p.preemptions}});
         }
         json pj = paging_json(paged);
         pj["slack_per_sequence_tokens"] = paged.internal_fraction * pool / paged.mean_batch;
         return {{"contiguous", paging_json(contiguous)}, {"paged", pj}, {"series", series}, {"simulated", "every step of every request"}};
       }});

  out.push_back(
      {"speculative",
       "Speculative decoding (Leviathan et al. 2023): expected tokens per round (1 − α^(γ+1)) / (1 − α) (γ + 1 "
       "when α = 1) and the expected walltime speedup (1 − α^(γ+1)) / ((1 − α)(γ·c + 1)), with α the acceptance "
       "rate, γ the draft tokens per round and c the draft's cost per token relative to the target's; also the "
       "γ in 1..64 that maximizes the speedup.",
       {number_field("alpha", "", "Acceptance rate α: chance the target keeps a draft token", 0.8, 0.0, 1.0),
        integer_field("gamma", "", "Draft tokens per round γ", 4, 1, 64),
        number_field("draft_cost", "", "Draft cost per token relative to the target (c)", 0.05, 0.0, 10.0)},
       [](const Inputs& in) -> json {
         const double a = in.num("alpha"), g = static_cast<double>(in.integer("gamma")), c = in.num("draft_cost");
         double best_g = 1, best = 0;
         for (int k = 1; k <= 64; ++k) {
           const double s = speculative_speedup(a, k, c);
           if (s > best + 1e-12) best = s, best_g = k;
         }
         return {{"expected_tokens", speculative_expected_tokens(a, g)},
                 {"speedup", speculative_speedup(a, g, c)},
                 {"cost_per_round", g * c + 1},
                 {"optimal_gamma", best_g},
                 {"optimal_speedup", best}};
       }});

  constexpr double kMaxDraws = 1e6;  // rounds · (gamma + 1)
  out.push_back(
      {"speculative-sample",
       "Executes speculative sampling (Leviathan et al. 2023, Algorithm 1; Chen et al. 2023) for `rounds` rounds "
       "with a seeded target p and draft q over a small vocabulary: draft x ~ q, keep it with probability "
       "min(1, p(x)/q(x)), otherwise emit a token from norm(max(0, p − q)) and end the round; after γ kept "
       "tokens the target adds one. Returns the emitted-token histogram beside p, the measured acceptance rate "
       "beside 1 − TV(p, q), tokens per round beside (1 − α^(γ+1)) / (1 − α), a chi-square statistic, and the "
       "TV distance that sampling p directly for as many tokens gives (the noise floor).",
       {integer_field("vocab", "", "Vocabulary size", 8, 2, 64),
        number_field("mismatch", "", "How far the draft's logits stray from the target's (0: identical)", 1.0, 0.0,
                     5.0),
        number_field("temperature", "", "Softmax temperature of both models", 1.0, 0.1, 10.0),
        integer_field("gamma", "", "Draft tokens per round γ", 4, 1, 16),
        integer_field("rounds", "", "Rounds executed", 20000, 1, 200000), seed_field()},
       [](const Inputs& in) -> json {
         const int g = static_cast<int>(in.integer("gamma")), rounds = static_cast<int>(in.integer("rounds"));
         if (static_cast<double>(rounds) * (g + 1) > kMaxDraws)
           throw InputError("rounds", "The sampler is capped at rounds × (gamma + 1) ≤ 1,000,000 draws.");
         const auto seed = static_cast<std::uint64_t>(in.integer("seed"));
         std::vector<double> p, q;
         make_spec_distributions(static_cast<int>(in.integer("vocab")), in.num("mismatch"), in.num("temperature"), seed,
                                 p, q);
         const SpecSampleResult r = speculative_sample(p, q, g, rounds, seed);
         std::vector<double> freq(p.size());
         double chi2 = 0;
         for (std::size_t i = 0; i < p.size(); ++i) {
           freq[i] = r.counts[i] / r.emitted_tokens;
           const double expected = p[i] * r.emitted_tokens;
           chi2 += (r.counts[i] - expected) * (r.counts[i] - expected) / expected;
         }
         const auto direct = direct_sample_counts(p, static_cast<int>(r.emitted_tokens), seed);
         std::vector<double> direct_freq(p.size());
         for (std::size_t i = 0; i < p.size(); ++i) direct_freq[i] = direct[i] / r.emitted_tokens;
         const double tv = total_variation(p, q);
         return {{"p", p},
                 {"q", q},
                 {"frequencies", freq},
                 {"counts", r.counts},
                 {"emitted_tokens", r.emitted_tokens},
                 {"rounds", r.rounds},
                 {"drafted", r.drafted},
                 {"accepted", r.accepted},
                 {"acceptance_measured", r.accepted / r.drafted},
                 {"acceptance_formula", 1 - tv},
                 {"tv_p_q", tv},
                 {"tv_empirical", total_variation(freq, p)},
                 {"tv_direct", total_variation(direct_freq, p)},
                 {"chi_square", chi2},
                 {"degrees_of_freedom", static_cast<double>(p.size() - 1)},
                 {"tokens_per_round_measured", r.tokens_per_round},
                 {"tokens_per_round_formula", speculative_expected_tokens(1 - tv, g)},
                 {"executed", true}};
       }});
}

}  // namespace mlsys::api
