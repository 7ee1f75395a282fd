// Models of the sequence-context-expert lesson: ring attention's executed block schedule over
// a causal mask (zig-zag equalises the work exactly; contiguous imbalance equals its closed
// form), the overlap condition, DeepSpeed-Ulysses' all-to-all volume and heads constraint, the
// simulated MoE router (conservation, capacity, balancing), expert-parallel all-to-all bytes
// and Megatron sequence-parallel activation memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/parallel/expert_parallel.hpp"
#include "mlsys/parallel/moe_router.hpp"
#include "mlsys/parallel/ring_attention.hpp"
#include "mlsys/parallel/sequence_parallel.hpp"
#include "mlsys/parallel/ulysses.hpp"

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

TEST(RingAttention, ZigZagEqualisesCausalWorkExactly) {
  for (int p : {2, 4, 8, 16}) {
    const auto r = mlsys::ring_attention(ring(2.0 * p * 512, p, mlsys::RingPartition::ZigZag, 128));
    ASSERT_EQ(r.method, "executed");
    for (double t : r.tiles_per_rank) EXPECT_EQ(t, r.tiles_per_rank[0]) << p;
    EXPECT_DOUBLE_EQ(r.imbalance, 1.0);
    // Rank i's chunks i and 2p−1−i each see n² tiles per earlier chunk and n(n+1)/2 on the
    // diagonal: (2p−1)·n² + n(n+1) tiles whatever i is.
    const double n = 4;
    EXPECT_DOUBLE_EQ(r.tiles_per_rank[0], (2 * p - 1) * n * n + n * (n + 1));
  }
}

TEST(RingAttention, ContiguousImbalanceMatchesClosedForm) {
  for (int p : {2, 4, 8}) {
    for (double tile : {64.0, 256.0, 1024.0}) {
      const auto r = mlsys::ring_attention(ring(p * 1024.0, p, mlsys::RingPartition::Contiguous, tile));
      ASSERT_EQ(r.method, "executed");
      const double n = 1024 / tile;
      for (int i = 0; i < p; ++i) EXPECT_DOUBLE_EQ(r.tiles_per_rank[i], i * n * n + n * (n + 1) / 2) << p << " " << i;
      EXPECT_NEAR(r.imbalance, r.contiguous_imbalance_closed_form, 1e-12);
    }
    // With one tile per block the ratio is p / ((p+1)/2) = 2p/(p+1).
    const auto one = mlsys::ring_attention(ring(p * 1024.0, p, mlsys::RingPartition::Contiguous, 1024));
    EXPECT_NEAR(one.imbalance, 2.0 * p / (p + 1), 1e-12);
  }
}

TEST(RingAttention, ExecutedAndClosedFormAgreeAndCapSwitches) {
  // 8 ranks, zig-zag: executed at 64K tokens; beyond the cap the closed form takes over.
  const auto small = mlsys::ring_attention(ring(65536, 8, mlsys::RingPartition::ZigZag));
  const auto big = mlsys::ring_attention(ring(1 << 20, 8, mlsys::RingPartition::ZigZag));
  EXPECT_EQ(small.method, "executed");
  EXPECT_EQ(big.method, "closed-form");
  // Tiles scale with (s/T)² for the same partition shape (diagonal tiles aside).
  const double n_small = 65536 / 16 / 128.0, n_big = (1 << 20) / 16 / 128.0;
  EXPECT_DOUBLE_EQ(small.tiles_per_rank[3], 15 * n_small * n_small + n_small * (n_small + 1));
  EXPECT_DOUBLE_EQ(big.tiles_per_rank[3], 15 * n_big * n_big + n_big * (n_big + 1));
  // Non-causal: every rank computes every tile of its row of blocks.
  auto c = ring(65536, 8, mlsys::RingPartition::Contiguous);
  c.causal = false;
  const auto full = mlsys::ring_attention(c);
  for (double t : full.tiles_per_rank) EXPECT_DOUBLE_EQ(t, 64.0 * 512);
}

