// Unfused versus fused traffic of an elementwise chain (compulsory bytes of each kernel).
#include "mlsys/kernels/fusion.hpp"

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

}  // namespace mlsys
