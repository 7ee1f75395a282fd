// Split-KV decoding, the idea of Flash-Decoding (Dao, Haziza, Massa, Sizov, "Flash-Decoding
// for long-context inference", PyTorch blog, October 2023): one new query attends to N cached
// keys split into s chunks; each chunk yields a partial softmax (max m_c, sum l_c, normalized
// output o_c, logsumexp lse_c = m_c + ln l_c) in parallel, and a second step merges them:
// lse = ln Σ_c e^(lse_c), o = Σ_c e^(lse_c − lse)·o_c. The merge is exact up to rounding.
//
// The latency model: batch·heads·s thread blocks on `sms` streaming multiprocessors, one block
// per SM at a time, each streaming its chunk of K and V (2·⌈N/s⌉·d elements) at the SM's share
// of HBM bandwidth, B/sms (a simplification: an SM alone can draw somewhat more). Time is
// waves × per-block time, plus a fixed cost per kernel, plus (for s > 1) a merge kernel that
// reads the s partials (d + 1 fp32 numbers each) of every (batch, head) and writes the output.
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
  double blocks = 0;        // batch·heads·splits
  double waves = 0;         // ⌈blocks / sms⌉
  double chunk_keys = 0;    // ⌈N / s⌉
  double active_sms = 0;    // min(blocks, sms)
  double main_time_s = 0;   // launch + waves × per-block bytes / (B / sms)
  double merge_time_s = 0;  // 0 for s = 1
  double time_s = 0;
  double partial_bytes = 0; // written and read back by the merge: batch·heads·s·(d + 1)·4
};

// n keys, head dim d, `heads` (KV heads processed as separate blocks), `batch` sequences,
// elem_bytes per K/V element; sms >= 1, bandwidth_Bps > 0, launch_s >= 0.
SplitKvTiming split_kv_time(double n, double d, double heads, double batch, double elem_bytes, double splits,
                            double sms, double bandwidth_Bps, double launch_s);

// Every K and V byte once at full bandwidth: 2·batch·heads·N·d·s / B.
double split_kv_ideal_time(double n, double d, double heads, double batch, double elem_bytes, double bandwidth_Bps);

// The lesson's split-KV calculator: latency at the chosen split count against one pass and the
// ideal, the series over 1..min(max_splits, N) splits with the best, and the split and merge
// executed on one head when N <= 65,536 and N·d <= 2^20. `sms` and `bandwidth_Bps` come from
// the accelerator `hardware` unless given (InputError on "sms" when the table has no SM count);
// splits > context is an InputError on "splits".
struct SplitKvQuery {
  long long context = 0, head_dim = 0, heads = 1, batch = 1;
  std::string dtype;
  long long splits = 1, max_splits = 1;
  std::string hardware;
  std::optional<double> sms, bandwidth_Bps;
  double launch_s = 0;
  bool execute = true;
  std::uint64_t seed = 1;
};
struct SplitKvExecuted {
  std::vector<SplitPartialResult> partials;  // empty beyond 64 splits
  double merge_max_abs_diff = 0, merged_error_fp64 = 0, single_error_fp64 = 0;
};
struct SplitKvReport {
  SplitKvTiming chosen;
  double sms = 0, bandwidth_Bps = 0, kv_bytes = 0, partial_bytes = 0, ideal_time_s = 0;
  double no_split_time_s = 0, speedup = 0, best_splits = 0, best_time_s = 0;
  std::vector<SplitKvTiming> series;
  bool executed = false;
  std::optional<SplitKvExecuted> run;
};
SplitKvReport split_kv_report(const SplitKvQuery& q);

}  // namespace mlsys
