// Platform-identical log, exp and normal draws (see foundations/portable_math.hpp).
#include "mlsys/foundations/portable_math.hpp"

#include <cmath>

#include "mlsys/foundations/splitmix.hpp"

namespace mlsys {

namespace {
constexpr double kLn2 = 0.69314718055994530942, kInvLn2 = 1.44269504088896340736;
// 1/n for the series (n ≤ 29), correctly rounded by the compiler on every platform.
constexpr double kInverse[30] = {0,      1.0,      1.0 / 2,  1.0 / 3,  1.0 / 4,  1.0 / 5,  1.0 / 6,  1.0 / 7,
                                 1.0 / 8,  1.0 / 9,  1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15,
                                 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20, 1.0 / 21, 1.0 / 22, 1.0 / 23,
                                 1.0 / 24, 1.0 / 25, 1.0 / 26, 1.0 / 27, 1.0 / 28, 1.0 / 29};
}  // namespace

double portable_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // exact: m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2;
    e -= 1;
  }
  // ln m = 2·atanh(t) = 2·(t + t³/3 + t⁵/5 + …), t = (m − 1)/(m + 1), |t| < 0.172: terms to
  // t²⁹/29 (the next is below 1e-24), summed by Horner's rule in t² with the constants 1/k.
  const double t = (m - 1) / (m + 1), t2 = t * t;
  double sum = 1.0 / 29;
  for (int k = 27; k >= 1; k -= 2) sum = kInverse[k] + t2 * sum;
  return e * kLn2 + 2 * t * sum;
}

double portable_exp(double x) {
  // x = k·ln 2 + r with |r| ≤ ln2/2, e^r by its Taylor series to r¹⁴/14! (the next term is
  // below 1e-19), summed by Horner's rule with the constants 1/n, then scaled by 2^k (exact).
  // ln 2 split in two (fdlibm's constants): k·kLn2Hi is exact, so r keeps its precision.
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  const double k = std::nearbyint(x * kInvLn2);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double sum = 1;
  for (int n = 14; n >= 1; --n) sum = 1 + r * kInverse[n] * sum;
  return std::ldexp(sum, static_cast<int>(k));
}

NormalPair portable_normal_pair(std::uint64_t& state) {
  double u, v, s;
  do {
    u = 2 * (static_cast<double>(splitmix(state) >> 11) * 0x1.0p-53) - 1;
    v = 2 * (static_cast<double>(splitmix(state) >> 11) * 0x1.0p-53) - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  const double f = std::sqrt(-2 * portable_log(s) / s);
  return {u * f, v * f};
}

}  // namespace mlsys
