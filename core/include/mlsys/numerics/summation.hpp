// Summation with a low-precision accumulator, emulated exactly: every addition is rounded to
// the accumulator's format (round-to-nearest-even), as the hardware would. Naive running sum,
// fp32 accumulation of low-precision inputs (the tensor-core recipe), Kahan's compensated
// summation (Kahan 1965) in the low format, and pairwise summation (Higham, "The accuracy of
// floating point summation", SIAM J. Sci. Comput. 14(4), 1993) in the low format.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "mlsys/numerics/float_format.hpp"

namespace mlsys {

// The addends: `count` copies of `value`, or (uniform) values drawn from [0, 2·value) with a
// seeded SplitMix64; every addend is first rounded to the accumulator format (it is stored
// in that format). count <= kMaxSummationCount.
inline constexpr long long kMaxSummationCount = 100000;
std::vector<double> summation_addends(double value, long long count, bool uniform, std::uint64_t seed,
                                      const FloatFormat& fmt);

// Running sums, each rounded to `acc` after every operation.
double naive_sum(const std::vector<double>& x, const FloatFormat& acc);
double kahan_sum(const std::vector<double>& x, const FloatFormat& acc);
double pairwise_sum(const std::vector<double>& x, const FloatFormat& acc);  // recursive halving
double exact_sum(const std::vector<double>& x);  // Neumaier-compensated double (exact here)

struct SummationPoint {
  long long step;  // additions done
  double exact, naive, fp32, kahan, pairwise;
};

struct SummationSeries {
  std::vector<SummationPoint> points;  // about `samples` steps, log-spaced, always the last
  double exact, naive, fp32, kahan, pairwise;  // after all additions
  long long lost_additions;         // naive additions of a nonzero addend that left the sum unchanged
  std::optional<long long> stall_count;  // constant addend: additions before the first lost one
  std::optional<double> stall_sum;       // the naive sum from then on
};

// Executes all four methods over the addends in one pass (pairwise as a streaming binary
// counter of block sums, which equals the recursive pairwise sum when count is a power of two).
SummationSeries summation_series(const std::vector<double>& x, const FloatFormat& low, bool constant, int samples);

}  // namespace mlsys
