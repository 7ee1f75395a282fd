// Softmax overflow in a low-precision format and the max-subtraction fix (the `softmax-stability`
// calculator). A kernel in `format` (fp32, bf16 or fp16; IEEE 754 binary32/binary16, bf16 as
// Kalamkar et al. 2019) is emulated with the exact rounding of numerics/float_format.hpp:
//
//  - The logits are stored in the format: x_i = round_F(logit_i).
//  - Naive, as three unfused framework ops on tensors stored in the format
//    (e = x.exp(); s = e.sum(); p = e / s):
//      e_i = round_F(round_fp32(exp x_i))    exp evaluated in fp32, stored in F;
//      s   = round_F(Σ e_i)                  summed in an fp32 accumulator (each addition rounded
//                                            to fp32, as PyTorch's reductions accumulate), stored in F;
//      p_i = round_F(round_fp32(e_i / s)).
//    An exponential past the format's max is +inf and the result is undefined (inf/inf = NaN):
//    `naive` is then null. A finite set of exponentials whose sum overflows gives s = inf and
//    every p_i = 0 (returned as such: the silent failure). When every exponential underflows to 0
//    (all logits far below 0) the sum is 0 and e_i / s = 0/0 is NaN: `naive` is null again
//    (sum_underflow).
//  - Stable, as a fused softmax kernel (PyTorch's, cuDNN's) works: every intermediate in fp32,
//    m = max x_i, d_i = round_fp32(x_i − m), e_i = round_fp32(exp d_i) ≤ 1, s = Σ e_i in fp32,
//    p_i = round_F(round_fp32(e_i / s)). No exponential exceeds 1, so nothing overflows.
//  - Exact: softmax of the stored x_i in double (max subtracted, exp_det), for the errors.
//
// overflow_threshold = ln(max_F): the largest x whose e^x is finite in F (88.72 for fp32 and bf16,
// 11.09 for fp16). For every value x representable in F, round_F(e^x) is finite exactly when
// x ≤ ln(max_F) (the next representable value above ln(max_F) is far enough above it that e^x
// rounds past max + ulp/2). The naive sum overflows earlier, above
// sum_overflow_threshold = ln(max_F) − ln Σ e^(x_i − x_max), the largest x_max at which the exact
// sum stays within max_F.
//
// Inputs: `logits` (a list), or `max_logit` with `count` and `spacing`: x_i = max_logit − i·spacing,
// i = 0 … count−1. With `sweep`, the same pattern is shifted so that its largest logit runs over
// 0, 0.5, …, 100, and the top token's probability is reported at each point (the figure's curve).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

inline constexpr int kMaxSoftmaxLogits = 4096;
inline constexpr int kMaxSoftmaxSweepLogits = 256;  // the sweep runs 201 softmaxes
inline constexpr double kSoftmaxSweepMax = 100.0;
inline constexpr double kSoftmaxSweepStep = 0.5;

struct SoftmaxSweepPoint {
  double max_logit;                  // the shifted pattern's largest logit
  std::optional<double> naive_top;   // naive probability of the top token (null when an exp overflows)
  double stable_top;                 // max-subtracted kernel's probability of the top token
  double exact_top;                  // exact softmax of the stored logits, top token
  bool exp_overflow;                 // some e^x_i overflowed
  bool sum_overflow;                 // the naive sum overflowed (with every e^x_i finite)
  bool sum_underflow;                // every e^x_i rounded to 0: naive is 0/0
  double log_z;                      // exact ln Σ e^x_i of the stored logits
  std::optional<double> naive_log_sum;  // ln of the naive kernel's stored sum (null when inf, 0, or an exp overflowed)
  double stable_log_sum;             // ln of the stable kernel's fp32 sum Σ e^(x_i − max), between 0 and ln n
};

struct SoftmaxStabilityResult {
  std::string format;
  std::vector<double> logits;               // as stored in the format
  std::optional<std::vector<double>> naive; // null when an exponential overflows or every one underflows
  std::vector<double> stable;
  std::vector<double> exact;                // exact softmax of the stored logits (double)
  bool overflow = false;                    // exp_overflow || sum_overflow
  bool exp_overflow = false;
  bool sum_overflow = false;
  bool sum_underflow = false;               // every exponential rounded to 0, so naive = 0/0
  int naive_nan_count = 0;                  // NaN entries of the framework's naive row: one per
                                            // overflowed exponential (inf/inf), the rest 0
                                            // (finite/inf); every entry after a sum underflow (0/0)
  double overflow_threshold = 0;            // ln(max_F)
  double sum_overflow_threshold = 0;        // ln(max_F) − ln Σ e^(x_i − x_max)
  double format_max = 0;                    // max_F
  double max_logit = 0;                     // largest stored logit
  double log_z = 0;                         // ln Σ e^(x_i): the log-partition (logsumexp), exact
  std::optional<double> naive_sum;          // s as the naive kernel stored it (null when inf)
  std::optional<double> naive_max_abs_error;  // max |naive − exact| (null when naive is null)
  double stable_max_abs_error = 0;          // max |stable − exact|
  std::optional<std::vector<SoftmaxSweepPoint>> sweep;
};

// Rounding of x to the format called `format` ("fp32", "bf16", "fp16"), as a double (±inf past max).
double softmax_round(double x, const std::string& format);

// Throws InputError: "format" not fp32/bf16/fp16; "logits" empty or longer than 4096;
// "count" outside 1 … 4096; "sweep" with more than 256 logits.
SoftmaxStabilityResult softmax_stability(const std::vector<double>& logits, const std::string& format,
                                         bool sweep = false);
// The pattern x_i = max_logit − i·spacing, i < count.
std::vector<double> logit_pattern(double max_logit, int count, double spacing);

}  // namespace mlsys
