// Ring attention block schedule over a causal mask (see parallel/ring_attention.hpp).
#include "mlsys/parallel/ring_attention.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

// Chunks of the sequence that rank r holds (its queries and, at step 0, its keys/values).
std::vector<int> owned_chunks(int rank, int ranks, RingPartition partition) {
  if (partition == RingPartition::Contiguous) return {rank};
  return {rank, 2 * ranks - 1 - rank};
}

// Tiles of one (query chunk, key chunk) pair that hold at least one unmasked score, with n
// tiles per chunk side. Closed form: all n² off the diagonal below it, n(n+1)/2 on it, none
// above it (causal); n² without a mask.
double pair_tiles_closed_form(int q_chunk, int kv_chunk, double n, bool causal) {
  if (!causal || kv_chunk < q_chunk) return n * n;
  if (kv_chunk == q_chunk) return n * (n + 1) / 2;
  return 0;
}

// The same count by visiting every tile: tile (a, b) of the pair covers query tokens
// [(q·n + a)·T, (q·n + a + 1)·T) and key tokens [(k·n + b)·T, ...); causal attention lets query
// i see key j ≤ i, so the tile has an unmasked score iff its first key ≤ its last query.
double pair_tiles_executed(int q_chunk, int kv_chunk, long long n, bool causal) {
  double count = 0;
  for (long long a = 0; a < n; ++a) {
    const long long last_query_tile = static_cast<long long>(q_chunk) * n + a;
    for (long long b = 0; b < n; ++b) {
      const long long first_key_tile = static_cast<long long>(kv_chunk) * n + b;
      if (!causal || first_key_tile <= last_query_tile) count += 1;
    }
  }
  return count;
}

}  // namespace

