// Launch overhead models. Pipelined: launch i finishes on the CPU at (i+1)·o and kernel i
// starts when both it is launched and kernel i−1 has ended, so the last kernel ends at
// o + w + (n−1)·max(o, w).
#include "mlsys/kernels/launch.hpp"

#include <algorithm>

namespace mlsys {

LaunchTimes launch_times(double kernels, double work_per_kernel_s, double launch_s, double graph_node_s) {
  LaunchTimes t;
  const double n = kernels, w = work_per_kernel_s, o = launch_s;
  t.work_s = n * w;
  t.serial_s = n * (o + w);
  t.pipelined_s = o + w + (n - 1) * std::max(o, w);
  t.graph_s = o + n * (graph_node_s + w);
  // Clamped: with zero overhead the ratio is 1 up to rounding.
  t.serial_lost = std::max(0.0, 1 - t.work_s / t.serial_s);
  t.pipelined_lost = std::max(0.0, 1 - t.work_s / t.pipelined_s);
  t.graph_lost = std::max(0.0, 1 - t.work_s / t.graph_s);
  return t;
}

}  // namespace mlsys
