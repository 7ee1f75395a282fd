// Latency hiding by Little's law (J. D. C. Little, "A Proof for the Queuing Formula L = λW",
// Operations Research 9(3), 1961): to stream memory at bandwidth B when each access takes
// latency L, B·L bytes must be in flight at every moment. On a GPU they are supplied by the
// resident warps' outstanding loads, so the achieved bandwidth is
//   min(B, SMs · warps per SM · bytes in flight per warp / L).
// As in V. Volkov, "Understanding Latency Hiding on GPUs" (UC Berkeley, 2016), the latency here
// is a constant (the unloaded one); under load it grows, so real kernels need more.
#pragma once
#include <vector>

namespace mlsys {

struct LatencyHiding {
  double bytes_in_flight_needed;         // B·L for the whole GPU, bytes
  double bytes_in_flight_needed_per_sm;  // B·L / SMs, bytes
  double warps_needed_per_sm;            // (B·L / SMs) / bytes per warp, fractional warps
  double bytes_in_flight_per_sm;         // warps_per_sm · bytes_per_warp, bytes
  double achieved_bandwidth_Bps;         // min(B, SMs · bytes_in_flight_per_sm / L), bytes/s
  double fraction_of_peak;               // achieved / B, in (0, 1]
};

// bandwidth_Bps > 0 (bytes/s), latency_s > 0 (s), sms >= 1, warps_per_sm > 0,
// bytes_per_warp > 0 (bytes one warp keeps in flight: threads · bytes per load · loads in flight).
LatencyHiding latency_hiding(double bandwidth_Bps, double latency_s, double sms, double warps_per_sm,
                             double bytes_per_warp);

}  // namespace mlsys
