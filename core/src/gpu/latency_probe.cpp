// The H200 probe of Little's law (latency_probe.hpp). The numbers are the "bandwidth" lines of
// tools/probes/h200-results.txt; tests/core/gpu_latency_probe_test.cpp checks that they match.
#include "mlsys/gpu/latency_probe.hpp"

#include <algorithm>

#include "mlsys/hardware/accelerator.hpp"

namespace mlsys {

const std::vector<std::pair<int, double>>& h200_probe_measurements() {
  static const std::vector<std::pair<int, double>> rows = {
      {1, 171.8},   {2, 348.4},   {4, 691.2},   {8, 1337.4},  {12, 1948.9}, {16, 2471.2},
      {20, 2966.3}, {24, 3359.1}, {32, 3885.0}, {48, 4329.0}, {64, 4412.2}};
  return rows;
}

LatencyProbe h200_latency_probe() {
  const Accelerator& a = *find_accelerator("h200-sxm");
  LatencyProbe p{a.id, 512.0, a.json().at("hbm_latency_s").get<double>(), a.hbm_bandwidth_Bps,
                 a.json().at("sms").get<double>(), {}};
  for (const auto& [warps, gbps] : h200_probe_measurements()) {
    const double in_flight = p.sms * warps * p.bytes_per_warp, measured = gbps * 1e9;
    const double effective = in_flight / measured;
    p.points.push_back({warps, measured, std::min(p.bandwidth_Bps, in_flight / p.latency_s), effective,
                        effective / p.latency_s - 1.0, measured / p.bandwidth_Bps});
  }
  return p;
}

}  // namespace mlsys
