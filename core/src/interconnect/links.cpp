// The link table parsed from the JSON compiled in by CMake (interconnect_data.cpp.in).
#include "mlsys/interconnect/links.hpp"

#include <nlohmann/json.hpp>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

extern const char* const kInterconnectJson;

const std::vector<InterconnectLink>& interconnect_links() {
  static const std::vector<InterconnectLink> rows = [] {
    std::vector<InterconnectLink> out;
    const auto table = nlohmann::json::parse(kInterconnectJson);
    for (const auto& r : table.at("links")) {
      InterconnectLink l;
      l.id = r.at("id").get<std::string>();
      l.name = r.at("name").get<std::string>();
      l.kind = r.at("kind").get<std::string>();
      l.bandwidth_Bps = r.at("bandwidth_Bps").get<double>();
      l.bidirectional_Bps = 2 * l.bandwidth_Bps;
      l.latency_s = r.at("latency_s").get<double>();
      l.link_count = r.at("link_count").get<int>();
      l.topology = r.at("topology").get<std::string>();
      l.per_link_Bps = l.bandwidth_Bps / l.link_count;
      l.peer_bandwidth_Bps = l.topology == "torus" ? l.per_link_Bps : l.bandwidth_Bps;
      if (l.topology == "torus") l.axis_bandwidth_Bps = 2 * l.per_link_Bps;
      l.quoted = r.at("quoted").get<std::string>();
      l.quoted_as = r.at("quoted_as").get<std::string>();
      l.latency_note = r.at("latency_note").get<std::string>();
      l.source = r.at("source").get<std::string>();
      out.push_back(std::move(l));
    }
    return out;
  }();
  return rows;
}

const InterconnectLink& find_interconnect_link(const std::string& id) {
  std::string known;
  for (const auto& l : interconnect_links()) {
    if (l.id == id) return l;
    known += (known.empty() ? "" : ", ") + l.id;
  }
  throw InputError("id", "Unknown link '" + id + "'; known links: " + known + ".");
}

}  // namespace mlsys
