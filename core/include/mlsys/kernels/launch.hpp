// Time of a sequence of dependent kernels when each launch costs a fixed overhead: eager
// launches (serial and pipelined) versus one CUDA graph. The overheads are parameters, not
// datasheet facts: a launch through a framework costs the CPU a few microseconds (Meta's
// Holistic Trace Analysis documentation: "usually between 5-20 microseconds"), and a graph
// replays its kernels with about a microsecond between them.
#pragma once
#include <string>

namespace mlsys {

struct LaunchTimes {
  double work_s = 0;            // kernels × work_per_kernel_s: the GPU busy time
  double serial_s = 0;          // kernels × (launch_s + work_per_kernel_s): each launch waits for the previous kernel
  double pipelined_s = 0;       // launch_s + work + (kernels − 1) × max(launch_s, work): the CPU queues launches ahead
  double graph_s = 0;           // launch_s + kernels × (graph_node_s + work_per_kernel_s): one graph launch
  double serial_lost = 0;       // 1 − work_s / serial_s
  double pipelined_lost = 0;    // 1 − work_s / pipelined_s
  double graph_lost = 0;        // 1 − work_s / graph_s
};

// kernels >= 1; work_per_kernel_s > 0; launch_s, graph_node_s >= 0 (seconds).
LaunchTimes launch_times(double kernels, double work_per_kernel_s, double launch_s, double graph_node_s);

// Each kernel's work on the roofline (peak FLOP/s, bandwidth), then launch_times.
struct LaunchOverhead {
  double work_per_kernel_s = 0;
  std::string work_bound;
  LaunchTimes t;
  double graph_speedup = 0;                 // serial / graph time
  double achieved_bandwidth_Bps = 0;        // kernels · bytes / serial time
  double graph_achieved_bandwidth_Bps = 0;  // kernels · bytes / graph time
  double breakeven_bytes = 0;               // launch_s · bandwidth: a kernel moving less spends longer launching
  double bandwidth_Bps = 0, vector_peak_flops = 0;
};

LaunchOverhead launch_overhead(double kernels, double bytes_per_kernel, double flops_per_kernel, double launch_s,
                               double graph_node_s, double peak, double bandwidth_Bps);

}  // namespace mlsys
