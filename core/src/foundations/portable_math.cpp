// Platform-identical log, exp and normal draws (see foundations/portable_math.hpp).
#include "mlsys/foundations/portable_math.hpp"

#include <cmath>

#include "mlsys/foundations/splitmix.hpp"

namespace mlsys {

namespace {
constexpr double kLn2 = 0.69314718055994530942;
}

double portable_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // exact: m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2;
    e -= 1;
  }
  // ln m = 2·atanh(t), t = (m − 1)/(m + 1), |t| < 0.172: the odd series converges fast.
  const double t = (m - 1) / (m + 1), t2 = t * t;
  double term = t, sum = 0;
  for (int k = 1; k <= 29; k += 2) {
    sum += term / k;
    term *= t2;
  }
  return e * kLn2 + 2 * sum;
}

double portable_exp(double x) {
  // x = k·ln 2 + r with |r| ≤ ln2/2, e^r by its Taylor series, then scale by 2^k (exact).
  // ln 2 split in two (fdlibm's constants): k·kLn2Hi is exact, so r keeps its precision.
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  const double k = std::nearbyint(x / kLn2);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double term = 1, sum = 1;
  for (int n = 1; n <= 22; ++n) {
    term *= r / n;
    sum += term;
  }
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
