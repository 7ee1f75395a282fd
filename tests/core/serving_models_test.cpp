// The llm-serving models: KV-cache bytes against the vLLM paper, decode roofline bounds,
// static vs continuous batching, paged vs contiguous KV allocation, and speculative
// decoding (closed forms, Monte Carlo and the executed sampler).
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/serving/batching_sim.hpp"
#include "mlsys/serving/decode.hpp"
#include "mlsys/serving/kv_cache.hpp"
#include "mlsys/serving/kv_paging.hpp"
#include "mlsys/serving/speculative.hpp"

using mlsys::calc;
using mlsys::json;

namespace {

// Llama 3 8B (Meta's config.json): 32 layers, width 4096, 32 query heads, 8 KV heads,
// SwiGLU of width 14336, 128,256-token vocabulary, untied output head.
const json kLlama3_8B = {{"layers", 32},    {"hidden", 4096}, {"heads", 32},         {"kv_heads", 8},
                         {"ffn_hidden", 14336}, {"vocab", 128256}, {"gated_mlp", true}, {"tied_embeddings", false}};

json with(json a, const json& b) {
  a.update(b);
  return a;
}

}  // namespace

// Kwon et al. 2023 (vLLM, arXiv:2309.06180), §3: "the KV cache of a single token demands
// 800 KB of space, calculated as 2 (key and value vectors) × 5120 (hidden state size) × 40
// (number of layers) × 2 (bytes per FP16). Since OPT can generate sequences up to 2048
// tokens, the memory required to store the KV cache of one request can be as much as 1.6 GB."
TEST(ServingKvCache, OptThirteenBMatchesVllmPaper) {
  const json r = calc("kv-cache", {{"layers", 40}, {"kv_heads", 40}, {"head_dim", 128}, {"dtype", "fp16"},
                                   {"context", 2048}});
  EXPECT_EQ(r["bytes_per_token"].get<double>(), 819200.0);  // 800 KiB, the paper's "800 KB"
  EXPECT_EQ(r["total_bytes"].get<double>(), 819200.0 * 2048);
  // 1,677,721,600 B = 1.5625 GiB: the paper's "1.6 GB" to one decimal.
  EXPECT_NEAR(r["total_bytes"].get<double>() / 1073741824.0, 1.6, 0.05);
}

TEST(ServingKvCache, GroupedAndMultiQueryShrinkByTheGroupSize) {
  // Llama 2 7B (MHA, 32 heads of 128): 2·32·32·128·2 = 524,288 B = 0.5 MiB per token.
  const json mha = calc("kv-cache", {{"layers", 32}, {"kv_heads", 32}, {"head_dim", 128}, {"context", 4096},
                                     {"batch", 3}});
  EXPECT_EQ(mha["bytes_per_token"].get<double>(), 524288.0);
  EXPECT_EQ(mha["total_bytes"].get<double>(), 524288.0 * 4096 * 3);
  const json gqa = calc("kv-cache", {{"layers", 32}, {"kv_heads", 8}, {"head_dim", 128}});
  EXPECT_EQ(gqa["bytes_per_token"].get<double>(), 131072.0);  // Llama 3 8B: 128 KiB per token
  const json mqa = calc("kv-cache", {{"layers", 32}, {"kv_heads", 1}, {"head_dim", 128}, {"dtype", "fp8-e4m3"}});
  EXPECT_EQ(mqa["bytes_per_token"].get<double>(), 8192.0);
  // head_dim is its own field, not hidden/heads: Falcon 40B has 8 KV heads of 64 over 60 layers.
  EXPECT_EQ(calc("kv-cache", {{"layers", 60}, {"kv_heads", 8}, {"head_dim", 64}})["bytes_per_token"].get<double>(),
            122880.0);
}

