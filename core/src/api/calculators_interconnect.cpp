// Calculators of the interconnects lesson (shared/API.md): `interconnect` (the link table of
// content/data/interconnect.json, per GPU and per direction) and `fat-tree` (a hierarchical
// all-reduce or rail-aligned all-to-all across a two-level fat-tree with oversubscription and
// rails; interconnect/fat_tree.hpp, on comm/cost_model.hpp's hierarchical model). Beyond
// API.md: the leaf radix and latencies as inputs; the phase times, spine slowdown, bus
// bandwidth and a flat ring and binomial tree as outputs.
#include "mlsys/interconnect/fat_tree.hpp"
#include "mlsys/interconnect/links.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(InterconnectLink, MLSYS_OUT(id, "", "Id of the link (the `id` input)"), MLSYS_OUT(name, "", "Name"),
               MLSYS_OUT(kind, "", "scale-up (NVLink, ICI), pcie, or scale-out (InfiniBand, Ethernet)"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "Per GPU, one direction"),
               MLSYS_OUT(bidirectional_Bps, "B/s", "Both directions summed: 2 × bandwidth_Bps"),
               MLSYS_OUT(latency_s, "s", "Typical order of magnitude of one message's latency (latency_note)"),
               MLSYS_OUT(link_count, "", "Physical links the bandwidth sums (NVLink 4: 18; TPU v5p ICI: 6; a slot or port: 1)"),
               MLSYS_OUT(topology, "", "switched (any one peer can get the whole bandwidth) or torus (direct links to the six neighbours of a 3D torus)"),
               MLSYS_OUT(per_link_Bps, "B/s", "One physical link, one direction: bandwidth_Bps / link_count"),
               MLSYS_OUT(peer_bandwidth_Bps, "B/s", "One transfer to one peer, one direction: bandwidth_Bps when switched, one link to a torus neighbour"),
               MLSYS_OUT(axis_bandwidth_Bps, "B/s", "Torus only: what a chip sends along one axis to both its neighbours at once (2 × per_link_Bps)"),
               MLSYS_OUT(quoted, "", "The vendor's or standard's figure as printed"),
               MLSYS_OUT(quoted_as, "", "Whether that figure is bidirectional or per direction"),
               MLSYS_OUT(latency_note, "", "Where latency_s comes from"),
               MLSYS_OUT(source, "", "Source documents with URLs"));

namespace {

struct InterconnectOut {
  std::optional<std::vector<InterconnectLink>> links;  // without id
  std::optional<InterconnectLink> link;                // with id
};

}  // namespace

MLSYS_DESCRIBE(InterconnectOut, MLSYS_OUT(links, "", "Every link of the table, without id"), MLSYS_FLAT(link));

MLSYS_DESCRIBE(FatTreeResult, MLSYS_OUT(time_s, "s", "Hierarchical collective, phases one after another"),
               MLSYS_OUT(bisection_Bps, "B/s", "nodes·gpus_per_node·nic_bandwidth_Bps / (2·oversubscription), one direction"),
               MLSYS_OUT(bottleneck, "", "nvlink (the intra-node phases take longest), nic, or spine (the inter-node phase, slowed by the uplinks)"),
               MLSYS_OUT(ranks, "", "GPUs: nodes × gpus_per_node"),
               MLSYS_OUT(nodes_per_leaf, "", "Nodes whose NICs (of one rail) share a leaf: leaf_ports with rails, leaf_ports / g without"),
               MLSYS_OUT(leaf_groups, "", "⌈nodes / nodes_per_leaf⌉"),
               MLSYS_OUT(cross_spine_fraction, "", "Share of the inter-node traffic that crosses the spine"),
               MLSYS_OUT(spine_slowdown, "", "s ≥ 1: demand leaving a leaf over its uplink capacity"),
               MLSYS_OUT(inter_bandwidth_Bps, "B/s", "nic_bandwidth_Bps / s: what each GPU's inter-node phase runs at"),
               MLSYS_OUT(intra_time_s, "s", "Time on the scale-up link"), MLSYS_OUT(inter_time_s, "s", "Time on the NICs"),
               MLSYS_OUT(reduce_scatter_time_s, "s", "All-reduce: intra-node ring reduce-scatter (all-to-all: the intra-node phase)"),
               MLSYS_OUT(allgather_time_s, "s", "All-reduce: intra-node ring all-gather (all-to-all: 0)"),
               MLSYS_OUT(intra_bytes_per_gpu, "B", "Bytes one GPU sends over the scale-up link"),
               MLSYS_OUT(inter_bytes_per_gpu, "B", "Bytes one GPU sends through its NIC"),
               MLSYS_OUT(algbw_Bps, "B/s", "bytes / time_s"),
               MLSYS_OUT(busbw_Bps, "B/s", "nccl-tests bus bandwidth: algbw × 2(p−1)/p (all-to-all: (p−1)/p)"),
               MLSYS_OUT(overlapped_time_s, "s", "The phases pipelined chunk by chunk: max(intra_time_s, inter_time_s), a lower bound"),
               MLSYS_OUT(flat_ring_time_s, "s",
                         "All-reduce: NCCL's flat rings over every GPU, one per NIC (g rings of S/g; network latency on the 2(N−1) hops that cross nodes); all-to-all: pairwise exchange at the slower link"),
               MLSYS_OUT(single_ring_time_s, "s", "All-reduce: one flat ring over every GPU, through one NIC per node"),
               MLSYS_OUT(tree_time_s, "s", "All-reduce: binomial tree over every GPU at the slower link"));

