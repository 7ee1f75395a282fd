// All-gather context parallelism (see parallel/allgather_context_parallel.hpp).
#include "mlsys/parallel/allgather_context_parallel.hpp"

#include <algorithm>

#include "mlsys/comm/cost_model.hpp"

namespace mlsys {

AllGatherContextParallelResult allgather_context_parallel(RingAttentionConfig c) {
  // The zig-zag ring visits exactly the tiles each rank needs: its two chunks of queries
  // against every key chunk. Its per-rank tile counts are the all-gather variant's work.
  c.partition = RingPartition::ZigZag;
  const RingAttentionResult ring = ring_attention(c);
  const int p = c.ranks;
  AllGatherContextParallelResult r;
  r.kv_gathered_bytes = p * ring.kv_block_bytes;
  r.ring_kv_buffer_bytes = (p > 1 ? 2 : 1) * ring.kv_block_bytes;
  const Link link{c.latency_s, c.link_bandwidth_Bps};
  const auto gather = collective_cost(Collective::AllGather, CollectiveAlgorithm::Ring, p, r.kv_gathered_bytes, link);
  const auto scatter = collective_cost(Collective::ReduceScatter, CollectiveAlgorithm::Ring, p, r.kv_gathered_bytes, link);
  r.allgather_bytes_sent_per_rank = gather.bytes_sent_per_rank;
  r.allgather_time_s = gather.time_s;
  r.reduce_scatter_time_s = scatter.time_s;
  const double busiest = *std::max_element(ring.flops_per_rank.begin(), ring.flops_per_rank.end());
  r.compute_time_s = busiest / (c.peak_flops * c.compute_efficiency);
  r.imbalance = ring.imbalance;
  r.forward_time_s = r.allgather_time_s + r.compute_time_s;
  r.exposed_comm_fraction = r.forward_time_s > 0 ? r.allgather_time_s / r.forward_time_s : 0.0;
  r.backward_compute_time_s = kAttentionBackwardFlopRatio * r.compute_time_s;
  r.backward_time_s = r.backward_compute_time_s + r.reduce_scatter_time_s;
  r.ring_forward_time_s = ring.time_s;
  r.ring_backward_time_s = ring.backward_time_s;
  return r;
}

}  // namespace mlsys
