// Roofline bound: Williams, Waterman, Patterson, "Roofline: an insightful visual performance
// model for multicore architectures", CACM 52(4), 2009.
#include "mlsys/gpu/roofline.hpp"

#include <algorithm>

namespace mlsys {

RooflineResult roofline(double flops, double bytes, double peak_flops, double bandwidth_Bps) {
  RooflineResult r;
  r.intensity = flops / bytes;
  r.ridge_intensity = peak_flops / bandwidth_Bps;
  r.compute_time_s = flops / peak_flops;
  r.memory_time_s = bytes / bandwidth_Bps;
  r.time_s = std::max(r.compute_time_s, r.memory_time_s);
  // At exactly the ridge both ceilings bind; call it compute-bound.
  r.bound = r.compute_time_s >= r.memory_time_s ? "compute" : "memory";
  r.attainable_flops = std::min(peak_flops, r.intensity * bandwidth_Bps);
  r.time_no_overlap_s = r.compute_time_s + r.memory_time_s;
  r.no_overlap_ratio = r.time_s > 0 ? r.time_no_overlap_s / r.time_s : 1.0;
  return r;
}

}  // namespace mlsys
