// Interconnects lesson: `interconnect` (the link table, per GPU and per direction, against the
// vendors' printed figures) and `fat-tree` (hierarchical all-reduce and rail-aligned
// all-to-all on a two-level fat-tree with oversubscription; interconnect/fat_tree.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "mlsys/api/calc.hpp"
#include "mlsys/comm/cost_model.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/datasheet.hpp"
#include "mlsys/interconnect/fat_tree.hpp"
#include "mlsys/interconnect/links.hpp"

using mlsys::json;

namespace {

double bidir(const std::string& id) { return mlsys::find_interconnect_link(id).bidirectional_Bps; }
double per_dir(const std::string& id) { return mlsys::find_interconnect_link(id).bandwidth_Bps; }

std::string error_field(const std::string& name, const json& in) {
  try {
    mlsys::calc(name, in);
  } catch (const mlsys::InputError& e) {
    return e.field;
  }
  return "(no error)";
}

}  // namespace

TEST(Interconnect, TableHasTheContractIdsWithSources) {
  std::set<std::string> ids;
  for (const auto& l : mlsys::interconnect_links()) {
    ids.insert(l.id);
    EXPECT_TRUE(l.kind == "scale-up" || l.kind == "pcie" || l.kind == "scale-out") << l.id;
    EXPECT_TRUE(l.quoted_as == "bidirectional" || l.quoted_as == "per direction") << l.id;
    EXPECT_NE(l.source.find("https://"), std::string::npos) << l.id;
    EXPECT_GT(l.latency_s, 0) << l.id;
    EXPECT_FALSE(l.latency_note.empty()) << l.id;
    EXPECT_DOUBLE_EQ(l.bidirectional_Bps, 2 * l.bandwidth_Bps) << l.id;
  }
  for (const char* id : {"nvlink3", "nvlink4", "nvlink5", "pcie4-x16", "pcie5-x16", "ib-hdr", "ib-ndr", "ib-xdr",
                         "roce-400g", "tpu-v5p-ici"})
    EXPECT_TRUE(ids.contains(id)) << id;
}

TEST(Interconnect, PublishedFigures) {
  // NVIDIA A100 whitepaper: 12 NVLink 3 links, 600 GB/s total; H100 datasheet: 18 links,
  // 900 GB/s; NVLink page: Blackwell 18 links of 100 GB/s, 1.8 TB/s. All both directions.
  EXPECT_DOUBLE_EQ(bidir("nvlink3"), 600e9);
  EXPECT_DOUBLE_EQ(bidir("nvlink4"), 900e9);
  EXPECT_DOUBLE_EQ(bidir("nvlink5"), 1.8e12);
  // The table's H100 row carries the same NVLink 4 figure.
  EXPECT_DOUBLE_EQ(bidir("nvlink4"), *mlsys::accelerator_entry(*mlsys::find_accelerator("h100-sxm")).scaleup_bandwidth_Bps);
  // PCI-SIG: 16 and 32 GT/s per lane, 128b/130b encoding, x16, per direction.
  EXPECT_DOUBLE_EQ(per_dir("pcie4-x16"), 16e9 * 16 * 128.0 / 130.0 / 8);
  EXPECT_NEAR(per_dir("pcie4-x16"), 31.5e9, 0.01e9);
  EXPECT_DOUBLE_EQ(per_dir("pcie5-x16"), 2 * per_dir("pcie4-x16"));
  // IBTA roadmap: HDR 200, NDR 400, XDR 800 Gb/s per port, per direction; 400 GbE.
  EXPECT_DOUBLE_EQ(per_dir("ib-hdr"), 200e9 / 8);
  EXPECT_DOUBLE_EQ(per_dir("ib-ndr"), 400e9 / 8);
  EXPECT_DOUBLE_EQ(per_dir("ib-xdr"), 800e9 / 8);
  EXPECT_DOUBLE_EQ(per_dir("roce-400g"), 400e9 / 8);
  // Google Cloud TPU v5p page: 1,200 GB/s bidirectional ICI per chip.
  EXPECT_DOUBLE_EQ(bidir("tpu-v5p-ici"), 1200e9);
  // NVLink 4 is 9x one NDR port per GPU.
  EXPECT_DOUBLE_EQ(per_dir("nvlink4") / per_dir("ib-ndr"), 9.0);
}

