// Rows of the datasheet table as structs (see hardware/datasheet.hpp).
#include "mlsys/hardware/datasheet.hpp"

namespace mlsys {

namespace {

template <class T>
void read(const nlohmann::json& row, const char* key, T& out) {
  out = row.at(key).get<T>();
}
template <class T>
void read(const nlohmann::json& row, const char* key, std::optional<T>& out) {
  const auto& v = row.at(key);
  if (v.is_null()) out.reset();
  else out = v.get<T>();
}

}  // namespace

static AcceleratorEntry read_entry(const Accelerator& a) {
  const nlohmann::json& j = a.json();
  AcceleratorEntry e;
#define MLSYS_READ(col) read(j, #col, e.col)
  MLSYS_READ(id); MLSYS_READ(name); MLSYS_READ(vendor); MLSYS_READ(peak_flops); MLSYS_READ(hbm_bytes);
  MLSYS_READ(hbm_bandwidth_Bps); MLSYS_READ(l2_bytes); MLSYS_READ(sms); MLSYS_READ(smem_per_sm_bytes);
  MLSYS_READ(registers_per_sm); MLSYS_READ(max_threads_per_sm); MLSYS_READ(max_blocks_per_sm);
  MLSYS_READ(scaleup_bandwidth_Bps); MLSYS_READ(tdp_w); MLSYS_READ(power_w); MLSYS_READ(power_source); MLSYS_READ(compute_capability); MLSYS_READ(warp_size);
  MLSYS_READ(max_warps_per_sm); MLSYS_READ(max_threads_per_block); MLSYS_READ(max_registers_per_thread);
  MLSYS_READ(max_registers_per_block); MLSYS_READ(register_alloc_unit); MLSYS_READ(sm_sub_partitions);
  MLSYS_READ(max_smem_per_block_bytes); MLSYS_READ(smem_alloc_unit_bytes); MLSYS_READ(smem_reserved_per_block_bytes);
  MLSYS_READ(l1_smem_per_sm_bytes); MLSYS_READ(fp32_cores_per_sm); MLSYS_READ(tensor_cores_per_sm);
  MLSYS_READ(boost_clock_hz); MLSYS_READ(cuda_core_flops); MLSYS_READ(smem_bytes_per_clock_per_sm);
  MLSYS_READ(l1_latency_s); MLSYS_READ(l2_latency_s); MLSYS_READ(hbm_latency_s); MLSYS_READ(l2_bandwidth_Bps);
  MLSYS_READ(tensor_memory_per_sm_bytes);
  MLSYS_READ(hierarchy_sources);
  MLSYS_READ(source); MLSYS_READ(notes);
#undef MLSYS_READ
  return e;
}

const std::vector<AcceleratorEntry>& accelerator_entries() {
  static const std::vector<AcceleratorEntry> entries = [] {
    std::vector<AcceleratorEntry> out;
    for (const auto& a : accelerators()) out.push_back(read_entry(a));
    return out;
  }();
  return entries;
}

const AcceleratorEntry& accelerator_entry(const Accelerator& a) { return accelerator_entries().at(a.row); }

}  // namespace mlsys
