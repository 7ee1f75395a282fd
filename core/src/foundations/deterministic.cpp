// Deterministic exp, log and normal draws (see foundations/deterministic.hpp).
#include "mlsys/foundations/deterministic.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace mlsys {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLn2 = 0.69314718055994530942, kInvLn2 = 1.44269504088896340736;
// ln 2 split so that k·kLn2Hi is exact for |k| < 2^20 (fdlibm's constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kLog2e = 1.44269504088896338700e+00;
// 1/n for the series (n ≤ 29), correctly rounded by the compiler on every platform.
constexpr double kInverse[30] = {0,        1.0,      1.0 / 2,  1.0 / 3,  1.0 / 4,  1.0 / 5,  1.0 / 6,  1.0 / 7,
                                 1.0 / 8,  1.0 / 9,  1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15,
                                 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20, 1.0 / 21, 1.0 / 22, 1.0 / 23,
                                 1.0 / 24, 1.0 / 25, 1.0 / 26, 1.0 / 27, 1.0 / 28, 1.0 / 29};

// ⌊t⌋ for |t| < 2^31 without a library call (baseline x86-64 has no rounding instruction).
int floor_int(double t) {
  const int i = static_cast<int>(t);  // truncates toward zero
  return i > t ? i - 1 : i;
}

// 2^k for a normal exponent, -1022 <= k <= 1023.
double pow2(int k) {
  const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
}  // namespace

double exp_det(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.782712893384) return kInf;
  if (x < -745.1332191019412) return 0.0;
  // x = k·ln 2 + r with |r| ≤ ln2/2, e^r by its Taylor series to r¹⁴/14! (the next term is
  // below 1e-19), summed by Horner's rule with the constants 1/n, then scaled by 2^k (ldexp:
  // exact, or one correct rounding for a subnormal result). k·kLn2Hi is exact, so r keeps its
  // precision.
  const double k = std::nearbyint(x * kInvLn2);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double sum = 1;
  for (int n = 14; n >= 1; --n) sum = 1 + r * kInverse[n] * sum;
  return std::ldexp(sum, static_cast<int>(k));
}

double log_det(double x) {
  if (std::isnan(x) || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -kInf;
  if (std::isinf(x)) return kInf;
  int e = 0;
  double m = std::frexp(x, &e);  // exact: x = m·2^e, m in [0.5, 1)
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

float expf_det(float xf) {
  // Float accuracy is enough here, so a shorter polynomial (degree 8, truncation error
  // |r|^9/9! < 3e-10, far below a float ulp) evaluated in Estrin's form for speed.
  const double x = xf;
  if (!(x == x)) return xf;  // NaN
  if (x > 88.72283905206835) return std::numeric_limits<float>::infinity();  // above ln(FLT_MAX)
  if (x < -104.0) return 0.0f;                                                  // below half the least subnormal
  const int ki = floor_int(x * kLog2e + 0.5);
  const double k = ki;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  const double r2 = r * r, r4 = r2 * r2;
  const double p = (1.0 + r) + r2 * (0.5 + r * (1.0 / 6.0)) +
                   r4 * ((1.0 / 24.0 + r * (1.0 / 120.0)) + r2 * (1.0 / 720.0 + r * (1.0 / 5040.0))) +
                   r4 * r4 * (1.0 / 40320.0);
  const double y = p * pow2(ki);
  return y > std::numeric_limits<float>::max() ? std::numeric_limits<float>::infinity() : static_cast<float>(y);
}

namespace {
// Marsaglia's polar method on uniforms from `draw` (a SeededStream member).
template <class Draw>
NormalPair polar(Draw draw) {
  double u, v, s;
  do {
    u = 2 * draw() - 1;
    v = 2 * draw() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  const double f = std::sqrt(-2 * log_det(s) / s);
  return {u * f, v * f};
}
}  // namespace

NormalPair SeededStream::normal_pair() {
  return polar([this] { return uniform(); });
}

NormalPair SeededStream::normal_pair_open_closed() {
  return polar([this] { return uniform_open_closed(); });
}

double SeededStream::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const NormalPair n = normal_pair();
  spare_ = n.b;
  has_spare_ = true;
  return n.a;
}

}  // namespace mlsys
