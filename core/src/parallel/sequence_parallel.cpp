// Per-layer activation memory with and without Megatron sequence parallelism (see
// parallel/sequence_parallel.hpp).
#include "mlsys/parallel/sequence_parallel.hpp"

namespace mlsys {

std::vector<SequenceParallelPoint> sequence_parallel_sweep(double seq, double micro_batch, double hidden, double heads,
                                                           int max_tp, Recompute recompute, bool flash_attention,
                                                           double mlp_units) {
  std::vector<SequenceParallelPoint> out;
  for (int t = 1; t <= max_tp; t *= 2) {
    out.push_back({static_cast<double>(t),
                   activation_bytes_per_layer(seq, micro_batch, hidden, heads, t, false, recompute, flash_attention, mlp_units),
                   activation_bytes_per_layer(seq, micro_batch, hidden, heads, t, true, recompute, flash_attention, mlp_units)});
  }
  return out;
}

SequenceParallelMemory sequence_parallel_memory(double s, double b, double h, double a, double L, double t,
                                                int max_tp, Recompute rc, bool flash, double mlp) {
  const double tp_only = activation_bytes_per_layer(s, b, h, a, t, false, rc, flash, mlp);
  const double tp_sp = activation_bytes_per_layer(s, b, h, a, t, true, rc, flash, mlp);
  return {tp_only, tp_sp, tp_only * L, tp_sp * L, tp_only / tp_sp, mlp, 18 + mlp,
          sequence_parallel_sweep(s, b, h, a, max_tp, rc, flash, mlp)};
}

}  // namespace mlsys
