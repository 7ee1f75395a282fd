// Collectives executed on simulated ranks (comm/executor.hpp): the final buffers equal the
// direct computation for many rank counts, and the counted steps and bytes per rank equal the
// alpha-beta model of comm/cost_model.hpp exactly, for every algorithm. Ring all-reduce sends
// 2(p−1)/p·S per rank (Patarasuk & Yuan, JPDC 69(2), 2009); bus bandwidth factors follow
// nccl-tests doc/PERFORMANCE.md (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/comm/collective_analysis.hpp"
#include "mlsys/comm/cost_model.hpp"
#include "mlsys/comm/executor.hpp"

namespace mlsys {
namespace {

const Collective kOps[] = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                           Collective::Broadcast, Collective::Reduce,    Collective::AllToAll};
const CollectiveAlgorithm kAlgs[] = {CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree,
                                     CollectiveAlgorithm::RecursiveDoubling, CollectiveAlgorithm::HalvingDoubling};

std::vector<int> rank_counts() {
  std::vector<int> r;
  for (int p = 1; p <= 17; ++p) r.push_back(p);
  for (int p : {32, 64}) r.push_back(p);
  return r;
}


const Link kLink{3e-6, 100e9};

// Model cost of what execute_collective ran (chain: with its chunk count).
CollectiveCost model_of(const ExecutedCollective& x) {
  if (x.algorithm == CollectiveAlgorithm::Ring && (x.op == Collective::Broadcast || x.op == Collective::Reduce))
    return chain_cost(x.ranks, x.bytes, kLink, x.chunks);
  return collective_cost(x.op, x.algorithm, x.ranks, x.bytes, kLink);
}

TEST(CommExecutor, EveryFlatAlgorithmMatchesDirectAndModel) {
  int runs = 0;
  for (auto op : kOps) {
    for (auto a : kAlgs) {
      for (int p : rank_counts()) {
        const bool ok = collective_supported(op, a, p, 0, nullptr);
        const bool chain = a == CollectiveAlgorithm::Ring && (op == Collective::Broadcast || op == Collective::Reduce);
        const int chunks = chain ? 5 : p;
        if (!ok) {
          try {
            execute_collective(op, a, p, 3 * chunks, 7);
            ADD_FAILURE() << collective_name(op) << " " << algorithm_name(a) << " p=" << p << " should be refused";
          } catch (const InputError& e) {
            EXPECT_EQ(e.field, "algorithm");
          }
          continue;
        }
        const auto x = execute_collective(op, a, p, 3 * chunks, 11 + p, 0, chain ? chunks : 0);
        const std::string what = collective_name(op) + " " + algorithm_name(a) + " p=" + std::to_string(p);
        EXPECT_TRUE(x.equals_direct) << what << " error " << x.max_abs_error;
        const auto m = model_of(x);
        EXPECT_EQ(static_cast<double>(x.steps.size()), m.steps) << what;
        EXPECT_DOUBLE_EQ(x.max_bytes_sent, m.bytes_sent_per_rank) << what;
        EXPECT_NEAR(x.time_s(kLink, kLink), m.time_s, 1e-12 * std::max(1.0, m.time_s) + 1e-18) << what;
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 150);
}

TEST(CommExecutor, RingAllReduceSendsTwoPMinusOneOverPOfTheBuffer) {
  for (int p : {2, 3, 5, 8, 13, 64}) {
    const auto x = execute_collective(Collective::AllReduce, CollectiveAlgorithm::Ring, p, 4 * p, 3);
    for (double b : x.bytes_sent) EXPECT_DOUBLE_EQ(b, 2.0 * (p - 1) / p * x.bytes);  // every rank, not just the max
    EXPECT_EQ(static_cast<int>(x.steps.size()), 2 * (p - 1));
    // Every rank sends exactly one message of S/p per step.
    for (const auto& s : x.steps) {
      EXPECT_EQ(static_cast<int>(s.messages.size()), p);
      for (const auto& m : s.messages) EXPECT_DOUBLE_EQ(m.bytes, x.bytes / p);
    }
  }
}

TEST(CommExecutor, SnapshotsTrackContributions) {
  // Ring reduce-scatter on 4 ranks: after step s the chunk a rank just received holds s+2
  // contributions; at the end rank r holds chunk r with all four.
  const auto x = execute_collective(Collective::ReduceScatter, CollectiveAlgorithm::Ring, 4, 8, 1);
  ASSERT_EQ(x.steps.size(), 3u);
  for (std::size_t s = 0; s < x.steps.size(); ++s)
    for (const auto& m : x.steps[s].messages)
      EXPECT_EQ(__builtin_popcountll(x.steps[s].holds[m.dst][m.chunks[0]]), static_cast<int>(s) + 2);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(x.steps.back().holds[r][r], 0xFu);
  // Broadcast starts with only the root holding data.
  const auto b = execute_collective(Collective::Broadcast, CollectiveAlgorithm::Tree, 5, 10, 1);
  EXPECT_EQ(b.initial_holds[0][0], 1u);
  for (int r = 1; r < 5; ++r) EXPECT_EQ(b.initial_holds[r][0], 0u);
}

TEST(CommExecutor, HierarchicalMatchesDirectAndTwoLevelModel) {
  const Link intra{1e-6, 450e9}, inter{5e-6, 50e9};
  int runs = 0;
  for (auto op : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter}) {
    for (int g : {1, 2, 3, 4, 8}) {
      for (int nodes : {1, 2, 3, 4}) {
        const int p = g * nodes;
        const auto x = execute_collective(op, CollectiveAlgorithm::Hierarchical, p, 2 * p, 5, g);
        const std::string what = collective_name(op) + " g=" + std::to_string(g) + " N=" + std::to_string(nodes);
        EXPECT_TRUE(x.equals_direct) << what;
        const auto h = hierarchical_breakdown(op, p, g, x.bytes, intra, inter);
        EXPECT_EQ(static_cast<double>(x.steps.size()), h.total.steps) << what;
        EXPECT_DOUBLE_EQ(x.max_bytes_sent, h.total.bytes_sent_per_rank) << what;
        EXPECT_NEAR(x.time_s(intra, inter), h.total.time_s, 1e-15) << what;
        double inter_bytes = 0;
        for (const auto& s : x.steps)
          for (const auto& m : s.messages)
            if (m.inter_node && m.src == 0) inter_bytes += m.bytes;
        EXPECT_DOUBLE_EQ(inter_bytes, h.inter_bytes_per_rank) << what;
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, 60);
  // An all-reduce on 4 nodes × 8: 2·7 intra steps of S/8, 2·3 inter steps of S/32.
  const auto h = hierarchical_breakdown(Collective::AllReduce, 32, 8, 1e9, intra, inter);
  EXPECT_DOUBLE_EQ(h.intra_time_s, 14 * (1e-6 + 1e9 / 8 / 450e9));
  EXPECT_DOUBLE_EQ(h.inter_time_s, 6 * (5e-6 + 1e9 / 32 / 50e9));
}

TEST(CommExecutor, BadInputsAreInputErrors) {
  auto field_of = [](auto f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.field;
    }
    return std::string("no error");
  };
  const auto AR = Collective::AllReduce;
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::Ring, 0, 4, 1); }), "ranks");
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::Ring, 65, 65, 1); }), "ranks");
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::Ring, 4, 6, 1); }), "elements");
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::Ring, 4, 0, 1); }), "elements");
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::Ring, 4, 1 << 20, 1); }), "elements");
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::RecursiveDoubling, 6, 6, 1); }), "algorithm");
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::HalvingDoubling, 12, 12, 1); }), "algorithm");
  EXPECT_EQ(field_of([&] { execute_collective(Collective::AllGather, CollectiveAlgorithm::Tree, 4, 4, 1); }), "algorithm");
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::Hierarchical, 12, 12, 1, 5); }), "gpus_per_node");
  EXPECT_EQ(field_of([&] { execute_collective(AR, CollectiveAlgorithm::Hierarchical, 12, 12, 1, 0); }), "gpus_per_node");
  EXPECT_EQ(field_of([&] { execute_collective(Collective::AllToAll, CollectiveAlgorithm::Hierarchical, 8, 8, 1, 4); }),
            "algorithm");
  EXPECT_EQ(field_of([&] { collective_cost(AR, CollectiveAlgorithm::RecursiveDoubling, 24, 1e6, kLink); }), "algorithm");
  EXPECT_EQ(field_of([&] { hierarchical_cost(AR, 12, 8, 1e6, kLink, kLink); }), "gpus_per_node");
}