TEST(ServingCapacity, SequencesFitBesideTheWeights) {
  // Llama 3 8B has 8.03 billion parameters (Meta's model card).
  const json r = calc("kv-capacity", with(kLlama3_8B, {{"context", 8192}, {"hardware", "h100-sxm"}}));
  EXPECT_NEAR(r["params"].get<double>(), 8.03e9, 0.01e9);
  const double hbm = 80.0 * 1073741824.0, weights = r["params"].get<double>() * 2;
  EXPECT_EQ(r["weights_bytes"].get<double>(), weights);
  EXPECT_EQ(r["kv_bytes_per_token"].get<double>(), 131072.0);
  EXPECT_EQ(r["max_sequences"].get<double>(), std::floor((0.9 * hbm - weights) / (131072.0 * 8192)));
  double prev = 1e300;
  for (const auto& s : r["series"]) {
    EXPECT_LE(s["max_sequences"].get<double>(), prev);
    prev = s["max_sequences"].get<double>();
  }
  // MHA (kv_heads = heads): four times the cache per token and larger K/V projections, so
  // fewer than a quarter as many sequences.
  const json mha = calc("kv-capacity", with(kLlama3_8B, {{"kv_heads", 32}, {"context", 8192}}));
  EXPECT_LE(mha["max_sequences"].get<double>(), r["max_sequences"].get<double>() / 4);
  EXPECT_GE(mha["max_sequences"].get<double>(), r["max_sequences"].get<double>() / 4 - 3);
  // A 70B model in bf16 does not fit on one 80 GB GPU: nothing is left for the cache.
  const json big = calc("kv-capacity", {{"params", 70e9}, {"layers", 80}, {"hidden", 8192}, {"heads", 64},
                                        {"kv_heads", 8}});
  EXPECT_FALSE(big["weights_fit"].get<bool>());
  EXPECT_EQ(big["max_sequences"].get<double>(), 0.0);
}

TEST(ServingDecode, SingleStreamDecodeIsBandwidthBound) {
  const json r = calc("decode", with(kLlama3_8B, {{"batch", 1}, {"context", 4096}, {"prompt", 2048},
                                                   {"hardware", "h100-sxm"}}));
  EXPECT_EQ(r["bound"], "memory");
  EXPECT_EQ(r["prefill_bound"], "compute");
  // TPOT = (weights streamed + KV of 4096 tokens) / 3.35 TB/s; N = non-embedding + output head.
  const double bytes = r["weight_bytes"].get<double>() + 4096 * 131072.0;
  EXPECT_NEAR(r["tpot_s"].get<double>(), bytes / 3.35e12, 1e-12);
  EXPECT_NEAR(r["tokens_per_s"].get<double>(), 1 / r["tpot_s"].get<double>(), 1e-9);
  // The embedding table (128256 × 4096) is resident but not streamed.
  EXPECT_NEAR(r["weights_resident_bytes"].get<double>() - r["weight_bytes"].get<double>(), 128256.0 * 4096 * 2, 1);
  // TTFT: 2·N·p + causal attention 2·L·a·d·p·(p+1) FLOPs at the bf16 peak.
  const double n = r["matmul_params"].get<double>();
  const double flops = 2 * n * 2048 + 2.0 * 32 * 32 * 128 * 2048 * 2049;
  EXPECT_NEAR(r["prefill"]["flops"].get<double>(), flops, flops * 1e-12);
  EXPECT_NEAR(r["ttft_s"].get<double>(), flops / r["peak_flops"].get<double>(), 1e-12);
}

TEST(ServingDecode, BatchingAmortizesTheWeightsUntilComputeBinds) {
  const json base = with(kLlama3_8B, {{"context", 256}, {"hardware", "h100-sxm"}});
  const json curve = calc("decode-curve", with(base, {{"max_batch", 4096}}));
  const auto crossover = curve["crossover_batch"].get<long long>();
  ASSERT_GT(crossover, 1);
  EXPECT_EQ(calc("decode", with(base, {{"batch", crossover}}))["bound"], "compute");
  EXPECT_EQ(calc("decode", with(base, {{"batch", crossover - 1}}))["bound"], "memory");
  double prev_tps = 0, prev_tpot = 0;
  for (const auto& s : curve["series"]) {
    const json d = calc("decode", with(base, {{"batch", s["batch"]}}));
    EXPECT_NEAR(s["tpot_s"].get<double>(), d["tpot_s"].get<double>(), 1e-15);
    EXPECT_GE(s["tokens_per_s"].get<double>(), prev_tps * (1 - 1e-12));  // throughput never falls with batch
    EXPECT_GE(s["tpot_s"].get<double>(), prev_tpot);       // latency never improves with batch
    prev_tps = s["tokens_per_s"].get<double>(), prev_tpot = s["tpot_s"].get<double>();
  }
  // At 1,024 tokens the KV cache bounds the intensity below the ridge: never compute-bound.
  EXPECT_EQ(calc("decode-curve", with(base, {{"context", 1024}, {"max_batch", 4096}}))["crossover_batch"], 0);
  // int4 weights stream a quarter of the bf16 bytes.
  const json b16 = calc("decode", with(base, {{"batch", 1}}));
  const json i4 = calc("decode", with(base, {{"batch", 1}, {"weight_dtype", "int4"}}));
  EXPECT_NEAR(i4["weight_bytes"].get<double>() * 4, b16["weight_bytes"].get<double>(), 1);
  EXPECT_EQ(i4["compute_dtype"], "bf16");
}

