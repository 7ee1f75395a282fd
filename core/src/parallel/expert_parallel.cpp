// All-to-all bytes and time of expert parallelism (see parallel/expert_parallel.hpp).
#include "mlsys/parallel/expert_parallel.hpp"

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/comm/cost_model.hpp"

namespace mlsys {

ExpertParallelResult expert_parallel(const ExpertParallelConfig& c) {
  if (c.ep < 1) throw InputError("ep", "The expert-parallel degree must be at least 1.");
  if (c.top_k < 1) throw InputError("top_k", "Each token goes to at least one expert.");
  ExpertParallelResult r;
  r.dispatch_bytes = c.tokens * c.top_k * c.hidden * c.dtype_bytes;
  const auto a2a = collective_cost(Collective::AllToAll, CollectiveAlgorithm::Ring, c.ep, r.dispatch_bytes,
                                   Link{c.latency_s, c.link_bandwidth_Bps});
  r.bytes_leaving_per_all_to_all = a2a.bytes_sent_per_rank;  // (EP−1)/EP · dispatch_bytes
  r.bytes_per_layer_forward = 2 * r.bytes_leaving_per_all_to_all;
  r.bytes_per_layer_training = 4 * r.bytes_leaving_per_all_to_all;
  r.all_to_all_time_s = a2a.time_s;
  r.comm_time_forward_s = 2 * a2a.time_s;
  r.expert_flops_forward = c.tokens * c.top_k * 2.0 * (c.gated ? 3.0 : 2.0) * c.hidden * c.ffn_hidden;
  r.expert_compute_time_s = r.expert_flops_forward / c.peak_flops;
  r.comm_over_compute = r.comm_time_forward_s / r.expert_compute_time_s;
  return r;
}

}  // namespace mlsys