TEST(CommCostModel, ClosedForms) {
  const double S = 1e9;
  const Link l{5e-6, 50e9};
  // Ring all-reduce: 2(p−1)(α + S/(pB)).
  auto r = collective_cost(Collective::AllReduce, CollectiveAlgorithm::Ring, 8, S, l);
  EXPECT_DOUBLE_EQ(r.time_s, 14 * (5e-6 + S / 8 / 50e9));
  // Recursive doubling all-reduce: log2 p (α + S/B); binomial tree all-reduce: 2⌈log2 p⌉(α + S/B).
  EXPECT_DOUBLE_EQ(collective_cost(Collective::AllReduce, CollectiveAlgorithm::RecursiveDoubling, 8, S, l).time_s,
                   3 * (5e-6 + S / 50e9));
  EXPECT_DOUBLE_EQ(collective_cost(Collective::AllReduce, CollectiveAlgorithm::Tree, 9, S, l).time_s, 8 * (5e-6 + S / 50e9));
  // Halving-doubling (Rabenseifner): 2 log2 p α + 2(p−1)/p S/B.
  EXPECT_DOUBLE_EQ(collective_cost(Collective::AllReduce, CollectiveAlgorithm::HalvingDoubling, 16, S, l).time_s,
                   8 * 5e-6 + 2.0 * 15 / 16 * S / 50e9);
  // Crossover of recursive doubling and ring on 16 ranks: (2·15 − 4)αB / (4 − 30/16).
  const double s = crossover_bytes(alpha_beta_terms(Collective::AllReduce, CollectiveAlgorithm::RecursiveDoubling, 16),
                                   alpha_beta_terms(Collective::AllReduce, CollectiveAlgorithm::Ring, 16), l);
  EXPECT_DOUBLE_EQ(s, 26 * 5e-6 * 50e9 / (4 - 30.0 / 16));
  EXPECT_NEAR(collective_cost(Collective::AllReduce, CollectiveAlgorithm::RecursiveDoubling, 16, s, l).time_s,
              collective_cost(Collective::AllReduce, CollectiveAlgorithm::Ring, 16, s, l).time_s, 1e-15);
  // On two ranks ring and recursive doubling are the same algorithm: no crossover.
  EXPECT_LT(crossover_bytes(alpha_beta_terms(Collective::AllReduce, CollectiveAlgorithm::RecursiveDoubling, 2),
                            alpha_beta_terms(Collective::AllReduce, CollectiveAlgorithm::Ring, 2), l),
            0);
  // The chain's chunk count minimises its time.
  const int c = chain_chunks(16, S, l);
  const double t = chain_cost(16, S, l, c).time_s;
  EXPECT_LE(t, chain_cost(16, S, l, c - 1).time_s);
  EXPECT_LE(t, chain_cost(16, S, l, c + 1).time_s);
  EXPECT_DOUBLE_EQ(collective_cost(Collective::Broadcast, CollectiveAlgorithm::Ring, 16, S, l).time_s, t);
}