TEST(ServingBatching, StaticBatchRunsForItsLongestRequest) {
  // Everything arrives at once and fits one batch: one prefill step, then longest − 1 steps.
  std::vector<mlsys::Request> reqs;
  for (const auto& r : mlsys::request_stream(20, 1.0, 100, 50, 3)) reqs.push_back({0.0, r.prompt, r.output});
  int longest = 0;
  for (const auto& r : reqs) longest = std::max(longest, r.output);
  const mlsys::StepModel m{16e9, 131072, 16e9, 989e12, 3.35e12};
  const auto st = mlsys::simulate_batching(reqs, m, 32, "static");
  EXPECT_EQ(st.steps, longest);
  double padded = 0;
  for (const auto& r : reqs) padded += longest - r.output;
  EXPECT_EQ(st.padded_tokens, padded);
  const auto co = mlsys::simulate_batching(reqs, m, 32, "continuous");
  EXPECT_EQ(co.steps, longest);
  EXPECT_LT(co.latency_mean_s, st.latency_mean_s);  // short requests leave as soon as they are done
  EXPECT_EQ(co.padded_tokens, 0);
}

TEST(ServingBatching, ContinuousBeatsStaticOnTheSameStream) {
  for (double rate : {2.0, 10.0, 40.0}) {
    const json r = calc("batching-sim", {{"rate_rps", rate}, {"requests", 300}, {"seed", 7}});
    const json& st = r["static"];
    const json& co = r["continuous"];
    EXPECT_GE(co["tokens_per_s"].get<double>(), st["tokens_per_s"].get<double>() * 0.999) << rate;
    EXPECT_LE(co["latency_p50_s"].get<double>(), st["latency_p50_s"].get<double>()) << rate;
    for (const json* p : {&st, &co}) {
      const json& x = *p;
      EXPECT_LE(x["latency_p50_s"].get<double>(), x["latency_p90_s"].get<double>());
      EXPECT_LE(x["latency_p90_s"].get<double>(), x["latency_p99_s"].get<double>());
      EXPECT_LE(x["ttft_p50_s"].get<double>(), x["latency_p50_s"].get<double>());
      // Little's law L = λ·W: the integrated number in the system equals throughput × mean latency.
      EXPECT_NEAR(x["mean_in_system"].get<double>(), x["littles_law_in_system"].get<double>(),
                  1e-9 * x["mean_in_system"].get<double>());
    }
  }
  // Overloaded (offered load far above capacity), continuous batching serves strictly more.
  const json over = calc("batching-sim", {{"rate_rps", 200}, {"requests", 300}, {"seed", 7}});
  EXPECT_GT(over["continuous"]["tokens_per_s"].get<double>(), 1.3 * over["static"]["tokens_per_s"].get<double>());
  // Light load: both keep up with the offered load, so throughput is the arrival rate of tokens.
  const json light = calc("batching-sim", {{"rate_rps", 0.5}, {"requests", 300}, {"seed", 7}});
  EXPECT_NEAR(light["continuous"]["tokens_per_s"].get<double>(), light["offered_tokens_per_s"].get<double>(),
              0.1 * light["offered_tokens_per_s"].get<double>());
  // Same seed, same stream; another seed, another stream.
  EXPECT_EQ(calc("batching-sim", {{"seed", 5}}), calc("batching-sim", {{"seed", 5}}));
  EXPECT_NE(calc("batching-sim", {{"seed", 5}}), calc("batching-sim", {{"seed", 6}}));
}

