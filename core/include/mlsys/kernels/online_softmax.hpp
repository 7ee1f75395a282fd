// Softmax three ways: the unsafe textbook form e^x / Σ e^x, the safe form that subtracts the
// maximum first (three passes), and the online form of Milakov & Gimelshein 2018 ("Online
// normalizer calculation for softmax", arXiv:1805.02867) that keeps a running maximum m and a
// running sum l, rescaling l by e^(m_old − m_new) whenever the maximum grows. Run block by
// block with a running output o = Σ e^(x − m)·v, it is the inner loop of FlashAttention.
//
// Every exponential and logarithm here goes through exp_det / log_det / expf_det
// (foundations/deterministic.hpp), so native code and WebAssembly give identical bits.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

// Seeded scores for the stepper: "random" (uniform in [−scale, scale)), "rising" (a ramp from
// −scale to scale: the maximum grows in every block) or "falling" (the reverse: the maximum is
// in the first block). Throws std::invalid_argument for another pattern. n >= 1.
std::vector<float> make_scores(int n, const std::string& pattern, float scale, std::uint64_t seed);
// Seeded values uniform in [−1, 1), one per score.
std::vector<float> make_values(int n, std::uint64_t seed);

// Reference: safe softmax in double precision.
std::vector<double> softmax_fp64(const std::vector<double>& x);

// The textbook form in float: e^x_i / Σ e^x_j with no max subtraction. `out_of_range` is
// true when some e^x or the sum overflows the float range (x above about 88.7) or every e^x
// underflows to 0 (all x below about −103); p then holds inf, NaN or zeros.
struct UnsafeSoftmax {
  std::vector<float> p;
  bool out_of_range = false;
};
UnsafeSoftmax softmax_unsafe(const std::vector<float>& x);

// Safe softmax in float, three passes over x: max, sum of e^(x − max), divide.
std::vector<float> softmax_safe(const std::vector<float>& x);

// One block of the online algorithm, as recorded for the stepper figure.
struct OnlineSoftmaxStep {
  int block = 0;           // 0-based block index
  int begin = 0, end = 0;  // scores [begin, end) of this block
  float block_max = 0;     // max of the block's scores
  float m_old = 0;         // running max before the block (−inf before the first)
  float m_new = 0;         // running max after it
  float rescale = 0;       // e^(m_old − m_new): the factor applied to l and o (0 at the first block)
  float l = 0;             // running sum Σ e^(x − m_new) over scores [0, end)
  float o = 0;             // running output Σ e^(x − m_new)·v over [0, end) (not yet divided by l)
};

// Streams `scores` (n >= 1) and scalar `values` (same length) in blocks of `block` (>= 1):
// steps, the final m, l, output o / l, and the probabilities e^(x − m) / l.
struct OnlineSoftmaxResult {
  std::vector<OnlineSoftmaxStep> steps;
  float m = 0, l = 0;
  float output = 0;       // Σ p_i v_i
  std::vector<float> p;   // probabilities from the final m and l
};
OnlineSoftmaxResult online_softmax(const std::vector<float>& scores, const std::vector<float>& values, int block);

// A softmax partial over a subset of scores: its max m, sum l = Σ e^(x − m) (> 0), and its
// normalized output o = Σ e^(x − m) v / l. Merging two partials by their logsumexp gives the
// partial of the union exactly (up to rounding): the step behind split-KV decoding.
struct SoftmaxPartial {
  double m = 0, l = 1, o = 0;
  double lse() const;  // m + ln l
};
struct MergedPartial {
  SoftmaxPartial merged;
  double scale_a = 0, scale_b = 0;    // e^(m_a − m), e^(m_b − m)
  double weight_a = 0, weight_b = 0;  // l_a·scale_a / l, l_b·scale_b / l (sum to 1)
};
MergedPartial merge_partials(const SoftmaxPartial& a, const SoftmaxPartial& b);

// The stepper of the lesson: online_softmax over seeded scores (make_scores, make_values), each
// block beside the same recurrence in fp64, the final output and probabilities against the fp64
// two-pass softmax, and the weights e^(x − m) of the keys read by one chosen step.
inline constexpr long long kMaxSoftmaxBlocks = 256;  // at most 256 blocks (steps)
struct SoftmaxStepReport {
  int block = 0, begin = 0, end = 0;
  float block_max = 0;
  std::optional<float> m_old;  // running max before the block (none before the first)
  float m_new = 0, rescale = 0, l = 0, o = 0;
  double estimate = 0;      // o / l after the block
  double exact_prefix = 0;  // the same quantity from the fp64 recurrence
  double error = 0;         // |estimate − exact_prefix|
};
struct OnlineSoftmaxStepper {
  std::size_t blocks = 0;
  int block = 0;  // block size used: min(block, n)
  std::vector<float> scores, values;
  std::vector<SoftmaxStepReport> steps;
  float m = 0, l = 0, output = 0;
  double exact_output = 0, output_error = 0;
  std::vector<float> probabilities;
  double max_prob_error = 0;
  long long rescales = 0;  // steps after the first whose maximum grew
  bool naive_out_of_range = false;
  int step = 0;  // the chosen step, clamped to [1, blocks]
  std::vector<float> step_weights;         // e^(x − m_new) of keys [0, end) of the chosen step
  std::vector<float> step_weights_before;  // e^(x − m_old) of keys [0, begin)
  std::optional<double> naive_max_prob_error;  // when the textbook form stays in range
};
// n >= 1 scores in blocks of `block` (clamped to n; at most kMaxSoftmaxBlocks blocks, else
// InputError on "block"); `step` >= 1.
OnlineSoftmaxStepper online_softmax_stepper(int n, long long block, const std::string& pattern, float scale,
                                            std::uint64_t seed, long long step);

}  // namespace mlsys
