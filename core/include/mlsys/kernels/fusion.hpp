// Memory traffic of a chain of L elementwise ops on n elements, unfused (one kernel per op,
// each reading its inputs from and writing its output to HBM) and fused (one kernel that
// keeps the intermediates in registers). The saving is what operator fusion in XLA,
// TorchInductor and hand-written fused kernels buys for memory-bound ops.
#pragma once

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

}  // namespace mlsys