TEST(ServingPaging, PagedWastesLessAndRunsMoreSequences) {
  const json r = calc("kv-paging-sim", json::object());
  const json& c = r["contiguous"];
  const json& p = r["paged"];
  for (const json* x : {&c, &p}) {
    const double sum = (*x)["used_fraction"].get<double>() + (*x)["reserved_fraction"].get<double>() +
                       (*x)["internal_fraction"].get<double>() + (*x)["external_fraction"].get<double>() +
                       (*x)["free_fraction"].get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-9);
  }
  EXPECT_LT(p["waste_fraction"].get<double>(), c["waste_fraction"].get<double>());
  EXPECT_GT(p["mean_batch"].get<double>(), 1.5 * c["mean_batch"].get<double>());
  EXPECT_LT(p["steps"].get<double>(), c["steps"].get<double>());
  EXPECT_EQ(c["preemptions"].get<double>(), 0);
  EXPECT_GT(c["reserved_fraction"].get<double>(), 0);
  EXPECT_GT(c["internal_fraction"].get<double>(), 0);
  EXPECT_EQ(p["reserved_fraction"].get<double>(), 0);
  // Last-block slack of lengths spread far wider than a block: (B − 1) / 2 per sequence.
  EXPECT_NEAR(p["slack_per_sequence_tokens"].get<double>(), 7.5, 1.0);
  // Block size 1 has no slack; waste grows with the block size.
  const auto& s = r["series"];
  EXPECT_EQ(s[0]["block_size"], 1);
  EXPECT_EQ(s[0]["internal_fraction"].get<double>(), 0);
  EXPECT_GT(s[8]["waste_fraction"].get<double>(), s[4]["waste_fraction"].get<double>());
  // Output tokens are conserved: both serve the same backlog.
  EXPECT_NEAR(c["tokens_per_step"].get<double>() * c["steps"].get<double>(),
              p["tokens_per_step"].get<double>() * p["steps"].get<double>(), 1e-6);
}

TEST(ServingPaging, BlockArithmetic) {
  const json r = calc("kv-paging", {{"tokens", 1000}, {"block_size", 16}, {"max_context", 2048},
                                    {"bytes_per_token", 819200}, {"sequences", 2}});
  EXPECT_EQ(r["blocks"].get<double>(), 2 * 63.0);
  EXPECT_EQ(r["slack_tokens"].get<double>(), 2 * 8.0);
  EXPECT_EQ(r["contiguous_waste_bytes"].get<double>(), 2 * 1048.0 * 819200);
}

TEST(ServingSpeculative, ClosedFormsOfLeviathanEtAl) {
  // Leviathan et al. 2023 (arXiv:2211.17192), eq. (1) and Theorem 3.8.
  for (double a : {0.0, 0.3, 0.6, 0.8, 0.95}) {
    for (int g : {1, 2, 3, 5, 10}) {
      double sum = 0;
      for (int k = 0; k <= g; ++k) sum += std::pow(a, k);  // round emits k+1 tokens w.p. a^k(1−a) (capped)
      const json r = calc("speculative", {{"alpha", a}, {"gamma", g}, {"draft_cost", 0.1}});
      EXPECT_NEAR(r["expected_tokens"].get<double>(), sum, 1e-12);
      EXPECT_NEAR(r["speedup"].get<double>(), sum / (g * 0.1 + 1), 1e-12);
    }
  }
  const json one = calc("speculative", {{"alpha", 1.0}, {"gamma", 7}, {"draft_cost", 0}});
  EXPECT_EQ(one["expected_tokens"].get<double>(), 8.0);
  EXPECT_EQ(one["speedup"].get<double>(), 8.0);
  // α = 0.8, γ = 4: (1 − 0.8^5) / 0.2 = 3.3616 tokens per round.
  EXPECT_NEAR(calc("speculative", {{"alpha", 0.8}, {"gamma", 4}})["expected_tokens"].get<double>(), 3.3616, 1e-12);
  // A costly draft with low acceptance slows decoding down.
  EXPECT_LT(calc("speculative", {{"alpha", 0.3}, {"gamma", 5}, {"draft_cost", 0.5}})["speedup"].get<double>(), 1.0);
}

