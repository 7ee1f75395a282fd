// Unfused versus fused traffic of an elementwise chain (compulsory bytes of each kernel).
#include "mlsys/kernels/fusion.hpp"

#include <algorithm>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/gpu/roofline.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys {

ElementwiseChain elementwise_chain(double n, int ops, int binary_ops, double flops_per_element,
                                   double element_bytes) {
  ElementwiseChain c;
  const double l = ops, b = binary_ops;
  c.flops = l * flops_per_element * n;
  c.unfused_bytes = (2 * l + b) * n * element_bytes;
  c.fused_bytes = (2 + b) * n * element_bytes;
  c.unfused_kernels = l;
  c.fused_kernels = 1;
  return c;
}

double vector_peak(const Accelerator* hw, bool peak_given, double dtype_peak) {
  if (peak_given || !hw) return dtype_peak;
  if (auto p = hw->peak_for("fp32")) return std::min(*p, dtype_peak);
  return dtype_peak;
}

void check_chain(long long ops, long long binary) {
  if (binary > ops) throw InputError("binary_ops", "Field 'binary_ops' cannot exceed 'ops' (it counts ops of the chain).");
}

FusionTimes fusion_times(double n, long long ops, long long binary, double f, double s, double peak, double bw) {
  check_chain(ops, binary);
  FusionTimes r;
  const ElementwiseChain c = elementwise_chain(n, static_cast<int>(ops), static_cast<int>(binary), f, s);
  // Unfused: one kernel per op on the roofline; the b binary ops each read one more tensor.
  const RooflineResult unary = roofline(f * n, 2 * n * s, peak, bw);
  const RooflineResult binop = roofline(f * n, 3 * n * s, peak, bw);
  const double unfused_time = static_cast<double>(ops - binary) * unary.time_s + static_cast<double>(binary) * binop.time_s;
  const bool any_unfused_compute = (ops > binary && unary.bound == "compute") || (binary > 0 && binop.bound == "compute");
  const RooflineResult fused = roofline(c.flops, c.fused_bytes, peak, bw);
  r.chain = c;
  r.bytes_saved = c.unfused_bytes - c.fused_bytes;
  r.traffic_ratio = c.unfused_bytes / c.fused_bytes;
  r.unfused_time_s = unfused_time;
  r.fused_time_s = fused.time_s;
  r.time_saved_s = unfused_time - fused.time_s;
  r.speedup = unfused_time / fused.time_s;
  r.unfused_intensity = c.flops / c.unfused_bytes;
  r.fused_intensity = fused.intensity;
  r.unfused_bound = any_unfused_compute ? "compute" : "memory";
  r.fused_bound = fused.bound;
  r.vector_peak_flops = peak;
  r.bandwidth_Bps = bw;
  r.ridge_intensity = peak / bw;
  return r;
}

}  // namespace mlsys
