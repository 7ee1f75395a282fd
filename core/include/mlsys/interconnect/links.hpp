// The table of links that join accelerators (content/data/interconnect.json): NVLink
// generations, PCIe slots, InfiniBand and Ethernet ports, TPU ICI. Every bandwidth is per
// GPU and per direction in bytes/s; the vendor's printed figure, and whether it sums both
// directions, is kept beside it with its source; so are the number of physical links the
// figure sums and whether one transfer to one peer can use them all (switched) or only the link
// towards that neighbour (a torus: TPU ICI, six links). Sources: NVIDIA A100/H100 whitepapers and
// datasheets, NVIDIA NVLink page, PCI-SIG base specifications, InfiniBand Trade Association
// roadmap, IEEE 802.3bs, Google Cloud TPU v5p documentation and the Scaling Book's TPU chapter
// (each row's `source`).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "mlsys/comm/cost_model.hpp"

namespace mlsys {

struct InterconnectLink {
  std::string id, name;
  std::string kind;          // "scale-up" | "pcie" | "scale-out"
  double bandwidth_Bps;      // per GPU, one direction
  double bidirectional_Bps;  // both directions summed: 2 · bandwidth_Bps
  double latency_s;          // typical order of magnitude per message (latency_note)
  int link_count;            // physical links the bandwidth sums (NVLink 4: 18; TPU v5p ICI: 6; a slot or port: 1)
  std::string topology;      // "switched": any one peer can get bandwidth_Bps (NVSwitch, PCIe, network
                             // switches); "torus": direct links to the 2·3 neighbours of a 3D torus
  double per_link_Bps;       // bandwidth_Bps / link_count, one direction
  double peer_bandwidth_Bps; // one transfer to one peer, one direction: bandwidth_Bps when switched,
                             // one link (per_link_Bps) to a torus neighbour
  std::optional<double> axis_bandwidth_Bps;  // torus only: what a chip sends along one axis, both
                                             // neighbours at once (2 · per_link_Bps), as a ring on that axis
  std::string quoted;        // the vendor's figure as printed
  std::string quoted_as;     // "bidirectional" | "per direction"
  std::string latency_note;
  std::string source;
};

// Every row, in the table's order (parsed once from the compiled-in JSON).
const std::vector<InterconnectLink>& interconnect_links();
// One row; InputError("id") naming the known ids when there is none.
const InterconnectLink& find_interconnect_link(const std::string& id);
// The row as an alpha-beta link (comm/cost_model.hpp).
inline Link as_link(const InterconnectLink& l) { return {l.latency_s, l.bandwidth_Bps}; }

}  // namespace mlsys
