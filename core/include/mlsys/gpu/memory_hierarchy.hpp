// The memory hierarchy of one NVIDIA GPU: registers, L1 data cache / shared memory, L2 and HBM,
// each with its capacity, bandwidth and latency. Capacities and HBM bandwidth come from NVIDIA's
// whitepapers and datasheets; L2 bandwidth and the latencies are microbenchmark measurements
// (gpu-benches, https://github.com/te42kyfo/gpu-benches); the L1/shared bandwidth is 128 bytes
// per clock per SM; the register bandwidth is derived from the FP32 CUDA-core peak.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

struct GpuMemorySpec {
  double sms;                          // streaming multiprocessors
  double registers_per_sm;             // 32-bit registers per SM
  double fp32_peak_flops;              // CUDA-core FP32 peak, FLOP/s
  double l1_smem_per_sm_bytes;         // combined L1 data cache + shared memory per SM, bytes
  double smem_bytes_per_clock_per_sm;  // L1/shared-memory bandwidth per SM, bytes per clock
  double boost_clock_hz;               // SM clock, Hz
  double l1_latency_s;                 // L1 hit latency, s
  double l2_bytes, l2_bandwidth_Bps, l2_latency_s;     // bytes, bytes/s, s
  double hbm_bytes, hbm_bandwidth_Bps, hbm_latency_s;  // bytes, bytes/s, s
};

struct MemoryLevel {
  std::string id;                    // "registers" | "l1" | "l2" | "hbm"
  std::string name;                  // for people
  bool per_sm;                       // private to each SM (true) or shared by the chip
  double capacity_bytes;             // whole chip, bytes
  double capacity_per_sm_bytes;      // per SM for private levels, the whole level otherwise
  double bandwidth_Bps;              // whole chip, bytes/s
  std::optional<double> latency_s;   // load-to-use latency; none for registers (operands of the instruction)
  std::string basis;                 // where the bandwidth and latency come from
};

// Fastest level first. Register bandwidth: an FP32 FMA (2 FLOP) reads 3 registers of 4 bytes,
// so the CUDA cores at peak read 6 bytes per FLOP. L1/shared: bytes per clock × SMs × clock.
std::vector<MemoryLevel> memory_hierarchy(const GpuMemorySpec& g);

}  // namespace mlsys
