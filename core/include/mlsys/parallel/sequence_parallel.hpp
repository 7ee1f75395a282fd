// Megatron sequence parallelism (Korthikanti et al. 2022, "Reducing Activation Recomputation
// in Large Transformer Models", arXiv:2205.05198): with tensor parallelism alone the tensors
// outside the tensor-parallel matmuls are replicated on every rank (the 10·s·b·h term of
// Table 2: the two layer norms' inputs, the QKV and first MLP matmuls' inputs, the two dropout
// masks); sequence parallelism splits them along the sequence, so every term divides by t.
// Per-layer bytes come from mlsys/memory/training_memory.hpp (activation_bytes_per_layer),
// with the MLP's inner tensors from mlp_activation_units (16 for Korthikanti's 4h GeLU MLP).
#pragma once
#include <vector>

#include "mlsys/memory/training_memory.hpp"

namespace mlsys {

struct SequenceParallelPoint {
  double tp;
  double tp_only_bytes;  // per layer, tensor parallelism alone
  double tp_sp_bytes;    // per layer, tensor + sequence parallelism
};

// Per-layer activation bytes for tp = 1, 2, 4, ... up to max_tp (powers of two).
std::vector<SequenceParallelPoint> sequence_parallel_sweep(double seq, double micro_batch, double hidden, double heads,
                                                           int max_tp, Recompute recompute, bool flash_attention,
                                                           double mlp_units = 16);

// Activations at tensor-parallel degree `tp`, per layer and for `layers` layers, with tensor
// parallelism alone and with sequence parallelism, their ratio, and the sweep up to max_tp.
struct SequenceParallelMemory {
  double tp_only_bytes_per_layer, tp_sp_bytes_per_layer;
  double tp_only_bytes, tp_sp_bytes;  // · layers
  double saving_ratio;                // tp_only / tp_sp
  double mlp_units;                   // the MLP's inner tensors per s·b·h (16 for a 4h GeLU MLP)
  double linear_units;                // 18 + mlp_units: Korthikanti's 34 per s·b·h at t = 1
  std::vector<SequenceParallelPoint> series;
};
SequenceParallelMemory sequence_parallel_memory(double seq, double micro_batch, double hidden, double heads,
                                                double layers, double tp, int max_tp, Recompute recompute,
                                                bool flash_attention, double mlp_units = 16);

}  // namespace mlsys
