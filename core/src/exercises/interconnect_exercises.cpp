// Exercises of the interconnects lesson: a transfer over a link whose vendor figure sums both
// directions (`interconnect`), the hierarchical all-reduce across nodes, the bisection of an
// oversubscribed fat-tree, the inter-node bandwidth of rings without rails, and the
// all-to-all across oversubscribed uplinks (`fat-tree`).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/interconnect/fat_tree.hpp"
#include "mlsys/interconnect/links.hpp"

namespace mlsys::exercises {

namespace {

std::string gbps(double bps) { return format_number(bps / 1e9, 4) + " GB/s"; }

Exercise one_direction(Rng& rng) {
  const std::string id = rng.pick(std::vector<std::string>{"nvlink3", "nvlink4", "nvlink5", "tpu-v5p-ici"});
  const InterconnectLink& l = find_interconnect_link(id);
  const double gb = round_sig(0.5 + 19.5 * rng.uniform(), 2);
  Exercise e;
  e.title = "A transfer over a link quoted both ways";
  e.params = {{"id", id}};
  e.prompt = "The datasheet gives the " + l.name + " link " + format_number(l.bidirectional_Bps / 1e9, 4) +
             " GB/s of total bandwidth per device, counting both directions. One device sends " +
             format_number(gb, 2) + " GB to another over it, nothing else running. Ignoring latency and protocol "
             "overhead, how long does the transfer take, in ms?";
  e.unit = "ms";
  e.answer = gb * 1e9 / l.bandwidth_Bps * 1e3;
  e.rel_tolerance = 0.01;
  e.hint = "A transfer in one direction gets half of a figure that sums both directions.";
  e.solution = "One direction: " + format_number(l.bidirectional_Bps / 1e9, 4) + " / 2 = " + gbps(l.bandwidth_Bps) +
               "; " + format_number(gb, 2) + " GB / " + gbps(l.bandwidth_Bps) + " = " + format_number(e.answer, 4) +
               " ms.";
  return e;
}

Exercise hierarchical_time(Rng& rng) {
  FatTreeConfig c;
  c.nodes = rng.pick(std::vector<int>{2, 4, 8, 16, 32, 64, 128});
  c.gpus_per_node = 8;
  c.scaleup_bandwidth_Bps = rng.pick(std::vector<double>{300e9, 450e9, 900e9});
  c.nic_bandwidth_Bps = rng.pick(std::vector<double>{25e9, 50e9, 100e9});
  c.scaleup_latency_s = 0;
  c.nic_latency_s = 0;
  const double gb = round_sig(0.2 + 3.8 * rng.uniform(), 2);
  const auto r = fat_tree_collective(c, gb * 1e9, Collective::AllReduce);
  Exercise e;
  e.title = "Hierarchical all-reduce across nodes";
  e.params = {{"nodes", c.nodes}, {"gpus_per_node", 8}, {"scaleup_bandwidth_Bps", c.scaleup_bandwidth_Bps},
              {"nic_bandwidth_Bps", c.nic_bandwidth_Bps}, {"bytes", gb * 1e9}, {"scaleup_latency_s", 0},
              {"nic_latency_s", 0}};
  e.prompt = "Gradients of " + format_number(gb, 2) + " GB are all-reduced across " + format_int(c.nodes) +
             " nodes of 8 GPUs with the hierarchical algorithm: ring reduce-scatter inside each node over NVLink at " +
             gbps(c.scaleup_bandwidth_Bps) + " per GPU per direction, a ring all-reduce of each GPU's shard across "
             "the nodes through its own NIC at " + gbps(c.nic_bandwidth_Bps) + " per direction (full-bisection "
             "network), then ring all-gather inside the node, one phase after another. Ignoring latency, how long "
             "does it take, in ms?";
  e.unit = "ms";
  e.answer = r.time_s * 1e3;
  e.rel_tolerance = 0.01;
  e.hint = "Inside: 2(g−1) steps of S/g over NVLink. Across: 2(N−1) steps of S/(gN) over the NIC.";
  const double g = 8, n = c.nodes, S = gb * 1e9;
  e.solution = "Intra-node: 2 × 7 × " + format_number(S / g / 1e6, 4) + " MB / " + gbps(c.scaleup_bandwidth_Bps) +
               " = " + format_number(r.intra_time_s * 1e3, 4) + " ms. Inter-node: 2 × " + format_int(n - 1) + " × " +
               format_number(S / (g * n) / 1e6, 4) + " MB / " + gbps(c.nic_bandwidth_Bps) + " = " +
               format_number(r.inter_time_s * 1e3, 4) + " ms. Total " + format_number(e.answer, 4) + " ms.";
  return e;
}

Exercise bisection(Rng& rng) {
  const int nodes = rng.pick(std::vector<int>{16, 32, 64, 96, 128, 256, 512, 1024});
  const int g = rng.pick(std::vector<int>{4, 8});
  const double nic = rng.pick(std::vector<double>{25e9, 50e9, 100e9});
  const double o = rng.pick(std::vector<double>{1, 2, 3, 4});
  FatTreeConfig c;
  c.nodes = nodes;
  c.gpus_per_node = g;
  c.nic_bandwidth_Bps = nic;
  c.oversubscription = o;
  const auto r = fat_tree_collective(c, 1e9, Collective::AllReduce);
  Exercise e;
  e.title = "Bisection bandwidth of an oversubscribed fat-tree";
  e.params = {{"nodes", nodes}, {"gpus_per_node", g}, {"nic_bandwidth_Bps", nic}, {"oversubscription", o}};
  e.prompt = "A cluster has " + format_int(nodes) + " nodes of " + format_int(g) + " GPUs, each GPU with its own " +
             format_number(nic * 8 / 1e9, 3) + " Gb/s NIC, on a two-level fat-tree whose leaf switches have " +
             format_int(o) + " host port" + (o == 1 ? "" : "s") + " for every uplink (" + format_int(o) +
             ":1). What is its bisection bandwidth, one direction, in GB/s: the most that one half of the GPUs can "
             "send to the other half at once?";
  e.unit = "GB/s";
  e.answer = r.bisection_Bps / 1e9;
  e.rel_tolerance = 0.01;
  e.hint = "Half the GPUs send through their NICs, and the spine carries 1/o of what the leaves take in.";
  e.solution = format_int(nodes * g) + " GPUs × " + gbps(nic) + " / (2 × " + format_int(o) + ") = " +
               format_number(e.answer, 4) + " GB/s.";
  return e;
}

Exercise no_rails(Rng& rng) {
  const int g = rng.pick(std::vector<int>{4, 8});
  const int ports = rng.pick(std::vector<int>{16, 32, 64});
  const double nic = rng.pick(std::vector<double>{25e9, 50e9, 100e9});
  const double threshold = static_cast<double>(ports) / g;  // o above which the rings outgrow the uplinks
  const double o = std::min(64.0, round_sig(threshold * (1.2 + 3 * rng.uniform()), 2));
  FatTreeConfig c;
  c.nodes = 4 * ports;  // several leaves in both wirings
  c.gpus_per_node = g;
  c.nic_bandwidth_Bps = nic;
  c.oversubscription = o;
  c.leaf_ports = ports;
  c.rail_optimized = false;
  const auto r = fat_tree_collective(c, 1e9, Collective::AllReduce);
  Exercise e;
  e.title = "Rings through an oversubscribed leaf without rails";
  e.params = {{"nodes", c.nodes}, {"gpus_per_node", g}, {"nic_bandwidth_Bps", nic}, {"oversubscription", o},
              {"leaf_ports", ports}, {"rail_optimized", false}};
  e.prompt = "Nodes of " + format_int(g) + " GPUs, each GPU with a " + gbps(nic) + " NIC, hang from leaf switches of " +
             format_int(ports) + " host ports with " + format_number(o, 3) + ":1 oversubscription, all of a node's "
             "NICs on the same leaf (no rails). A hierarchical all-reduce runs one ring across the nodes per local GPU "
             "index, the nodes in ring order, and every ring leaves each leaf once per direction. At what bandwidth "
             "per GPU, in GB/s, does the inter-node phase run?";
  e.unit = "GB/s";
  e.answer = r.inter_bandwidth_Bps / 1e9;
  e.rel_tolerance = 0.01;
  e.hint = "A leaf has " + format_int(ports) + " / o uplinks' worth of capacity; " + format_int(g) +
           " rings leave it together, each wanting a full NIC.";
  e.solution = "Uplink capacity " + format_int(ports) + " × " + gbps(nic) + " / " + format_number(o, 3) + " = " +
               gbps(ports * nic / o) + "; demand " + format_int(g) + " × " + gbps(nic) + " = " + gbps(g * nic) +
               "; slowdown " + format_number(r.spine_slowdown, 4) + "; each GPU gets " + format_number(e.answer, 4) +
               " GB/s.";
  return e;
}

Exercise alltoall_oversub(Rng& rng) {
  const int ports = rng.pick(std::vector<int>{16, 32, 64});
  const int groups = rng.pick(std::vector<int>{2, 3, 4, 8});
  const double o = rng.pick(std::vector<double>{2, 3, 4, 6, 8});
  const double nic = rng.pick(std::vector<double>{25e9, 50e9, 100e9});
  const double mb = round_sig(64 + 960 * rng.uniform(), 2);
  FatTreeConfig c;
  c.nodes = ports * groups;
  c.gpus_per_node = 8;
  c.nic_bandwidth_Bps = nic;
  c.oversubscription = o;
  c.leaf_ports = ports;
  c.nic_latency_s = 0;
  c.scaleup_latency_s = 0;
  const auto r = fat_tree_collective(c, mb * 1e6, Collective::AllToAll);
  Exercise e;
  e.title = "All-to-all across oversubscribed uplinks";
  e.params = {{"nodes", c.nodes}, {"gpus_per_node", 8}, {"nic_bandwidth_Bps", nic}, {"oversubscription", o},
              {"leaf_ports", ports}, {"bytes", mb * 1e6}, {"op", "alltoall"}, {"nic_latency_s", 0},
              {"scaleup_latency_s", 0}};
  e.prompt = "A rail-optimized cluster of " + format_int(c.nodes) + " nodes of 8 GPUs: each rail leaf switch takes one "
             "NIC (" + gbps(nic) + ") from each of " + format_int(ports) + " nodes and has " + format_number(o, 2) +
             ":1 oversubscribed uplinks. In the inter-node phase of a rail-aligned all-to-all, every GPU sends S/N = " +
             format_number(mb / c.nodes, 4) + " MB to the GPU on its rail in each of the N − 1 other nodes (its buffer "
             "is " + format_number(mb, 2) + " MB), all GPUs at once. Ignoring latency, how long does that phase take, "
             "in ms?";
  e.unit = "ms";
  e.answer = r.inter_time_s * 1e3;
  e.rel_tolerance = 0.01;
  e.hint = "A share c = (N − nodes per leaf)/(N − 1) of the partners is beyond the leaf; the uplinks carry 1/o of the "
           "leaf's ports, so the phase slows by max(1, c·o).";
  e.solution = "c = (" + format_int(c.nodes) + " − " + format_int(ports) + ") / " + format_int(c.nodes - 1) + " = " +
               format_number(r.cross_spine_fraction, 4) + "; slowdown max(1, c × " + format_number(o, 2) + ") = " +
               format_number(r.spine_slowdown, 4) + "; (N − 1)/N × S / (" + gbps(nic) + " / " +
               format_number(r.spine_slowdown, 4) + ") = " + format_number(e.answer, 4) + " ms.";
  return e;
}

}  // namespace

void add_interconnect_exercises(std::vector<Generator>& out) {
  out.push_back({"ic-one-direction", one_direction});
  out.push_back({"ic-hierarchical-time", hierarchical_time});
  out.push_back({"ic-bisection", bisection});
  out.push_back({"ic-no-rails", no_rails});
  out.push_back({"ic-alltoall-oversub", alltoall_oversub});
}

}  // namespace mlsys::exercises
