// Calculator `hardware`: the accelerator datasheet table.
#include "mlsys/hardware/datasheet.hpp"
#include "registry.hpp"

namespace mlsys::api {

// Columns that may be null in the table are always in the JSON, null when they do not apply.
MLSYS_DESCRIBE(
    AcceleratorEntry, MLSYS_OUT(id, "", "Id of the row (the `hardware` input of other calculators)"),
    MLSYS_OUT(name, "", "Product name"), MLSYS_OUT(vendor, "", "Vendor"),
    MLSYS_OUT(peak_flops, "FLOP/s",
              "Dense tensor/matrix-engine peak per format (fp64: FP64 tensor rate where one exists; fp32: non-tensor "
              "rate; int8: op/s); a format is left out when the chip lacks it or it is not published"),
    MLSYS_OUT(hbm_bytes, "B", "Device memory, binary: the vendor's N GB as N·2^30 bytes"),
    MLSYS_OUT(hbm_bandwidth_Bps, "B/s", "Device-memory bandwidth, decimal SI"),
    MLSYS_OUT_NULLABLE(l2_bytes, "B", "L2 cache, binary (50 MB = 50 MiB)"),
    MLSYS_OUT(sms, "", "Streaming multiprocessors (AMD: compute units; TPU: TensorCores per chip)"),
    MLSYS_OUT_NULLABLE(smem_per_sm_bytes, "B", "Shared memory per SM (AMD: LDS per CU)"),
    MLSYS_OUT_NULLABLE(registers_per_sm, "", "32-bit registers per SM"),
    MLSYS_OUT_NULLABLE(max_threads_per_sm, "", "Resident threads per SM at most"),
    MLSYS_OUT_NULLABLE(max_blocks_per_sm, "", "Resident thread blocks per SM at most"),
    MLSYS_OUT_NULLABLE(scaleup_bandwidth_Bps, "B/s",
                   "Scale-up bandwidth per device, both directions summed (NVLink; AMD: Infinity Fabric links; TPU: ICI)"),
    MLSYS_OUT_NULLABLE(tdp_w, "W", "Maximum board power / TDP"),
    MLSYS_OUT_NULLABLE(power_w, "W",
                       "Power per device for per-watt comparisons: board TDP (GPUs), measured maximum chip power "
                       "(TPU v4); null where no figure is published"),
    MLSYS_OUT(power_source, "", "What power_w is and its source, or why it is null"),
    MLSYS_OUT_NULLABLE(compute_capability, "", "CUDA compute capability"),
    MLSYS_OUT_NULLABLE(warp_size, "", "Threads per warp"), MLSYS_OUT_NULLABLE(max_warps_per_sm, "", "Resident warps per SM at most"),
    MLSYS_OUT_NULLABLE(max_threads_per_block, "", "Threads per block at most"),
    MLSYS_OUT_NULLABLE(max_registers_per_thread, "", "Registers per thread at most"),
    MLSYS_OUT_NULLABLE(max_registers_per_block, "", "Registers per block at most"),
    MLSYS_OUT_NULLABLE(register_alloc_unit, "", "Register allocation granularity (registers per warp)"),
    MLSYS_OUT_NULLABLE(sm_sub_partitions, "", "Sub-partitions (warp schedulers) per SM"),
    MLSYS_OUT_NULLABLE(max_smem_per_block_bytes, "B", "Shared memory per block at most"),
    MLSYS_OUT_NULLABLE(smem_alloc_unit_bytes, "B", "Shared-memory allocation granularity"),
    MLSYS_OUT_NULLABLE(smem_reserved_per_block_bytes, "B", "Shared memory the system reserves per block"),
    MLSYS_OUT_NULLABLE(l1_smem_per_sm_bytes, "B", "Combined L1 and shared memory per SM"),
    MLSYS_OUT_NULLABLE(fp32_cores_per_sm, "", "FP32 CUDA cores per SM"),
    MLSYS_OUT_NULLABLE(tensor_cores_per_sm, "", "Tensor cores per SM"),
    MLSYS_OUT_NULLABLE(boost_clock_hz, "Hz", "Boost clock"),
    MLSYS_OUT_NULLABLE(cuda_core_flops, "FLOP/s", "Non-tensor (CUDA-core) peak per format"),
    MLSYS_OUT_NULLABLE(smem_bytes_per_clock_per_sm, "B", "Shared-memory bytes per clock per SM"),
    MLSYS_OUT_NULLABLE(l1_latency_s, "s", "L1 hit latency (microbenchmark)"),
    MLSYS_OUT_NULLABLE(l2_latency_s, "s", "L2 hit latency (microbenchmark)"),
    MLSYS_OUT_NULLABLE(hbm_latency_s, "s", "Device-memory latency (microbenchmark)"),
    MLSYS_OUT_NULLABLE(l2_bandwidth_Bps, "B/s", "L2 bandwidth (microbenchmark)"),
    MLSYS_OUT_NULLABLE(tensor_memory_per_sm_bytes, "B", "Tensor Memory per SM (Blackwell accumulators)"),
    MLSYS_OUT_NULLABLE(hierarchy_sources, "", "Source of each memory-level value, naming the GPU measured"),
    MLSYS_OUT(source, "", "Source documents of the row"),
    MLSYS_OUT(notes, "", "SKU, conventions, which columns are null and why, values from driver queries"));

namespace {

struct HardwareOut {
  std::optional<std::vector<AcceleratorEntry>> accelerators;  // without id
  std::optional<AcceleratorEntry> entry;                      // with id
};

}  // namespace

MLSYS_DESCRIBE(HardwareOut, MLSYS_OUT(accelerators, "", "Every row of the table, without id"), MLSYS_FLAT(entry));

void add_hardware_calculators(Calculators& out) {
  std::vector<std::string> ids;
  for (const auto& a : accelerators()) ids.push_back(a.id);
  out.add("hardware",
          "Datasheet of one accelerator, or all of them: dense peak FLOP/s per format, memory, caches, "
          "SM limits, scale-up bandwidth, power, source.",
          {optional(string_field("id", "Accelerator id; omit to list every accelerator", json(), ids))},
          [](const Inputs& in) {
            if (in.has("id")) return HardwareOut{std::nullopt, accelerator_entry(*find_accelerator(in.str("id")))};
            return HardwareOut{accelerator_entries(), std::nullopt};
          });
}

}  // namespace mlsys::api