TEST(ServingSpeculative, MonteCarloTokensPerRoundMatchTheFormula) {
  // i.i.d. acceptance with probability α, stopping at the first rejection, plus one token.
  mlsys::SeededStream s(12345);
  for (double a : {0.5, 0.8, 0.9}) {
    const int g = 4, rounds = 200000;
    double tokens = 0;
    for (int r = 0; r < rounds; ++r) {
      int k = 0;
      while (k < g && s.uniform() < a) ++k;
      tokens += k + 1;
    }
    // Standard error of the mean is below 0.005 here; allow 5 of them.
    EXPECT_NEAR(tokens / rounds, mlsys::speculative_expected_tokens(a, g), 0.025) << a;
  }
}

TEST(ServingSpeculative, ExecutedSamplerReproducesTheTarget) {
  const json r = calc("speculative-sample", {{"vocab", 8}, {"mismatch", 1.0}, {"gamma", 4}, {"rounds", 20000},
                                             {"seed", 11}});
  // Chi-square goodness of fit to p with 7 degrees of freedom: 24.32 is the 0.1% critical value.
  EXPECT_EQ(r["degrees_of_freedom"].get<double>(), 7);
  EXPECT_LT(r["chi_square"].get<double>(), 24.32);
  EXPECT_LT(r["tv_empirical"].get<double>(), 0.01);
  // The draft itself is far from the target: taking its tokens unchecked would fail the test.
  EXPECT_GT(r["tv_p_q"].get<double>(), 0.1);
  // Acceptance rate = 1 − TV(p, q) (Leviathan et al., Corollary 3.6) and tokens per round.
  EXPECT_NEAR(r["acceptance_measured"].get<double>(), r["acceptance_formula"].get<double>(), 0.01);
  EXPECT_NEAR(r["tokens_per_round_measured"].get<double>(), r["tokens_per_round_formula"].get<double>(), 0.03);
  // A draft equal to the target is always accepted: exactly γ + 1 tokens per round.
  const json same = calc("speculative-sample", {{"mismatch", 0}, {"gamma", 3}, {"rounds", 1000}});
  EXPECT_EQ(same["acceptance_measured"].get<double>(), 1.0);
  EXPECT_EQ(same["tokens_per_round_measured"].get<double>(), 4.0);
}

TEST(ServingSpeculative, SamplerMatchesDirectSamplingOnManySeeds) {
  // The naive reference samples p directly; both histograms stay within sampling noise of p.
  std::vector<double> p, q;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    mlsys::make_spec_distributions(16, 2.0, 1.0, seed, p, q);
    const auto r = mlsys::speculative_sample(p, q, 3, 30000, seed);
    std::vector<double> f(p.size()), d(p.size());
    const auto direct = mlsys::direct_sample_counts(p, static_cast<int>(r.emitted_tokens), seed);
    for (std::size_t i = 0; i < p.size(); ++i) f[i] = r.counts[i] / r.emitted_tokens, d[i] = direct[i] / r.emitted_tokens;
    EXPECT_LT(mlsys::total_variation(f, p), 0.015) << seed;
    EXPECT_LT(mlsys::total_variation(d, p), 0.015) << seed;
  }
}

// --- The serving models behind the calculators (closed forms) ------------------------------

TEST(ServingModels, ServedModelStreamsLayersAndOutputHead) {
  // Llama-2-7B: 6,738,415,616 parameters (Touvron et al. 2023); the embedding table is not
  // multiplied per token, the untied output head (vocab × hidden) is.
  mlsys::ModelConfig c;
  c.layers = 32, c.hidden = 4096, c.heads = 32, c.kv_heads = 32, c.head_dim = 128, c.ffn_hidden = 11008;
  c.vocab = 32000, c.gated_mlp = true, c.tied_embeddings = false;
  const mlsys::ServedModel m = mlsys::served_model(c, std::nullopt);
  EXPECT_EQ(m.resident_params, 6738415616.0);
  EXPECT_EQ(m.matmul_params, m.resident_params - 32000.0 * 4096);
  const mlsys::ServedModel p = mlsys::served_model(c, 7e9);
  EXPECT_EQ(p.resident_params, 7e9);
  EXPECT_EQ(p.matmul_params, 7e9);
  EXPECT_EQ(mlsys::serving_compute_dtype("int4"), "bf16");
  EXPECT_EQ(mlsys::serving_compute_dtype("fp8-e4m3"), "fp8-e4m3");
  // 2 · 32 layers · 32 heads · 128 · 2 bytes = 512 KiB per token in bf16.
  EXPECT_EQ(mlsys::serving_model(m, "bf16", "bf16").kv_bytes_per_token, 524288.0);
}

