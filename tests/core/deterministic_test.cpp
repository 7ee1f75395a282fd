// foundations/deterministic.hpp: exp_det and log_det against known values and the C library,
// expf_det, SplitMix64 against its reference outputs, the seed mixing, and the seeded stream's
// uniform, integer and normal draws (ranges, exact formulas, moments, reproducibility, and
// golden values that pin the streams every seeded simulation depends on).
#include "mlsys/foundations/deterministic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

#include <gtest/gtest.h>

using mlsys::exp_det;
using mlsys::log_det;
using mlsys::SeededStream;

namespace {

// Distance in units in the last place between two finite doubles of the same sign.
long long ulps(double a, double b) {
  std::int64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return std::llabs(x - y);
}

}  // namespace

TEST(DeterministicMath, ExpKnownValues) {
  EXPECT_EQ(exp_det(0.0), 1.0);
  EXPECT_LE(ulps(exp_det(1.0), 0x1.5bf0a8b145769p+1), 1);   // e
  EXPECT_LE(ulps(exp_det(-1.0), 0x1.78b56362cef38p-2), 1);  // 1/e
  EXPECT_LE(ulps(exp_det(0x1.62e42fefa39efp-1), 2.0), 1);   // e^(ln 2)
  EXPECT_LE(ulps(exp_det(10.0), 0x1.5829dcf95056p+14), 1);  // 22026.465794806718
  EXPECT_LE(ulps(exp_det(-700.0), std::exp(-700.0)), 2);
}

TEST(DeterministicMath, LogKnownValues) {
  EXPECT_EQ(log_det(1.0), 0.0);
  EXPECT_LE(ulps(log_det(2.0), 0x1.62e42fefa39efp-1), 1);   // ln 2
  EXPECT_LE(ulps(log_det(10.0), 0x1.26bb1bbb55516p+1), 1);  // ln 10
  EXPECT_LE(ulps(log_det(0x1.5bf0a8b145769p+1), 1.0), 1);   // ln e
  EXPECT_LE(ulps(log_det(0.5), -0x1.62e42fefa39efp-1), 1);
  EXPECT_LE(ulps(log_det(1e300), std::log(1e300)), 2);
  EXPECT_LE(ulps(log_det(5e-324), std::log(5e-324)), 2);  // the least subnormal
}

TEST(DeterministicMath, ExpAndLogMatchTheCLibrary) {
  // Both are within 1 ulp (exp) and 3 ulp (log) of the true value; the C library within 1.
  for (double x = -744.0; x <= 709.0; x += 0.731) {
    const double ref = std::exp(x);
    if (ref < std::numeric_limits<double>::min()) {
      EXPECT_NEAR(exp_det(x), ref, 2 * std::numeric_limits<double>::denorm_min()) << x;
    } else {
      EXPECT_LE(ulps(exp_det(x), ref), 2) << x;
    }
  }
  for (double x = 1e-300; x < 1e300; x *= 3.7) EXPECT_LE(ulps(log_det(x), std::log(x)), 4) << x;
  for (double x = 0.25; x < 4; x += 0.001) EXPECT_LE(ulps(log_det(x), std::log(x)), 4) << x;
}

TEST(DeterministicMath, ExpOfLogRoundTrips) {
  // An error of a few ulp in ln x becomes a relative error of about |ln x|·2^-53 in x.
  for (double x = 1e-300; x < 1e300; x *= 1.37) {
    const double tol = (4 + std::fabs(std::log(x))) * 3e-16;
    EXPECT_NEAR(exp_det(log_det(x)) / x, 1.0, tol) << x;
  }
  for (double x = -700; x < 700; x += 0.917) EXPECT_NEAR(log_det(exp_det(x)), x, 4 * 0x1.0p-53 * std::max(1.0, std::fabs(x))) << x;
}

TEST(DeterministicMath, SpecialValues) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(exp_det(-inf), 0.0);
  EXPECT_EQ(exp_det(-800.0), 0.0);
  EXPECT_EQ(exp_det(710.0), inf);
  EXPECT_EQ(exp_det(inf), inf);
  EXPECT_TRUE(std::isnan(exp_det(std::nan(""))));
  EXPECT_EQ(log_det(0.0), -inf);
  EXPECT_EQ(log_det(inf), inf);
  EXPECT_TRUE(std::isnan(log_det(-1.0)));
  EXPECT_TRUE(std::isnan(log_det(std::nan(""))));
  EXPECT_EQ(mlsys::expf_det(0.0f), 1.0f);
  EXPECT_EQ(mlsys::expf_det(-200.0f), 0.0f);
  EXPECT_TRUE(std::isinf(mlsys::expf_det(89.0f)));
}