TEST(RingAttention, ContiguousCausalSavesNoTimeZigZagHalvesIt) {
  auto c = ring(131072, 8, mlsys::RingPartition::Contiguous);
  c.causal = false;
  const double full = mlsys::ring_attention(c).compute_time_s;
  c.causal = true;
  const double contiguous = mlsys::ring_attention(c).compute_time_s;
  c.partition = mlsys::RingPartition::ZigZag;
  const double zigzag = mlsys::ring_attention(c).compute_time_s;
  // Contiguous: step 0 is a diagonal block, every later step some rank has a full block.
  const double nb = 131072 / 8 / 128.0;
  EXPECT_NEAR(contiguous / full, (7 * nb * nb + nb * (nb + 1) / 2) / (8 * nb * nb), 1e-12);
  EXPECT_NEAR(zigzag / full, 0.5 + 0.5 / (8 * nb) /*diagonal tiles*/, 1e-3);
  EXPECT_LT(zigzag, 0.55 * contiguous);
}

TEST(RingAttention, OverlapConditionIsPeakOverBandwidth) {
  // Liu et al. 2023 (Sec. 3): with MHA in 16-bit the block must reach c ≥ F/B tokens for the
  // KV transfer to hide behind the block's compute.
  auto c = ring(131072, 8, mlsys::RingPartition::Contiguous);
  c.peak_flops = 989e12;
  c.link_bandwidth_Bps = 450e9;
  c.latency_s = 0;
  auto r = mlsys::ring_attention(c);
  EXPECT_NEAR(r.min_block_tokens_bandwidth, 989e12 / 450e9, 1e-9);
  EXPECT_NEAR(r.min_block_tokens, r.min_block_tokens_bandwidth, 1e-9);
  c.kv_heads = 8;  // GQA: 4× fewer KV bytes, 4× smaller block
  EXPECT_NEAR(mlsys::ring_attention(c).min_block_tokens_bandwidth, 989e12 / 450e9 / 4, 1e-9);
  // At exactly the minimum block, one step's compute equals its transfer.
  c.kv_heads = 32;
  c.latency_s = 1e-5;
  r = mlsys::ring_attention(c);
  const double cmin = r.min_block_tokens;
  const double compute = cmin * cmin * 4 * 128 * 32 / 989e12;
  const double comm = 1e-5 + cmin * 2 * 32 * 128 * 2 / 450e9;
  EXPECT_NEAR(compute, comm, 1e-12 * comm);
  EXPECT_TRUE(r.overlapped);  // 16384-token blocks
  EXPECT_EQ(r.kv_block_bytes, 16384.0 * 2 * 32 * 128 * 2);
}

TEST(RingAttention, RejectsBadShapes) {
  try {
    mlsys::ring_attention(ring(1000, 8, mlsys::RingPartition::ZigZag));
    FAIL();
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "seq");
  }
  auto c = ring(131072, 8, mlsys::RingPartition::Contiguous);
  c.kv_heads = 12;
  EXPECT_THROW(mlsys::ring_attention(c), mlsys::InputError);
}

TEST(Ulysses, VolumeFollowsNhOverP) {
  // Jacobs et al. 2023 (Sec. 3.2): per-link volume 4·N·h/P for Q, K, V and the output; with
  // an all-to-all keeping 1/P locally a GPU sends (P−1)/P of that.
  mlsys::UlyssesConfig c;
  c.seq = 262144;
  c.ranks = 8;
  c.heads = 32;
  c.kv_heads = 32;
  const double h = 32 * 128;
  auto r = mlsys::ulysses(c);
  EXPECT_NEAR(r.ulysses_bytes_per_rank, 4 * 262144.0 * h / 8 * 2 * 7 / 8, 1);
  // Constant when N and P grow together (up to the (P−1)/P factor).
  c.seq *= 2;
  c.ranks *= 2;
  const auto r2 = mlsys::ulysses(c);
  EXPECT_NEAR(r2.ulysses_bytes_per_rank / r.ulysses_bytes_per_rank, (15.0 / 16) / (7.0 / 8), 1e-12);
  // Ring attention's KV volume per GPU does not shrink with P: (P−1)/P·N·2·h·2 bytes.
  EXPECT_NEAR(r2.ring_bytes_per_rank, 15.0 / 16 * 524288 * 2 * h * 2, 1);
}

