// Calculator `hardware`: the accelerator datasheet table.
#include "mlsys/hardware/accelerator.hpp"
#include "registry.hpp"

namespace mlsys::api {

void add_hardware_calculators(Calculators& out) {
  std::vector<std::string> ids;
  for (const auto& a : accelerators()) ids.push_back(a.id);
  Field id = string_field("id", "Accelerator id; omit to list every accelerator", json(), ids);
  id.required = false;
  out.push_back({"hardware",
                 "Datasheet of one accelerator, or all of them: dense peak FLOP/s per format, memory, caches, "
                 "SM limits, scale-up bandwidth, power, source.",
                 {id},
                 [](const Inputs& in) -> json {
                   if (in.has("id")) return find_accelerator(in.str("id"))->json();
                   json list = json::array();
                   for (const auto& a : accelerators()) list.push_back(a.json());
                   return {{"accelerators", list}};
                 }});
}

}  // namespace mlsys::api
