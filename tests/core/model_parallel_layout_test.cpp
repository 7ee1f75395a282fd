// Tensor parallelism and layout search: Megatron's all-reduce count and volume per layer
// (Shoeybi et al. 2019, arXiv:1909.08053, Figure 4: two all-reduces forward, two backward), the
// communication-to-compute ratio's closed form, the layout search's constraints, memory, fit and
// ranking on the lesson's 70B-on-64-GPUs example, the exercises against the calculators, and bad
// inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/parallel/layout_search.hpp"
#include "test_support.hpp"

using mlsys::json;

namespace {
double num(const json& j, const char* k) { return j.at(k).get<double>(); }
}  // namespace

TEST(TensorParallel, FourAllReducesOfTheActivationsPerLayer) {
  const double h = 8192, s = 4096, b = 2;
  for (int t : {2, 4, 8}) {
    const json r = mlsys::calc("tensor-parallel", {{"hidden", h}, {"seq", s}, {"micro_batch", b}, {"tp", t}, {"latency_s", 0}});
    EXPECT_EQ(r["allreduces_forward"], 2);
    EXPECT_EQ(r["allreduces_backward"], 2);
    EXPECT_DOUBLE_EQ(num(r, "allreduce_bytes"), 2 * s * b * h);
    EXPECT_DOUBLE_EQ(num(r, "allreduce_bytes_per_layer"), 8 * s * b * h);
    EXPECT_NEAR(num(r, "sent_bytes_per_gpu"), 4 * 2.0 * (t - 1) / t * 2 * s * b * h, 1e-3);
    // Narayanan et al. 2021 eq. 3 per layer with f = 4h: forward 24·b·s·h² + 4·b·s²·h, split over t.
    EXPECT_NEAR(num(r, "flops_forward_per_gpu"), (24 * b * s * h * h + 4 * b * s * s * h) / t, 1);
    // H100 NVLink: 900 GB/s both directions, 450 GB/s each way.
    EXPECT_DOUBLE_EQ(num(r, "link_bandwidth_Bps"), 450e9);
    const double comm = 4 * 2.0 * (t - 1) / t * 2 * s * b * h / 450e9;
    const double compute = 3 * (24 * b * s * h * h + 4 * b * s * s * h) / t / 989.4e12;
    EXPECT_NEAR(num(r, "ratio"), comm / compute, 1e-9 * comm / compute);
  }
}

TEST(TensorParallel, RatioFallsWithWidthAndRisesWithDegree) {
  // Closed form at zero latency: ratio = (2/9)·(t − 1)·P / (h·B·(1 + s/(6h))).
  double last = 1e9;
  for (double h : {2048.0, 4096.0, 8192.0, 16384.0}) {
    const json r = mlsys::calc("tensor-parallel", {{"hidden", h}, {"seq", 2048}, {"tp", 8}, {"latency_s", 0}});
    const double expected = 2.0 / 9 * 7 * 989.4e12 / (h * 450e9 * (1 + 2048 / (6 * h)));
    EXPECT_NEAR(num(r, "ratio"), expected, 1e-9 * expected);
    EXPECT_LT(num(r, "ratio"), last);
    last = num(r, "ratio");
  }
  const json t4 = mlsys::calc("tensor-parallel", {{"tp", 4}}), t8 = mlsys::calc("tensor-parallel", {{"tp", 8}});
  EXPECT_GT(num(t8, "ratio"), num(t4, "ratio"));
  // Crossing the node puts the all-reduces on 50 GB/s InfiniBand: nine times slower links.
  const json t16 = mlsys::calc("tensor-parallel", {{"tp", 16}});
  EXPECT_EQ(t16["link"], "inter-node");
  EXPECT_GT(num(t16, "ratio"), 5 * num(t8, "ratio"));
  EXPECT_DOUBLE_EQ(num(mlsys::calc("tensor-parallel", {{"tp", 1}}), "comm_time_s"), 0);
}

TEST(TensorParallel, BadInputs) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_of("tensor-parallel", R"({"tp":0})")["field"], "tp");
  EXPECT_EQ(error_of("tensor-parallel", R"({"hidden":-1})")["field"], "hidden");
  EXPECT_EQ(error_of("tensor-parallel", R"({"hardware":"h900"})")["field"], "hardware");
  EXPECT_EQ(error_of("tensor-parallel", R"({"hardware":"l4"})")["field"], "hardware");  // no NVLink in the table
  EXPECT_EQ(error_of("tensor-parallel", R"({"link_bandwidth_Bps":0})")["field"], "link_bandwidth_Bps");
  EXPECT_EQ(error_of("tensor-parallel", R"({"seq":"long"})")["field"], "seq");
  EXPECT_EQ(error_of("tensor-parallel", R"({"tensor":8})")["field"], "tensor");
  error_of("tensor-parallel", R"({"latency_s":NaN})");
}