RingAttentionResult ring_attention(const RingAttentionConfig& c) {
  if (c.ranks < 1) throw InputError("ranks", "Ring attention needs at least one rank.");
  if (!(c.tile >= 1) || c.tile != std::floor(c.tile)) throw InputError("tile", "The tile must be a whole number of tokens.");
  if (c.kv_heads > c.heads || std::fmod(c.heads, c.kv_heads) != 0)
    throw InputError("kv_heads", "The query heads must be a multiple of the key/value heads (grouped-query attention).");
  const int p = c.ranks;
  const int chunks = c.partition == RingPartition::Contiguous ? p : 2 * p;
  const double granule = chunks * c.tile;
  if (std::fmod(c.seq, granule) != 0)
    throw InputError("seq", "The sequence must split into " + std::to_string(chunks) + " chunks of whole " +
                                std::to_string(static_cast<long long>(c.tile)) + "-token tiles: make it a multiple of " +
                                std::to_string(static_cast<long long>(granule)) + ".");

  RingAttentionResult r;
  r.block_tokens = c.seq / p;
  r.chunk_tokens = c.seq / chunks;
  const double n = r.chunk_tokens / c.tile;  // tiles per chunk side
  const double visits = (c.seq / c.tile) * (c.seq / c.tile);
  const bool execute = visits <= kRingTileVisitCap;
  r.method = execute ? "executed" : "closed-form";

  r.tiles_per_rank.assign(p, 0.0);
  r.step_critical_tiles.assign(p, 0.0);
  for (int step = 0; step < p; ++step) {
    for (int rank = 0; rank < p; ++rank) {
      const int source = ((rank - step) % p + p) % p;  // whose KV block this rank holds now
      double tiles = 0;
      for (int q : owned_chunks(rank, p, c.partition))
        for (int k : owned_chunks(source, p, c.partition))
          tiles += execute ? pair_tiles_executed(q, k, static_cast<long long>(n), c.causal)
                           : pair_tiles_closed_form(q, k, n, c.causal);
      r.tiles_per_rank[rank] += tiles;
      r.step_critical_tiles[step] = std::max(r.step_critical_tiles[step], tiles);
    }
  }

  const double flops_per_tile = 4.0 * c.tile * c.tile * c.head_dim * c.heads * c.micro_batch;
  const double rate = c.peak_flops * c.compute_efficiency;
  double sum = 0, mx = 0;
  for (double t : r.tiles_per_rank) {
    r.flops_per_rank.push_back(t * flops_per_tile);
    sum += t;
    mx = std::max(mx, t);
  }
  r.imbalance = sum > 0 ? mx / (sum / p) : 1.0;
  // Contiguous causal blocks of n_b tiles per side: rank i computes i·n_b² + n_b(n_b+1)/2.
  const double nb = r.block_tokens / c.tile;
  const double diag = nb * (nb + 1) / 2;
  r.contiguous_imbalance_closed_form = (nb * nb * (p - 1) + diag) / (nb * nb * (p - 1) / 2.0 + diag);
  // n → ∞: the diagonal's n(n+1)/2 tends to n²/2, so the ratio tends to (p − ½)/(p/2).
  r.contiguous_imbalance_limit = 2.0 - 1.0 / p;

  r.kv_block_bytes = r.block_tokens * c.micro_batch * 2 * c.kv_heads * c.head_dim * c.dtype_bytes;
  r.step_compute_s = r.block_tokens * r.block_tokens * 4 * c.head_dim * c.heads * c.micro_batch / rate;
  r.step_comm_s = p > 1 ? c.latency_s + r.kv_block_bytes / c.link_bandwidth_Bps : 0.0;
  // Overlap: A·c² ≥ β·c + α with A = 4·d·H·b / rate and β = 2·d·H_kv·b·bytes / B.
  const double A = 4 * c.head_dim * c.heads * c.micro_batch / rate;
  const double beta = 2 * c.head_dim * c.kv_heads * c.micro_batch * c.dtype_bytes / c.link_bandwidth_Bps;
  r.min_block_tokens_bandwidth = beta / A;
  r.min_block_tokens = (beta + std::sqrt(beta * beta + 4 * A * c.latency_s)) / (2 * A);
  r.overlapped = p == 1 || r.step_compute_s >= r.step_comm_s;

  r.critical_path_tiles = 0;
  r.compute_time_s = 0;
  r.time_s = 0;
  for (int step = 0; step < p; ++step) {
    const double compute = r.step_critical_tiles[step] * flops_per_tile / rate;
    const double comm = step < p - 1 ? r.step_comm_s : 0.0;  // the KV block needed at the next step
    r.critical_path_tiles += r.step_critical_tiles[step];
    r.compute_time_s += compute;
    r.time_s += std::max(compute, comm);
  }
  r.comm_time_s = (p - 1) * r.step_comm_s;
  r.kv_bytes_sent_per_rank = (p - 1) * r.kv_block_bytes;

  // Backward: K/V and dK/dV share each hop; after the last step dK/dV makes one more hop home.
  const double g = kAttentionBackwardFlopRatio;
  r.backward_step_compute_s = g * r.step_compute_s;
  r.backward_step_comm_s = p > 1 ? c.latency_s + 2 * r.kv_block_bytes / c.link_bandwidth_Bps : 0.0;
  const double dkv_hop_s = p > 1 ? c.latency_s + r.kv_block_bytes / c.link_bandwidth_Bps : 0.0;
  r.backward_kv_bytes_sent_per_rank = p > 1 ? (2.0 * p - 1) * r.kv_block_bytes : 0.0;
  r.backward_min_block_tokens_bandwidth = 2 * beta / (g * A);
  r.backward_compute_time_s = g * r.compute_time_s;
  r.backward_time_s = 0;
  for (int step = 0; step < p; ++step) {
    const double compute = g * r.step_critical_tiles[step] * flops_per_tile / rate;
    const double comm = step < p - 1 ? r.backward_step_comm_s : 0.0;
    r.backward_time_s += std::max(compute, comm);
  }
  r.backward_time_s += dkv_hop_s;
  r.backward_over_forward_bytes = p > 1 ? (2.0 * p - 1) / (p - 1) : 0.0;
  return r;
}

}  // namespace mlsys