TEST(CommCostModel, BusBandwidthEqualsLinkBandwidthForRingsAtZeroLatency) {
  const Link l{0.0, 123e9};
  for (int p : {2, 3, 8, 17, 1000}) {
    for (auto op : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll}) {
      const double S = 7.7e8;
      const auto c = collective_cost(op, CollectiveAlgorithm::Ring, p, S, l);
      EXPECT_NEAR(S / c.time_s * bus_bandwidth_factor(op, p), l.bandwidth_Bps, 1e-6 * l.bandwidth_Bps);
    }
    // The pipelined chain approaches the link bandwidth as its chunk count grows: C/(p+C−2).
    const auto b = collective_cost(Collective::Broadcast, CollectiveAlgorithm::Ring, p, 1e9, l);
    const double C = kMaxChainChunks;
    EXPECT_NEAR(1e9 / b.time_s, l.bandwidth_Bps * (p > 2 ? C / (p + C - 2) : 1.0), 1e-6 * l.bandwidth_Bps);
  }
}

// collective_analysis.hpp. Ring all-reduce on p ranks: 2(p−1) steps of S/p, time
// 2(p−1)(α + S/(pB)); nccl-tests' bus bandwidth = algbw · 2(p−1)/p (nccl-tests PERFORMANCE.md).
TEST(CollectiveAnalysis, RunRingAndAutoPicksTheCheapest) {
  const CommTopology t{{2e-6, 100e9}, {5e-6, 50e9}, 0};
  const int p = 8;
  const double S = 1e9;
  const auto r = run_collective(Collective::AllReduce, CollectiveAlgorithm::Ring, p, S, t);
  EXPECT_DOUBLE_EQ(r.cost.time_s, 2 * (p - 1) * (2e-6 + S / p / 100e9));
  EXPECT_DOUBLE_EQ(r.algbw_Bps, S / r.cost.time_s);
  EXPECT_DOUBLE_EQ(r.busbw_Bps, r.algbw_Bps * 2 * (p - 1) / p);
  EXPECT_FALSE(r.candidates.has_value());
  EXPECT_FALSE(r.chunks.has_value());
  const auto a = run_collective(Collective::AllReduce, std::nullopt, p, S, t);
  ASSERT_TRUE(a.candidates.has_value());
  for (const auto& c : *a.candidates) EXPECT_LE(a.cost.time_s, c.time_s);
  // One flat ring over two nodes runs at the slower link.
  const CommTopology two{{2e-6, 100e9}, {5e-6, 50e9}, 4};
  EXPECT_DOUBLE_EQ(flat_link(two, 8).bandwidth_Bps, 50e9);
  EXPECT_DOUBLE_EQ(flat_link(two, 8).latency_s, 5e-6);
  EXPECT_DOUBLE_EQ(flat_link(two, 4).bandwidth_Bps, 100e9);
}

