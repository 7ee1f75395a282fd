// The lesson's newer models: the contiguous causal imbalance's limit 2 − 1/p, ring attention's
// backward pass (K/V and dK/dV circulate: (2p−1) blocks per rank, 2.5× the compute), Llama 3's
// all-gather context parallelism, Korthikanti's per-layer activation list (sums to 34), the
// sequence-parallel calculator with gated or wider MLPs, and the priced long-context MoE layout.
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/parallel/allgather_context_parallel.hpp"
#include "mlsys/parallel/long_context_plan.hpp"
#include "mlsys/parallel/ring_attention.hpp"
#include "mlsys/memory/training_memory.hpp"
#include "test_support.hpp"

using mlsys::json;

namespace {

// The field an input error names.
std::string bad_field(const std::string& name, const json& input) {
  return mlsys::test::error_of(name, input.dump())["field"].get<std::string>();
}

}  // namespace

namespace {

mlsys::RingAttentionConfig ring(double seq, int p, mlsys::RingPartition part, double tile = 128) {
  mlsys::RingAttentionConfig c;
  c.seq = seq;
  c.ranks = p;
  c.partition = part;
  c.tile = tile;
  return c;
}

}  // namespace

// Rank p−1 computes (p−1)·n² + n(n+1)/2 tiles, the mean is (p−1)·n²/2 + n(n+1)/2; with many
// tiles per block the ratio tends to (p − ½)/(p/2) = (2p−1)/p: 1.875 at p = 8 (the value the
// lesson quotes), not 2p/(p+1) = 1.78, which is the one-tile-per-block case.
TEST(RingAttentionLimit, ContiguousImbalanceTendsToTwoMinusOneOverP) {
  for (int p : {2, 4, 8, 16}) {
    const auto r = mlsys::ring_attention(ring(p * 16384.0, p, mlsys::RingPartition::Contiguous, 128));
    EXPECT_DOUBLE_EQ(r.contiguous_imbalance_limit, 2.0 - 1.0 / p);
    const double n = 16384 / 128.0;
    EXPECT_NEAR(r.imbalance, 2.0 - 1.0 / p, (2.0 - 1.0 / p) * 2 / n) << p;  // within O(1/n)
    EXPECT_LT(r.imbalance, 2.0 - 1.0 / p);
  }
  const auto eight = mlsys::ring_attention(ring(131072, 8, mlsys::RingPartition::Contiguous));
  EXPECT_NEAR(eight.imbalance, 1.875, 0.005);
}

// Backward (ring-flash-attention, Megatron-Core): K/V go p−1 hops as in the forward pass and
// their gradients dK/dV travel with them plus one hop home: (2p−1) blocks, about twice the
// forward's p−1; each step does 2.5× the forward FLOPs (five matmuls against two).
TEST(RingAttentionBackward, KvAndGradientsCirculate) {
  for (int p : {2, 4, 8}) {
    const auto c = ring(p * 8192.0, p, mlsys::RingPartition::ZigZag);
    const auto r = mlsys::ring_attention(c);
    EXPECT_DOUBLE_EQ(r.backward_kv_bytes_sent_per_rank, (2 * p - 1) * r.kv_block_bytes);
    EXPECT_DOUBLE_EQ(r.backward_over_forward_bytes, (2.0 * p - 1) / (p - 1));
    EXPECT_DOUBLE_EQ(r.backward_compute_time_s, 2.5 * r.compute_time_s);
    EXPECT_DOUBLE_EQ(r.backward_step_comm_s, c.latency_s + 2 * r.kv_block_bytes / c.link_bandwidth_Bps);
    EXPECT_NEAR(r.backward_min_block_tokens_bandwidth, 0.8 * r.min_block_tokens_bandwidth, 1e-9);
    // Compute-bound on NVLink: every step hides its transfer; only dK/dV's last hop shows.
    const double hop = c.latency_s + r.kv_block_bytes / c.link_bandwidth_Bps;
    EXPECT_NEAR(r.backward_time_s, r.backward_compute_time_s + hop, 1e-12);
  }
  // Communication-bound (tiny blocks on a slow link): p−1 steps of the doubled transfer, the
  // last step's compute and the final hop.
  auto c = ring(8 * 256.0, 8, mlsys::RingPartition::ZigZag);
  c.link_bandwidth_Bps = 1e9;
  const auto r = mlsys::ring_attention(c);
  const double flops_per_tile = 4.0 * 128 * 128 * c.head_dim * c.heads;
  const double last = 2.5 * r.step_critical_tiles[7] * flops_per_tile / c.peak_flops;
  EXPECT_GT(r.backward_step_comm_s, 2.5 * r.step_critical_tiles[1] * flops_per_tile / c.peak_flops);
  EXPECT_NEAR(r.backward_time_s, 7 * r.backward_step_comm_s + last + c.latency_s + r.kv_block_bytes / 1e9, 1e-12);
}

