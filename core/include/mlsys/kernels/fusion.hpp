// Memory traffic of a chain of L elementwise ops on n elements, unfused (one kernel per op,
// each reading its inputs from and writing its output to HBM) and fused (one kernel that
// keeps the intermediates in registers). The saving is what operator fusion in XLA,
// TorchInductor and hand-written fused kernels buys for memory-bound ops.
#pragma once
#include <string>

namespace mlsys {

struct ElementwiseChain {
  double flops = 0;          // ops × flops_per_element × n
  double unfused_bytes = 0;  // (2·L + b) · n · s: each op reads its input(s) and writes its output
  double fused_bytes = 0;    // (2 + b) · n · s: the chain input and the b extra operands read once, one output written
  double unfused_kernels = 0;  // L launches
  double fused_kernels = 1;
};

// n elements of element_bytes each; `ops` (L >= 1) ops in a chain, of which `binary_ops`
// (b, 0..L) also read a second tensor of n elements (a bias, a residual, a mask); each op does
// flops_per_element FLOPs per element.
ElementwiseChain elementwise_chain(double n, int ops, int binary_ops, double flops_per_element,
                                   double element_bytes);

struct Accelerator;

// Elementwise work runs on the vector units: the row's fp32 (non-tensor) rate where it has one
// and it is lower than the dtype's peak, unless the peak was given explicitly (or there is no row).
double vector_peak(const Accelerator* hw, bool peak_given, double dtype_peak);

// The chain on the roofline at `peak` FLOP/s and `bandwidth_Bps`: unfused, one kernel per op
// (the binary ops each read one more tensor), against one fused kernel.
struct FusionTimes {
  ElementwiseChain chain;
  double bytes_saved = 0;       // unfused − fused bytes
  double traffic_ratio = 0;     // unfused / fused bytes
  double unfused_time_s = 0;    // (L − b)·t(unary op) + b·t(binary op)
  double fused_time_s = 0;
  double time_saved_s = 0, speedup = 0;
  double unfused_intensity = 0, fused_intensity = 0;  // FLOP/B
  std::string unfused_bound;    // "compute" when any unfused kernel is compute bound
  std::string fused_bound;
  double vector_peak_flops = 0, bandwidth_Bps = 0, ridge_intensity = 0;
  // The launches fusion removes: L − 1 of them, each a fixed launch_overhead_s (0 by default).
  double launch_time_saved_s = 0, total_time_saved_s = 0;  // (L − 1)·overhead; time_saved_s + that
};

// binary_ops <= ops (InputError on "binary_ops" otherwise: check_chain).
void check_chain(long long ops, long long binary_ops);
FusionTimes fusion_times(double n, long long ops, long long binary_ops, double flops_per_element,
                         double element_bytes, double peak, double bandwidth_Bps);

}  // namespace mlsys