void add_interconnect_calculators(Calculators& out) {
  std::vector<std::string> ids;
  for (const auto& l : interconnect_links()) ids.push_back(l.id);
  out.add("interconnect",
          "Links that join accelerators (NVLink, PCIe, InfiniBand, RoCE, TPU ICI): bandwidth per GPU in one "
          "direction and both summed, a typical latency, and the vendor's figure with its source.",
          {optional(string_field("id", "Link id; omit to list every link", json(), ids))}, [](const Inputs& in) {
            if (in.has("id")) return InterconnectOut{std::nullopt, find_interconnect_link(in.str("id"))};
            return InterconnectOut{interconnect_links(), std::nullopt};
          });

  out.add("fat-tree",
          "A collective across a two-level fat-tree: hierarchical all-reduce (reduce-scatter over the scale-up link, "
          "ring across nodes through each GPU's own NIC, all-gather) or the rail-aligned all-to-all; leaf uplinks "
          "oversubscribed o:1 slow the inter-node phase when the traffic leaving a leaf exceeds them.",
          {integer_field("nodes", "", "Nodes N", 64, 1, 4096),
           integer_field("gpus_per_node", "", "GPUs per node g, each with its own NIC", 8, 1, 72),
           number_field("nic_bandwidth_Bps", "B/s", "NIC bandwidth per GPU, one direction (400 Gb/s: 50 GB/s)", 50e9,
                        1e6, 1e13),
           number_field("scaleup_bandwidth_Bps", "B/s", "Scale-up bandwidth per GPU, one direction (NVLink 4: 450 GB/s)",
                        450e9, 1e6, 1e14),
           number_field("oversubscription", "", "Leaf host ports per uplink (1: full bisection)", 1, 1, 64),
           boolean_field("rail_optimized", "NIC l of every node on the leaf of rail l (else a node's NICs on one leaf)",
                         true),
           number_field("bytes", "B", "Size S: the all-reduce buffer, or each GPU's all-to-all buffer", 1e9, 0.0, 1e14),
           string_field("op", "The collective", "allreduce", {"allreduce", "alltoall"}),
           integer_field("leaf_ports", "", "Host-facing ports of one leaf switch", 32, 1, 1024),
           number_field("scaleup_latency_s", "s", "Latency per message on the scale-up link", 2e-6, 0.0, 1e-2),
           number_field("nic_latency_s", "s", "Latency per message across the network", 5e-6, 0.0, 1e-2)},
          [](const Inputs& in) {
            FatTreeConfig c;
            c.nodes = static_cast<int>(in.integer("nodes"));
            c.gpus_per_node = static_cast<int>(in.integer("gpus_per_node"));
            c.nic_bandwidth_Bps = in.num("nic_bandwidth_Bps");
            c.scaleup_bandwidth_Bps = in.num("scaleup_bandwidth_Bps");
            c.oversubscription = in.num("oversubscription");
            c.rail_optimized = in.boolean("rail_optimized");
            c.leaf_ports = static_cast<int>(in.integer("leaf_ports"));
            c.scaleup_latency_s = in.num("scaleup_latency_s");
            c.nic_latency_s = in.num("nic_latency_s");
            return fat_tree_collective(c, in.num("bytes"), collective_from_name(in.str("op")));
          });
}

}  // namespace mlsys::api
