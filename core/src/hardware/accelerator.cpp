// The hardware table compiled in at build time from content/data/hardware.json.
#include "mlsys/hardware/accelerator.hpp"

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

extern const char* const kHardwareJson;                   // generated: hardware_data.cpp
std::vector<Accelerator> compiled_accelerators();          // generated: hardware_data.cpp

std::optional<double> Accelerator::peak_for(const std::string& dtype) const {
  auto it = peak_flops.find(dtype_peak_key(dtype));
  if (it == peak_flops.end()) return std::nullopt;
  return it->second;
}

double Accelerator::scaleup_per_direction_Bps(const std::string& override_field) const {
  const auto it = json().find("scaleup_bandwidth_Bps");
  const double both = it != json().end() && it->is_number() ? it->get<double>() : 0.0;
  if (!(both > 0))
    throw InputError("hardware", name + " has no scale-up (NVLink-class) link in the hardware table; choose another "
                                        "accelerator or give '" + override_field + "'.");
  return both / 2;
}

const nlohmann::json& Accelerator::json() const {
  static const nlohmann::json rows = nlohmann::json::parse(kHardwareJson).at("accelerators");
  return rows.at(row);
}

const std::vector<Accelerator>& accelerators() {
  static const std::vector<Accelerator> table = compiled_accelerators();
  return table;
}

const Accelerator* find_accelerator(const std::string& id) {
  for (const auto& a : accelerators())
    if (a.id == id) return &a;
  return nullptr;
}

}  // namespace mlsys