TEST(Interconnect, AchievedRatesAreTheMaintainersShareOfTheLinkRates) {
  // The lesson's "what a collective reaches": NCCL's maintainers give an 8-GPU H100 ring about
  // 370 GB/s of bus bandwidth against NVLink 4's 450 GB/s line rate, protocol overhead about 20%
  // (NVIDIA/nccl-tests#212), and a ConnectX-7 at NDR 48-49 GB/s (NVIDIA/nccl-tests#267). Those
  // are shares of the table's rates, about 80% and 96-98%, not the 80-95% band once written.
  const auto per_dir = [](const char* id) { return mlsys::find_interconnect_link(id).bandwidth_Bps; };
  EXPECT_DOUBLE_EQ(per_dir("nvlink4"), 450e9);
  EXPECT_NEAR(370e9 / per_dir("nvlink4"), 0.8, 0.03);
  EXPECT_GT(48e9 / per_dir("ib-ndr"), 0.95);
  EXPECT_LT(49e9 / per_dir("ib-ndr"), 1.0);
}

TEST(Interconnect, TorusLinksAreCountedPerLinkAndPerAxis) {
  // TPU v5p: 1,200 GB/s both directions per chip (Google Cloud v5p page) over the six links of a
  // 3D torus: 100 GB/s per link each way. The Scaling Book's ICI table ("How to Think About TPUs") gives
  // 9e10 bytes/s per link one-way since its February 2025 revision (1e11 before), within 10%:
  // one transfer to one neighbour gets one link; a ring along one axis gets two.
  const auto& tpu = mlsys::find_interconnect_link("tpu-v5p-ici");
  EXPECT_EQ(tpu.topology, "torus");
  EXPECT_EQ(tpu.link_count, 6);
  EXPECT_DOUBLE_EQ(tpu.per_link_Bps, 100e9);
  EXPECT_NEAR(tpu.per_link_Bps, 9e10, 0.12 * 9e10);
  // The row cites the Scaling Book's current figure, not the one it replaced.
  EXPECT_NE(tpu.quoted.find("9e10"), std::string::npos) << tpu.quoted;
  EXPECT_NE(tpu.source.find("9e10"), std::string::npos) << tpu.source;
  // NCCL's ring latencies (src/graph/tuning.cc, hwLatencies): NVLink 0.6-3.4 us, network 2.7-14 us.
  EXPECT_NE(mlsys::find_interconnect_link("nvlink4").latency_note.find("as nvlink3"), std::string::npos);
  EXPECT_NE(mlsys::find_interconnect_link("nvlink3").latency_note.find("3.4 us"), std::string::npos);
  EXPECT_NE(mlsys::find_interconnect_link("ib-hdr").latency_note.find("2.7 us (LL) to 14 us"), std::string::npos);
  EXPECT_DOUBLE_EQ(tpu.peer_bandwidth_Bps, 100e9);
  ASSERT_TRUE(tpu.axis_bandwidth_Bps.has_value());
  EXPECT_DOUBLE_EQ(*tpu.axis_bandwidth_Bps, 200e9);
  // NVLink through NVSwitch gives one peer the whole 450 GB/s: 18 links of 25 GB/s each way.
  const auto& nv = mlsys::find_interconnect_link("nvlink4");
  EXPECT_EQ(nv.topology, "switched");
  EXPECT_EQ(nv.link_count, 18);
  EXPECT_DOUBLE_EQ(nv.per_link_Bps, 25e9);
  EXPECT_DOUBLE_EQ(nv.peer_bandwidth_Bps, 450e9);
  EXPECT_FALSE(nv.axis_bandwidth_Bps.has_value());
  EXPECT_EQ(mlsys::find_interconnect_link("nvlink3").link_count, 12);  // A100 whitepaper: 12 links
  for (const auto& l : mlsys::interconnect_links()) {
    EXPECT_TRUE(l.topology == "switched" || l.topology == "torus") << l.id;
    EXPECT_GE(l.link_count, 1) << l.id;
    if (l.topology == "switched") {
      EXPECT_DOUBLE_EQ(l.peer_bandwidth_Bps, l.bandwidth_Bps) << l.id;
    }
    if (l.kind != "scale-up") {
      EXPECT_EQ(l.link_count, 1) << l.id;
    }
  }
  // So a neighbour on TPU ICI is reached at less than NVLink 4 gives one peer, though the chip's
  // total is higher.
  EXPECT_GT(tpu.bandwidth_Bps, nv.bandwidth_Bps);
  EXPECT_LT(tpu.peer_bandwidth_Bps, nv.peer_bandwidth_Bps);
  const json j = mlsys::calc("interconnect", {{"id", "tpu-v5p-ici"}});
  EXPECT_DOUBLE_EQ(j["peer_bandwidth_Bps"].get<double>(), 100e9);
  EXPECT_DOUBLE_EQ(j["axis_bandwidth_Bps"].get<double>(), 200e9);
}

