// The gpu-architecture models on one row of the hardware table: the row's columns read into
// each model's inputs (with the explicit overrides a caller gives), the model run, and the
// quantities derived from it (what is used and idle, the curves against one input). A row
// without the columns a model needs, or an input beyond the chip's limits, is an InputError
// naming the field at fault.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "mlsys/gpu/compute_units.hpp"
#include "mlsys/gpu/latency_hiding.hpp"
#include "mlsys/gpu/memory_hierarchy.hpp"
#include "mlsys/gpu/occupancy.hpp"
#include "mlsys/gpu/waves.hpp"
#include "mlsys/gpu/latency_probe.hpp"

namespace mlsys {

struct Accelerator;

// ---- occupancy --------------------------------------------------------------------------

// The row's CUDA occupancy limits; InputError on "hardware" when it has none (not an NVIDIA GPU).
SmLimits sm_limits_of(const Accelerator& a);

// InputError (fields threads_per_block, registers_per_thread, smem_per_block_bytes) when a
// kernel asks for more than one block may have on this GPU: occupancy()'s preconditions.
void check_resources(const Accelerator& a, const SmLimits& sm, const KernelResources& k);

struct BlocksBy {  // Occupancy's blocks_by_*: blocks per SM each limit allows on its own
  int threads, registers, smem, blocks;
};

struct OccupancyOn {
  Occupancy o;
  int active_threads;                // blocks_per_sm · threads_per_block
  int max_warps_per_sm;
  int idle_threads_per_block;        // warps_per_block · warp_size − threads_per_block
  int registers_used_per_sm;         // blocks_per_sm · registers_per_block
  int registers_per_sm;
  long long smem_used_per_sm_bytes;  // blocks_per_sm · allocated shared memory per block
  long long smem_per_sm_bytes;
  BlocksBy blocks_by;
};

// InputError on threads_per_block, registers_per_thread or smem_per_block_bytes when the kernel
// exceeds a per-block limit of the chip or cannot launch.
OccupancyOn occupancy_on(const Accelerator& a, const KernelResources& k);

struct OccupancyPoint {
  long long x;  // the swept input's value
  int blocks_per_sm, active_warps;
  double occupancy;
  std::string limiter;
  bool launchable;
};

struct OccupancyCurve {
  std::string vary;
  std::vector<OccupancyPoint> points;
  OccupancyPoint current;  // the point at the kernel's own value
  int max_warps_per_sm;
};

// vary: "registers_per_thread" (1 .. max), "threads_per_block" (steps of a warp) or
// "smem_per_block_bytes" (steps of 1 KiB); the kernel's own value is always a point.
OccupancyCurve occupancy_curve_on(const Accelerator& a, const KernelResources& base, const std::string& vary);

// ---- waves ------------------------------------------------------------------------------

constexpr long long kMaxCurveWaves = 512;  // the utilization curve covers at most this many waves

struct WavesOn {
  long long sms, blocks_per_sm;
  WaveResult r;
  double idle_fraction;          // 1 − utilization
  std::vector<WavePoint> curve;  // wave_curve over curve_waves waves
  long long curve_waves;         // min(max(waves + 1, 4), kMaxCurveWaves)
  bool curve_truncated;          // waves > curve_waves
  StreamK stream_k;              // the same grid as tiles of a Stream-K matmul, one worker per slot
};

// sms: the row's SM count unless given.
// iters_per_tile and fixup_iters: the Stream-K comparison (StreamK in waves.hpp).
WavesOn waves_on(const Accelerator& a, long long blocks, long long blocks_per_sm, std::optional<long long> sms,
                 long long iters_per_tile = 32, double fixup_iters = 1.0);

// ---- latency hiding ---------------------------------------------------------------------

struct LatencyPoint {
  int warps_per_sm;
  double achieved_bandwidth_Bps, fraction_of_peak;
};

struct LatencyHidingOn {
  double bandwidth_Bps, latency_s, sms, bytes_per_warp;
  LatencyHiding r;
  double warps_needed_per_sm;  // ceil(r.warps_needed_per_sm − 1e-9): whole warps
  double max_warps_per_sm;
  bool feasible;               // warps_needed_per_sm <= max_warps_per_sm
  std::vector<LatencyPoint> curve;  // 1 .. max_warps_per_sm warps
  LatencyProbe probe;               // the H200 measurement (whatever the hardware), beside the model
};

// latency_s, bandwidth_Bps and sms: the row's (measured HBM latency, HBM bandwidth, SMs) unless given.
LatencyHidingOn latency_hiding_on(const Accelerator& a, double warps_per_sm, double bytes_per_warp,
                                  std::optional<double> latency_s, std::optional<double> bandwidth_Bps,
                                  std::optional<double> sms);

// ---- memory hierarchy and compute units -------------------------------------------------

// InputError on "hardware" when the row lacks a measurement.
GpuMemorySpec gpu_memory_spec_of(const Accelerator& a);

struct MemoryLevelOn {
  MemoryLevel level;
  std::optional<double> latency_cycles;  // latency_s · boost clock
  // Where this row's numbers come from, naming the GPU they were measured on when that is not
  // this one: the table row's "hierarchy_sources" (empty when the row gives none).
  std::string capacity_source, bandwidth_source, latency_source;
  double read_time_s;    // bytes / bandwidth: streaming the given bytes once through this level
  double times_hbm;      // bandwidth / HBM bandwidth
  bool holds_bytes;      // the given bytes fit this level's capacity (whole chip)
};

struct MemoryHierarchyOn {
  std::vector<MemoryLevelOn> levels;
  double sms, boost_clock_hz, bytes;
};

// bytes: an amount of data to stream once through each level (read_time_s, holds_bytes).
MemoryHierarchyOn memory_hierarchy_on(const Accelerator& a, double bytes = 33554432.0);

// Moving a step's matmuls from the CUDA cores to the tensor cores (Amdahl's law: the rest of
// the step is unchanged): new = t·(1 − f) + t·f / (tensor rate / CUDA-core rate).
struct ComputeSwitch {
  double cuda_core_flops, tensor_core_flops, matmul_speedup, step_time_s, new_step_time_s, overall_speedup;
};

struct ComputeUnitsOn {
  std::vector<ComputeRate> formats;
  ComputeSwitch change;
  std::optional<double> sms, fp32_cores_per_sm, tensor_cores_per_sm, boost_clock_hz;  // none when the row lacks them
};

// InputError on "hardware" (no CUDA-core rates), "cuda_format" or "tensor_format" (no such rate).
ComputeUnitsOn compute_units_on(const Accelerator& a, const std::string& cuda_format,
                                const std::string& tensor_format, double step_time_s, double matmul_fraction);

}  // namespace mlsys