TEST(Ulysses, HeadsConstraint) {
  mlsys::UlyssesConfig c;
  c.heads = 40;
  c.kv_heads = 8;
  c.ranks = 16;
  try {
    mlsys::ulysses(c);
    FAIL();
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "ranks");
  }
  c.heads = 32;  // 8 KV heads over 16 ranks: each repeated twice
  const auto r = mlsys::ulysses(c);
  EXPECT_TRUE(r.kv_replicated);
  EXPECT_EQ(r.kv_heads_per_rank, 1);
  EXPECT_EQ(r.heads_per_rank, 2);
  c.kv_heads = 32;
  c.heads = 96;
  c.ranks = 3;  // 96 heads divide over 3 ranks, 32 KV heads neither divide nor replicate
  c.kv_heads = 32;
  try {
    mlsys::ulysses(c);
    FAIL();
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "kv_heads");
  }
}

TEST(MoeRouter, ConservationAndCapacity) {
  for (std::uint64_t seed : {1ULL, 2ULL, 77ULL}) {
    for (int k : {1, 2, 4}) {
      mlsys::MoeRouterConfig c;
      c.tokens = 2048;
      c.experts = 16;
      c.top_k = k;
      c.capacity_factor = 1.1;
      c.seed = seed;
      const auto r = mlsys::route_tokens(c);
      EXPECT_EQ(r.kept + r.dropped, 2048.0 * k);
      EXPECT_EQ(r.capacity, std::floor(1.1 * 2048 * k / 16));
      double routed = 0, kept = 0;
      for (int e = 0; e < 16; ++e) {
        routed += r.routed_per_expert[e];
        kept += r.kept_per_expert[e];
        EXPECT_LE(r.kept_per_expert[e], r.capacity);
        EXPECT_EQ(r.kept_per_expert[e], std::min(r.routed_per_expert[e], r.capacity));
      }
      EXPECT_EQ(routed, 2048.0 * k);
      EXPECT_EQ(kept, r.kept);
      double pi = 0;
      for (double x : r.mean_prob_per_expert) pi += x;
      EXPECT_NEAR(pi, 1.0, 1e-9);
    }
  }
}

TEST(MoeRouter, BalanceReducesPeakLoadAndLoss) {
  mlsys::MoeRouterConfig c;
  c.tokens = 8192;
  c.experts = 16;
  c.skew = 1.5;
  const auto skewed = mlsys::route_tokens(c);
  c.balance = 1.0;
  const auto balanced = mlsys::route_tokens(c);
  EXPECT_LT(balanced.max_over_mean, skewed.max_over_mean);
  EXPECT_LT(balanced.dropped, skewed.dropped);
  EXPECT_LT(balanced.aux_loss, skewed.aux_loss);
  // With no bias the expected f_i and P_i are 1/E, so E·Σ f_i·P_i is close to 1 (Switch).
  EXPECT_NEAR(balanced.balance_score, 1.0, 0.02);
  EXPECT_GT(skewed.balance_score, 1.2);
  EXPECT_NEAR(balanced.aux_loss, 0.01 * balanced.balance_score, 1e-15);
}

TEST(MoeRouter, DeterministicPerSeedAndCapped) {
  mlsys::MoeRouterConfig c;
  const auto a = mlsys::route_tokens(c), b = mlsys::route_tokens(c);
  EXPECT_EQ(a.routed_per_expert, b.routed_per_expert);
  c.seed = 2;
  EXPECT_NE(mlsys::route_tokens(c).routed_per_expert, a.routed_per_expert);
  c.tokens = 65536;
  c.experts = 256;
  EXPECT_THROW(mlsys::route_tokens(c), mlsys::InputError);
  c.tokens = 16;
  c.top_k = 300;
  EXPECT_THROW(mlsys::route_tokens(c), mlsys::InputError);
}

