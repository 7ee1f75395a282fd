// Deterministic maths for the seeded simulations: every function here gives the same bits
// natively (g++) and in WebAssembly (Emscripten), so a seed gives the same JSON everywhere.
//
//  - exp_det, log_det, expf_det: range reduction and a fixed series in plain IEEE arithmetic
//    (+ − × ÷, and frexp, nearbyint, ldexp or a built power of two, which are exact or
//    correctly rounded by IEEE 754). The C libraries' exp/log may differ in the last place
//    (and glibc picks FMA variants by CPU). exp_det and log_det are the series of the former
//    portable_exp / portable_log (kept so that no output changed) with exp_det's range checks.
//  - Square roots need nothing here: IEEE 754 requires sqrt to be correctly rounded, and both
//    targets use the hardware instruction (sqrtsd, f64.sqrt), so std::sqrt is already exact and
//    identical everywhere.
//  - Random numbers: SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
//    generators", OOPSLA 2014), tiny and fully specified (std:: engines and distributions
//    differ between standard libraries), with the seed mixing and the uniform, integer and
//    normal draws the simulations use. Each draw's formula is fixed: changing one changes every
//    seeded output that uses it.
#pragma once
#include <cstdint>

namespace mlsys {

// e^x in double, within 1 ulp; 0 for x below −745.2, +inf above 709.8, NaN for NaN.
double exp_det(double x);
// ln x in double for x > 0: within 1 ulp mostly, 3 ulp at worst (x just below 1/√2·2^k,
// where e·ln 2 and ln m nearly cancel); −inf for 0, +inf for +inf, NaN for negative or NaN.
double log_det(double x);
// e^x for the float kernels: within about half a float ulp; +inf above ln(FLT_MAX), 0 below −104.
float expf_det(float x);

// The SplitMix64 increment (2^64 / golden ratio, odd).
inline constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;

// SplitMix64: advances `state` by kGoldenGamma and returns the next 64 random bits.
constexpr std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += kGoldenGamma);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Seed mixing: the starting state seed·multiplier + salt (mod 2^64). Each simulation has its
// own salt, so equal seeds give unrelated streams in different simulations.
constexpr std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t salt, std::uint64_t multiplier = kGoldenGamma) {
  return seed * multiplier + salt;
}
// The other mixing in use: the starting state seed XOR salt.
constexpr std::uint64_t xor_seed(std::uint64_t seed, std::uint64_t salt) { return seed ^ salt; }

// Two independent standard normal values.
struct NormalPair {
  double a, b;
};

// A seeded stream of random numbers: SplitMix64 from a starting state (mix_seed or xor_seed
// of a seed). Uniform doubles take the top 53 bits k of the next output, so they lie on the
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
