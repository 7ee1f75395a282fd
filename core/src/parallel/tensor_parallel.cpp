// Megatron tensor parallelism of one layer: all-reduce volume and time against compute (see
// parallel/tensor_parallel.hpp).
#include "mlsys/parallel/tensor_parallel.hpp"

#include <string>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

TensorParallelCost tensor_parallel_layer(const TensorParallelLayer& l, double peak_flops, int gpus_per_node, Link intra,
                                         Link inter) {
  const double h = l.hidden, f = l.ffn_hidden, s = l.seq, b = l.micro_batch, t = l.tp;
  if (gpus_per_node < 1) throw InputError("gpus_per_node", "A node holds at least one GPU.");
  if (l.tp > gpus_per_node && l.tp % gpus_per_node != 0)
    throw InputError("tp", "A tensor-parallel group of " + std::to_string(l.tp) + " GPUs crosses nodes of " +
                               std::to_string(gpus_per_node) + " only as whole nodes: use a multiple of " +
                               std::to_string(gpus_per_node) + ".");
  TensorParallelCost c{};
  c.allreduce_bytes = s * b * h * l.act_bytes;
  c.allreduces_forward = 2;
  c.allreduces_backward = 2;
  const int calls = c.allreduces_forward + c.allreduces_backward;
  c.allreduce_bytes_per_layer = calls * c.allreduce_bytes;
  const CollectiveCost one = group_collective_cost(Collective::AllReduce, l.tp, gpus_per_node, c.allreduce_bytes, intra, inter);
  c.sent_bytes_per_gpu = calls * one.bytes_sent_per_rank;
  c.comm_time_s = calls * one.time_s;
  c.nodes = (l.tp + gpus_per_node - 1) / gpus_per_node;
  if (c.nodes > 1) {
    // The same algorithm's two parts: NVLink phases inside the nodes, NIC phases across them.
    const HierarchicalBreakdown split =
        hierarchical_breakdown(Collective::AllReduce, l.tp, gpus_per_node, c.allreduce_bytes, intra, inter);
    c.comm_intra_s = calls * split.intra_time_s;
    c.comm_inter_s = calls * split.inter_time_s;
  } else {
    c.comm_intra_s = c.comm_time_s;
  }
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
