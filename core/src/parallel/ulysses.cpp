// DeepSpeed-Ulysses all-to-all volume and time vs ring attention (see parallel/ulysses.hpp).
#include "mlsys/parallel/ulysses.hpp"

#include <string>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/comm/cost_model.hpp"

namespace mlsys {

UlyssesResult ulysses(const UlyssesConfig& c) {
  const int p = c.ranks;
  if (p < 1) throw InputError("ranks", "Ulysses needs at least one rank.");
  if (c.kv_heads > c.heads || c.heads % c.kv_heads != 0)
    throw InputError("kv_heads", "The query heads must be a multiple of the key/value heads (grouped-query attention).");
  if (c.heads % p != 0)
    throw InputError("ranks", "Ulysses gives each rank whole attention heads: " + std::to_string(c.heads) +
                                  " heads do not divide over " + std::to_string(p) + " ranks.");
  int kv_eff = c.kv_heads;
  bool replicated = false;
  if (c.kv_heads % p != 0) {
    if (p % c.kv_heads != 0)
      throw InputError("kv_heads", std::to_string(c.kv_heads) + " key/value heads can neither be split over nor replicated to " +
                                       std::to_string(p) + " ranks.");
    kv_eff = p;  // each K/V head repeated P / H_kv times so that every rank gets one
    replicated = true;
  }
  UlyssesResult r;
  r.heads_per_rank = c.heads / p;
  r.kv_heads_per_rank = kv_eff / p;
  r.kv_replicated = replicated;
  const Link link{c.latency_s, c.link_bandwidth_Bps};
  const double tokens_per_rank = c.seq / p * c.micro_batch;
  // Each all-to-all's buffer on one rank: its N/P tokens of every head (nccl-tests' S).
  const double q_bytes = tokens_per_rank * c.heads * c.head_dim * c.dtype_bytes;
  const double kv_bytes = tokens_per_rank * kv_eff * c.head_dim * c.dtype_bytes;
  const auto q = collective_cost(Collective::AllToAll, CollectiveAlgorithm::Ring, p, q_bytes, link);
  const auto kv = collective_cost(Collective::AllToAll, CollectiveAlgorithm::Ring, p, kv_bytes, link);
  // Q, K, V before attention; the output (same shape as Q) after it.
  r.ulysses_bytes_per_rank = 2 * q.bytes_sent_per_rank + 2 * kv.bytes_sent_per_rank;
  r.ulysses_time_s = 2 * q.time_s + 2 * kv.time_s;
  // Ring attention: each rank forwards a KV block of N/P tokens p−1 times (no replication).
  const double kv_block = tokens_per_rank * 2 * c.kv_heads * c.head_dim * c.dtype_bytes;
  r.ring_bytes_per_rank = (p - 1) * kv_block;
  r.ring_comm_time_s = p > 1 ? (p - 1) * p2p_time(kv_block, link) : 0.0;
  r.ratio_ring_over_ulysses = r.ulysses_bytes_per_rank > 0 ? r.ring_bytes_per_rank / r.ulysses_bytes_per_rank : 0.0;
  return r;
}

}  // namespace mlsys
