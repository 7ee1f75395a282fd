// Accelerator datasheet table (content/data/hardware.json, compiled in). Dense peaks only;
// each row names its source document.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlsys {

// The columns most calculations read are compiled in (build-time data, no parse at startup);
// json() gives the whole row, parsed from the stored table the first time any row asks.
struct Accelerator {
  std::string id, name, vendor;
  std::map<std::string, double> peak_flops;  // format key (fp64 ... int8) -> FLOP/s (int8: op/s)
  double hbm_bytes = 0;                      // bytes
  double hbm_bandwidth_Bps = 0;              // bytes/s
  std::size_t row = 0;                       // index in the table

  // Peak FLOP/s for an API dtype; std::nullopt when the chip has no rate for it.
  std::optional<double> peak_for(const std::string& dtype) const;
  // Bandwidth of the scale-up link (NVLink-class) in one direction: half the table's
  // scaleup_bandwidth_Bps, which sums both. Without one, an InputError on `hardware` that
  // names `override_field`, the input that gives the bandwidth instead.
  double scaleup_per_direction_Bps(const std::string& override_field) const;
  // The full row as stored, for the API and the less common columns.
  const nlohmann::json& json() const;
};

// All rows, in table order.
const std::vector<Accelerator>& accelerators();

// The row with this id, or nullptr.
const Accelerator* find_accelerator(const std::string& id);

}  // namespace mlsys
