// One row of the accelerator datasheet table (content/data/hardware.json), every column.
// Units and conventions are the table's "about" text: peaks are dense FLOP/s (int8: op/s),
// HBM and L2 sizes binary bytes, bandwidths decimal bytes/s (scale-up: both directions
// summed). An empty optional is a null in the table: the column does not apply to the design
// or is not published (the row's notes say which).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/hardware/accelerator.hpp"

namespace mlsys {

struct AcceleratorEntry {
  std::string id, name, vendor;
  std::map<std::string, double> peak_flops;  // format -> dense tensor/matrix peak (fp32: non-tensor)
  long long hbm_bytes;
  double hbm_bandwidth_Bps;
  std::optional<long long> l2_bytes;
  long long sms;  // AMD: compute units; TPU: TensorCores
  std::optional<long long> smem_per_sm_bytes, registers_per_sm, max_threads_per_sm, max_blocks_per_sm;
  std::optional<double> scaleup_bandwidth_Bps;
  std::optional<long long> tdp_w;
  // Power per device for per-watt comparisons (W): the board TDP for GPUs, the measured maximum
  // chip power where only that is published (TPU v4); empty where none is published.
  std::optional<double> power_w;
  std::string power_source;  // what power_w is and where it comes from (or why it is empty)
  std::optional<std::string> compute_capability;
  std::optional<long long> warp_size, max_warps_per_sm, max_threads_per_block, max_registers_per_thread,
      max_registers_per_block, register_alloc_unit, sm_sub_partitions, max_smem_per_block_bytes, smem_alloc_unit_bytes,
      smem_reserved_per_block_bytes, l1_smem_per_sm_bytes, fp32_cores_per_sm, tensor_cores_per_sm;
  std::optional<double> boost_clock_hz;
  std::optional<std::map<std::string, double>> cuda_core_flops;  // format -> non-tensor peak
  std::optional<long long> smem_bytes_per_clock_per_sm;
  std::optional<double> l1_latency_s, l2_latency_s, hbm_latency_s, l2_bandwidth_Bps;
  std::optional<long long> tensor_memory_per_sm_bytes;  // Blackwell: where tcgen05 MMAs accumulate
  // Memory hierarchy: where each capacity, bandwidth and latency comes from, naming the GPU a
  // measurement was made on ("l2_bandwidth" -> "measured on an H200: ..."); null for non-NVIDIA rows.
  std::optional<std::map<std::string, std::string>> hierarchy_sources;
  std::string source, notes;
};

// The row of `a`, read from the stored table (once, the first time a row is asked for).
const AcceleratorEntry& accelerator_entry(const Accelerator& a);

// Every row, in table order.
const std::vector<AcceleratorEntry>& accelerator_entries();

}  // namespace mlsys
