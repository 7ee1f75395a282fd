// Calculators of the llm-serving lesson: `kv-cache`, `decode` and `speculative` (shared/API.md),
// and `kv-capacity`, `decode-curve`, `batching-sim`, `kv-paging`, `kv-paging-sim`,
// `speculative-sample` (executed sampler). Models in core/*/serving/.
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/serving/batching_sim.hpp"
#include "mlsys/serving/decode.hpp"
#include "mlsys/serving/kv_cache.hpp"
#include "mlsys/serving/kv_paging.hpp"
#include "mlsys/serving/speculative.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

struct BatchingOut {
  BatchingComparison run;
  std::string simulated = "event-driven, every request";
};
struct PagingSimOut {
  PagingComparison run;
  std::string simulated = "every step of every request";
};
struct SpecSampleOut {
  SpecSampleReport run;
  bool executed = true;
};

}  // namespace

MLSYS_DESCRIBE(KvCacheSize, MLSYS_OUT(bytes_per_token, "B", "K and V of one token: 2 · layers · kv_heads · head_dim · bytes"),
               MLSYS_OUT(bytes_per_sequence, "B", "bytes_per_token · context"),
               MLSYS_OUT(total_bytes, "B", "bytes_per_sequence · batch"));
MLSYS_DESCRIBE(KvCapacity, MLSYS_OUT(bytes_per_sequence, "B", "KV cache of one sequence of `context` tokens"),
               MLSYS_OUT(budget_bytes, "B", "hbm_bytes · memory_fraction"),
               MLSYS_OUT(free_bytes, "B", "Budget left for the KV cache after the weights (negative: they do not fit)"),
               MLSYS_OUT(max_sequences, "", "Sequences of `context` tokens that fit: floor(free / bytes_per_sequence)"),
               MLSYS_OUT(max_tokens, "tokens", "Tokens of KV cache that fit: floor(free / kv_bytes_per_token)"));
MLSYS_DESCRIBE(KvCapacityPoint, MLSYS_OUT(context, "tokens", "Tokens per sequence"),
               MLSYS_OUT(max_sequences, "", "Sequences of this context that fit"),
               MLSYS_OUT(bytes_per_sequence, "B", "KV cache of one sequence of this context"));
MLSYS_DESCRIBE(ServingCapacity, MLSYS_OUT(weights_bytes, "B", "Every resident weight in weight_dtype"),
               MLSYS_OUT(kv_bytes_per_token, "B", "KV cache of one token in kv_dtype"),
               MLSYS_OUT(hbm_bytes, "B", "Memory of one GPU"), MLSYS_FLAT(capacity),
               MLSYS_OUT(weights_fit, "", "Whether the weights fit in the budget"),
               MLSYS_OUT(params, "", "Resident parameters (the config's count or `params`)"),
               MLSYS_OUT(series, "", "The capacity for contexts 256 to 1,048,576 (doubling)"));
MLSYS_DESCRIBE(PhaseCost, MLSYS_OUT(flops, "FLOP", "FLOPs of the pass"), MLSYS_OUT(bytes, "B", "Bytes moved from and to HBM"),
               MLSYS_OUT(time_s, "s", "max(compute time, memory time)"),
               MLSYS_OUT(bound, "", "compute or memory: the ceiling that sets the time"));
MLSYS_DESCRIBE(PhaseRoofline, MLSYS_FLAT(cost), MLSYS_OUT(compute_time_s, "s", "flops / peak FLOP/s"),
               MLSYS_OUT(memory_time_s, "s", "bytes / bandwidth"));