TEST(Interconnect, CalculatorListsOrReturnsOneLink) {
  const json all = mlsys::calc("interconnect", json::object());
  ASSERT_TRUE(all.contains("links"));
  EXPECT_EQ(all["links"].size(), mlsys::interconnect_links().size());
  const json one = mlsys::calc("interconnect", {{"id", "ib-ndr"}});
  EXPECT_EQ(one["kind"], "scale-out");
  EXPECT_DOUBLE_EQ(one["bandwidth_Bps"].get<double>(), 50e9);
  EXPECT_FALSE(one.contains("links"));
  EXPECT_EQ(error_field("interconnect", {{"id", "nvlink9"}}), "id");
}

TEST(FatTree, OneNodeIsTheIntraNodeRing) {
  mlsys::FatTreeConfig c;
  c.nodes = 1;
  const auto r = mlsys::fat_tree_collective(c, 1e9, mlsys::Collective::AllReduce);
  const double g = 8;
  EXPECT_NEAR(r.time_s, 2 * (g - 1) * (2e-6 + 1e9 / g / 450e9), 1e-15);
  EXPECT_EQ(r.bottleneck, "nvlink");
  EXPECT_DOUBLE_EQ(r.inter_time_s, 0);
}

TEST(FatTree, FullBisectionIsTheHierarchicalModel) {
  mlsys::FatTreeConfig c;  // 64 nodes of 8, 50 GB/s NICs, 450 GB/s NVLink, rails, o = 1
  const double S = 1e9;
  const auto r = mlsys::fat_tree_collective(c, S, mlsys::Collective::AllReduce);
  const auto h = mlsys::hierarchical_breakdown(mlsys::Collective::AllReduce, 512, 8, S, {2e-6, 450e9}, {5e-6, 50e9});
  EXPECT_DOUBLE_EQ(r.time_s, h.total.time_s);
  // Closed form: 2(g−1)(α + S/g/B_up) + 2(N−1)(α' + S/(gN)/B_nic).
  EXPECT_NEAR(r.time_s, 14 * (2e-6 + S / 8 / 450e9) + 126 * (5e-6 + S / 512 / 50e9), 1e-12);
  EXPECT_DOUBLE_EQ(r.reduce_scatter_time_s + r.allgather_time_s, r.intra_time_s);
  EXPECT_DOUBLE_EQ(r.bisection_Bps, 512 * 50e9 / 2);
  EXPECT_EQ(r.bottleneck, "nic");
  EXPECT_EQ(r.nodes_per_leaf, 32);
  EXPECT_EQ(r.leaf_groups, 2);
  EXPECT_DOUBLE_EQ(r.spine_slowdown, 1);
  EXPECT_NEAR(r.busbw_Bps, S / r.time_s * 2 * 511 / 512, 1e-3);
  ASSERT_TRUE(r.tree_time_s.has_value());
  // Binomial tree at the slower link: 2⌈log2 512⌉ = 18 steps of the whole S.
  EXPECT_NEAR(*r.tree_time_s, 18 * (5e-6 + S / 50e9), 1e-12);
  // NCCL's flat rings (header): 8 rings of S/8, 2·511 steps of S/(8·512) per ring, the NIC's
  // chunk slower than NVLink's 7 chunks; network latency on the 2·63 hops that cross nodes.
  const double latency = 126 * 5e-6 + (1022 - 126) * 2e-6;
  EXPECT_NEAR(r.flat_ring_time_s, latency + 1022 * std::max(S / 4096 / 50e9, 7 * S / 4096 / 450e9), 1e-12);
  ASSERT_TRUE(r.single_ring_time_s.has_value());
  EXPECT_NEAR(*r.single_ring_time_s, latency + 1022 * S / 512 / 50e9, 1e-12);
  EXPECT_DOUBLE_EQ(r.overlapped_time_s, std::max(r.intra_time_s, r.inter_time_s));
}

