// Deterministic maths for the seeded simulations: every function here gives the same bits
// natively (g++) and in WebAssembly (Emscripten), so a seed gives the same JSON everywhere.
//
//  - exp_det, log_det, expf_det: range reduction and a fixed series in plain IEEE arithmetic
//    (+ − × ÷, frexp, and powers of two built from their bits, which are exact or correctly
//    rounded by IEEE 754). The C libraries' exp/log may differ in the last place
//    (and glibc picks FMA variants by CPU). exp_det and log_det are the series of the former
//    portable_exp / portable_log (kept so that no output changed) with exp_det's range checks.
//  - Square roots need nothing here: IEEE 754 requires sqrt to be correctly rounded, and both
//    targets use the hardware instruction (sqrtsd, f64.sqrt), so std::sqrt is already exact and
//    identical everywhere.
//  - Random numbers: SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
//    generators", OOPSLA 2014), tiny and fully specified (std:: engines and distributions
//    differ between standard libraries), with the seed hashing and the uniform, integer and
//    normal draws the simulations use. Each draw's formula is fixed: changing one changes every
//    seeded output that uses it.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace mlsys {

// exp_det: e^x in double, within 1 ulp; 0 for x below −745.2, +inf above 709.8, NaN for NaN.
// log_det: ln x in double for x > 0: within 1 ulp mostly, 3 ulp at worst (x just below
// 1/√2·2^k, where e·ln 2 and ln m nearly cancel); −inf for 0, +inf for +inf, NaN for negative
// or NaN. expf_det: e^x for the float kernels, within about half a float ulp; +inf above
// ln(FLT_MAX), 0 below −104. Defined here, inline, so that the kernels' inner loops inline them.
namespace detail {
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
inline int floor_int(double t) {
  const int i = static_cast<int>(t);  // truncates toward zero
  return i > t ? i - 1 : i;
}

// 2^k for a normal exponent, -1022 <= k <= 1023.
inline double pow2(int k) {
  const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
}  // namespace detail

inline double exp_det(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.782712893384) return detail::kInf;
  if (x < -745.1332191019412) return 0.0;
  // x = k·ln 2 + r with |r| ≤ ln2/2, e^r by its Taylor series to r¹⁴/14! (the next term is
  // below 1e-19), summed by Horner's rule with the constants 1/n, then scaled by 2^k. k·detail::kLn2Hi
  // is exact, so r keeps its precision. k is x/ln 2 rounded half to even (what nearbyint
  // gives, without its library call: adding and removing 1.5·2^52 rounds |t| < 2^51 to an
  // integer). The scaling is ldexp's, without its library call: one multiplication by a normal
  // power of two is the correctly rounded product (exact unless the result is subnormal); below
  // 2^-1022 the first of two steps is exact.
  const double t = x * detail::kInvLn2;
  const double k = (t + 0x1.8p52) - 0x1.8p52;
  const double r = (x - k * detail::kLn2Hi) - k * detail::kLn2Lo;
  double sum = 1;
  for (int n = 14; n >= 1; --n) sum = 1 + r * detail::kInverse[n] * sum;
  const int ki = static_cast<int>(k);
  if (ki >= -1022 && ki <= 1023) return sum * detail::pow2(ki);
  return ki > 0 ? (sum * 2.0) * detail::pow2(ki - 1) : (sum * detail::pow2(ki + 64)) * detail::pow2(-64);
}

// sin(π·x) in plain IEEE arithmetic (the C libraries' sin may differ in the last place between
// native and WASM): fold x into [−½, ½] by sin(π(1 − t)) = sin(πt) and oddness, then the Taylor
// series of sin u, u = π·t, |u| ≤ π/2, to u²³/23! (the next term is below 1e-20).
inline double sin_pi_det(double x) {
  double t = x - 2 * std::floor((x + 1) / 2);  // t in [−1, 1)
  if (t > 0.5) t = 1 - t;
  if (t < -0.5) t = -1 - t;
  const double u = 3.14159265358979323846 * t, u2 = u * u;
  double sum = 1;
  for (int k = 23; k >= 3; k -= 2) sum = 1 - u2 / (k * (k - 1)) * sum;
  return u * sum;
}

// cos(π·x) = sin(π·(x + ½)), as deterministic.
inline double cos_pi_det(double x) { return sin_pi_det(x + 0.5); }

// b^n for a whole n ≥ 0 by repeated squaring: the same products natively and in WASM, where
// the libraries' pow may differ in the last place.
inline double pow_int_det(double b, long long n) {
  double result = 1;
  for (; n > 0; n >>= 1, b *= b)
    if (n & 1) result *= b;
  return result;
}

