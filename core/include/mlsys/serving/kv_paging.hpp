// KV-cache allocation under memory pressure, after Kwon et al. 2023 (vLLM / PagedAttention,
// arXiv:2309.06180, §3 and Fig. 3): a backlog of requests served by continuous batching from
// a pool of KV slots, either (a) contiguous: each admitted request reserves prompt +
// max_output slots in one first-fit extent, or (b) paged: fixed blocks of block_size tokens
// allocated on demand, with recompute preemption of the newest request when the pool runs
// out. One step = one token for every running sequence. Each step the pool splits into used
// slots, reserved-for-later, internal fragmentation (never used), external fragmentation
// (free, but no hole fits the waiting request) and free.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mlsys {

struct PagingRequest {
  int prompt;  // tokens
  int output;  // tokens it will generate (<= max_output)
};

// `count` requests, prompt uniform on [1, 2·prompt_mean − 1], output uniform on
// [1, 2·output_mean − 1], seeded SplitMix64.
std::vector<PagingRequest> paging_stream(int count, int prompt_mean, int output_mean, std::uint64_t seed);

struct PagingResult {
  std::string allocator;       // "contiguous" or "paged"
  double block_size;           // tokens (contiguous: 0)
  double steps;                // until the backlog is served
  double mean_batch;           // running sequences per step
  double max_batch;
  double tokens_per_step;      // output tokens / steps
  // Fractions of the pool, averaged over steps (they sum to 1).
  double used_fraction, reserved_fraction, internal_fraction, external_fraction, free_fraction;
  double waste_fraction;       // (reserved + internal + external) / (pool − free): share of held-or-stranded slots not holding KV
  double preemptions;
};

// pool_tokens >= the largest single request's need; block_size >= 1 (paged only).
PagingResult simulate_contiguous(const std::vector<PagingRequest>& reqs, int pool_tokens, int max_output);
PagingResult simulate_paged(const std::vector<PagingRequest>& reqs, int pool_tokens, int block_size);

// One backlog (paging_stream) under both allocators, and the paged run again for block sizes
// 1, 2, 4, ..., 256.
struct PagingPoint {
  int block_size;
  double waste_fraction, internal_fraction, used_fraction, mean_batch, steps, preemptions;
};
struct PagedRun {
  PagingResult result;
  double slack_per_sequence_tokens;  // internal fragmentation per running sequence
};
struct PagingComparison {
  PagingResult contiguous;
  PagedRun paged;
  std::vector<PagingPoint> series;
};
PagingComparison compare_paging(int requests, int prompt_mean, int output_mean, int max_output, int pool_tokens,
                                int block_size, std::uint64_t seed);

}  // namespace mlsys