// Llama 3 (Dubey et al. 2024, section 3.3.2): 2·CP chunks, rank i holds chunks i and
// 2·CP−1−i, K/V all-gathered, attention local. Same bytes as the ring, exposed, but any mask.
TEST(AllGatherContextParallel, GathersTheWholeKvAndBalancesTheWork) {
  for (int p : {2, 4, 16}) {
    auto c = ring(p * 8192.0, p, mlsys::RingPartition::Contiguous);  // the partition is ignored
    c.kv_heads = 8;
    const auto a = mlsys::allgather_context_parallel(c);
    c.partition = mlsys::RingPartition::ZigZag;
    const auto z = mlsys::ring_attention(c);
    const double whole_kv = c.seq * 2 * 8 * c.head_dim * 2;
    EXPECT_DOUBLE_EQ(a.kv_gathered_bytes, whole_kv);
    EXPECT_DOUBLE_EQ(a.ring_kv_buffer_bytes, 2 * z.kv_block_bytes);
    EXPECT_DOUBLE_EQ(a.allgather_bytes_sent_per_rank, z.kv_bytes_sent_per_rank);  // (p−1)/p · whole K/V
    EXPECT_NEAR(a.allgather_time_s, (p - 1) * (c.latency_s + whole_kv / p / c.link_bandwidth_Bps), 1e-15);
    EXPECT_DOUBLE_EQ(a.imbalance, 1.0);
    EXPECT_NEAR(a.compute_time_s, z.compute_time_s, 1e-15);  // balanced: each step's max = the mean
    EXPECT_DOUBLE_EQ(a.forward_time_s, a.allgather_time_s + a.compute_time_s);
    EXPECT_DOUBLE_EQ(a.backward_time_s, 2.5 * a.compute_time_s + a.reduce_scatter_time_s);
    EXPECT_GT(a.forward_time_s, z.time_s);  // the ring hides its transfers; the all-gather does not
  }
}

// Korthikanti et al. 2022 section 4.1, bytes per s·b·h at t = 1: attention 11 (QKV input 2,
// Q and K 4, V 2, output projection input 2, dropout mask 1) + 5·a·s/h; MLP 19 (input 2, GeLU
// input 8, second matmul input 8, dropout mask 1); the two layer norms' inputs 4: 34 in all.
// Under tensor parallelism the norms (4), the QKV and first MLP inputs (2 + 2) and the two
// dropout masks (1 + 1) stay whole: the 10.
TEST(KorthikantiList, PerLayerTermsSumToThirtyFour) {
  const double attention = 2 + 4 + 2 + 2 + 1, mlp = 2 + 8 + 8 + 1, norms = 2 + 2;
  EXPECT_EQ(attention + mlp + norms, 34);
  const double s = 2048, b = 1, h = 12288, a = 96, sbh = s * b * h;
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, 1, false, mlsys::Recompute::None, false),
                   sbh * (attention + mlp + norms) + 5 * a * s * s * b);
  const double replicated = norms + 2 + 2 + 1 + 1;
  EXPECT_EQ(replicated, 10);
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, 8, false, mlsys::Recompute::Selective, false),
                   sbh * (replicated + (34 - replicated) / 8));
}