TEST(Layout, SeventyBOnSixtyFourGpus) {
  // The lesson's worked example: Llama-2-70B-like, 64 H100 (8 per node), 512 sequences of 4096.
  const json r = mlsys::calc("layout", json::object());
  const auto& L = r["layouts"];
  ASSERT_FALSE(L.empty());
  std::set<std::tuple<int, int, int>> seen;
  for (const auto& x : L) {
    const int tp = x["tp"], pp = x["pp"], dp = x["dp"];
    EXPECT_EQ(tp * pp * dp, 64);
    EXPECT_LE(tp, 8);
    EXPECT_EQ(64 % tp, 0);
    EXPECT_EQ(8 % tp, 0);    // kv_heads
    EXPECT_EQ(80 % pp, 0);   // layers
    EXPECT_EQ(512 % dp, 0);  // global batch in whole micro-batches
    EXPECT_EQ(x["microbatches"], 512 / dp);
    EXPECT_TRUE(seen.insert({tp, pp, dp}).second);
    EXPECT_EQ(x["fits"].get<bool>(), num(x, "memory_per_gpu_bytes") <= num(r, "hbm_bytes"));
    // Memory agrees with the training-memory calculator for the same layout.
    const json m = mlsys::calc("training-memory", {{"layers", 80}, {"hidden", 8192}, {"heads", 64}, {"kv_heads", 8},
                                                   {"ffn_hidden", 28672}, {"vocab", 32000}, {"seq", 4096},
                                                   {"gated_mlp", true}, {"tied_embeddings", false}, {"tp", tp},
                                                   {"pp", pp}, {"dp", dp}, {"zero_stage", 1}, {"recompute", "selective"},
                                                   {"sequence_parallel", true}});
    EXPECT_DOUBLE_EQ(num(x, "memory_per_gpu_bytes"), num(m, "total_bytes"));
    EXPECT_GE(num(x, "step_time_s"), num(x, "compute_s"));
    EXPECT_GT(num(x, "mfu"), 0);
    EXPECT_LT(num(x, "mfu"), 0.6);  // never above the matmul efficiency
  }
  // Every valid factorization is listed: (tp, pp) with tp | 8, pp | 80, tp·pp | 64.
  int expected = 0;
  for (int tp : {1, 2, 4, 8})
    for (int pp = 1; pp <= 64; ++pp) expected += (64 % (tp * pp) == 0 && 80 % pp == 0);
  EXPECT_EQ(static_cast<int>(L.size()), expected);
  // Ranking: fitting layouts first, each group by its own step time.
  for (std::size_t i = 1; i < L.size(); ++i) {
    const bool a = L[i - 1]["fits"], b = L[i]["fits"];
    EXPECT_TRUE(a || !b) << "a layout that does not fit is ranked above one that does";
    if (a == b) { EXPECT_LE(num(L[i - 1], "step_time_s"), num(L[i], "step_time_s")); }
  }
  // The 70B model does not fit without model parallelism, and the best layout uses tp = 8.
  EXPECT_TRUE(L[0]["fits"]);
  for (const auto& x : L)
    if (x["tp"] == 1 && x["pp"] == 1) { EXPECT_FALSE(x["fits"]); }
  EXPECT_GT(r["fitting_layouts"].get<int>(), 0);
  EXPECT_EQ(r["valid_layouts"].get<int>(), expected);
}

TEST(Layout, StepTimeComponents) {
  const json r = mlsys::calc("layout", {{"gpus", 64}});
  for (const auto& x : r["layouts"]) {
    EXPECT_NEAR(num(x, "step_time_s"), num(x, "pipeline_s") + num(x, "dp_comm_s"), 1e-9 * num(x, "step_time_s"));
    if (x["dp"] == 1) { EXPECT_EQ(num(x, "dp_comm_s"), 0); }
    if (x["tp"] == 1) { EXPECT_EQ(num(x, "tp_comm_s"), 0); }
    if (x["pp"] == 1) { EXPECT_NEAR(num(x, "bubble_fraction"), 0, 1e-12); }
  }
}

TEST(Layout, RestrictedToOneDegree) {
  const json all = mlsys::calc("layout", json::object());
  const json t8 = mlsys::calc("layout", {{"tp", 8}});
  int expected = 0;
  for (const auto& x : all["layouts"]) expected += x["tp"] == 8;
  EXPECT_EQ(static_cast<int>(t8["layouts"].size()), expected);
  const json one = mlsys::calc("layout", {{"tp", 8}, {"pp", 8}});
  ASSERT_EQ(one["layouts"].size(), 1u);
  for (const auto& x : all["layouts"])
    if (x["tp"] == 8 && x["pp"] == 8) { EXPECT_EQ(x, one["layouts"][0]); }
}

