// Summation with a low-precision accumulator, emulated exactly: every addition is rounded to
// the accumulator's format (round-to-nearest-even), as the hardware would. Naive running sum,
// fp32 accumulation of low-precision inputs (the tensor-core recipe), Kahan's compensated
// summation (Kahan 1965) in the low format, and pairwise summation (Higham, "The accuracy of
// floating point summation", SIAM J. Sci. Comput. 14(4), 1993) in the low format.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
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
  long long last_growth_step = 0;        // additions done when the naive sum last changed
};

// Executes all four methods over the addends in one pass (pairwise as a streaming binary
// counter of block sums, which equals the recursive pairwise sum when count is a power of two).
SummationSeries summation_series(const std::vector<double>& x, const FloatFormat& low, bool constant, int samples);


// The `summation` calculator: the addends (summation_addends), the series of the four methods
// (160 samples) and the recursive pairwise sum, with relative errors against the exact sum.
// Sums may be ±inf or NaN (overflow); the relative errors are empty for them. InputError on
// "value" when an addend is not finite or every addend rounds to zero.
struct SummationReport {
  std::string format, distribution;  // distribution: constant or uniform
  double addend = 0;                 // the first addend
  long long count = 0;
  double exact = 0, naive = 0, fp32 = 0, kahan = 0, pairwise = 0, pairwise_recursive = 0;
  std::optional<double> rel_error_naive, rel_error_fp32, rel_error_kahan, rel_error_pairwise;
  long long lost_additions = 0;
  std::optional<long long> stall_count;
  std::optional<double> stall_sum;
  // Any addends: the naive sum changed for the last time after `last_growth_step` additions;
  // `frozen_additions` = count − last_growth_step followed without moving it (a stall also
  // with varying addends, once the largest one is at most half an ulp of the sum).
  long long last_growth_step = 0;
  long long frozen_additions = 0;
  bool overflow = false;  // some sum went past the format's max
  double max = 0;         // the format's largest value
  std::vector<SummationPoint> series;
};
SummationReport summation_report(const std::string& format, double value, long long count, bool uniform,
                                 std::uint64_t seed);

}  // namespace mlsys
