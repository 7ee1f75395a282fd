// Claims of the llm-serving and profiling-mfu lessons that an engine change keeps true: the
// Little's-law outputs of batching-sim (one is bookkeeping, one uses the arrival rate), the
// GQA intensity of decode attention, the capacity exercise stated as an upper bound, the
// waterfall's behaviour at the figure's settings, and plausible training-days draws.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"

using mlsys::json;

namespace {
double num(const json& j, const char* k) { return j.at(k).get<double>(); }
}  // namespace

// On a finite run that starts and ends empty, the time-average number in the system equals
// completed requests/s × mean latency by construction (both are Σ latency / makespan): the two
// agree to rounding whatever the policy. Little's law proper uses the arrival rate, and on the
// lesson's 300-request stream at 10 req/s it differs from the measured average by the run's
// ramp-up and drain.
TEST(ServingClaims, LittlesLawBookkeepingAgainstTheArrivalRate) {
  for (const double rate : {2.0, 10.0, 40.0}) {
    const json r = mlsys::calc("batching-sim", {{"rate_rps", rate}, {"requests", 300}});
    for (const char* policy : {"static", "continuous"}) {
      const json& p = r.at(policy);
      EXPECT_NEAR(num(p, "mean_in_system"), num(p, "littles_law_in_system"), 1e-9 * num(p, "mean_in_system")) << policy;
      EXPECT_NEAR(num(p, "arrival_law_in_system"), rate * num(p, "latency_mean_s"), 1e-12) << policy;
    }
  }
  const json c = mlsys::calc("batching-sim", {{"rate_rps", 10}, {"requests", 300}}).at("continuous");
  EXPECT_GT(num(c, "arrival_law_in_system"), 1.05 * num(c, "mean_in_system"));
  EXPECT_LT(num(c, "requests_per_s"), 10);
  // A longer stream below capacity narrows the gap.
  const json longer = mlsys::calc("batching-sim", {{"rate_rps", 10}, {"requests", 1000}}).at("continuous");
  const auto gap = [](const json& p) { return num(p, "arrival_law_in_system") / num(p, "mean_in_system") - 1; };
  EXPECT_LT(gap(longer), gap(c) / 2);
  // Continuous batching's mean batch at 40 req/s is below the maximum of 32 (the stream drains).
  const json busy = mlsys::calc("batching-sim", {{"rate_rps", 40}, {"requests", 300}}).at("continuous");
  EXPECT_LT(num(busy, "mean_batch"), 32);
  EXPECT_GT(num(busy, "mean_batch"), 20);
}

// Decode attention under GQA: as the batch grows, the step's intensity tends to
// (2N + 4·L·a·d·T) / (T·c_kv), and its attention part 4·L·a·d·T / (T·c_kv) is a/h_kv FLOP/B
// in bf16 (4 for Llama 3 8B: 32 query heads over 8 KV heads).
TEST(ServingClaims, DecodeAttentionIntensityIsTheGroupSize) {
  const double layers = 32, heads = 32, kv_heads = 8, head_dim = 128, context = 4096;
  const json kv = mlsys::calc("kv-cache", {{"layers", 32}, {"kv_heads", 8}, {"head_dim", 128}});
  const double c_kv = num(kv, "bytes_per_token");
  EXPECT_DOUBLE_EQ(c_kv, 2 * layers * kv_heads * head_dim * 2);
  EXPECT_DOUBLE_EQ(4 * layers * heads * head_dim * context / (context * c_kv), heads / kv_heads);
}

// The capacity exercise says that 90% is the engine's whole budget and asks for an upper bound.
TEST(ServingClaims, SequencesFitIsAskedAsAnUpperBound) {
  for (std::uint32_t seed = 0; seed < 100; ++seed) {
    const auto e = mlsys::make_exercise("serve-sequences-fit", seed);
    EXPECT_NE(e.prompt.find("upper bound"), std::string::npos) << e.prompt;
    EXPECT_NE(e.prompt.find("At most how many sequences"), std::string::npos) << e.prompt;
    EXPECT_NE(e.prompt.find("CUDA graphs"), std::string::npos) << e.prompt;
  }
}

// mfu-waterfall at its caption's settings: at the defaults (1.3B, two sequences, eager) fusion
// leaves the exposed all-reduce time unchanged but raises its share of a shorter step, and CUDA
// graphs move the MFU by less than a tenth of a point (launch gaps under 1% of the step);
// on the 350M model at one sequence the launch gaps are near a fifth of the step and graphs
// cut them to a few percent.
TEST(ProfilingClaims, WaterfallCaptionSettings) {
  const auto run = [](double hidden, int micro_batch, bool fusion, bool graphs) {
    return mlsys::calc("mfu-waterfall", {{"layers", 24}, {"vocab", 50257}, {"hidden", hidden}, {"heads", 16},
                                         {"micro_batch", micro_batch}, {"launch_s", 20e-6}, {"overlap", false},
                                         {"fusion", fusion}, {"cuda_graphs", graphs}});
  };
  const auto share = [](const json& w, int i) { return w.at("steps").at(i).at("share_of_peak").get<double>(); };
  const json eager = run(2048, 2, false, false), fused = run(2048, 2, true, false), graphs = run(2048, 2, true, true);
  ASSERT_EQ(eager.at("steps").at(1).at("id"), "exposed_comm");
  EXPECT_GT(share(fused, 1), share(eager, 1) + 0.05);
  EXPECT_NEAR(share(fused, 1) * num(fused, "step_time_s"), share(eager, 1) * num(eager, "step_time_s"),
              1e-6 * num(eager, "step_time_s"));
  EXPECT_LT(share(fused, 0), 0.01);
  EXPECT_LT(std::abs(num(graphs, "mfu") - num(fused, "mfu")), 0.001);
  const json small = run(1024, 1, false, false), small_graphs = run(1024, 1, false, true);
  EXPECT_GT(share(small, 0), 0.15);
  EXPECT_LT(share(small, 0), 0.25);
  EXPECT_LT(share(small_graphs, 0), 0.05);
  EXPECT_GT(num(small_graphs, "mfu"), num(small, "mfu"));
}

// prof-training-days draws plans someone would make: a week to about half a year, and no more
// than 256 GPUs per billion parameters (no 7B model on 16,384 GPUs for an hour).
TEST(ProfilingClaims, TrainingDaysDrawsArePlausiblePlans) {
  for (std::uint32_t seed = 0; seed < 2000; ++seed) {
    const auto e = mlsys::make_exercise("prof-training-days", seed);
    EXPECT_GE(e.answer, 7) << e.prompt;
    EXPECT_LE(e.answer, 200) << e.prompt;
    const double params = e.params.at("params").get<double>(), devices = e.params.at("devices").get<double>();
    EXPECT_LE(devices, 256 * params / 1e9) << e.prompt;
  }
}