inline double log_det(double x) {
  if (std::isnan(x) || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -detail::kInf;
  if (std::isinf(x)) return detail::kInf;
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
  for (int k = 27; k >= 1; k -= 2) sum = detail::kInverse[k] + t2 * sum;
  return e * detail::kLn2 + 2 * t * sum;
}

// ln(1 + x) for x > −1, accurate for tiny x too: u = 1 + x rounds, and ln(u)·x/(u − 1) corrects
// for that rounding (u − 1 is exact); x itself when u rounds to 1. Plain arithmetic and log_det,
// so the same bits natively and in WASM, where the libraries' log1p may differ in the last place.
inline double log1p_det(double x) {
  const double u = 1 + x;
  if (u == 1) return x;
  if (std::isinf(u)) return u;
  return log_det(u) * (x / (u - 1));
}

inline float expf_det(float xf) {
  // Float accuracy is enough here, so a shorter polynomial (degree 8, truncation error
  // |r|^9/9! < 3e-10, far below a float ulp) evaluated in Estrin's form for speed.
  const double x = xf;
  if (!(x == x)) return xf;  // NaN
  if (x > 88.72283905206835) return std::numeric_limits<float>::infinity();  // above ln(FLT_MAX)
  if (x < -104.0) return 0.0f;                                                  // below half the least subnormal
  const int ki = detail::floor_int(x * detail::kLog2e + 0.5);
  const double k = ki;
  const double r = (x - k * detail::kLn2Hi) - k * detail::kLn2Lo;
  const double r2 = r * r, r4 = r2 * r2;
  const double p = (1.0 + r) + r2 * (0.5 + r * (1.0 / 6.0)) +
                   r4 * ((1.0 / 24.0 + r * (1.0 / 120.0)) + r2 * (1.0 / 720.0 + r * (1.0 / 5040.0))) +
                   r4 * r4 * (1.0 / 40320.0);
  const double y = p * detail::pow2(ki);
  return y > std::numeric_limits<float>::max() ? std::numeric_limits<float>::infinity() : static_cast<float>(y);
}


// The SplitMix64 increment (2^64 / golden ratio, odd).
inline constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;

// A full avalanche of 64 bits: SplitMix64's output function (Stafford's "Mix13"), a bijection
// in which every input bit flips each output bit with probability about one half.
constexpr std::uint64_t avalanche(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// SplitMix64: advances `state` by kGoldenGamma and returns the next 64 random bits.
constexpr std::uint64_t splitmix(std::uint64_t& state) { return avalanche(state += kGoldenGamma); }

// The starting state of a seeded stream: seed and salt hashed together,
// avalanche(avalanche(salt + γ) ^ avalanche(seed)). This is the only place a starting state is
// derived. A multiply-add (seed·γ + salt, the former rule) made seed k's stream seed 0's
// moved k draws along, since SplitMix64's state also advances by γ per draw: neighbouring
// seeds shared all but a few numbers. Hashed, distinct seeds (or salts) start at unrelated
// points of the 2^64-long cycle, so two streams overlap within n draws with probability about
// n²/2^64. Each simulation has its own salt, so equal seeds give unrelated streams in
// different simulations.
constexpr std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t salt) {
  return avalanche(avalanche(salt + kGoldenGamma) ^ avalanche(seed));
}

// A salt from a name (an exercise's id): FNV-1a over its bytes, so each generator draws its
// own stream from the same seed.
constexpr std::uint64_t salt_of(const char* name) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (; *name; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 0x100000001B3ULL;
  return h;
}

// Two independent standard normal values.
struct NormalPair {
  double a, b;
};

// A seeded stream of random numbers: SplitMix64 from a starting state (mix_seed of a seed and
// a salt). Uniform doubles take the top 53 bits k of the next output, so they lie on the
// grid k·2⁻⁵³.
class SeededStream {
 public:
  explicit constexpr SeededStream(std::uint64_t state) : state_(state) {}

  // The next 64 random bits.
  constexpr std::uint64_t next() { return splitmix(state_); }

  // Uniform on [0, 1): k·2⁻⁵³.
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform on (0, 1), both ends excluded (safe under log): (k + ½)·2⁻⁵³, rounded to double
  // (k + ½ rounds to even for k >= 2^52). For k = 2^53 − 1 that rounding gives exactly 1, so
  // the top draw is held at 1 − 2⁻⁵³ (a draw in 2^53 that the loss-scaling simulation's own
  // copy of this formula let through as 1).
  constexpr double uniform_open() {
    const double u = (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
    return u < 1.0 ? u : 0x1.fffffffffffffp-1;
  }
  // Uniform on (0, 1], 0 excluded and 1 included: (k + 1)·2⁻⁵³.
  constexpr double uniform_open_closed() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  // Uniform on [−1, 1) with 24 random bits, k·2⁻²³ − 1: exactly representable in float.
  constexpr float uniform_pm1_float() { return static_cast<float>(static_cast<double>(next() >> 40) * 0x1.0p-23 - 1.0); }

  // An integer in [0, n), n >= 1: next() mod n (the modulo bias, below n / 2^64, is kept so
  // the streams stay as they are).
  constexpr std::uint64_t below(std::uint64_t n) { return next() % n; }
  // An integer in [lo, hi], lo <= hi: lo + below(hi − lo + 1).
  constexpr int integer(int lo, int hi) { return lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo + 1))); }

  // Two standard normals by Marsaglia's polar method (no trigonometry): u, v = 2·uniform() − 1
  // until 0 < s = u² + v² < 1, then (u, v)·√(−2 ln s / s) with log_det.
  NormalPair normal_pair();
  // The same with u, v = 2·uniform_open_closed() − 1 (the quantizer's data).
  NormalPair normal_pair_open_closed();
  // One standard normal: normal_pair() two values at a time, the second kept for the next call.
  double normal();

 private:
  std::uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace mlsys
