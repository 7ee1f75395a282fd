// Ring attention / context parallelism (Liu, Zaharia, Abbeel 2023, "Ring Attention with
// Blockwise Transformers for Near-Infinite Context", arXiv:2310.01889): the sequence of s
// tokens is split over p ranks; each rank keeps its query block and, in p steps, computes
// attention against every key/value block while passing its current KV block to the next rank
// of the ring. Under a causal mask, contiguous blocks give rank i work proportional to i+1
// blocks; zig-zag partitioning (2p chunks, rank i holds chunks i and 2p−1−i, as in Megatron-
// Core context parallelism and zigzag ring attention) equalises it. The block schedule is
// executed over the causal mask at tile granularity and the unmasked tiles are counted.
// Forward pass: FLOPs 4·c_q·c_kv·head_dim·heads per block pair (QKᵀ and PV), KV bytes
// 2·c·head_dim·kv_heads·dtype_bytes per block. Backward pass (as in ring-flash-attention and
// Megatron-Core): each step recomputes the scores and forms dV, dP, dQ and dK, 10·c²·d·H
// FLOPs per block pair (2.5× the forward's two matmuls; FlashAttention-2's count), while the
// K/V block and its accumulating dK/dV travel the ring together: K/V p−1 hops, dK/dV p hops
// (the last one brings the gradient home), so (2p−1) blocks leave each rank, about twice the
// forward's p−1. Gradients are sent in the K/V dtype (an fp32 dK/dV buffer would send more).
#pragma once
#include <string>
#include <vector>

namespace mlsys {

enum class RingPartition { Contiguous, ZigZag };

struct RingAttentionConfig {
  double seq = 131072;       // s, tokens of one sequence (must split into 2p·tile-sized chunks)
  int ranks = 8;             // p, context-parallel degree
  double heads = 32;         // query heads on each rank
  double kv_heads = 32;      // key/value heads (GQA: fewer)
  double head_dim = 128;     // d
  double micro_batch = 1;    // b, sequences
  double tile = 128;         // tokens per side of one attention tile (the kernel's block)
  bool causal = true;
  RingPartition partition = RingPartition::Contiguous;
  double dtype_bytes = 2;    // bytes per K/V element
  double peak_flops = 989e12;        // FLOP/s of one rank
  double compute_efficiency = 1.0;   // fraction of peak the attention kernel reaches
  double link_bandwidth_Bps = 450e9;  // per direction, rank to next rank
  double latency_s = 5e-6;            // α per KV message
};

struct RingAttentionResult {
  double block_tokens;        // s/p tokens of Q (and KV) held by each rank
  double chunk_tokens;        // s/p (contiguous) or s/(2p) (zig-zag)
  std::vector<double> tiles_per_rank;  // tiles with at least one unmasked score, per rank
  std::vector<double> flops_per_rank;  // 4·tile²·d·heads·b per computed tile
  std::vector<double> step_critical_tiles;  // per step, the most tiles any rank computes
  double imbalance;           // max / mean of tiles_per_rank
  double contiguous_imbalance_closed_form;  // (n²(p−1) + n(n+1)/2) / (n²(p−1)/2 + n(n+1)/2), n = tiles per block side
  double contiguous_imbalance_limit;  // its limit for many tiles per block: (2p−1)/p = 2 − 1/p
  double critical_path_tiles;  // Σ over steps of the step maximum
  double kv_block_bytes;      // bytes of one rank's K and V
  double step_compute_s;      // one full (unmasked) block pair of s/p × s/p on one rank
  double step_comm_s;         // α + kv_block_bytes / B
  double min_block_tokens;    // smallest s/p with step_compute ≥ step_comm (α included)
  double min_block_tokens_bandwidth;  // the same ignoring α: (peak·eff/B)·kv_heads·bytes/(2·heads)
  bool overlapped;            // block_tokens ≥ min_block_tokens
  double compute_time_s;      // critical path compute alone
  double comm_time_s;         // (p−1) KV transfers alone
  double time_s;              // Σ_t max(compute_t, comm_t): transfers overlapped with compute
  double kv_bytes_sent_per_rank;  // (p−1)·kv_block_bytes
  std::string method;         // "executed" (tiles visited) or "closed-form" (beyond the cap)
  // Backward pass over the same schedule.
  double backward_step_compute_s;   // 2.5 · step_compute_s
  double backward_step_comm_s;      // K/V and dK/dV on the link together: α + 2·kv_block_bytes / B
  double backward_kv_bytes_sent_per_rank;  // (2p−1)·kv_block_bytes
  double backward_min_block_tokens_bandwidth;  // 2/2.5 of the forward's: 0.8·min_block_tokens_bandwidth
  double backward_compute_time_s;   // 2.5 · compute_time_s
  double backward_time_s;           // Σ_t max(2.5·compute_t, comm_t) + the last dK/dV hop
  double backward_over_forward_bytes;  // (2p−1)/(p−1)
};

// FLOPs of the attention backward pass per forward FLOP (five matmuls against two).
constexpr double kAttentionBackwardFlopRatio = 2.5;

// Most tile visits executed before the per-pair counts switch to their closed form.
constexpr double kRingTileVisitCap = 1 << 20;

RingAttentionResult ring_attention(const RingAttentionConfig& config);

}  // namespace mlsys