TEST(ExpertParallel, BytesLeaveAtEpMinusOneOverEp) {
  mlsys::ExpertParallelConfig c;
  c.tokens = 8192;
  c.hidden = 4096;
  c.top_k = 2;
  for (int ep : {1, 2, 8, 64}) {
    c.ep = ep;
    const auto r = mlsys::expert_parallel(c);
    const double out = 8192.0 * 2 * 4096 * 2 * (ep - 1) / ep;
    EXPECT_NEAR(r.bytes_leaving_per_all_to_all, out, 1e-6 * (out + 1));
    EXPECT_NEAR(r.bytes_per_layer_forward, 2 * out, 1e-6 * (out + 1));
    EXPECT_NEAR(r.bytes_per_layer_training, 4 * out, 1e-6 * (out + 1));
    // Gated experts: 3 matrices of h × ffn, 2 FLOPs per multiply-add, per (token, expert).
    EXPECT_DOUBLE_EQ(r.expert_flops_forward, 8192.0 * 2 * 6 * 4096 * 14336);
  }
}

TEST(SequenceParallel, KorthikantiFormulas) {
  // Korthikanti et al. 2022, Table 2 (GPT-3 175B: s = 2048, h = 12288, a = 96, b = 1).
  const double s = 2048, b = 1, h = 12288, a = 96;
  for (const auto& p : mlsys::sequence_parallel_sweep(s, b, h, a, 8, mlsys::Recompute::None, false)) {
    const double t = p.tp;
    EXPECT_DOUBLE_EQ(p.tp_only_bytes, s * b * h * (10 + 24 / t + 5 * a * s / (h * t)));
    EXPECT_DOUBLE_EQ(p.tp_sp_bytes, s * b * h * (34 / t + 5 * a * s / (h * t)));
  }
  for (const auto& p : mlsys::sequence_parallel_sweep(s, b, h, a, 8, mlsys::Recompute::Selective, false)) {
    EXPECT_DOUBLE_EQ(p.tp_only_bytes, s * b * h * (10 + 24 / p.tp));
    EXPECT_DOUBLE_EQ(p.tp_sp_bytes, s * b * h * 34 / p.tp);
  }
  EXPECT_EQ(mlsys::sequence_parallel_sweep(s, b, h, a, 64, mlsys::Recompute::None, false).size(), 7u);
}

TEST(SequenceParallel, MemoryAtTpAndTotals) {
  // Korthikanti et al. 2022, Table 2 at t = 8: sbh(10 + 24/t + 5as/(ht)) alone,
  // sbh(34/t + 5as/(ht)) with sequence parallelism; totals are per layer · layers.
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8, L = 96;
  const auto m = mlsys::sequence_parallel_memory(s, b, h, a, L, t, 16, mlsys::Recompute::None, false);
  const double tp_only = s * b * h * (10 + 24 / t + 5 * a * s / (h * t));
  const double tp_sp = s * b * h * (34 / t + 5 * a * s / (h * t));
  EXPECT_NEAR(m.tp_only_bytes_per_layer, tp_only, 1e-9 * tp_only);
  EXPECT_NEAR(m.tp_sp_bytes_per_layer, tp_sp, 1e-9 * tp_sp);
  EXPECT_DOUBLE_EQ(m.tp_only_bytes, m.tp_only_bytes_per_layer * L);
  EXPECT_DOUBLE_EQ(m.saving_ratio, m.tp_only_bytes_per_layer / m.tp_sp_bytes_per_layer);
  EXPECT_EQ(m.series.size(), 5u);  // 1, 2, 4, 8, 16
}