TEST(Layout, BadInputs) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_of("layout", R"({"gpus":0})")["field"], "gpus");
  EXPECT_EQ(error_of("layout", R"({"gpus":7, "gpus_per_node":4, "layers":81, "heads":7, "kv_heads":7, "hidden":7168, "global_batch":5})")["field"],
            "gpus");  // no factorization satisfies the constraints
  EXPECT_EQ(error_of("layout", R"({"kv_heads":3})")["field"], "kv_heads");
  EXPECT_EQ(error_of("layout", R"({"hidden":8001, "heads":64})")["field"], "heads");
  EXPECT_EQ(error_of("layout", R"({"micro_batch":1024, "global_batch":512})")["field"], "micro_batch");
  EXPECT_EQ(error_of("layout", R"({"hardware":"h900"})")["field"], "hardware");
  EXPECT_EQ(error_of("layout", R"({"hardware":"l4"})")["field"], "hardware");
  EXPECT_EQ(error_of("layout", R"({"matmul_efficiency":0})")["field"], "matmul_efficiency");
  EXPECT_EQ(error_of("layout", R"({"matmul_efficiency":1.5})")["field"], "matmul_efficiency");
  EXPECT_EQ(error_of("layout", R"({"gpus":1e12})")["field"], "gpus");
  EXPECT_EQ(error_of("layout", R"({"recompute":"some"})")["field"], "recompute");
  EXPECT_EQ(error_of("layout", R"({"gpu":64})")["field"], "gpu");
  EXPECT_EQ(error_of("layout", R"({"tp":16})")["field"], "tp");  // beyond a node
  EXPECT_EQ(error_of("layout", R"({"pp":3})")["field"], "pp");   // 3 divides neither 64 nor 80
  EXPECT_EQ(error_of("layout", R"({"gpus":"64"})")["field"], "gpus");
  error_of("layout", R"({"inter_bandwidth_Bps":NaN})");
}

TEST(ModelParallelExercises, AnswersAgreeWithTheCalculators) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    {
      const auto e = mlsys::make_exercise("pp-bubble-fraction", seed);
      EXPECT_NEAR(e.answer, num(mlsys::calc("pipeline", e.params), "bubble_fraction"), 1e-9);
    }
    {
      const auto e = mlsys::make_exercise("pp-step-time", seed);
      EXPECT_NEAR(e.answer, num(mlsys::calc("pipeline", e.params), "step_time_s") * 1e3, 1e-9 * e.answer);
    }
    {
      const auto e = mlsys::make_exercise("tp-allreduce-bytes", seed);
      EXPECT_NEAR(e.answer, num(mlsys::calc("tensor-parallel", e.params), "sent_bytes_per_gpu") / 1e6, 1e-9 * e.answer);
    }
    {
      const auto e = mlsys::make_exercise("pp-inflight-saving", seed);
      const json& p = e.params;
      const auto peak = [&](const char* schedule) {
        return mlsys::calc("pipeline", {{"schedule", schedule}, {"stages", p["stages"]}, {"microbatches", p["microbatches"]}})
            ["peak_inflight_per_stage"][p["stage"].get<int>()].get<double>();
      };
      EXPECT_NEAR(e.answer, (peak("gpipe") - peak("1f1b")) * p["activation_gb"].get<double>(), 1e-9 * e.answer);
    }
    {
      const auto e = mlsys::make_exercise("pp-layout-states", seed);
      EXPECT_NEAR(e.answer, num(mlsys::calc("training-memory", e.params), "model_states_bytes") / 1e9, 1e-9 * e.answer);
    }
    {
      const auto e = mlsys::make_exercise("pp-smallest-depth", seed);
      const json& p = e.params;
      const auto states_gb = [&](int pp) {
        return num(mlsys::calc("training-memory", {{"params", p["params"]}, {"tp", 8}, {"pp", pp},
                                                   {"dp", p["gpus"].get<int>() / (8 * pp)}, {"zero_stage", 1}}),
                   "model_states_bytes") / 1e9;
      };
      const int pp = static_cast<int>(e.answer);
      EXPECT_LE(states_gb(pp), p["budget_gb"].get<double>()) << seed;
      if (pp > 1) { EXPECT_GT(states_gb(pp / 2), p["budget_gb"].get<double>()) << seed; }
    }
  }
}

// layout_search(): the listed layouts with their counts. 8 GPUs on one node, 8 heads, 8
// layers: every (tp, pp, dp) with tp·pp·dp = 8 is valid when global_batch is a multiple of 8.
TEST(LayoutSearch, CountsAndErrors) {
  mlsys::LayoutProblem pr;
  pr.model.layers = 8;
  pr.model.hidden = 1024;
  pr.model.heads = 8;
  pr.model.kv_heads = 8;
  pr.model.head_dim = 128;
  pr.model.ffn_hidden = 4096;
  pr.model.seq = 1024;
  pr.gpus = 8;
  pr.gpus_per_node = 8;
  pr.global_batch = 64;
  pr.intra = {2e-6, 450e9};
  pr.inter = {5e-6, 50e9};
  const auto r = mlsys::layout_search(pr);
  EXPECT_EQ(r.valid_layouts, 10);  // ordered factorizations of 2^3 into three factors: C(5, 2)
  EXPECT_EQ(r.skipped_factorizations, 0);
  EXPECT_EQ(r.valid_layouts, static_cast<int>(r.layouts.size()));
  EXPECT_DOUBLE_EQ(r.intra_bandwidth_Bps, 450e9);
  EXPECT_EQ(r.params, mlsys::model_counts(pr.model).params);
  pr.only_tp = 3;
  EXPECT_THROW(mlsys::layout_search(pr), mlsys::InputError);
}