TEST(ServingModels, DecodeEstimateAndCurve) {
  mlsys::ModelConfig c;
  c.layers = 32, c.hidden = 4096, c.heads = 32, c.kv_heads = 8, c.head_dim = 128;
  const mlsys::ServedModel m = mlsys::served_model(c, 8e9);
  // Batch 1 decode streams 16 GB of bf16 weights: TPOT = (weights + KV) / bandwidth (Pope et al. 2023).
  const auto e = mlsys::decode_estimate(m, "bf16", "bf16", 1, 1024, 512, 1e15, 2e12, 80e9);
  const double kv = 2.0 * 32 * 8 * 128 * 2;
  EXPECT_EQ(e.bound, "memory");
  EXPECT_DOUBLE_EQ(e.tpot_s, (16e9 + 1024 * kv) / 2e12);
  EXPECT_DOUBLE_EQ(e.tokens_per_s, 1 / e.tpot_s);
  EXPECT_DOUBLE_EQ(e.decode_step.memory_time_s, e.tpot_s);
  EXPECT_EQ(*e.memory_needed_bytes, 16e9 + 1024 * kv);
  EXPECT_TRUE(*e.fits);
  EXPECT_FALSE(mlsys::decode_estimate(m, "bf16", "bf16", 1, 1024, 512, 1e15, 2e12, std::nullopt).fits);
  // The step turns compute-bound once batch · 2N / peak ≥ (weights + batch · KV) / bandwidth.
  const auto curve = mlsys::decode_curve(m, "bf16", "bf16", 1, 4096, 1e15, 2e12, 80e9);
  EXPECT_EQ(curve.series.front().batch, 1);
  EXPECT_EQ(curve.series.back().batch, 4096);
  const long long x = curve.crossover_batch;
  ASSERT_GT(x, 1);
  const auto ms = mlsys::serving_model(m, "bf16", "bf16");
  EXPECT_EQ(mlsys::decode_step_cost(ms, x, 1, 1e15, 2e12).bound, "compute");
  EXPECT_EQ(mlsys::decode_step_cost(ms, x - 1, 1, 1e15, 2e12).bound, "memory");
  // 90% of 80 GB minus 16 GB of weights, over one token of KV per sequence.
  EXPECT_EQ(*curve.max_batch_fits, std::floor((0.9 * 80e9 - 16e9) / kv));
}

TEST(ServingModels, CapacitySeriesCacheSizeAndPaging) {
  const auto series = mlsys::kv_capacity_series(80e9, 0.9, 16e9, 131072);
  ASSERT_EQ(series.size(), 13u);  // 256 ... 1,048,576
  EXPECT_EQ(series.front().context, 256.0);
  EXPECT_EQ(series.back().context, 1048576.0);
  EXPECT_EQ(series[0].max_sequences, std::floor(56e9 / (131072.0 * 256)));
  // OPT-13B in fp16: 40 layers, 40 heads of 128: 800 KB per token (Kwon et al. 2023, §3).
  const auto kv = mlsys::kv_cache_size(40, 40, 128, 2, 2048, 3);
  EXPECT_EQ(kv.bytes_per_token, 819200.0);
  EXPECT_EQ(kv.total_bytes, 819200.0 * 2048 * 3);
  const auto p = mlsys::kv_paging(1000, 16, 2048, 10, 2);
  EXPECT_EQ(p.blocks, 126.0);  // ceil(1000 / 16) = 63 per sequence
  EXPECT_EQ(p.slack_bytes, 2 * 8.0 * 10);
  EXPECT_EQ(p.paged_waste_fraction, 8.0 / 1008);
  EXPECT_EQ(p.contiguous_waste_fraction, 1048.0 / 2048);
  EXPECT_THROW(mlsys::kv_paging(3000, 16, 2048, 10, 1), mlsys::InputError);
}