TEST(FatTree, FlatRingsUseEveryNicAsNcclDoes) {
  // NCCL builds flat rings only, several of them, each leaving a node through its own NIC
  // (NVIDIA/nccl #471: "we only build flat rings, no 2D ring"; #530: "Ring and Tree both use all
  // NICs in parallel"). A ring through one NIC per node is the straw man this replaced: 45 ms
  // for 1 GB on 64 × 8 H100 against 9.47 ms for the hierarchical algorithm.
  mlsys::FatTreeConfig c;
  c.nic_latency_s = 0;
  c.scaleup_latency_s = 0;
  const double S = 1e9, p = 512, g = 8;
  const auto r = mlsys::fat_tree_collective(c, S, mlsys::Collective::AllReduce);
  // Each NIC carries 2(p−1)/p · S/g, within 2% of the hierarchical algorithm's inter-node bytes.
  const double nic_bytes = 2 * (p - 1) / p * S / g;
  EXPECT_NEAR(nic_bytes / r.inter_bytes_per_gpu, 1.0, 0.02);
  EXPECT_NEAR(r.flat_ring_time_s, nic_bytes / 50e9, 1e-12);        // bandwidth alone: 4.99 ms
  EXPECT_NEAR(*r.single_ring_time_s, g * r.flat_ring_time_s, 1e-12);  // one NIC in eight
  // Without latency the flat rings beat the hierarchical phases run one after another, and
  // reach the NIC phase alone that pipelining would give.
  EXPECT_LT(r.flat_ring_time_s, r.time_s);
  EXPECT_NEAR(r.flat_ring_time_s, r.overlapped_time_s, 0.02 * r.flat_ring_time_s);
  // With the latencies back, the flat rings pay 2.42 ms of it against 0.66 ms: the hierarchical
  // algorithm wins small and medium messages, the flat rings large ones.
  mlsys::FatTreeConfig d;
  const auto small = mlsys::fat_tree_collective(d, 1e6, mlsys::Collective::AllReduce);
  EXPECT_LT(small.time_s, small.flat_ring_time_s);
  const auto large = mlsys::fat_tree_collective(d, 4e9, mlsys::Collective::AllReduce);
  EXPECT_LT(large.flat_ring_time_s, large.time_s);
  EXPECT_LT(large.time_s, *large.single_ring_time_s);
  // Without rails at 8:1 the flat rings leave a leaf together like the hierarchical rings (s = 2);
  // a single ring leaves it alone and is not slowed.
  d.rail_optimized = false;
  d.oversubscription = 8;
  d.nic_latency_s = d.scaleup_latency_s = 0;
  const auto nr = mlsys::fat_tree_collective(d, S, mlsys::Collective::AllReduce);
  EXPECT_NEAR(nr.flat_ring_time_s, nic_bytes / 25e9, 1e-12);
  EXPECT_NEAR(*nr.single_ring_time_s, 2 * (p - 1) / p * S / 50e9, 1e-12);
}

