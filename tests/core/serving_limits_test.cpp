// Two limits the llm-serving lesson quotes: the prompt length at which prefill turns
// compute-bound (the roofline's ridge point, Williams et al. 2009; Pope et al. 2023 §2), and
// the request rate a batching policy can sustain (its throughput on a backlog).
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/serving/batching_sim.hpp"
#include "mlsys/serving/decode.hpp"

using mlsys::calc;
using mlsys::json;

namespace {

// H100 SXM: 989.4 TFLOP/s dense bf16, 3.35 TB/s HBM3 (NVIDIA H100 datasheet).
constexpr double kPeak = 989.4e12, kBw = 3.35e12;

// Llama 3 8B as the server streams it: N = 7.50e9 multiplied parameters in bf16, 128 KiB of KV per token.
mlsys::ServingModel llama3_8b() { return {7.504924672e9, 2 * 7.504924672e9, 131072, 32, 32, 128}; }

// The positive root of compute time = memory time for a prefill of p tokens:
// b·(2Np + 2Lad·p(p+1))/P = (W + b·p·c_kv)/B, a quadratic a·p² + β·p − W/B = 0.
double crossover_closed_form(const mlsys::ServingModel& m, double b) {
  const double lad = 2 * m.layers * m.heads * m.head_dim;
  const double a = b * lad / kPeak, beta = b * (2 * m.matmul_params + lad) / kPeak - b * m.kv_bytes_per_token / kBw;
  const double c = -m.weight_bytes / kBw;
  return (-beta + std::sqrt(beta * beta - 4 * a * c)) / (2 * a);
}

}  // namespace

TEST(ServingPrefill, CrossoverIsTheRootOfTheRoofline) {
  const mlsys::ServingModel m = llama3_8b();
  for (double b : {1.0, 2.0, 8.0, 64.0}) {
    const long long p = mlsys::prefill_crossover_prompt(m, b, kPeak, kBw);
    EXPECT_EQ(p, static_cast<long long>(std::ceil(crossover_closed_form(m, b)))) << b;
    // Memory-bound one token shorter, compute-bound at the crossover.
    EXPECT_EQ(mlsys::prefill_cost(m, b, static_cast<double>(p), kPeak, kBw).bound, "compute");
    if (p > 1) {
      EXPECT_EQ(mlsys::prefill_cost(m, b, static_cast<double>(p - 1), kPeak, kBw).bound, "memory");
    }
  }
  // A larger batch shares the weight read among more prompts: it turns compute-bound sooner.
  EXPECT_LT(mlsys::prefill_crossover_prompt(m, 8, kPeak, kBw), mlsys::prefill_crossover_prompt(m, 1, kPeak, kBw));
}

// With bf16 weights (2 bytes) a single prompt's intensity is about p FLOP/B, so the crossover
// sits near the ridge point peak/bandwidth = 989.4 / 3.35 = 295 FLOP/B; the KV bytes written
// push it slightly later, the attention FLOPs slightly earlier.
TEST(ServingPrefill, SinglePromptCrossesNearTheRidgePoint) {
  const json d = calc("decode", {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"kv_heads", 8},
                                 {"ffn_hidden", 14336}, {"vocab", 128256}, {"prompt", 128}, {"hardware", "h100-sxm"}});
  const double p = d["prefill_crossover_prompt"].get<double>();
  EXPECT_NEAR(p, 295.3, 0.03 * 295.3);
  EXPECT_EQ(d["prefill_bound"], "memory");  // 128 tokens: below it
  const json at = calc("decode", {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"kv_heads", 8},
                                  {"ffn_hidden", 14336}, {"vocab", 128256}, {"prompt", p}, {"hardware", "h100-sxm"}});
  EXPECT_EQ(at["prefill_bound"], "compute");
}

// Identical requests as a backlog: both policies run full batches that all finish together,
// so the capacity is max_batch requests per (prefill + (output − 1) decode steps).
TEST(ServingBatching, CapacityOfIdenticalRequestsIsTheClosedForm) {
  const mlsys::StepModel sm = mlsys::step_model(8e9, "bf16", 131072, kPeak, kBw);
  const int batch = 8, prompt = 100, output = 50;
  std::vector<mlsys::Request> reqs(32, {0.0, prompt, output});
  double t = sm.step_time_s(batch * prompt, batch * prompt);
  for (int k = 1; k < output; ++k) t += sm.step_time_s(batch, batch * (prompt + k + 1));
  const double closed = batch / t;
  for (const char* policy : {"static", "continuous"})
    EXPECT_NEAR(mlsys::simulate_batching(reqs, sm, batch, policy).requests_per_s, closed, 1e-9 * closed) << policy;
}

// The lesson's stream (300 requests, default lengths and GPU): static batching saturates below
// 10 requests/s, continuous batching well above it; below its capacity each policy keeps up
// with the arrivals, above it the queue grows.
TEST(ServingBatching, CapacitySeparatesKeepingUpFromFallingBehind) {
  const json r = calc("batching-sim", {{"rate_rps", 10}, {"requests", 300}});
  const double st = r["static"]["capacity_rps"].get<double>(), co = r["continuous"]["capacity_rps"].get<double>();
  // The lesson compares the policies at 5 requests/s ("well inside both") and at 10 ("past static
  // batching's capacity and still inside continuous batching's").
  EXPECT_LT(5, 0.6 * st);
  EXPECT_LT(st, 10);
  EXPECT_GT(co, 1.5 * st);
  for (const char* policy : {"static", "continuous"}) {
    const double cap = r[policy]["capacity_rps"].get<double>();
    const json below = calc("batching-sim", {{"rate_rps", 0.5 * cap}, {"requests", 300}});
    const json above = calc("batching-sim", {{"rate_rps", 2 * cap}, {"requests", 300}});
    EXPECT_NEAR(below[policy]["requests_per_s"].get<double>(), 0.5 * cap, 0.15 * 0.5 * cap) << policy;
    EXPECT_LT(above[policy]["requests_per_s"].get<double>(), 1.05 * cap) << policy;
    EXPECT_GT(above[policy]["latency_p90_s"].get<double>(), 2 * below[policy]["latency_p90_s"].get<double>()) << policy;
  }
}
