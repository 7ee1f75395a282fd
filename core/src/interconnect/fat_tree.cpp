// Hierarchical collectives on a two-level fat-tree (see interconnect/fat_tree.hpp).
#include "mlsys/interconnect/fat_tree.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

void check_positive(double v, const char* field, const char* what) {
  if (!std::isfinite(v) || v <= 0) throw InputError(field, std::string(what) + " must be a positive number.");
}

// A flat ring all-reduce over all p = N·g GPUs split into `channels` rings (1 ≤ channels ≤ g),
// each carrying S/channels and leaving every node through a different NIC, as NCCL builds them
// (header). 2(p−1) steps; in each, a ring's chunk is S/(channels·p): the NIC of each exit GPU
// carries one chunk, a GPU's scale-up link min(channels, g−1) of them, and the step lasts as long
// as the slower. Latency as NCCL's tuning model counts it for a ring (src/graph/tuning.cc): the
// 2(N−1) hops that cross nodes at the network's latency, the other steps at the scale-up link's.
double flat_rings_time(int nodes, int g, double bytes, int channels, Link intra, Link inter) {
  const double p = static_cast<double>(nodes) * g, steps = 2 * (p - 1), inter_steps = 2.0 * (nodes - 1);
  const double chunk = bytes / (channels * p);
  const double step_s = std::max(chunk / inter.bandwidth_Bps, std::min(channels, g - 1) * chunk / intra.bandwidth_Bps);
  return (steps - inter_steps) * intra.latency_s + inter_steps * inter.latency_s + steps * step_s;
}

}  // namespace

FatTreeResult fat_tree_collective(const FatTreeConfig& c, double bytes, Collective op) {
  if (c.nodes < 1) throw InputError("nodes", "A cluster has at least one node.");
  if (c.gpus_per_node < 1) throw InputError("gpus_per_node", "A node holds at least one GPU.");
  check_positive(c.nic_bandwidth_Bps, "nic_bandwidth_Bps", "The NIC bandwidth");
  check_positive(c.scaleup_bandwidth_Bps, "scaleup_bandwidth_Bps", "The scale-up bandwidth");
  if (!std::isfinite(c.oversubscription) || c.oversubscription < 1)
    throw InputError("oversubscription", "Oversubscription is host ports over uplinks: at least 1.");
  if (c.leaf_ports < 1) throw InputError("leaf_ports", "A leaf switch has at least one host port.");
  if (!c.rail_optimized && c.leaf_ports < c.gpus_per_node)
    throw InputError("leaf_ports", "Without rails a node's " + std::to_string(c.gpus_per_node) +
                                       " NICs share one leaf, which needs at least that many host ports.");
  if (!std::isfinite(bytes) || bytes < 0) throw InputError("bytes", "The message size must be 0 or more bytes.");
  if (op != Collective::AllReduce && op != Collective::AllToAll)
    throw InputError("op", "The fat-tree model times all-reduce and all-to-all.");

  const int n = c.nodes, g = c.gpus_per_node, p = n * g;
  const double o = c.oversubscription, ports = c.leaf_ports;
  FatTreeResult r{};
  r.ranks = p;
  r.nodes_per_leaf = c.rail_optimized ? c.leaf_ports : c.leaf_ports / g;
  r.leaf_groups = (n + r.nodes_per_leaf - 1) / r.nodes_per_leaf;
  r.bisection_Bps = static_cast<double>(p) * c.nic_bandwidth_Bps / (2 * o);

  // Spine contention (header): the share of inter-node traffic leaving a leaf and the
  // slowdown of the uplinks it shares.
  const int n_leaf = std::min(n, r.nodes_per_leaf);
  double slowdown = 1;
  if (r.leaf_groups > 1) {
    if (op == Collective::AllReduce) {
      r.cross_spine_fraction = static_cast<double>(r.leaf_groups) / n;  // hops of a ring that leave a leaf
      const double rings_per_leaf = c.rail_optimized ? 1.0 : g;
      slowdown = std::max(1.0, rings_per_leaf * o / ports);
    } else {
      r.cross_spine_fraction = static_cast<double>(n - n_leaf) / (n - 1);
      slowdown = std::max(1.0, r.cross_spine_fraction * o);
    }
  }
  r.spine_slowdown = slowdown;
  r.inter_bandwidth_Bps = c.nic_bandwidth_Bps / slowdown;

  const Link intra{c.scaleup_latency_s, c.scaleup_bandwidth_Bps};
  const Link inter{c.nic_latency_s, r.inter_bandwidth_Bps};
  const auto h = hierarchical_breakdown(op, p, g, bytes, intra, inter);
  r.time_s = h.total.time_s;
  r.intra_time_s = h.intra_time_s;
  r.inter_time_s = h.inter_time_s;
  r.intra_bytes_per_gpu = h.intra_bytes_per_rank;
  r.inter_bytes_per_gpu = h.inter_bytes_per_rank;
  if (op == Collective::AllReduce) {
    r.reduce_scatter_time_s = h.intra_time_s / 2;
    r.allgather_time_s = h.intra_time_s / 2;
  } else {
    r.reduce_scatter_time_s = h.intra_time_s;
    r.allgather_time_s = 0;
  }
  if (n == 1 || h.intra_time_s >= h.inter_time_s) r.bottleneck = "nvlink";
  else r.bottleneck = slowdown > 1 ? "spine" : "nic";
  r.algbw_Bps = r.time_s > 0 ? bytes / r.time_s : 0;
  r.busbw_Bps = r.algbw_Bps * bus_bandwidth_factor(op, p);

  r.overlapped_time_s = std::max(h.intra_time_s, h.inter_time_s);

  // Flat algorithms over every GPU. Inside one node: a ring on the scale-up link. Across nodes:
  // the all-reduce as NCCL's flat rings (one per NIC) and as a single ring through one NIC per
  // node; the all-to-all's pairwise exchange and the binomial tree at the slower link.
  const Link slow = n == 1 ? intra
                           : Link{std::max(intra.latency_s, inter.latency_s),
                                  std::min(intra.bandwidth_Bps, inter.bandwidth_Bps)};
  if (op == Collective::AllReduce && n > 1) {
    r.flat_ring_time_s = flat_rings_time(n, g, bytes, g, intra, inter);
    // One ring leaves a leaf once per direction, rails or not: s = max(1, o / P).
    const Link one_nic{c.nic_latency_s, c.nic_bandwidth_Bps / (r.leaf_groups > 1 ? std::max(1.0, o / ports) : 1.0)};
    r.single_ring_time_s = flat_rings_time(n, g, bytes, 1, intra, one_nic);
  } else {
    r.flat_ring_time_s = collective_cost(op, CollectiveAlgorithm::Ring, p, bytes, slow).time_s;
    if (op == Collective::AllReduce) r.single_ring_time_s = r.flat_ring_time_s;
  }
  if (op == Collective::AllReduce)
    r.tree_time_s = collective_cost(op, CollectiveAlgorithm::Tree, p, bytes, slow).time_s;
  return r;
}

}  // namespace mlsys
