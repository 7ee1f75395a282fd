// The roofline model (Williams, Waterman, Patterson, CACM 2009): a kernel's time is bounded
// below by max(FLOPs / peak FLOP/s, bytes / bandwidth).
#pragma once
#include <string>

namespace mlsys {

struct RooflineResult {
  double intensity;          // FLOP/byte of the kernel
  double ridge_intensity;    // FLOP/byte where the two ceilings meet: peak / bandwidth
  double compute_time_s;     // flops / peak_flops
  double memory_time_s;      // bytes / bandwidth_Bps
  double time_s;             // max of the two
  std::string bound;         // "compute" or "memory"
  double attainable_flops;   // FLOP/s: min(peak, intensity * bandwidth)
  // Upper bound with no overlap at all (arithmetic waits for every load, and the other way
  // round): compute_time_s + memory_time_s, at most twice time_s. A real kernel's time lies
  // between time_s and this unless something else (latency, launch, occupancy) limits it.
  double time_no_overlap_s = 0;
  double no_overlap_ratio = 0;  // time_no_overlap_s / time_s: 1 + the smaller term / the larger, in [1, 2]
};

// flops >= 0, bytes > 0, peak_flops > 0 (FLOP/s), bandwidth_Bps > 0 (bytes/s).
RooflineResult roofline(double flops, double bytes, double peak_flops, double bandwidth_Bps);

}  // namespace mlsys