MLSYS_DESCRIBE(DecodeEstimate, MLSYS_OUT(ttft_s, "s", "Time to first token: the prefill pass"),
               MLSYS_OUT(tpot_s, "s", "Time per output token: one decode step"),
               MLSYS_OUT(tokens_per_s, "tokens/s", "Decode throughput: batch / tpot"),
               MLSYS_OUT(bound, "", "What bounds the decode step: compute or memory"),
               MLSYS_OUT(prefill_bound, "", "What bounds the prefill: compute or memory"),
               MLSYS_OUT(prefill, "", "The prefill pass over the prompt"),
               MLSYS_OUT(decode_step, "", "One decode step over the context"),
               MLSYS_OUT(decode_intensity, "FLOP/B", "Decode step FLOPs per byte"),
               MLSYS_OUT(ridge_intensity, "FLOP/B", "peak / bandwidth"),
               MLSYS_OUT(prefill_crossover_prompt, "tokens",
                         "Shortest prompt whose prefill is compute-bound at this batch (shorter ones are "
                         "memory-bound; 0: none up to 2^24 tokens)"),
               MLSYS_OUT(weight_bytes, "B", "Weights streamed per forward pass (matmul_params in weight_dtype)"),
               MLSYS_OUT(weights_resident_bytes, "B", "Every weight kept in HBM"),
               MLSYS_OUT(kv_bytes_per_token, "B", "KV cache of one token in kv_dtype"),
               MLSYS_OUT(kv_bytes, "B", "KV cache read by one decode step: batch · context · kv_bytes_per_token"),
               MLSYS_OUT(matmul_params, "", "Parameters multiplied per token (layers and output head)"),
               MLSYS_OUT(compute_dtype, "", "Data type of the matmuls (int4 weights multiply in bf16)"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Peak of compute_dtype"), MLSYS_OUT(bandwidth_Bps, "B/s", "HBM bandwidth"),
               MLSYS_OUT(hbm_bytes, "B", "Memory of one GPU (with hardware)"),
               MLSYS_OUT(memory_needed_bytes, "B", "Resident weights + KV cache of the longer of prompt and context"),
               MLSYS_OUT(fits, "", "Whether memory_needed_bytes fits in HBM"));
MLSYS_DESCRIBE(DecodeCurvePoint, MLSYS_OUT(batch, "", "Sequences decoded together"),
               MLSYS_OUT(tpot_s, "s", "Time of one decode step"), MLSYS_OUT(tokens_per_s, "tokens/s", "batch / tpot"),
               MLSYS_OUT(memory_time_s, "s", "bytes / bandwidth"), MLSYS_OUT(compute_time_s, "s", "flops / peak FLOP/s"),
               MLSYS_OUT(bound, "", "compute or memory"));
MLSYS_DESCRIBE(DecodeCurve, MLSYS_OUT(series, "", "The decode step for batches 1 to max_batch (geometric)"),
               MLSYS_OUT(crossover_batch, "", "Smallest batch whose step is compute-bound (0: none up to max_batch)"),
               MLSYS_OUT(weight_bytes, "B", "Weights streamed per step"),
               MLSYS_OUT(kv_bytes_per_token, "B", "KV cache of one token in kv_dtype"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Peak of the compute dtype"), MLSYS_OUT(bandwidth_Bps, "B/s", "HBM bandwidth"),
               MLSYS_OUT(max_batch_fits, "", "Largest batch whose KV cache fits beside the weights in 90% of HBM"));
MLSYS_DESCRIBE(BatchingResult, MLSYS_OUT(tokens_per_s, "tokens/s", "Output tokens / makespan"),
               MLSYS_OUT(requests_per_s, "1/s", "Completed requests / makespan"),
               MLSYS_OUT(latency_p50_s, "s", "Median arrival-to-last-token latency"),
               MLSYS_OUT(latency_p90_s, "s", "90th percentile latency (nearest rank)"),
               MLSYS_OUT(latency_p99_s, "s", "99th percentile latency (nearest rank)"),
               MLSYS_OUT(latency_mean_s, "s", "Mean latency W"),
               MLSYS_OUT(ttft_p50_s, "s", "Median arrival-to-first-token time"),
               MLSYS_OUT(ttft_p99_s, "s", "99th percentile time to first token"),
               MLSYS_OUT(ttft_mean_s, "s", "Mean time to first token"),
               MLSYS_OUT(tpot_mean_s, "s", "Mean time per output token after the first"),
               MLSYS_OUT(mean_batch, "", "Sequences per step, averaged over steps"),
               MLSYS_OUT(mean_in_system, "", "Time-average number of requests in the system L"),
               MLSYS_OUT(littles_law_in_system, "",
                         "requests_per_s · latency_mean_s: equal to mean_in_system by construction on a run that "
                         "starts and ends empty (bookkeeping, not a test)"),
               MLSYS_OUT(arrival_law_in_system, "",
                         "Little's law with the offered arrival rate, rate_rps · latency_mean_s; near "
                         "mean_in_system only in a long, stable run"),
               MLSYS_OUT(steps, "", "Engine steps"), MLSYS_OUT(makespan_s, "s", "First arrival to last completion"),
               MLSYS_OUT(output_tokens, "tokens", "Tokens generated"),
               MLSYS_OUT(padded_tokens, "tokens", "Static batching: step slots of sequences already finished"),
               MLSYS_OUT(capacity_rps, "1/s",
                         "Saturation throughput: completed requests/s when the stream's requests all wait at t = 0 "
                         "(a backlog); arrival rates above it make the queue grow without bound"));
MLSYS_DESCRIBE(BatchingComparison, MLSYS_OUT_AS("static", static_batching, "", "Static (request-level) batching"),
               MLSYS_OUT(continuous, "", "Continuous (iteration-level) batching"),
               MLSYS_OUT(requests, "", "Requests in the stream"),
               MLSYS_OUT(offered_tokens_per_s, "tokens/s", "Output tokens offered per second: rate · mean output"),
               MLSYS_OUT(decode_step_s, "s", "One step of one sequence with nothing cached"));
MLSYS_DESCRIBE(BatchingOut, MLSYS_FLAT(run), MLSYS_OUT(simulated, "", "What was simulated"));
MLSYS_DESCRIBE(KvPaging, MLSYS_OUT(blocks, "", "KV blocks: sequences · ceil(tokens / block_size)"),
               MLSYS_OUT(paged_tokens, "tokens", "Slots of those blocks"),
               MLSYS_OUT(slack_tokens, "tokens", "Unused slots of the last blocks (internal fragmentation)"),
               MLSYS_OUT(slack_bytes, "B", "slack_tokens · bytes_per_token"),
               MLSYS_OUT(used_bytes, "B", "KV bytes actually held"), MLSYS_OUT(paged_bytes, "B", "Bytes of the blocks"),
               MLSYS_OUT(contiguous_bytes, "B", "Bytes of the contiguous reservations"),
               MLSYS_OUT(contiguous_waste_bytes, "B", "Reserved but unused bytes"),
               MLSYS_OUT(paged_waste_fraction, "", "slack / paged tokens"),
               MLSYS_OUT(contiguous_waste_fraction, "", "Unused share of the reservation"));
MLSYS_DESCRIBE(PagingResult, MLSYS_OUT(block_size, "tokens", "Tokens per block (contiguous: 0)"),
               MLSYS_OUT(steps, "", "Steps until the backlog is served"),
               MLSYS_OUT(mean_batch, "", "Running sequences per step"), MLSYS_OUT(max_batch, "", "Most running sequences"),
               MLSYS_OUT(tokens_per_step, "tokens", "Output tokens / steps"),
               MLSYS_OUT(used_fraction, "", "Share of the pool holding KV, averaged over steps"),
               MLSYS_OUT(reserved_fraction, "", "Share reserved for tokens not yet generated"),
               MLSYS_OUT(internal_fraction, "", "Share allocated but never used (internal fragmentation)"),
               MLSYS_OUT(external_fraction, "", "Free share no waiting request fits in (external fragmentation)"),
               MLSYS_OUT(free_fraction, "", "Free share"),
               MLSYS_OUT(waste_fraction, "", "(reserved + internal + external) / (pool − free)"),
               MLSYS_OUT(preemptions, "", "Requests preempted and recomputed"));
MLSYS_DESCRIBE(PagedRun, MLSYS_FLAT(result),
               MLSYS_OUT(slack_per_sequence_tokens, "tokens", "Internal fragmentation per running sequence"));
MLSYS_DESCRIBE(PagingPoint, MLSYS_OUT(block_size, "tokens", "Tokens per block"),
               MLSYS_OUT(waste_fraction, "", "(reserved + internal + external) / (pool − free)"),
               MLSYS_OUT(internal_fraction, "", "Internal fragmentation share"),
               MLSYS_OUT(used_fraction, "", "Share holding KV"), MLSYS_OUT(mean_batch, "", "Running sequences per step"),
               MLSYS_OUT(steps, "", "Steps until the backlog is served"),
               MLSYS_OUT(preemptions, "", "Requests preempted and recomputed"));
MLSYS_DESCRIBE(PagingComparison, MLSYS_OUT(contiguous, "", "Contiguous reservation (first fit)"),
               MLSYS_OUT(paged, "", "Paged blocks of block_size tokens"),
               MLSYS_OUT(series, "", "The paged run for block sizes 1 to 256"));
MLSYS_DESCRIBE(PagingSimOut, MLSYS_FLAT(run), MLSYS_OUT(simulated, "", "What was simulated"));
MLSYS_DESCRIBE(SpeculativeEstimate, MLSYS_OUT(expected_tokens, "tokens", "Tokens per round: (1 − α^(γ+1)) / (1 − α)"),
               MLSYS_OUT(speedup, "", "Walltime speedup: (1 − α^(γ+1)) / ((1 − α)(γ·c + 1))"),
               MLSYS_OUT(cost_per_round, "", "γ·c + 1, in target-step costs"),
               MLSYS_OUT(optimal_gamma, "", "γ in 1..64 with the largest speedup"),
               MLSYS_OUT(optimal_speedup, "", "The speedup at optimal_gamma"));
MLSYS_DESCRIBE(SpecSampleReport, MLSYS_OUT(p, "", "Target distribution"), MLSYS_OUT(q, "", "Draft distribution"),
               MLSYS_OUT(frequencies, "", "Emitted-token frequencies"), MLSYS_OUT(counts, "", "Emitted tokens per entry"),
               MLSYS_OUT(emitted_tokens, "tokens", "Tokens emitted"), MLSYS_OUT(rounds, "", "Rounds executed"),
               MLSYS_OUT(drafted, "tokens", "Draft tokens proposed"), MLSYS_OUT(accepted, "tokens", "Draft tokens kept"),
               MLSYS_OUT(acceptance_measured, "", "accepted / drafted"),
               MLSYS_OUT(acceptance_formula, "", "1 − TV(p, q)"), MLSYS_OUT(tv_p_q, "", "TV distance of p and q"),
               MLSYS_OUT(tv_empirical, "", "TV distance of the frequencies and p"),
               MLSYS_OUT(tv_direct, "", "TV distance of as many direct samples of p (noise floor)"),
               MLSYS_OUT(chi_square, "", "Chi-square statistic of the counts against p"),
               MLSYS_OUT(degrees_of_freedom, "", "vocab − 1"),
               MLSYS_OUT(tokens_per_round_measured, "tokens", "emitted / rounds"),
               MLSYS_OUT(tokens_per_round_formula, "tokens", "(1 − α^(γ+1)) / (1 − α) at α = 1 − TV"));
MLSYS_DESCRIBE(SpecSampleOut, MLSYS_FLAT(run), MLSYS_OUT(executed, "", "The sampler was executed"));

namespace {

// A decoder-only transformer (defaults: Llama-2-7B, multi-head attention), or `params`, and
// the weight and KV types.
std::vector<Field> served_fields() {
  std::vector<Field> f = transformer_fields(published_defaults("llama-2-7b"));
  f.push_back(optional(number_field("params", "",
                                    "Parameter count; overrides the config's count (layers, kv_heads and head_dim "
                                    "still set the KV cache)",
                                    json(), 1e6, 1e13)));
  f.push_back(string_field("weight_dtype", "Weight data type (int4: weight-only, multiplied in bf16)", "bf16",
                           dtype_names()));
  f.push_back(string_field("kv_dtype", "KV-cache data type", "bf16", dtype_names()));
  return f;
}

ServedModel served_from(const Inputs& in) {
  return served_model(model_config_from(in), in.has("params") ? std::optional(in.num("params")) : std::nullopt);
}

Machine machine_for(const Inputs& in, const std::string& weight_dtype) {
  try {
    return machine_from(in, serving_compute_dtype(weight_dtype));
  } catch (const InputError& e) {
    if (e.field == "dtype") throw InputError("weight_dtype", e.what());
    throw;
  }
}

std::optional<double> hardware_hbm(const Inputs& in) {
  if (!in.has("hardware")) return std::nullopt;
  return find_accelerator(in.str("hardware"))->hbm_bytes;
}

double dbl(const Inputs& in, const char* name) { return static_cast<double>(in.integer(name)); }

}  // namespace

void add_serving_calculators(Calculators& out) {
  out.add("kv-cache",
          "Bytes of the KV cache: each layer stores a key and a value vector per KV head and token, "
          "2 · layers · kv_heads · head_dim · bytes per token (Kwon et al. 2023: 800 KB per token for OPT-13B in fp16).",
          {integer_field("layers", "", "Transformer layers", 32, 1, 1024),
           integer_field("kv_heads", "", "Key/value heads (grouped-query: fewer than the query heads)", 8, 1, 1024),
           integer_field("head_dim", "", "Size of one head", 128, 1, 1024), dtype_field("bf16"),
           integer_field("context", "tokens", "Tokens cached per sequence", 4096, 1, 16777216),
           integer_field("batch", "", "Sequences", 1, 1, 1000000)},
          [](const Inputs& in) {
            return kv_cache_size(dbl(in, "layers"), dbl(in, "kv_heads"), dbl(in, "head_dim"),
                                 dtype_bytes(in.str("dtype")), dbl(in, "context"), dbl(in, "batch"));
          });

  std::vector<Field> cap_fields = served_fields();
  cap_fields.push_back(integer_field("context", "tokens", "Tokens cached per sequence", 4096, 1, 16777216));
  cap_fields.push_back(hardware_field(true));
  cap_fields.push_back(optional(
      number_field("hbm_bytes", "B", "Memory per GPU; overrides the hardware table", json(), 1e6, 1e14, false)));
  cap_fields.push_back(number_field("memory_fraction", "",
                                    "Share of HBM the server may use for weights and KV (vLLM's "
                                    "gpu_memory_utilization; the rest holds activations and the runtime)",
                                    0.9, 0.05, 1.0));
  out.add("kv-capacity",
          "How many sequences of `context` tokens fit in HBM beside the weights: (hbm · memory_fraction − weights) / "
          "(kv_bytes_per_token · context), rounded down; `series` repeats it for contexts 256 to 1,048,576.",
          cap_fields, [](const Inputs& in) {
            const double hbm = in.has("hbm_bytes") ? in.num("hbm_bytes") : find_accelerator(in.str("hardware"))->hbm_bytes;
            return serving_capacity(served_from(in), in.str("weight_dtype"), in.str("kv_dtype"), hbm,
                                    in.num("memory_fraction"), dbl(in, "context"));
          });

  std::vector<Field> dec_fields = served_fields();
  dec_fields.push_back(integer_field("batch", "", "Sequences decoded together", 1, 1, 4096));
  dec_fields.push_back(integer_field("context", "tokens", "Tokens in each sequence's KV cache during decode", 4096, 1,
                                     1048576));
  dec_fields.push_back(integer_field("prompt", "tokens", "Prompt tokens per sequence (prefill)", 2048, 1, 1048576));
  dec_fields.push_back(hardware_field(true));
  out.add("decode",
          "Roofline bounds of LLM inference. TTFT: one prefill pass over `prompt` tokens of `batch` sequences, "
          "max(FLOPs / peak, bytes / bandwidth) with FLOPs = batch · (2·N·prompt + 2·layers·heads·head_dim·prompt·"
          "(prompt+1)) (causal attention) and bytes = weights + KV written. TPOT: one decode step, max((weights + "
          "batch·context·KV bytes per token) / bandwidth, batch·(2·N + 4·layers·heads·head_dim·context) / peak). N = "
          "parameters multiplied per token (layers and output head). Ideal bounds: full peak and bandwidth, no "
          "overheads; the peak is the weight dtype's (int4 weights multiply in bf16).",
          with_machine(dec_fields), [](const Inputs& in) {
            const ServedModel m = served_from(in);
            const std::string wd = in.str("weight_dtype");
            const Machine mc = machine_for(in, wd);
            return decode_estimate(m, wd, in.str("kv_dtype"), dbl(in, "batch"), dbl(in, "context"), dbl(in, "prompt"),
                                   mc.peak_flops, mc.bandwidth_Bps, hardware_hbm(in));
          });

  std::vector<Field> curve_fields = served_fields();
  curve_fields.push_back(integer_field("context", "tokens", "Tokens in each sequence's KV cache", 4096, 1, 1048576));
  curve_fields.push_back(integer_field("max_batch", "", "Largest batch of the series", 512, 1, 4096));
  curve_fields.push_back(hardware_field(true));
  out.add("decode-curve",
          "The decode step of `decode` for batches 1 to max_batch (about 60 points): TPOT, tokens/s, the memory and "
          "compute times, and the smallest batch at which the step turns compute-bound (0 if none up to max_batch); "
          "with hardware, the largest batch whose KV cache fits beside the weights in 90% of HBM.",
          with_machine(curve_fields), [](const Inputs& in) {
            const ServedModel m = served_from(in);
            const std::string wd = in.str("weight_dtype");
            const Machine mc = machine_for(in, wd);
            return decode_curve(m, wd, in.str("kv_dtype"), dbl(in, "context"), in.integer("max_batch"), mc.peak_flops,
                                mc.bandwidth_Bps, hardware_hbm(in));
          });

  constexpr double kMaxSimTokens = 1e6;  // requests · (2·output_mean): bounds one call's work
  out.add("batching-sim",
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
          [](const Inputs& in) {
            const int n = static_cast<int>(in.integer("requests"));
            const int om = static_cast<int>(in.integer("output_mean"));
            if (static_cast<double>(n) * (2.0 * om) > kMaxSimTokens)
              throw InputError("requests", "The simulation is capped at requests × 2·output_mean ≤ 1,000,000 tokens; "
                                           "use fewer requests or shorter outputs.");
            const std::string wd = in.str("weight_dtype");
            const Machine mc = machine_for(in, wd);
            const StepModel sm = step_model(in.num("params"), wd, in.num("kv_bytes_per_token"), mc.peak_flops,
                                            mc.bandwidth_Bps);
            return BatchingOut{compare_batching(n, in.num("rate_rps"), static_cast<int>(in.integer("prompt_mean")), om,
                                                static_cast<std::uint64_t>(in.integer("seed")), sm,
                                                static_cast<int>(in.integer("max_batch")))};
          });

  out.add("kv-paging",
          "Paged KV storage of `sequences` sequences of `tokens` tokens in blocks of block_size tokens, against a "
          "contiguous reservation of max_context slots each: blocks, last-block slack (internal fragmentation) and "
          "the reservation's unused slots, in tokens and bytes.",
          {integer_field("tokens", "tokens", "Tokens in the sequence", 1000, 1, 16777216),
           integer_field("block_size", "tokens", "Tokens per KV block", 16, 1, 4096),
           integer_field("max_context", "tokens", "Contiguous reservation per sequence (the longest allowed)", 2048, 1,
                         16777216),
           number_field("bytes_per_token", "B", "KV bytes per token (kv-cache calculator)", 131072, 1.0, 1e8),
           integer_field("sequences", "", "Sequences of this length", 1, 1, 1000000)},
          [](const Inputs& in) {
            return kv_paging(dbl(in, "tokens"), dbl(in, "block_size"), dbl(in, "max_context"), in.num("bytes_per_token"),
                             dbl(in, "sequences"));
          });

  constexpr double kMaxPagingTokens = 200000;  // requests · output_mean, for the ten simulations of one call
  out.add("kv-paging-sim",
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
          [](const Inputs& in) {
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
            return PagingSimOut{compare_paging(n, pm, om, mo, pool, static_cast<int>(in.integer("block_size")),
                                               static_cast<std::uint64_t>(in.integer("seed")))};
          });

  out.add("speculative",
          "Speculative decoding (Leviathan et al. 2023): expected tokens per round (1 − α^(γ+1)) / (1 − α) (γ + 1 "
          "when α = 1) and the expected walltime speedup (1 − α^(γ+1)) / ((1 − α)(γ·c + 1)), with α the acceptance "
          "rate, γ the draft tokens per round and c the draft's cost per token relative to the target's; also the "
          "γ in 1..64 that maximizes the speedup.",
          {number_field("alpha", "", "Acceptance rate α: chance the target keeps a draft token", 0.8, 0.0, 1.0),
           integer_field("gamma", "", "Draft tokens per round γ", 4, 1, 64),
           number_field("draft_cost", "", "Draft cost per token relative to the target (c)", 0.05, 0.0, 10.0)},
          [](const Inputs& in) { return speculative_estimate(in.num("alpha"), dbl(in, "gamma"), in.num("draft_cost")); });

  constexpr double kMaxDraws = 1e6;  // rounds · (gamma + 1)
  out.add("speculative-sample",
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
          [](const Inputs& in) {
            const int g = static_cast<int>(in.integer("gamma")), rounds = static_cast<int>(in.integer("rounds"));
            if (static_cast<double>(rounds) * (g + 1) > kMaxDraws)
              throw InputError("rounds", "The sampler is capped at rounds × (gamma + 1) ≤ 1,000,000 draws.");
            return SpecSampleOut{speculative_sample_report(static_cast<int>(in.integer("vocab")), in.num("mismatch"),
                                                           in.num("temperature"), g, rounds,
                                                           static_cast<std::uint64_t>(in.integer("seed")))};
          });
}

}  // namespace mlsys::api
