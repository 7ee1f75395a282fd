// Time of a sequence of dependent kernels when each launch costs a fixed overhead: eager
// launches (serial and pipelined) versus one CUDA graph. The overheads are parameters, not
// datasheet facts: a launch through a framework costs the CPU a few microseconds (Meta's
// Holistic Trace Analysis documentation: "usually between 5-20 microseconds"), and a graph
// replays its kernels with about a microsecond between them.
#pragma once

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

}  // namespace mlsys
