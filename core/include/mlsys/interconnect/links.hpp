// The table of links that join accelerators (content/data/interconnect.json): NVLink
// generations, PCIe slots, InfiniBand and Ethernet ports, TPU ICI. Every bandwidth is per
// GPU and per direction in bytes/s; the vendor's printed figure, and whether it sums both
// directions, is kept beside it with its source. Sources: NVIDIA A100/H100 whitepapers and
// datasheets, NVIDIA NVLink page, PCI-SIG base specifications, InfiniBand Trade Association
// roadmap, IEEE 802.3bs, Google Cloud TPU v5p documentation (each row's `source`).
#pragma once
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
