// Parses the hardware table embedded at build time from content/data/hardware.json.
#include "mlsys/hardware/accelerator.hpp"

#include "mlsys/foundations/dtype.hpp"

namespace mlsys {

extern const char* const kHardwareJson;  // generated: hardware_data.cpp

std::optional<double> Accelerator::peak_for(const std::string& dtype) const {
  auto it = peak_flops.find(dtype_peak_key(dtype));
  if (it == peak_flops.end()) return std::nullopt;
  return it->second;
}

const std::vector<Accelerator>& accelerators() {
  static const std::vector<Accelerator> table = [] {
    std::vector<Accelerator> rows;
    const auto doc = nlohmann::json::parse(kHardwareJson);
    for (const auto& row : doc.at("accelerators")) {
      Accelerator a;
      a.id = row.at("id").get<std::string>();
      a.name = row.at("name").get<std::string>();
      a.vendor = row.at("vendor").get<std::string>();
      for (const auto& [key, value] : row.at("peak_flops").items()) a.peak_flops[key] = value.get<double>();
      a.hbm_bytes = row.at("hbm_bytes").get<double>();
      a.hbm_bandwidth_Bps = row.at("hbm_bandwidth_Bps").get<double>();
      a.json = row;
      rows.push_back(std::move(a));
    }
    return rows;
  }();
  return table;
}

const Accelerator* find_accelerator(const std::string& id) {
  for (const auto& a : accelerators())
    if (a.id == id) return &a;
  return nullptr;
}

}  // namespace mlsys
