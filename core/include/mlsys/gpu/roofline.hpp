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
};

// flops >= 0, bytes > 0, peak_flops > 0 (FLOP/s), bandwidth_Bps > 0 (bytes/s).
RooflineResult roofline(double flops, double bytes, double peak_flops, double bandwidth_Bps);

}  // namespace mlsys
