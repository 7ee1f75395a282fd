// Memory hierarchy of an NVIDIA GPU from its table row (whitepapers, datasheets, gpu-benches).
#include "mlsys/gpu/memory_hierarchy.hpp"

namespace mlsys {

std::vector<MemoryLevel> memory_hierarchy(const GpuMemorySpec& g) {
  constexpr double kRegisterBytes = 4;                // 32-bit registers
  constexpr double kOperandBytesPerFlop = 3 * 4 / 2.0;  // FMA: 3 reads of 4 B for 2 FLOP
  std::vector<MemoryLevel> levels;
  const double reg_per_sm = g.registers_per_sm * kRegisterBytes;
  levels.push_back({"registers", "Registers", true, reg_per_sm * g.sms, reg_per_sm,
                    g.fp32_peak_flops * kOperandBytesPerFlop, std::nullopt,
                    "bandwidth derived: operands the FP32 CUDA cores read at peak (3 × 4 B per FMA); no load "
                    "latency (operands are read as part of the instruction)"});
  levels.push_back({"l1", "L1 cache / shared memory", true, g.l1_smem_per_sm_bytes * g.sms, g.l1_smem_per_sm_bytes,
                    g.smem_bytes_per_clock_per_sm * g.sms * g.boost_clock_hz, g.l1_latency_s,
                    "bandwidth: bytes per clock per SM × SMs × boost clock; latency: measured L1 hit"});
  levels.push_back({"l2", "L2 cache", false, g.l2_bytes, g.l2_bytes, g.l2_bandwidth_Bps, g.l2_latency_s,
                    "bandwidth and latency measured by microbenchmarks"});
  levels.push_back({"hbm", "HBM (device memory)", false, g.hbm_bytes, g.hbm_bytes, g.hbm_bandwidth_Bps,
                    g.hbm_latency_s, "bandwidth: datasheet; latency: measured, unloaded"});
  return levels;
}

}  // namespace mlsys
