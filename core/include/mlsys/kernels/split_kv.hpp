// Split-KV decoding, the idea of Flash-Decoding (Dao, Haziza, Massa, Sizov, "Flash-Decoding
// for long-context inference", PyTorch blog, October 2023): one new query attends to N cached
// keys split into s chunks; each chunk yields a partial softmax (max m_c, sum l_c, normalized
// output o_c, logsumexp lse_c = m_c + ln l_c) in parallel, and a second step merges them:
// lse = ln Σ_c e^(lse_c), o = Σ_c e^(lse_c − lse)·o_c. The merge is exact up to rounding.
//
// The latency model: batch·heads·s thread blocks, as many resident per SM as the occupancy
// rules allow (core/src/gpu/occupancy.cpp, from the block's threads, registers and shared
// memory). Each resident block keeps one tile of K or V in flight (FlashAttention-2's split-KV
// kernel loads K_j, then V_j, each while computing on the previous one), so by Little's law
// (core/src/gpu/latency_hiding.cpp, the model of the GPU-architecture lesson) a wave of n
// resident blocks streams at min(B, n · bytes in flight / L) for HBM latency L. A wave too
// small to saturate HBM is latency-bound; once n · bytes in flight ≥ B·L, more blocks only
// share the bandwidth. Time is the sum over waves, plus a fixed cost per kernel, plus (for
// s > 1) a merge kernel that reads the s partials (d + 1 fp32 numbers each) of every
// (batch, head) and writes the output. L is the unloaded latency of the hardware table; under
// load it grows, so real kernels need somewhat more in flight than this model says.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

struct SplitPartialResult {
  int begin = 0, end = 0;  // keys [begin, end)
  float m = 0, l = 0, lse = 0;
  std::vector<float> o;    // normalized partial output, d values
};

struct SplitKvResult {
  std::vector<SplitPartialResult> partials;
  std::vector<float> merged;      // s partials merged by logsumexp
  std::vector<float> single;      // one online-softmax pass over all N keys
  std::vector<double> reference;  // fp64 softmax(q·Kᵀ/√d)·V
  double max_abs_diff = 0;        // |merged − single|, max over the d outputs
  double merged_error = 0;        // |merged − reference|
  double single_error = 0;        // |single − reference|
};

// Executes the split and the merge for one query row q (d) against K, V (n×d, row-major),
// with chunks [⌊c·n/s⌋, ⌊(c+1)·n/s⌋). 1 <= splits <= n.
SplitKvResult split_kv_attention(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                                 int n, int d, int splits);

struct SplitKvTiming {
  double splits = 0;
  double blocks = 0;         // batch·heads·splits
  double waves = 0;          // ⌈blocks / (SMs · blocks per SM)⌉
  double chunk_keys = 0;     // ⌈N / s⌉
  double active_sms = 0;     // min(blocks, SMs): SMs with work in the first wave
  double resident_blocks = 0;  // min(blocks, SMs · blocks per SM): the first wave
  double bytes_in_flight_per_block = 0;  // min(tile, chunk) keys of K or V: min(T, ⌈N/s⌉)·d·bytes
  double wave_bandwidth_Bps = 0;  // HBM bandwidth of the first wave: min(B, resident · in flight / L)
  double fraction_of_peak = 0;  // wave_bandwidth_Bps / B
  double main_time_s = 0;    // launch + Σ over waves of its bytes / its bandwidth
  double merge_time_s = 0;   // 0 for s = 1
  double time_s = 0;
  double partial_bytes = 0;  // written and read back by the merge: batch·heads·s·(d + 1)·4
};

// The machine and the kernel's shape as the latency model sees them.
struct SplitKvMachine {
  double sms = 0;            // streaming multiprocessors, >= 1
  double blocks_per_sm = 0;  // resident blocks per SM (occupancy), >= 1
  double bandwidth_Bps = 0;  // HBM bandwidth B, > 0
  double latency_s = 0;      // HBM latency L, > 0
  double launch_s = 0;       // fixed cost per kernel, >= 0
  double tile_keys = 0;      // keys per tile T, >= 1
};

// n keys, head dim d, `heads` (KV heads processed as separate blocks), `batch` sequences,
// elem_bytes per K/V element, 1 <= splits <= n.
SplitKvTiming split_kv_time(double n, double d, double heads, double batch, double elem_bytes, double splits,
                            const SplitKvMachine& m);

// One kernel of `blocks` equal blocks of `block_bytes`, each keeping `in_flight` bytes in
// flight: launch + Σ over waves of (blocks in the wave · block_bytes) / min(B, blocks · in_flight / L).
double streaming_kernel_time(double blocks, double block_bytes, double in_flight, const SplitKvMachine& m);

// Every K and V byte once at full bandwidth: 2·batch·heads·N·d·s / B.
double split_kv_ideal_time(double n, double d, double heads, double batch, double elem_bytes, double bandwidth_Bps);

// The lesson's split-KV calculator: latency at the chosen split count against one pass and the
// ideal, the series over 1..min(max_splits, N) splits with the best, and the split and merge
// executed on one head when N <= 65,536 and N·d <= 2^20. The kernel's block is FlashAttention-2's
// split-KV block (flash_fwd_launch_template.h, head dim 128: 64 query rows, 128 keys per tile,
// 4 warps); its shared memory, (query_rows + 2·tile_keys)·d·bytes, with its threads and
// registers gives the resident blocks per SM. `sms`, `bandwidth_Bps` and `latency_s` come from
// the accelerator `hardware` unless given; a GPU without CUDA occupancy limits is an InputError
// on "hardware", a block too large for an SM one on the field that does not fit; splits >
// context is an InputError on "splits".
struct SplitKvQuery {
  long long context = 0, head_dim = 0, heads = 1, batch = 1;
  std::string dtype;
  long long splits = 1, max_splits = 1;
  std::string hardware;
  std::optional<double> sms, bandwidth_Bps;
  double launch_s = 0;
  bool execute = true;
  std::uint64_t seed = 1;
  long long tile_keys = 128, query_rows = 64, threads_per_block = 128, registers_per_thread = 128;
  std::optional<double> latency_s;
};
struct SplitKvExecuted {
  std::vector<SplitPartialResult> partials;  // empty beyond 64 splits
  double merge_max_abs_diff = 0, merged_error_fp64 = 0, single_error_fp64 = 0;
};
struct SplitKvReport {
  SplitKvTiming chosen;
  double sms = 0, bandwidth_Bps = 0, kv_bytes = 0, partial_bytes = 0, ideal_time_s = 0;
  double latency_s = 0, blocks_per_sm = 0, smem_per_block_bytes = 0;
  std::string occupancy_limiter;  // what caps the resident blocks: "threads" | "registers" | "smem" | "blocks"
  double saturating_blocks = 0;   // ⌈B·L / (T·d·bytes)⌉: resident full-tile blocks that saturate HBM
  double saturating_splits = 0;   // ⌈saturating_blocks / (batch·heads)⌉, at most the context
  double no_split_time_s = 0, speedup = 0, best_splits = 0, best_time_s = 0, best_speedup = 0;
  std::vector<SplitKvTiming> series;
  bool executed = false;
  std::optional<SplitKvExecuted> run;
};
SplitKvReport split_kv_report(const SplitKvQuery& q);

}  // namespace mlsys
