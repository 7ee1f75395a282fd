// Exercises of the interconnects lesson: a transfer over a link whose vendor figure sums both
// directions (`interconnect`), the hierarchical all-reduce across nodes, the bisection of an
// oversubscribed fat-tree, the inter-node bandwidth of rings without rails, and the
// all-to-all across oversubscribed uplinks (`fat-tree`).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "generators.hpp"
#include "mlsys/interconnect/fat_tree.hpp"
#include "mlsys/interconnect/links.hpp"

namespace mlsys::exercises {

namespace {

std::string gbps(double bps) { return format_number(bps / 1e9, 4) + " GB/s"; }
// A network rate as it is quoted, in gigabits per second.
std::string gbits(double bps) { return format_number(bps * 8 / 1e9, 4) + " Gb/s"; }
// "an 800 Gb/s InfiniBand XDR NIC": a port of the table named by its rate and family.
std::string nic_family(const InterconnectLink& l) {
  return l.id == "roce-400g" ? "RoCE Ethernet" : l.name.substr(0, l.name.find(" ("));
}
std::string nic_phrase(const InterconnectLink& l) {
  return article(gbits(l.bandwidth_Bps)) + gbits(l.bandwidth_Bps) + " " + nic_family(l) + " NIC";
}

// The radix of the leaf switch a port generation is built with: 40 HDR ports on a Quantum
// QM8700 (as Narval's HDR hubs), 64 NDR ports on a Quantum-2 QM9700; the XDR rows are held to
// the same 64.
double leaf_radix(const InterconnectLink& nic) { return nic.id == "ib-hdr" ? 40 : 64; }

const std::vector<std::string> kScaleOut = {"ib-hdr", "ib-ndr", "ib-xdr"};

Exercise one_direction(Rng& rng) {
  // NVLink through NVSwitch gives one peer the device's whole per-direction bandwidth. A TPU's ICI
  // figure sums six torus links (+x, −x, +y, −y, +z, −z), of which a transfer to one neighbour
  // uses one: per direction, then per link.
  const std::string id = rng.pick(std::vector<std::string>{"nvlink3", "nvlink4", "nvlink5", "tpu-v5p-ici"});
  const InterconnectLink& l = find_interconnect_link(id);
  const bool torus = l.topology == "torus";
  const double gb = round_sig(0.5 * exp_det(rng.uniform() * log_det(40.0)), 2);  // 0.5–20 GB, log-uniform
  const std::string printed = format_number(l.bidirectional_Bps / 1e9, 4) + " GB/s";
  Exercise e;
  e.title = "A transfer over a link quoted both ways";
  e.params = {{"id", id}};
  e.unit = "ms";
  e.answer = gb * 1e9 / l.peer_bandwidth_Bps * 1e3;
  e.rel_tolerance = 0.01;
  if (torus) {
    e.prompt = "Google's page gives the " + l.name.substr(0, l.name.find(" ICI")) + " " + printed + " of inter-chip interconnect bandwidth per chip, "
               "counting both directions. Each chip has " + std::string(l.link_count == 6 ? "six" : "several") + " identical ICI links, one to "
               "each of its neighbours in a 3D torus (+x, −x, +y, −y, +z, −z). One chip sends " + format_number(gb, 2) +
               " GB to its +x neighbour, nothing else running. Ignoring latency and protocol overhead, how long does the "
               "transfer take, in ms?";
    e.hint = "Halve a figure that sums both directions; then ask how many of the chip's links reach that one neighbour.";
    // The solution ends on the answer, as every solution does.
    e.solution = "One direction: " + printed + " / 2 = " + gbps(l.bandwidth_Bps) + " out of the chip, over " +
                 format_int(l.link_count) + " links: " + gbps(l.per_link_Bps) + " per link. Through a switch, as "
                 "NVLink, one peer could use the whole " + gbps(l.bandwidth_Bps) + "; a torus neighbour is one link "
                 "away: " + format_number(gb, 2) + " GB / " + gbps(l.per_link_Bps) + " = " + format_number(e.answer, 4) +
                 " ms.";
    reject_mistake(e, gb * 1e9 / l.bandwidth_Bps * 1e3, "used the whole chip's bandwidth: a neighbour is one link away");
    reject_mistake(e, gb * 1e9 / (2 * l.per_link_Bps) * 1e3, "shared the total among the links but forgot to halve it");
  } else {
    e.prompt = "The datasheet gives the " + l.name + " link " + printed + " of total bandwidth per device, counting "
               "both directions; the GPUs are joined through NVSwitch chips. One device sends " + format_number(gb, 2) +
               " GB to another over it, nothing else running. Ignoring latency and protocol overhead, how long does "
               "the transfer take, in ms?";
    e.hint = "A transfer in one direction gets half of a figure that sums both directions.";
    e.solution = "One direction: " + printed + " / 2 = " + gbps(l.bandwidth_Bps) + "; through NVSwitch one peer gets "
                 "all of it: " + format_number(gb, 2) + " GB / " + gbps(l.bandwidth_Bps) + " = " +
                 format_number(e.answer, 4) + " ms.";
  }
  require(e, l.kind == "scale-up" && l.quoted_as == "bidirectional",
          "the link is a scale-up row of the table, quoted both ways");
  require(e, torus || l.id.rfind("nvlink", 0) == 0, "a switched row is NVLink through NVSwitch");
  require(e, !torus || l.link_count == 6, "a 3D torus: six links, one per neighbour");
  require_between(e, e.answer, 0.1, 250, "transfer time in ms");
  reject_mistake(e, gb * 1e9 / l.bidirectional_Bps * 1e3, "used the figure that sums both directions");
  return e;
}

Exercise hierarchical_time(Rng& rng) {
  const std::string gpu = rng.pick(std::vector<std::string>{"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"});
  const Accelerator& a = *find_accelerator(gpu);
  const InterconnectLink& nic = draw_nic(rng, gpu);
  FatTreeConfig c;
  c.nodes = rng.pick(std::vector<int>{2, 4, 8, 16, 32, 64, 128});
  c.gpus_per_node = 8;
  c.scaleup_bandwidth_Bps = a.scaleup_per_direction_Bps("scaleup_bandwidth_Bps");
  c.nic_bandwidth_Bps = nic.bandwidth_Bps;
  c.scaleup_latency_s = 0;
  c.nic_latency_s = 0;
  const double gb = round_sig(0.2 + 3.8 * rng.uniform(), 2);
  const auto r = fat_tree_collective(c, gb * 1e9, Collective::AllReduce);
  FatTreeConfig bits = c;  // a reader who takes the NIC's gigabits for gigabytes
  bits.nic_bandwidth_Bps *= 8;
  Exercise e;
  e.title = "Hierarchical all-reduce across nodes";
  e.params = {{"nodes", c.nodes}, {"gpus_per_node", 8}, {"scaleup_bandwidth_Bps", c.scaleup_bandwidth_Bps},
              {"nic_bandwidth_Bps", c.nic_bandwidth_Bps}, {"bytes", gb * 1e9}, {"scaleup_latency_s", 0},
              {"nic_latency_s", 0}};
  e.prompt = "Gradients of " + format_number(gb, 2) + " GB are all-reduced across " + format_int(c.nodes) +
             " nodes of 8 " + a.name.substr(0, a.name.find(" (")) + " GPUs with the hierarchical algorithm: ring "
             "reduce-scatter inside each node over NVLink at " + gbps(c.scaleup_bandwidth_Bps) + " per GPU per "
             "direction, a ring all-reduce of each GPU's shard across the nodes through its own " + nic_phrase(nic).substr(nic_phrase(nic).find(' ') + 1) +
             " (per direction; full-bisection network), then ring all-gather inside the node, one phase after another. Ignoring latency, how long "
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
  require_scaleup_of(e, gpu, c.scaleup_bandwidth_Bps, "NVLink");
  require_nic_of(e, gpu, c.nic_bandwidth_Bps, "NIC");
  reject_mistake(e, fat_tree_collective(bits, gb * 1e9, Collective::AllReduce).time_s * 1e3,
                 "read the NIC's gigabits per second as gigabytes");
  return e;
}

Exercise bisection(Rng& rng) {
  const int nodes = rng.pick(std::vector<int>{16, 32, 64, 96, 128, 256, 512, 1024});
  const int g = rng.pick(std::vector<int>{4, 8});
  const double nic = find_interconnect_link(rng.pick(kScaleOut)).bandwidth_Bps;
  const double o = rng.pick(std::vector<double>{2, 3, 4});  // oversubscribed: 1:1 is full bisection
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
  require_link_row(e, nic, "scale-out", "NIC");
  require_between(e, o, 1, kMaxOversubscription, "oversubscription");
  reject_mistake(e, e.answer * 8, "read the NIC's gigabits per second as gigabytes");
  reject_mistake(e, e.answer * 2, "let all the GPUs send, not half of them");
  return e;
}

// Leaves without rails whose uplinks are fewer than a node's GPUs, so the rings that leave a
// leaf together outgrow them: {GPUs per node, host ports, uplinks}, whole ports, 2.3:1 to 4.6:1.
struct Leaf {
  int g, ports, uplinks;
};
const std::vector<Leaf> kNoRailLeaves = {{8, 16, 4}, {8, 16, 5}, {8, 16, 6}, {8, 16, 7}, {8, 24, 6},
                                         {8, 24, 7}, {8, 32, 7}, {4, 8, 2}, {4, 8, 3}, {4, 12, 3}};

Exercise no_rails(Rng& rng) {
  const Leaf leaf = rng.pick(kNoRailLeaves);
  const int g = leaf.g, ports = leaf.ports;
  const InterconnectLink& link = find_interconnect_link(rng.pick(kScaleOut));
  const double nic = link.bandwidth_Bps;
  const double o = static_cast<double>(ports) / leaf.uplinks;
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
  e.prompt = "Nodes of " + format_int(g) + " GPUs, each GPU with " + nic_phrase(link) + ", hang from leaf switches of " + format_int(ports) + " host ports and " + format_int(leaf.uplinks) +
             " uplinks to the spine (" + format_number(o, 3) + ":1 oversubscription), all of a node's NICs on the "
             "same leaf (no rails). A hierarchical all-reduce runs one ring across the nodes per local GPU "
             "index, the nodes in ring order, and every ring leaves each leaf once per direction. At what bandwidth "
             "per GPU, in GB/s, does the inter-node phase run?";
  e.unit = "GB/s";
  e.answer = r.inter_bandwidth_Bps / 1e9;
  e.rel_tolerance = 0.01;
  e.hint = "A leaf has " + format_int(leaf.uplinks) + " uplinks of one NIC's rate each; " + format_int(g) +
           " rings leave it together, each wanting a full NIC. Network rates are in bits.";
  e.solution = "NIC: " + gbits(nic) + " / 8 = " + gbps(nic) + ". Uplink capacity " + format_int(leaf.uplinks) + " × " + gbps(nic) + " = " +
               gbps(ports * nic / o) + "; demand " + format_int(g) + " × " + gbps(nic) + " = " + gbps(g * nic) +
               "; slowdown " + format_number(r.spine_slowdown, 4) + "; each GPU gets " + format_number(e.answer, 4) +
               " GB/s.";
  require_leaf(e, ports, leaf.uplinks, leaf_radix(link), "leaf switch");
  require_whole(e, 1.0 * ports / g, "nodes per leaf");
  require_link_row(e, nic, "scale-out", "NIC");
  require(e, r.spine_slowdown > 1, "the rings outgrow the uplinks, as the question sets up");
  reject_mistake(e, nic / 1e9, "let every ring run at the NIC's rate: the uplinks are shared");
  reject_mistake(e, e.answer * 8, "read the NIC's gigabits per second as gigabytes");
  return e;
}

// Rail leaves {host ports, uplinks}: whole ports, 2:1 to 4:1, within a 40-port (HDR) or
// 64-port switch.
const std::vector<std::pair<int, int>> kRailLeaves = {{16, 8}, {16, 4}, {24, 12}, {24, 8}, {24, 6}, {32, 16},
                                                      {32, 8}, {30, 10}, {48, 16}, {48, 12}};

Exercise alltoall_oversub(Rng& rng) {
  std::pair<int, int> leaf{};
  const InterconnectLink* link = nullptr;
  int ports = 0, groups = 0;
  double o = 0, nic = 0, mb = 0;
  FatTreeConfig c;
  FatTreeResult r{};
  // Redrawn until the leaf fits its switch and the uplinks slow the phase (c·o > 1), so that
  // ignoring them is a different answer.
  for (;;) {
    leaf = rng.pick(kRailLeaves);
    link = &find_interconnect_link(rng.pick(kScaleOut));
    if (leaf.first + leaf.second > leaf_radix(*link)) continue;
    ports = leaf.first;
    groups = rng.pick(std::vector<int>{2, 3, 4, 8});
    o = static_cast<double>(leaf.first) / leaf.second;
    nic = link->bandwidth_Bps;
    mb = round_sig(64 + 960 * rng.uniform(), 2);
    c = FatTreeConfig{};
    c.nodes = ports * groups;
    c.gpus_per_node = 8;
    c.nic_bandwidth_Bps = nic;
    c.oversubscription = o;
    c.leaf_ports = ports;
    c.nic_latency_s = 0;
    c.scaleup_latency_s = 0;
    r = fat_tree_collective(c, mb * 1e6, Collective::AllToAll);
    if (r.spine_slowdown > 1.05) break;
  }
  Exercise e;
  e.title = "All-to-all across oversubscribed uplinks";
  e.params = {{"nodes", c.nodes}, {"gpus_per_node", 8}, {"nic_bandwidth_Bps", nic}, {"oversubscription", o},
              {"leaf_ports", ports}, {"bytes", mb * 1e6}, {"op", "alltoall"}, {"nic_latency_s", 0},
              {"scaleup_latency_s", 0}};
  e.prompt = "A rail-optimized cluster of " + format_int(c.nodes) + " nodes of 8 GPUs: each rail leaf switch takes one "
             "NIC (" + gbits(nic) + " " + nic_family(*link) + ") from each of " + format_int(ports) + " nodes and has " +
             format_int(leaf.second) + " uplinks to the spine (" + format_number(o, 3) + ":1 oversubscribed). In the inter-node phase of a rail-aligned all-to-all, every GPU sends S/N = " +
             format_number(mb / c.nodes, 4) + " MB to the GPU on its rail in each of the N − 1 other nodes (its buffer "
             "is " + format_number(mb, 2) + " MB), all GPUs at once. Ignoring latency, how long does that phase take, "
             "in ms?";
  e.unit = "ms";
  e.answer = r.inter_time_s * 1e3;
  e.rel_tolerance = 0.01;
  e.hint = "A share c = (N − nodes per leaf)/(N − 1) of the partners is beyond the leaf; the uplinks carry 1/o of the "
           "leaf's ports, so the phase slows by max(1, c·o).";
  e.solution = "c = (" + format_int(c.nodes) + " − " + format_int(ports) + ") / " + format_int(c.nodes - 1) + " = " +
               format_number(r.cross_spine_fraction, 4) + "; slowdown max(1, c × " + format_number(o, 3) + ") = " +
               format_number(r.spine_slowdown, 4) + "; the NIC carries " + gbits(nic) + " / 8 = " + gbps(nic) +
               "; (N − 1)/N × S / (" + gbps(nic) + " / " +
               format_number(r.spine_slowdown, 4) + ") = " + format_number(e.answer, 4) + " ms.";
  require_leaf(e, ports, leaf.second, leaf_radix(*link), "rail leaf switch");
  require_link_row(e, nic, "scale-out", "NIC");
  require(e, r.spine_slowdown > 1, "the uplinks slow the phase, as the question sets up");
  reject_mistake(e, e.answer / r.spine_slowdown, "ignored the oversubscribed uplinks");
  reject_mistake(e, e.answer / 8, "read the NIC's gigabits per second as gigabytes");
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