TEST(ServingModels, BatchingComparisonSatisfiesLittlesLaw) {
  const mlsys::StepModel sm = mlsys::step_model(8e9, "bf16", 131072, 1e15, 3e12);
  EXPECT_EQ(sm.weight_bytes, 16e9);
  EXPECT_EQ(sm.flops_per_token, 16e9);
  const auto c = mlsys::compare_batching(200, 2, 128, 64, 1, sm, 16);
  EXPECT_EQ(c.requests, 200);
  EXPECT_DOUBLE_EQ(c.decode_step_s, 16e9 / 3e12);
  for (const auto* r : {&c.static_batching, &c.continuous}) {
    EXPECT_EQ(r->littles_law_in_system, r->requests_per_s * r->latency_mean_s);
    // Little's law L = λ·W holds for the whole run (arrival to the last departure).
    EXPECT_NEAR(r->mean_in_system, r->littles_law_in_system, 1e-9 * r->mean_in_system);
  }
  // Offered load: rate · mean output (outputs uniform on [1, 127], mean 64).
  EXPECT_NEAR(c.offered_tokens_per_s, 2 * 64, 2 * 64 * 0.15);
}

TEST(ServingModels, PagingComparisonSeries) {
  const auto c = mlsys::compare_paging(100, 64, 32, 64, 4096, 16, 3);
  ASSERT_EQ(c.series.size(), 9u);  // block sizes 1 ... 256
  EXPECT_EQ(c.series[4].block_size, 16);
  EXPECT_EQ(c.series[4].waste_fraction, c.paged.result.waste_fraction);
  EXPECT_DOUBLE_EQ(c.paged.slack_per_sequence_tokens,
                   c.paged.result.internal_fraction * 4096 / c.paged.result.mean_batch);
  EXPECT_EQ(c.series[0].internal_fraction, 0.0);  // one-token blocks have no slack
}

TEST(ServingModels, SpeculativeOptimalGammaAndSamplerReport) {
  // α = 1, c = 0: every extra draft token is free, so γ = 64 is best with speedup 65.
  const auto free = mlsys::speculative_estimate(1.0, 4, 0);
  EXPECT_EQ(free.optimal_gamma, 64.0);
  EXPECT_EQ(free.optimal_speedup, 65.0);
  // α = 0.8, c = 0.05: brute force over γ of Leviathan et al.'s Theorem 3.8.
  double best = 0, best_g = 0;
  for (int g = 1; g <= 64; ++g) {
    const double s = (1 - std::pow(0.8, g + 1)) / (0.2 * (g * 0.05 + 1));
    if (s > best) best = s, best_g = g;
  }
  const auto e = mlsys::speculative_estimate(0.8, 4, 0.05);
  EXPECT_EQ(e.optimal_gamma, best_g);
  EXPECT_NEAR(e.optimal_speedup, best, 1e-12);
  EXPECT_EQ(e.cost_per_round, 4 * 0.05 + 1);
  const auto r = mlsys::speculative_sample_report(8, 1.0, 1.0, 4, 5000, 1);
  double sum = 0, chi2 = 0;
  for (std::size_t i = 0; i < r.p.size(); ++i) {
    sum += r.frequencies[i];
    chi2 += std::pow(r.counts[i] - r.p[i] * r.emitted_tokens, 2) / (r.p[i] * r.emitted_tokens);
  }
  EXPECT_NEAR(sum, 1, 1e-12);
  EXPECT_NEAR(r.chi_square, chi2, 1e-9 * chi2);
  EXPECT_EQ(r.degrees_of_freedom, 7.0);
  EXPECT_EQ(r.acceptance_formula, 1 - r.tv_p_q);
  // The sampler reproduces p: chi-square with 7 degrees of freedom stays below its 99.9% point.
  EXPECT_LT(r.chi_square, 24.32);
}
