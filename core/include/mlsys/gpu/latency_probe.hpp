// A measurement of Little's law on real hardware: read bandwidth of a streaming kernel with one
// float4 load in flight per thread (512 bytes per warp) against resident warps per SM, on an
// H200 SXM (tools/probes/gpu_probe.cu, results in tools/probes/h200-results.txt). Dividing the
// bytes in flight by the measured bandwidth gives the latency the loads actually saw; the
// unloaded pointer-chase latency of the same run is the table's H200 hbm_latency_s.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace mlsys {

struct LatencyProbePoint {
  int warps_per_sm;
  double measured_bandwidth_Bps;   // bytes read / kernel time, as the probe printed it
  double predicted_bandwidth_Bps;  // Little's law: min(peak, SMs · warps · 512 B / unloaded latency)
  double effective_latency_s;      // SMs · warps · 512 B / measured bandwidth
  double extra_latency;            // effective / unloaded latency − 1
  double fraction_of_peak;         // measured / datasheet peak
};

struct LatencyProbe {
  std::string hardware;     // table id of the GPU measured
  double bytes_per_warp;    // 512: 32 threads × one 16-byte float4
  double latency_s;         // unloaded HBM latency (pointer chase, same run)
  double bandwidth_Bps;     // datasheet peak
  double sms;
  std::vector<LatencyProbePoint> points;
};

// The H200 run, with the model's prediction beside each measurement.
LatencyProbe h200_latency_probe();

// The raw measurements (warps per SM, GB/s) as compiled in, for the test against the results file.
const std::vector<std::pair<int, double>>& h200_probe_measurements();

}  // namespace mlsys
