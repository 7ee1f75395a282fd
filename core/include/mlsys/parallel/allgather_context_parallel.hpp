// All-gather context parallelism, the variant Llama 3 trained its 128K-token stage with
// (Dubey et al. 2024, "The Llama 3 Herd of Models", arXiv:2407.21783, section 3.3.2): the
// sequence is cut into 2p chunks and rank i holds chunks i and 2p−1−i (load-balanced under the
// causal mask, as zig-zag ring attention); before attention every rank all-gathers the K and V
// of the whole sequence, then computes attention for its own queries locally. The backward
// pass reduce-scatters dK/dV. The transfer is not hidden behind the attention, but K/V are small
// with grouped-query attention and attention grows as s² while K/V grow as s; in exchange any
// mask (document masks) works unchanged. Each rank holds the whole sequence's K/V, against two
// blocks in ring attention.
#pragma once
#include "mlsys/parallel/ring_attention.hpp"

namespace mlsys {

struct AllGatherContextParallelResult {
  double kv_gathered_bytes;          // the whole sequence's K and V, held by every rank
  double ring_kv_buffer_bytes;       // ring attention's two K/V blocks, for comparison
  double allgather_bytes_sent_per_rank;  // (p−1)/p of kv_gathered_bytes
  double allgather_time_s;           // ring all-gather over the link
  double compute_time_s;             // the busiest rank's attention FLOPs at peak·efficiency
  double imbalance;                  // max / mean unmasked tiles over the ranks
  double forward_time_s;             // allgather_time_s + compute_time_s (nothing overlapped)
  double exposed_comm_fraction;      // allgather_time_s / forward_time_s
  double backward_compute_time_s;    // 2.5 · compute_time_s
  double reduce_scatter_time_s;      // dK/dV reduce-scatter, the all-gather's mirror
  double backward_time_s;            // backward_compute_time_s + reduce_scatter_time_s
  double ring_forward_time_s;        // zig-zag ring attention on the same ranks and link
  double ring_backward_time_s;
};

// `config.partition` is ignored: the chunks are always the load-balanced 2p.
AllGatherContextParallelResult allgather_context_parallel(RingAttentionConfig config);

}  // namespace mlsys
