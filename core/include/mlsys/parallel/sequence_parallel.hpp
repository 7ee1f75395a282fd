// Megatron sequence parallelism (Korthikanti et al. 2022, "Reducing Activation Recomputation
// in Large Transformer Models", arXiv:2205.05198): with tensor parallelism alone the layer
// norms, dropouts and residuals are replicated on every rank (the 10·s·b·h term of Table 2);
// sequence parallelism splits them along the sequence, so every term divides by t. Per-layer
// bytes come from mlsys/memory/training_memory.hpp (activation_bytes_per_layer).
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
                                                           int max_tp, Recompute recompute, bool flash_attention);

// Activations at tensor-parallel degree `tp`, per layer and for `layers` layers, with tensor
// parallelism alone and with sequence parallelism, their ratio, and the sweep up to max_tp.
struct SequenceParallelMemory {
  double tp_only_bytes_per_layer, tp_sp_bytes_per_layer;
  double tp_only_bytes, tp_sp_bytes;  // · layers
  double saving_ratio;                // tp_only / tp_sp
  std::vector<SequenceParallelPoint> series;
};
SequenceParallelMemory sequence_parallel_memory(double seq, double micro_batch, double hidden, double heads,
                                                double layers, double tp, int max_tp, Recompute recompute,
                                                bool flash_attention);

}  // namespace mlsys