TEST(FatTree, OversubscriptionSlowsRingsOnlyWithoutRails) {
  mlsys::FatTreeConfig c;
  const double S = 1e9;
  for (double o : {1.0, 2.0, 4.0, 8.0, 16.0}) {
    c.oversubscription = o;
    c.rail_optimized = true;
    const auto rail = mlsys::fat_tree_collective(c, S, mlsys::Collective::AllReduce);
    EXPECT_DOUBLE_EQ(rail.spine_slowdown, 1) << o;  // one ring leaves a rail leaf: 1·o/32 ≤ 1
    EXPECT_DOUBLE_EQ(rail.bisection_Bps, 512 * 50e9 / (2 * o));
    c.rail_optimized = false;
    const auto flat = mlsys::fat_tree_collective(c, S, mlsys::Collective::AllReduce);
    EXPECT_EQ(flat.nodes_per_leaf, 4);
    EXPECT_DOUBLE_EQ(flat.spine_slowdown, std::max(1.0, 8 * o / 32)) << o;
    EXPECT_EQ(flat.bottleneck, o > 4 ? "spine" : "nic") << o;
  }
}

TEST(FatTree, AllToAllFeelsOversubscription) {
  mlsys::FatTreeConfig c;
  c.oversubscription = 4;
  const double S = 1e9;
  const auto r = mlsys::fat_tree_collective(c, S, mlsys::Collective::AllToAll);
  const double cross = (64.0 - 32) / 63;
  EXPECT_DOUBLE_EQ(r.cross_spine_fraction, cross);
  EXPECT_DOUBLE_EQ(r.spine_slowdown, cross * 4);
  EXPECT_NEAR(r.inter_time_s, 63 * (5e-6 + S / 64 / (50e9 / (cross * 4))), 1e-12);
  EXPECT_EQ(r.bottleneck, "spine");
  EXPECT_FALSE(r.tree_time_s.has_value());
  // Inside one leaf nothing crosses the spine.
  c.nodes = 16;
  EXPECT_DOUBLE_EQ(mlsys::fat_tree_collective(c, S, mlsys::Collective::AllToAll).spine_slowdown, 1);
}

TEST(FatTree, NvlinkBoundWhenTheNicsAreFast) {
  const json r = mlsys::calc("fat-tree", {{"nodes", 2}, {"nic_bandwidth_Bps", 400e9}, {"scaleup_bandwidth_Bps", 50e9}});
  EXPECT_EQ(r["bottleneck"], "nvlink");
}

TEST(FatTree, BadInputsNameTheirField) {
  EXPECT_EQ(error_field("fat-tree", {{"nodes", 0}}), "nodes");
  EXPECT_EQ(error_field("fat-tree", {{"oversubscription", 0.5}}), "oversubscription");
  EXPECT_EQ(error_field("fat-tree", {{"nic_bandwidth_Bps", -1}}), "nic_bandwidth_Bps");
  EXPECT_EQ(error_field("fat-tree", {{"op", "broadcast"}}), "op");
  EXPECT_EQ(error_field("fat-tree", {{"rail_optimized", false}, {"gpus_per_node", 64}}), "leaf_ports");
  EXPECT_EQ(error_field("fat-tree", {{"bytes", -1}}), "bytes");
}

