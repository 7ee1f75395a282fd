// FLOPs and minimum memory traffic of C[m,n] = A[m,k] · B[k,n]: each operand read once and
// the result written once (the lower bound a perfectly tiled kernel approaches).
#pragma once

namespace mlsys {

struct MatmulCost {
  double flops;      // 2·m·n·k (one multiply and one add per term)
  double bytes;      // (m·k + k·n + m·n) · element_bytes
  double intensity;  // flops / bytes, FLOP/byte
};

MatmulCost matmul_cost(double m, double n, double k, double element_bytes);

}  // namespace mlsys