TEST(DeterministicMath, FloatExpWithinAFloatUlp) {
  for (float x = -87.0f; x < 88.0f; x += 0.0731f) {
    const double ref = std::exp(static_cast<double>(x));
    EXPECT_NEAR(mlsys::expf_det(x), ref, 0x1.0p-23 * ref) << x;
  }
}

TEST(DeterministicMath, SqrtIsCorrectlyRounded) {
  // No sqrt_det: IEEE 754 makes sqrt correctly rounded, so std::sqrt is identical everywhere.
  EXPECT_EQ(std::sqrt(2.0), 0x1.6a09e667f3bcdp+0);
  EXPECT_EQ(std::sqrt(0x1.0p-1074), 0x1.0p-537);
}

TEST(DeterministicSeed, SplitMixReferenceOutputs) {
  // The first outputs of Vigna's splitmix64.c from state 0.
  std::uint64_t state = 0;
  EXPECT_EQ(mlsys::splitmix(state), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(mlsys::splitmix(state), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(mlsys::splitmix(state), 0x06C45D188009454FULL);
  EXPECT_EQ(mlsys::splitmix(state), 0xF88BB8A8724C81ECULL);
  EXPECT_EQ(state, 4 * mlsys::kGoldenGamma);
}

TEST(DeterministicSeed, Mixing) {
  // The starting state is a hash of seed and salt (SplitMix64's output function, twice).
  static_assert(mlsys::avalanche(0) == 0);
  static_assert(mlsys::mix_seed(0, 0) == mlsys::avalanche(mlsys::avalanche(mlsys::kGoldenGamma)));
  static_assert(mlsys::mix_seed(3, 7) == mlsys::avalanche(mlsys::avalanche(7 + mlsys::kGoldenGamma) ^ mlsys::avalanche(3)));
  // The first SplitMix64 output from state 0 is the avalanche of γ (Vigna's reference value).
  static_assert(mlsys::avalanche(mlsys::kGoldenGamma) == 0xE220A8397B1DCDAFULL);
  // FNV-1a's published test vectors: the empty string is the offset basis, "a" 0xAF63DC4C8601EC8C.
  static_assert(mlsys::salt_of("") == 0xCBF29CE484222325ULL);
  static_assert(mlsys::salt_of("a") == 0xAF63DC4C8601EC8CULL);
  // The stream from a mixed seed is SplitMix64 from that state.
  std::uint64_t state = mlsys::mix_seed(42, 0x1234567ULL);
  SeededStream rng(mlsys::mix_seed(42, 0x1234567ULL));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(rng.next(), mlsys::splitmix(state));
}

TEST(DeterministicStream, SameSeedSameStream) {
  SeededStream a(mlsys::mix_seed(7, 1)), b(mlsys::mix_seed(7, 1)), c(mlsys::mix_seed(8, 1)), d(mlsys::mix_seed(7, 2));
  int same_c = 0, same_d = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    same_c += x == c.next();
    same_d += x == d.next();
  }
  EXPECT_EQ(same_c, 0);
  EXPECT_EQ(same_d, 0);
  SeededStream e(99), f(99);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(e.normal(), f.normal());
}

TEST(DeterministicStream, UniformFormulasAndRanges) {
  SeededStream rng(123), bits(123);
  for (int i = 0; i < 20000; ++i) {
    const double u = rng.uniform();
    EXPECT_EQ(u, static_cast<double>(bits.next() >> 11) * 0x1.0p-53);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    const double o = rng.uniform_open();
    EXPECT_EQ(o, std::min((static_cast<double>(bits.next() >> 11) + 0.5) * 0x1.0p-53, 1 - 0x1.0p-53));
    EXPECT_GT(o, 0.0);
    EXPECT_LT(o, 1.0);
    const double oc = rng.uniform_open_closed();
    EXPECT_EQ(oc, static_cast<double>((bits.next() >> 11) + 1) * 0x1.0p-53);
    EXPECT_GT(oc, 0.0);
    EXPECT_LE(oc, 1.0);
    const float f = rng.uniform_pm1_float();
    EXPECT_EQ(f, static_cast<float>(static_cast<double>(bits.next() >> 40) * 0x1.0p-23 - 1.0));
    EXPECT_GE(f, -1.0f);
    EXPECT_LT(f, 1.0f);
  }
  // The extremes of the 53-bit grid k = 0 … 2^53 − 1: uniform gives 0 and 1 − 2^-53 (< 1),
  // uniform_open_closed 2^-53 and 1. For uniform_open, k + ½ is not a double for the top k
  // and rounds to 2^53: 1 exactly, which is why uniform_open holds it at 1 − 2^-53.
  EXPECT_LT((0x1.0p53 - 1) * 0x1.0p-53, 1.0);
  EXPECT_EQ((0x1.0p53 - 1 + 0.5) * 0x1.0p-53, 1.0);
  EXPECT_EQ(0x1.0p53 * 0x1.0p-53, 1.0);
}

TEST(DeterministicStream, UniformMoments) {
  SeededStream rng(mlsys::mix_seed(5, 0x632BE59BD9B4E019ULL));
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
}

TEST(DeterministicStream, IntegerDraws) {
  SeededStream rng(17), bits(17);
  std::set<int> seen;
  for (int i = 0; i < 10000; ++i) {
    const int k = rng.integer(-8, 8);
    EXPECT_EQ(k, -8 + static_cast<int>(bits.next() % 17));
    EXPECT_GE(k, -8);
    EXPECT_LE(k, 8);
    seen.insert(k);
    const std::uint64_t b = rng.below(1000);
    EXPECT_EQ(b, bits.next() % 1000);
    EXPECT_LT(b, 1000u);
  }
  EXPECT_EQ(seen.size(), 17u);
  EXPECT_EQ(rng.integer(5, 5), 5);
}

TEST(DeterministicStream, NormalMoments) {
  for (int variant = 0; variant < 3; ++variant) {
    SeededStream rng(mlsys::mix_seed(11, 0x5851F42D4C957F2DULL));
    const int n = 200000;
    double sum = 0, sum2 = 0, sum4 = 0;
    for (int i = 0; i < n; i += 2) {
      double a, b;
      if (variant == 0) {
        const mlsys::NormalPair p = rng.normal_pair();
        a = p.a, b = p.b;
      } else if (variant == 1) {
        const mlsys::NormalPair p = rng.normal_pair_open_closed();
        a = p.a, b = p.b;
      } else {
        a = rng.normal(), b = rng.normal();
      }
      for (double z : {a, b}) {
        EXPECT_TRUE(std::isfinite(z));
        sum += z, sum2 += z * z, sum4 += z * z * z * z;
      }
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(n)) << variant;
    EXPECT_NEAR(var, 1.0, 5 * std::sqrt(2.0 / n)) << variant;
    EXPECT_NEAR(sum4 / n, 3.0, 0.1) << variant;  // kurtosis of a normal
  }
}

TEST(DeterministicStream, NormalKeepsTheSpare) {
  SeededStream a(31), b(31);
  for (int i = 0; i < 100; ++i) {
    const mlsys::NormalPair p = a.normal_pair();
    EXPECT_EQ(b.normal(), p.a);
    EXPECT_EQ(b.normal(), p.b);
  }
}

// The streams every seeded simulation depends on: a change here changes their outputs.
TEST(DeterministicStream, GoldenValues) {
  SeededStream r(mlsys::mix_seed(7, 0x632BE59BD9B4E019ULL));
  EXPECT_EQ(r.uniform(), 0x1.546aeabc9cbe8p-3);
  EXPECT_EQ(r.uniform_open(), 0x1.27a1413202f28p-1);
  EXPECT_EQ(r.uniform_open_closed(), 0x1.b56d2e7f0045cp-3);
  EXPECT_EQ(r.uniform_pm1_float(), -0x1.aaa814p-1f);
  EXPECT_EQ(r.integer(-8, 8), -3);
  EXPECT_EQ(r.below(1000), 505u);
  const mlsys::NormalPair p = r.normal_pair();
  EXPECT_EQ(p.a, 0x1.b79eda13b71a1p-5);
  EXPECT_EQ(p.b, -0x1.2bc3dadecfc42p-4);
  EXPECT_EQ(r.normal(), 0x1.264c6fd33bd76p+0);
  EXPECT_EQ(r.normal(), 0x1.408c0f8483fb3p+0);
  EXPECT_EQ(exp_det(1.0), 0x1.5bf0a8b14576ap+1);
  EXPECT_EQ(log_det(10.0), 0x1.26bb1bbb55515p+1);
}

// log1p_det: within 2 ulp of the C library's log1p over tiny, small and large arguments, exact
// where 1 + x rounds to 1, and the edge values.
TEST(DeterministicLog1p, MatchesTheLibraryWithinTwoUlp) {
  for (double x : {1e-300, 1e-17, 3e-16, 1e-12, 1e-6, 0.001, 0.1, 0.5, 1.0, 2.0, 10.0, 1e6, 1e300, -1e-17, -1e-9, -0.25,
                   -0.5, -0.9, -0.999999}) {
    const double want = std::log1p(x), got = mlsys::log1p_det(x);
    EXPECT_LE(std::fabs(got - want), 2 * std::fabs(std::nextafter(want, 2 * want) - want)) << x;
  }
  EXPECT_EQ(mlsys::log1p_det(1e-300), 1e-300);
  EXPECT_EQ(mlsys::log1p_det(0.0), 0.0);
  EXPECT_EQ(mlsys::log1p_det(-1.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(mlsys::log1p_det(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
}