TEST(InterconnectExercises, OneDirectionUsesWhatOnePeerGets) {
  // A TPU v5p chip sends to a torus neighbour over one of its six links, 100 GB/s each way (not
  // the chip's 600 GB/s); NVLink through NVSwitch gives one peer the device's 450 GB/s.
  int tpu = 0;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const auto e = mlsys::make_exercise("ic-one-direction", seed);
    const auto& l = mlsys::find_interconnect_link(e.params.at("id").get<std::string>());
    const double gb = e.answer * 1e-3 * l.peer_bandwidth_Bps / 1e9;  // the size the prompt names
    EXPECT_NE(e.prompt.find(mlsys::format_number(gb, 2) + " GB"), std::string::npos) << seed;
    if (l.id == "tpu-v5p-ici") {
      ++tpu;
      EXPECT_NEAR(e.answer, gb / 100 * 1e3, 1e-9 * e.answer) << seed;
      const json wrong = mlsys::check_exercise("ic-one-direction", seed, mlsys::format_number(gb / 600 * 1e3, 6) + " ms");
      EXPECT_FALSE(wrong["correct"].get<bool>()) << seed;
      const json right = mlsys::check_exercise("ic-one-direction", seed, mlsys::format_number(gb / 100 * 1e3, 6) + " ms");
      EXPECT_TRUE(right["correct"].get<bool>()) << seed;
    } else {
      EXPECT_NEAR(e.answer, gb * 1e9 / l.bandwidth_Bps * 1e3, 1e-9 * e.answer) << seed;
    }
  }
  EXPECT_GT(tpu, 20);
}

TEST(InterconnectExercises, LeavesHaveWholeUplinksAndRealisticRatios) {
  // Every leaf the uplink exercises draw has whole host ports and whole uplinks, at most 4.6:1
  // (draws such as 3.9 uplinks at 8.2:1 on 32 ports, or 61:1 on 64, are gone).
  for (std::uint32_t seed = 0; seed < 2000; ++seed) {
    for (const char* id : {"ic-no-rails", "ic-alltoall-oversub"}) {
      const auto e = mlsys::make_exercise(id, seed);
      const double ports = e.params.at("leaf_ports").get<double>(), o = e.params.at("oversubscription").get<double>();
      const double uplinks = ports / o;
      EXPECT_NEAR(uplinks, std::round(uplinks), 1e-9) << id << " " << seed;
      EXPECT_GE(o, 1) << id << " " << seed;
      EXPECT_LE(o, 4.6 + 1e-9) << id << " " << seed;
    }
  }
}

TEST(InterconnectExercises, AnswersAreTheCalculatorsOnTheDrawnInputs) {
  const auto get = [](const json& j, const char* k) { return j.at(k).get<double>(); };
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    auto e = mlsys::make_exercise("ic-one-direction", seed);
    EXPECT_GT(e.answer, 0);
    e = mlsys::make_exercise("ic-hierarchical-time", seed);
    EXPECT_NEAR(e.answer, 1e3 * get(mlsys::calc("fat-tree", e.params), "time_s"), 1e-9 * e.answer) << seed;
    e = mlsys::make_exercise("ic-bisection", seed);
    EXPECT_NEAR(e.answer, get(mlsys::calc("fat-tree", e.params), "bisection_Bps") / 1e9, 1e-9 * e.answer) << seed;
    e = mlsys::make_exercise("ic-no-rails", seed);
    const json nr = mlsys::calc("fat-tree", e.params);
    EXPECT_NEAR(e.answer, get(nr, "inter_bandwidth_Bps") / 1e9, 1e-9 * e.answer) << seed;
    EXPECT_GT(get(nr, "spine_slowdown"), 1) << seed;
    e = mlsys::make_exercise("ic-alltoall-oversub", seed);
    EXPECT_NEAR(e.answer, 1e3 * get(mlsys::calc("fat-tree", e.params), "inter_time_s"), 1e-9 * e.answer) << seed;
  }
}
