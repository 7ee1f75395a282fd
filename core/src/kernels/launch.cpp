// Launch overhead models. Every kernel, eager or replayed from a graph, occupies the GPU for
// g + w (g: the front end starting it and draining the previous one); eager launching adds the
// CPU's o per kernel, which a graph pays once. Serial: n·(o + g + w). Pipelined: launch i
// finishes on the CPU at (i+1)·o and kernel i starts when both it is launched and kernel i−1
// has ended, so the last kernel ends at o + (g + w) + (n−1)·max(o, g + w). Graph:
// o + n·(g + w), never above the pipelined time: (n−1)·(g + w) <= (n−1)·max(o, g + w).
#include "mlsys/kernels/launch.hpp"

#include <algorithm>

#include "mlsys/gpu/roofline.hpp"

namespace mlsys {

LaunchTimes launch_times(double kernels, double work_per_kernel_s, double launch_s, double graph_node_s) {
  LaunchTimes t;
  const double n = kernels, w = work_per_kernel_s, o = launch_s;
  t.work_s = n * w;
  const double busy = graph_node_s + w;  // GPU time per kernel in every mode
  t.serial_s = n * (o + busy);
  t.pipelined_s = o + busy + (n - 1) * std::max(o, busy);
  t.graph_s = o + n * busy;
  // Clamped: with zero overhead the ratio is 1 up to rounding.
  t.serial_lost = std::max(0.0, 1 - t.work_s / t.serial_s);
  t.pipelined_lost = std::max(0.0, 1 - t.work_s / t.pipelined_s);
  t.graph_lost = std::max(0.0, 1 - t.work_s / t.graph_s);
  return t;
}

LaunchOverhead launch_overhead(double kernels, double bytes, double flops, double o, double g, double peak,
                               double bw) {
  const RooflineResult work = roofline(flops, bytes, peak, bw);
  LaunchOverhead r;
  r.work_per_kernel_s = work.time_s;
  r.work_bound = work.bound;
  r.t = launch_times(kernels, work.time_s, o, g);
  r.graph_speedup = r.t.serial_s / r.t.graph_s;
  r.achieved_bandwidth_Bps = kernels * bytes / r.t.serial_s;
  r.graph_achieved_bandwidth_Bps = kernels * bytes / r.t.graph_s;
  r.breakeven_bytes = (o + g) * bw;  // work = the serial per-kernel overhead: half the serial time is lost
  r.bandwidth_Bps = bw;
  r.vector_peak_flops = peak;
  return r;
}

}  // namespace mlsys