TEST(KorthikantiList, CalculatorFollowsTheMlpShape) {
  const json base = {{"seq", 8192}, {"hidden", 4096}, {"heads", 32}, {"tp", 8}, {"recompute", "selective"}};
  const json plain = mlsys::calc("sequence-parallel-memory", base);
  EXPECT_DOUBLE_EQ(plain["linear_units"].get<double>(), 34);
  json gated = base;
  gated["ffn_hidden"] = 14336;
  gated["gated"] = true;
  const json g = mlsys::calc("sequence-parallel-memory", gated);
  // SwiGLU with ffn 14336 (Llama 3 8B): gate, up and their product, 6·14336/4096 = 21.
  EXPECT_DOUBLE_EQ(g["mlp_units"].get<double>(), 21);
  EXPECT_DOUBLE_EQ(g["tp_sp_bytes_per_layer"].get<double>(), 8192.0 * 4096 * 39 / 8);
  EXPECT_DOUBLE_EQ(g["tp_only_bytes_per_layer"].get<double>(), 8192.0 * 4096 * (10 + 29.0 / 8));
  EXPECT_EQ(bad_field("sequence-parallel-memory", json{{"ffn_hidden", 0}}), "ffn_hidden");
}

// Mixtral 8x7B (Jiang et al. 2024): 46,702,792,704 parameters (the Hugging Face checkpoint's
// count; "47B" in the paper). The layout: TP×8 and EP×8 on each node's 8 GPUs, CP×4 across 4.
TEST(LongContextPlan, MixtralLayoutPricedFromItsParts) {
  const mlsys::LongContextPlanConfig c;
  const auto r = mlsys::long_context_plan(c);
  EXPECT_DOUBLE_EQ(r.dense_params + r.expert_params, 46702792704.0);
  EXPECT_EQ(r.gpus, 32);
  EXPECT_EQ(r.nodes, 4);
  EXPECT_NE(r.layout.find("TP×8"), std::string::npos);
  EXPECT_NE(r.layout.find("CP×4"), std::string::npos);
  EXPECT_NE(r.layout.find("EP×8"), std::string::npos);
  // States: 4 bytes per parameter held, 12 more sharded over the 4 replicas.
  EXPECT_DOUBLE_EQ(r.states_bytes, r.dense_params / 8 * (4 + 12 / 4.0) + r.expert_params / 8 * (4 + 12 / 4.0));
  // Activations: 4,096 sequence-parallel tokens per GPU, 15 bytes per h each for attention and
  // norms, 8,192 expert assignments of 2 + 21 bytes per h, a 1-byte mask per token.
  EXPECT_DOUBLE_EQ(r.attention_activation_bytes, 32 * 15 * 4096.0 * 4096);
  EXPECT_DOUBLE_EQ(r.moe_activation_bytes, 32 * (8192.0 * 23 * 4096 + 4096.0 * 4096));
  EXPECT_DOUBLE_EQ(r.memory_per_gpu_bytes, r.states_bytes + r.activation_bytes);
  EXPECT_TRUE(r.fits);
  EXPECT_DOUBLE_EQ(r.step_time_s, r.attention_s + r.dense_matmul_s + r.expert_s + r.tp_comm_s + r.all_to_all_s);
  // Experts: 8,192 assignments × 2·3·h·ffn FLOPs, forward and twice backward, 32 layers.
  EXPECT_NEAR(r.expert_s, 32 * 3 * 8192.0 * 6 * 4096 * 14336 / c.peak_flops, 1e-12);
  auto no_zero = c;
  no_zero.distributed_optimizer = false;
  EXPECT_FALSE(mlsys::long_context_plan(no_zero).fits);  // 16 bytes per parameter do not fit
}

TEST(LongContextPlan, RejectsLayoutsTheNodesCannotHold) {
  EXPECT_EQ(bad_field("long-context-plan", json{{"tp", 16}}), "tp");
  EXPECT_EQ(bad_field("long-context-plan", json{{"ep", 3}}), "ep");
  EXPECT_EQ(bad_field("long-context-plan", json{{"tp", 4}, {"cp", 3}}), "cp");
  EXPECT_EQ(bad_field("long-context-plan", json{{"kv_heads", 5}}), "kv_heads");
  EXPECT_EQ(bad_field("long-context-plan", json{{"seq", 1000}}), "seq");
  const json one = mlsys::calc("long-context-plan", {{"tp", 8}, {"cp", 1}});
  EXPECT_EQ(one["nodes"], 1);
  EXPECT_GT(one["memory_per_gpu_bytes"].get<double>(), mlsys::calc("long-context-plan", json::object())["memory_per_gpu_bytes"].get<double>());
}
