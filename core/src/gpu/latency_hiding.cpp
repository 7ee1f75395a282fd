// Little's law applied to a GPU's memory system (Little 1961; Volkov 2016): concurrency =
// throughput × latency, with the concurrency supplied by resident warps.
#include "mlsys/gpu/latency_hiding.hpp"

#include <algorithm>

namespace mlsys {

LatencyHiding latency_hiding(double bandwidth_Bps, double latency_s, double sms, double warps_per_sm,
                             double bytes_per_warp) {
  LatencyHiding r{};
  r.bytes_in_flight_needed = bandwidth_Bps * latency_s;
  r.bytes_in_flight_needed_per_sm = r.bytes_in_flight_needed / sms;
  r.warps_needed_per_sm = r.bytes_in_flight_needed_per_sm / bytes_per_warp;
  r.bytes_in_flight_per_sm = warps_per_sm * bytes_per_warp;
  // Little's law read the other way: throughput = concurrency / latency, capped by the bus.
  r.achieved_bandwidth_Bps = std::min(bandwidth_Bps, sms * r.bytes_in_flight_per_sm / latency_s);
  r.fraction_of_peak = r.achieved_bandwidth_Bps / bandwidth_Bps;
  return r;
}

}  // namespace mlsys