TEST(CollectiveAnalysis, ExecutionMatchesItsModel) {
  const CommTopology t{{2e-6, 100e9}, {5e-6, 50e9}, 0};
  const auto x = execute_with_model(Collective::AllReduce, CollectiveAlgorithm::Ring, 4, std::nullopt, 4, 1, t);
  EXPECT_EQ(x.elements, 8);  // default: two per chunk, ranks chunks
  EXPECT_TRUE(x.equals_direct);
  EXPECT_EQ(x.snapshots.size(), 1 + 2 * 3u);  // step 0 and 2(p−1) steps
  EXPECT_DOUBLE_EQ(x.steps, x.model.steps);
  EXPECT_DOUBLE_EQ(x.bytes_sent_per_rank, x.model.bytes_sent_per_rank);
  EXPECT_NEAR(x.time_s, x.model.time_s, 1e-18);
}

// Tree against ring all-reduce (Thakur, Rabenseifner & Gropp 2005): 2L·α + 2L·S/B against
// 2(p−1)·α + 2(p−1)/p·S/B, equal at S* = (2(p−1) − 2L)·α·B / (2L − 2(p−1)/p); with p = 16
// (L = 4): S* = 22·α·B / (8 − 1.875).
TEST(CollectiveAnalysis, SweepCrossoverOfTreeAndRing) {
  const Link link{2e-6, 450e9};
  const auto s = collective_sweep(Collective::AllReduce, 16, link, 1e3, 1e10, 5);
  ASSERT_EQ(s.series[0].points.size(), 5u);
  EXPECT_DOUBLE_EQ(s.series[0].points.front().bytes, 1e3);
  EXPECT_NEAR(s.series[0].points.back().bytes, 1e10, 1e-3);
  EXPECT_DOUBLE_EQ(s.half_bandwidth_bytes, 2e-6 * 450e9);
  const auto& tree = s.crossovers[0];
  EXPECT_EQ(tree.algorithm, "tree");
  ASSERT_TRUE(tree.bytes.has_value());
  EXPECT_NEAR(*tree.bytes, 22 * 2e-6 * 450e9 / (8 - 1.875), 1e-3);
  EXPECT_EQ(tree.faster_small, "tree");
  EXPECT_THROW(collective_sweep(Collective::AllReduce, 16, link, 1e3, 1e3, 5), InputError);
}

// Hierarchical all-reduce (cost_model.hpp): intra-node reduce-scatter and all-gather,
// 2(g−1) steps of S/g, and a ring all-reduce of S/g across N nodes, 2(N−1) steps of S/(gN).
TEST(CollectiveAnalysis, HierarchicalAgainstFlatRing) {
  const Link intra{2e-6, 450e9}, inter{5e-6, 50e9};
  const int n = 4, g = 8;
  const double S = 1e9;
  const auto h = hierarchical_vs_flat(n, g, S, intra, inter);
  EXPECT_EQ(h.ranks, 32);
  EXPECT_DOUBLE_EQ(h.steps, 2 * (g - 1) + 2 * (n - 1));
  EXPECT_NEAR(h.intra_time_s, 2 * (g - 1) * (2e-6 + S / g / 450e9), 1e-12);
  EXPECT_NEAR(h.inter_time_s, 2 * (n - 1) * (5e-6 + S / (g * n) / 50e9), 1e-12);
  EXPECT_NEAR(h.flat_ring_time_s, 2 * 31 * (5e-6 + S / 32 / 50e9), 1e-12);
  EXPECT_DOUBLE_EQ(h.speedup, h.flat_ring_time_s / h.time_s);
}

}  // namespace
}  // namespace mlsys
