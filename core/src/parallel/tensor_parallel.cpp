// Megatron tensor parallelism of one layer: all-reduce volume and time against compute (see
// parallel/tensor_parallel.hpp).
#include "mlsys/parallel/tensor_parallel.hpp"

namespace mlsys {

TensorParallelCost tensor_parallel_layer(const TensorParallelLayer& l, double peak_flops, Link link) {
  const double h = l.hidden, f = l.ffn_hidden, s = l.seq, b = l.micro_batch, t = l.tp;
  TensorParallelCost c{};
  c.allreduce_bytes = s * b * h * l.act_bytes;
  c.allreduces_forward = 2;
  c.allreduces_backward = 2;
  const int calls = c.allreduces_forward + c.allreduces_backward;
  c.allreduce_bytes_per_layer = calls * c.allreduce_bytes;
  const CollectiveCost one = collective_cost(Collective::AllReduce, CollectiveAlgorithm::Ring, l.tp, c.allreduce_bytes, link);
  c.sent_bytes_per_gpu = calls * one.bytes_sent_per_rank;
  c.comm_time_s = calls * one.time_s;
  // Forward FLOPs of the layer: Q, K, V and output projections 2·b·s·4h², the MLP 2·b·s·2hf,
  // scores Q·Kᵀ and the weighted sum of values 2·2·b·s²·h (Narayanan et al. 2021, eq. 3 with f = 4h).
  c.flops_forward_per_gpu = (2 * b * s * (4 * h * h + 2 * h * f) + 4 * b * s * s * h) / t;
  c.flops_per_gpu = 3 * c.flops_forward_per_gpu;
  c.compute_time_s = c.flops_per_gpu / peak_flops;
  c.ratio = c.comm_time_s / c.compute_time_s;
  c.qkv_cols_per_gpu = 3 * h / t;
  c.mlp_cols_per_gpu = f / t;
  c.mlp_rows_per_gpu = f / t;
  c.weight_params_per_gpu = (4 * h * h + 2 * h * f) / t;
  return c;
}

}  // namespace mlsys
