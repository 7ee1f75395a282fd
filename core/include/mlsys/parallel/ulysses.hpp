// DeepSpeed-Ulysses (Jacobs et al. 2023, "DeepSpeed Ulysses: System Optimizations for
// Enabling Training of Extreme Long Sequence Transformer Models", arXiv:2309.14509): each of
// P ranks holds N/P tokens of every head; an all-to-all before attention regroups Q, K and V
// so each rank holds all N tokens of H/P heads, and one after attention returns the output to
// the sequence split. Per rank that sends (P−1)/P of N/P·(2H + 2H_kv)·d elements per layer in
// the forward pass: it falls as 1/P when P grows with N fixed, and stays constant when N and P
// grow together. Heads must divide over P; K/V heads too, or be replicated up to P (GQA).
// Compared with ring attention's KV rotation: (P−1)·(N/P)·2·H_kv·d elements per rank.
#pragma once

namespace mlsys {

struct UlyssesConfig {
  double seq = 131072;      // N, tokens of one sequence
  int ranks = 8;            // P
  int heads = 32;           // H query heads
  int kv_heads = 32;        // H_kv key/value heads
  double head_dim = 128;    // d
  double micro_batch = 1;   // b
  double dtype_bytes = 2;
  double link_bandwidth_Bps = 450e9;  // per direction
  double latency_s = 5e-6;
};

struct UlyssesResult {
  int heads_per_rank;         // H/P
  int kv_heads_per_rank;      // after replication when H_kv < P
  bool kv_replicated;         // K/V heads repeated so each rank gets one
  double ulysses_bytes_per_rank;   // sent per rank, forward, 4 all-to-alls
  double ulysses_time_s;           // the 4 all-to-alls, ring algorithm of the cost model
  double ring_bytes_per_rank;      // ring attention: (P−1) KV blocks
  double ring_comm_time_s;         // (P−1) point-to-point KV transfers, not overlapped
  double ratio_ring_over_ulysses;  // bytes
};

// Throws InputError("ranks") when H % P != 0 and InputError("kv_heads") when K/V heads can
// neither be split (H_kv % P) nor replicated (P % H_kv).
UlyssesResult ulysses(const UlyssesConfig& config);

}  // namespace mlsys
