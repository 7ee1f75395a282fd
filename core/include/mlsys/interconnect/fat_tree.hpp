// A collective across a two-level fat-tree (leaf and spine switches) of nodes that each hold
// g GPUs joined by a scale-up link (NVLink), every GPU with its own NIC.
//
// Wiring. A leaf switch has `leaf_ports` host-facing ports P and P / o uplinks to the spine
// (o = oversubscription; o = 1 is full bisection). Rail-optimized: NIC l of every node goes
// to the leaf of rail l, so one rail leaf holds P nodes; without rails a node's g NICs go to
// one leaf, which then holds P / g nodes. Bisection bandwidth, one direction:
// N·g·B_nic / (2·o).
//
// All-reduce is hierarchical (comm/cost_model.hpp hierarchical_breakdown): ring
// reduce-scatter inside each node over the scale-up link, a ring all-reduce of each GPU's
// 1/g shard across the N nodes over the GPU's own NIC (the g rings, one per local index,
// run at once), ring all-gather inside the node. All-to-all: the rail-aligned two phases.
//
// Spine contention. Inside one leaf traffic never reaches the spine. Traffic leaving a leaf
// shares its P·B_nic / o of uplinks, so the inter-node phase runs at B_nic / s with
//   s = max(1, demand leaving a leaf / uplink capacity):
//   all-reduce rings, nodes in ring order: each ring leaves a leaf once per direction, and a
//     leaf carries f such rings (rails: f = 1; without rails f = g, every local index of the
//     node group crosses the same leaf): s = max(1, f·o / P);
//   all-to-all: a fraction c = (N − n_leaf)/(N − 1) of a GPU's partners lies beyond its leaf
//     (n_leaf nodes share a leaf), so s = max(1, c·o).
// A ring waits for its slowest hop, so the slowdown applies to the whole inter-node phase.
// Left out: ECMP hash collisions on the uplinks, other jobs' traffic, adaptive routing,
// in-network reduction (SHARP), and the overlap of phases NCCL gets by pipelining chunks.
//
// For comparison, flat algorithms over all p = N·g GPUs. All-reduce rings as NCCL builds them:
// flat across nodes, g of them (channels), each carrying S/g and leaving every node through a
// different NIC, so every NIC works (NCCL maintainers, NVIDIA/nccl issues #471, #530: "rings are
// flat", "Ring and Tree both use all NICs in parallel"), crossing nodes on the same NIC index
// so that each ring stays on one rail (NCCL user guide, NCCL_CROSS_NIC), which gives them the
// hierarchical rings' spine slowdown s; 2(p−1) steps of S/(g·p) per ring, each
// step as long as the NIC's chunk at B_nic / s or the scale-up link's g−1 chunks, whichever is
// slower; latency as NCCL's tuning model charges a ring (src/graph/tuning.cc): 2(N−1) network
// hops at α_nic, the other 2(p−1) − 2(N−1) at α_up. Each NIC then sends 2(p−1)/p · S/g, about
// what the hierarchical algorithm sends; the flat rings pay more latency and no separate
// scale-up phases. The same with one ring through one NIC per node (single_ring_time_s) is the
// mistake of giving a node one NIC. All-to-all: the pairwise exchange at the slower link (the
// NIC at B_nic / s, the higher latency); all-reduce also: a binomial tree (2⌈log2 p⌉ steps of S,
// comm/cost_model.hpp) there. One node: a ring on the scale-up link.
#pragma once
#include <optional>
#include <string>

#include "mlsys/comm/cost_model.hpp"

namespace mlsys {

struct FatTreeConfig {
  int nodes = 64;
  int gpus_per_node = 8;
  double nic_bandwidth_Bps = 50e9;      // per GPU, one direction (400 Gb/s)
  double scaleup_bandwidth_Bps = 450e9; // per GPU, one direction (NVLink 4)
  double oversubscription = 1;          // leaf host ports : uplinks
  bool rail_optimized = true;
  int leaf_ports = 32;                  // host-facing ports of one leaf switch
  double scaleup_latency_s = 2e-6;
  double nic_latency_s = 5e-6;
};

struct FatTreeResult {
  double time_s;                 // hierarchical, phases one after another
  double bisection_Bps;          // N·g·B_nic / (2·o), one direction
  std::string bottleneck;        // "nvlink" | "nic" | "spine": the phase that takes longest, and why
  int ranks;                     // N·g
  int nodes_per_leaf;            // nodes whose NICs (of one rail) share a leaf
  int leaf_groups;               // ⌈N / nodes_per_leaf⌉
  double cross_spine_fraction;   // share of the inter-node traffic that crosses the spine
  double spine_slowdown;         // s ≥ 1
  double inter_bandwidth_Bps;    // B_nic / s, what one GPU's inter-node phase runs at
  double intra_time_s, inter_time_s;
  double reduce_scatter_time_s;  // all-reduce: intra-node reduce-scatter (all-to-all: intra phase)
  double allgather_time_s;       // all-reduce: intra-node all-gather (all-to-all: 0)
  double intra_bytes_per_gpu, inter_bytes_per_gpu;
  double algbw_Bps, busbw_Bps;   // nccl-tests: S / time and algbw · bus factor
  double overlapped_time_s;      // the phases pipelined chunk by chunk: max(intra, inter), a bound
  double flat_ring_time_s;       // all-reduce: NCCL's flat rings, one per NIC; all-to-all: pairwise exchange
  std::optional<double> single_ring_time_s;  // all-reduce: one flat ring through one NIC per node
  std::optional<double> tree_time_s;  // all-reduce: binomial tree over every GPU at the slower link
};

// Throws InputError naming the field: nodes, gpus_per_node, bandwidths, oversubscription,
// leaf_ports (< gpus_per_node without rails), bytes, op (all-reduce or all-to-all only).
FatTreeResult fat_tree_collective(const FatTreeConfig& c, double bytes, Collective op);

}  // namespace mlsys
