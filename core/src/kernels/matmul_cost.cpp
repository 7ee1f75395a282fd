// Matmul FLOP and byte count; the "matmul intensity" of the roofline lesson.
#include "mlsys/kernels/matmul_cost.hpp"

namespace mlsys {

MatmulCost matmul_cost(double m, double n, double k, double element_bytes) {
  MatmulCost c;
  c.flops = 2.0 * m * n * k;
  c.bytes = (m * k + k * n + m * n) * element_bytes;
  c.intensity = c.flops / c.bytes;
  return c;
}

}  // namespace mlsys
