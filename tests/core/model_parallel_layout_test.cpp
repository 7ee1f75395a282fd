// Tensor parallelism and layout search: Megatron's all-reduce count and volume per layer
// (Shoeybi et al. 2019, arXiv:1909.08053, Figure 4: two all-reduces forward, two backward), the
// communication-to-compute ratio's closed form, the layout search's constraints, memory, fit and
// ranking on the lesson's 70B-on-64-GPUs example, and bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

#include "mlsys/api/calc.hpp"
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
  EXPECT_DOUBLE_EQ(num(mlsys::calc("tensor-parallel", {{"tp", 1}}), "comm_time_s"), 0);
}

TEST(TensorParallel, AcrossNodesTheHierarchicalAllReduce) {
  // t = 16 on 8-GPU nodes (the lesson's example, h = 8192, s = 4096): each all-reduce of S bytes
  // is a ring reduce-scatter and all-gather inside each node, 2(g − 1) steps of S/g on NVLink
  // (exactly t = 8's ring), plus an all-reduce of each GPU's S/g shard across the N = 2 nodes,
  // 2(N − 1) steps of S/(gN) on every GPU's own 50 GB/s NIC (comm/cost_model.hpp,
  // hierarchical_cost; NCCL's rail-aligned DGX H100 topology). Not one flat ring at one NIC.
  const double S = 2.0 * 4096 * 8192, g = 8, n = 2;
  const json t8 = mlsys::calc("tensor-parallel", {{"tp", 8}}), t16 = mlsys::calc("tensor-parallel", {{"tp", 16}});
  EXPECT_EQ(t16["link"], "inter-node");
  EXPECT_EQ(t16["algorithm"], "hierarchical");
  EXPECT_EQ(t8["algorithm"], "ring");
  EXPECT_EQ(t16["nodes"], 2);
  EXPECT_DOUBLE_EQ(num(t16, "link_bandwidth_Bps"), 450e9);
  EXPECT_DOUBLE_EQ(num(t16, "node_nic_bandwidth_Bps"), 8 * 50e9);
  const double inter = 4 * 2 * (n - 1) * (5e-6 + S / (g * n) / 50e9);
  EXPECT_NEAR(num(t16, "comm_intra_s"), num(t8, "comm_time_s"), 1e-15);
  EXPECT_NEAR(num(t16, "comm_inter_s"), inter, 1e-12);
  EXPECT_NEAR(num(t16, "comm_time_s"), num(t8, "comm_time_s") + inter, 1e-12);
  EXPECT_DOUBLE_EQ(num(t8, "comm_inter_s"), 0);
  // The busiest GPU still sends 2(t − 1)/t · S per all-reduce, as in a ring of 16.
  EXPECT_NEAR(num(t16, "sent_bytes_per_gpu"), 4 * 2 * 15.0 / 16 * S, 1e-3);
  // About 1.4: the flat ring at one 50 GB/s NIC gave 7.88.
  EXPECT_NEAR(num(t16, "ratio"), 1.378, 0.001);
  // A group that crosses nodes must fill them.
  EXPECT_EQ(mlsys::test::error_of("tensor-parallel", R"({"tp":12})")["field"], "tp");
  // Nodes of one GPU: every step on the NICs, a flat ring of t over 50 GB/s.
  const json flat = mlsys::calc("tensor-parallel", {{"tp", 4}, {"gpus_per_node", 1}, {"inter_latency_s", 0}});
  EXPECT_NEAR(num(flat, "comm_time_s"), 4 * 2 * 3.0 / 4 * S / 50e9, 1e-12);
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

TEST(Layout, DataParallelGroupsOnTheirNodes) {
  // Ranks tensor-fastest, then data, then pipeline on 8-GPU nodes: a data-parallel group has
  // min(d, 8/t) ranks on each node. Its gradient exchange (2 bytes per parameter of the GPU)
  // is a ring on NVLink inside one node and the hierarchical all-reduce across nodes with each
  // rank on its own 50 GB/s NIC: t = 8, d = 8 is a flat ring of one rank per node over the NICs;
  // t = 1, d = 64 a ring of 8 on NVLink then a ring of 8 nodes on each GPU's NIC.
  const json r = mlsys::calc("layout", json::object());
  const auto params_per_gpu = [](const json& x) {
    return num(mlsys::calc("training-memory", {{"layers", 80}, {"hidden", 8192}, {"heads", 64}, {"kv_heads", 8},
                                               {"ffn_hidden", 28672}, {"vocab", 32000}, {"seq", 4096},
                                               {"gated_mlp", true}, {"tied_embeddings", false}, {"tp", x["tp"]},
                                               {"pp", x["pp"]}, {"dp", x["dp"]}, {"zero_stage", 1}}),
               "params_per_gpu");
  };
  int checked = 0;
  for (const auto& x : r["layouts"]) {
    const int tp = x["tp"], dp = x["dp"];
    EXPECT_EQ(x["dp_ranks_per_node"], std::min(dp, 8 / tp));
    const double S = 2 * params_per_gpu(x);
    if (tp == 8 && dp == 8) {
      EXPECT_NEAR(num(x, "dp_comm_s"), 14 * (5e-6 + S / 8 / 50e9), 1e-9);
      ++checked;
    }
    if (tp == 1 && dp == 64) {
      EXPECT_NEAR(num(x, "dp_comm_s"), 14 * (2e-6 + S / 8 / 450e9) + 14 * (5e-6 + S / 64 / 50e9), 1e-9);
      ++checked;
    }
    if (tp * dp <= 8 && dp > 1) {  // inside one node: a ring of d on NVLink
      EXPECT_NEAR(num(x, "dp_comm_s"), 2 * (dp - 1) * (2e-6 + S / dp / 450e9), 1e-9);
      ++checked;
    }
  }
  EXPECT_GE(checked, 4);
}

TEST(LayoutSearch, GroupsTileTheNodes) {
  // 24 GPUs on 8-GPU nodes: tp = 2, dp = 3 would put a data-parallel group on 1 + 2 ranks of two
  // nodes and tp = 1, dp = 12 on 8 + 4: both are rejected; tp = 8, pp = 3 and tp = 2, dp = 4 are not.
  mlsys::LayoutProblem pr;
  pr.model.layers = 24;
  pr.model.hidden = 1024;
  pr.model.heads = 8;
  pr.model.kv_heads = 8;
  pr.model.head_dim = 128;
  pr.model.ffn_hidden = 4096;
  pr.model.seq = 1024;
  pr.gpus = 24;
  pr.gpus_per_node = 8;
  pr.global_batch = 96;
  pr.intra = {2e-6, 450e9};
  pr.inter = {5e-6, 50e9};
  const auto r = mlsys::layout_search(pr);
  std::set<std::tuple<int, int, int>> seen;
  for (const auto& L : r.layouts) {
    seen.insert({L.tp, L.pp, L.dp});
    const int block = L.tp * L.dp;
    EXPECT_TRUE(8 % block == 0 || block % 8 == 0) << L.tp << " " << L.pp << " " << L.dp;
  }
  EXPECT_TRUE(seen.count({8, 3, 1}));
  EXPECT_TRUE(seen.count({2, 3, 4}));
  EXPECT_FALSE(seen.count({2, 4, 3}));
  EXPECT_FALSE(seen.count({1, 2, 12}));
  EXPECT_GT(r.skipped_factorizations, 0);
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
