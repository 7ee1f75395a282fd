// Time of a sequence of dependent kernels when each launch costs a fixed overhead: eager
// launches (serial and pipelined) versus one CUDA graph. The overheads are parameters, not
// datasheet facts: a launch through a framework costs the CPU a few microseconds (Meta's
// Holistic Trace Analysis documentation: "usually between 5-20 microseconds"). Each kernel also
// costs the GPU a gap g (graph_node_s, about a microsecond) to start, eager or in a graph: a
// graph removes the CPU's per-kernel launch, not that gap, so it is never slower than eager
// launching of the same kernels (Gray, "Getting Started with CUDA Graphs", NVIDIA blog 2019).
#pragma once
#include <string>

namespace mlsys {

struct LaunchTimes {
  double work_s = 0;            // kernels × work_per_kernel_s: the GPU busy time
  double serial_s = 0;          // kernels × (launch_s + gap + work): each launch waits for the previous kernel
  double pipelined_s = 0;       // launch_s + (gap + work) + (kernels − 1) × max(launch_s, gap + work): CPU runs ahead
  double graph_s = 0;           // launch_s + kernels × (gap + work): one graph launch
  double serial_lost = 0;       // 1 − work_s / serial_s
  double pipelined_lost = 0;    // 1 − work_s / pipelined_s
  double graph_lost = 0;        // 1 − work_s / graph_s
};

// kernels >= 1; work_per_kernel_s > 0; launch_s, graph_node_s >= 0 (seconds); graph_node_s is
// the GPU's per-kernel gap g, paid in every mode.
LaunchTimes launch_times(double kernels, double work_per_kernel_s, double launch_s, double graph_node_s);

// Each kernel's work on the roofline (peak FLOP/s, bandwidth), then launch_times.
struct LaunchOverhead {
  double work_per_kernel_s = 0;
  std::string work_bound;
  LaunchTimes t;
  double graph_speedup = 0;                 // serial / graph time
  double achieved_bandwidth_Bps = 0;        // kernels · bytes / serial time
  double graph_achieved_bandwidth_Bps = 0;  // kernels · bytes / graph time
  double breakeven_bytes = 0;               // (launch_s + gap) · bandwidth: a kernel moving less spends longer on overhead
  double bandwidth_Bps = 0, vector_peak_flops = 0;
};

LaunchOverhead launch_overhead(double kernels, double bytes_per_kernel, double flops_per_kernel, double launch_s,
                               double graph_node_s, double peak, double bandwidth_Bps);

}  // namespace mlsys
