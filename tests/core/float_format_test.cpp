// Float formats against IEEE 754-2019 (binary32, binary16; bf16 and tf32 as binary32 with 7
// and 10 fraction bits, NVIDIA A100 whitepaper for tf32) and the OCP 8-bit Floating Point
// Specification (OFP8) rev. 1.0, 2023, Table 1: E4M3 max 448 = S.1111.110, min normal 2^-6,
// min subnormal 2^-9, NaN S.1111.111, no infinities; E5M2 max 57344, min normal 2^-14,
// min subnormal 2^-16, infinities S.11111.00.
#include <cmath>
#include <cstring>
#include <cstdint>

#include <gtest/gtest.h>

#include "mlsys/numerics/float_format.hpp"

using namespace mlsys;

namespace {
const FloatFormat& F(const char* n) { return float_format(n); }
double p2(int k) { return std::ldexp(1.0, k); }
}  // namespace

TEST(FloatFormat, LimitsMatchIeeeAndOcp) {
  // IEEE binary16: max 65504, min normal 2^-14, min subnormal 2^-24, eps 2^-10.
  EXPECT_EQ(F("fp16").max, 65504.0);
  EXPECT_EQ(F("fp16").min_normal, p2(-14));
  EXPECT_EQ(F("fp16").min_subnormal, p2(-24));
  EXPECT_EQ(F("fp16").epsilon, p2(-10));
  // IEEE binary32: max (2 − 2^-23)·2^127 ≈ 3.4028235e38, min normal 2^-126, min subnormal 2^-149.
  EXPECT_EQ(F("fp32").max, 3.4028234663852886e38);
  EXPECT_EQ(F("fp32").min_normal, p2(-126));
  EXPECT_EQ(F("fp32").min_subnormal, p2(-149));
  EXPECT_EQ(F("fp32").epsilon, p2(-23));
  // bf16: fp32's exponent with 7 fraction bits: max (2 − 2^-7)·2^127 ≈ 3.3895e38, eps 2^-7.
  EXPECT_NEAR(F("bf16").max, 3.3895e38, 1e34);
  EXPECT_EQ(F("bf16").max, (2 - p2(-7)) * p2(127));
  EXPECT_EQ(F("bf16").epsilon, p2(-7));
  EXPECT_EQ(F("bf16").min_normal, p2(-126));
  EXPECT_EQ(F("bf16").min_subnormal, p2(-133));
  // tf32: 8 exponent bits, 10 fraction bits (A100 whitepaper): eps 2^-10, fp32's range.
  EXPECT_EQ(F("tf32").epsilon, p2(-10));
  EXPECT_EQ(F("tf32").min_normal, p2(-126));
  EXPECT_EQ(F("tf32").total_bits(), 19);
  // OCP E4M3.
  EXPECT_EQ(F("fp8-e4m3").max, 448.0);
  EXPECT_EQ(F("fp8-e4m3").min_normal, p2(-6));
  EXPECT_EQ(F("fp8-e4m3").min_subnormal, p2(-9));
  EXPECT_EQ(F("fp8-e4m3").epsilon, p2(-3));
  EXPECT_FALSE(F("fp8-e4m3").has_infinity);
  // OCP E5M2.
  EXPECT_EQ(F("fp8-e5m2").max, 57344.0);
  EXPECT_EQ(F("fp8-e5m2").min_normal, p2(-14));
  EXPECT_EQ(F("fp8-e5m2").min_subnormal, p2(-16));
  EXPECT_EQ(F("fp8-e5m2").epsilon, p2(-2));
  EXPECT_THROW(float_format("fp12"), std::invalid_argument);
}

TEST(FloatFormat, TiesToEven) {
  const auto& h = F("fp16");
  EXPECT_EQ(round_value(1 + p2(-11), h), 1.0);              // halfway, 1 is even
  EXPECT_EQ(round_value(1 + 3 * p2(-11), h), 1 + p2(-9));    // halfway, rounds up to even
  EXPECT_EQ(round_value(1 + p2(-11) + p2(-20), h), 1 + p2(-10));  // just above halfway
  EXPECT_EQ(round_value(-(1 + p2(-11)), h), -1.0);
  EXPECT_EQ(round_value(0.1, F("bf16")), 0.10009765625);
  EXPECT_EQ(round_value(257, F("bf16")), 256.0);  // tie between 256 and 258
  EXPECT_EQ(round_value(259, F("bf16")), 260.0);  // tie between 258 and 260
  EXPECT_EQ(round_value(2049, h), 2048.0);
  // fp32 agrees with the hardware conversion double -> float (round to nearest even).
  for (double x : {0.1, 1.0 / 3, 3.14159265358979, 1e-40, 6.02214076e23, -2.5e-45, 1e-46}) {
    EXPECT_EQ(round_value(x, F("fp32")), static_cast<double>(static_cast<float>(x))) << x;
  }
}

TEST(FloatFormat, BitFields) {
  EXPECT_EQ(bit_string(round_to_format(1.0, F("fp16")), F("fp16")), "0 01111 0000000000");
  EXPECT_EQ(bit_string(round_to_format(-2.0, F("fp16")), F("fp16")), "1 10000 0000000000");
  EXPECT_EQ(bit_string(round_to_format(65504, F("fp16")), F("fp16")), "0 11110 1111111111");
  EXPECT_EQ(bit_string(round_to_format(448, F("fp8-e4m3")), F("fp8-e4m3")), "0 1111 110");
  EXPECT_EQ(bit_string(round_to_format(57344, F("fp8-e5m2")), F("fp8-e5m2")), "0 11110 11");
  EXPECT_EQ(bit_string(round_to_format(p2(-24), F("fp16")), F("fp16")), "0 00000 0000000001");
  EXPECT_EQ(bit_string(round_to_format(0.1, F("bf16")), F("bf16")), "0 01111011 1001101");
  // Every fp32 bit pattern we produce matches the float's own bits.
  for (double x : {0.1, -7.25, 1e-40, 3.4e38}) {
    const float f = static_cast<float>(x);
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    std::string expect;
    for (int i = 31; i >= 0; --i) {
      expect += ((u >> i) & 1) ? '1' : '0';
      if (i == 31 || i == 23) expect += ' ';
    }
    EXPECT_EQ(bit_string(round_to_format(x, F("fp32")), F("fp32")), expect) << x;
  }
}

TEST(FloatFormat, OverflowPerFormat) {
  const auto r16 = round_to_format(65520, F("fp16"));  // max + half ulp: tie, rounds to inf (odd max)
  EXPECT_EQ(r16.special, FloatSpecial::Infinity);
  EXPECT_TRUE(r16.overflow);
  EXPECT_EQ(round_value(65519.99, F("fp16")), 65504.0);
  EXPECT_TRUE(std::isinf(round_value(-1e6, F("fp16"))));
  EXPECT_LT(round_value(-1e6, F("fp16")), 0);
  EXPECT_TRUE(std::isinf(round_value(61440, F("fp8-e5m2"))));  // 57344 + half ulp (4096)
  EXPECT_EQ(round_value(61439, F("fp8-e5m2")), 57344.0);
  EXPECT_TRUE(std::isinf(round_value(1e39, F("bf16"))));
  // E4M3 has no inf: overflow is NaN (S.1111.111) by default, ±448 when saturating.
  EXPECT_EQ(round_value(464, F("fp8-e4m3")), 448.0);  // tie between 448 (even) and 480 (NaN slot)
  const auto r8 = round_to_format(465, F("fp8-e4m3"));
  EXPECT_EQ(r8.special, FloatSpecial::NaN);
  EXPECT_EQ(bit_string(r8, F("fp8-e4m3")), "0 1111 111");
  const auto sat = round_to_format(-1e4, F("fp8-e4m3"), Overflow::Saturate);
  EXPECT_EQ(sat.special, FloatSpecial::None);
  EXPECT_EQ(sat.value, -448.0);
  EXPECT_TRUE(sat.overflow);
  EXPECT_EQ(round_to_format(1e5, F("fp16"), Overflow::Saturate).value, 65504.0);
  EXPECT_TRUE(std::isnan(round_value(std::nan(""), F("fp16"))));
}

TEST(FloatFormat, Subnormals) {
  const auto& h = F("fp16");
  const auto r = round_to_format(3 * p2(-24), h);
  EXPECT_TRUE(r.subnormal);
  EXPECT_EQ(r.value, 3 * p2(-24));
  EXPECT_EQ(r.ulp, p2(-24));
  EXPECT_EQ(round_value(p2(-25), h), 0.0);                 // half the min subnormal: tie to 0
  EXPECT_EQ(round_value(p2(-25) * 1.0001, h), p2(-24));    // just above: min subnormal
  EXPECT_EQ(round_value(1.5 * p2(-24), h), 2 * p2(-24));   // tie to even mantissa 2
  EXPECT_TRUE(round_to_format(1e-9, h).underflow);
  EXPECT_EQ(round_value(p2(-10), F("fp8-e4m3")), 0.0);     // tie at half of 2^-9
  EXPECT_EQ(round_value(3 * p2(-10), F("fp8-e4m3")), p2(-8));  // 1.5 subnormal steps -> 2 (even)
  EXPECT_EQ(round_value(p2(-16), F("fp8-e5m2")), p2(-16));
  EXPECT_TRUE(round_to_format(p2(-15), F("fp8-e5m2")).subnormal);
}

TEST(FloatFormat, NeighboursAreTheGrid) {
  const auto& h = F("fp16");
  const auto n = neighbours(round_to_format(1.0, h), h, 2);
  ASSERT_EQ(n.size(), 4u);
  EXPECT_EQ(n[0], 1 - p2(-11));  // below a power of two the gap halves
  EXPECT_EQ(n[1], 1 + p2(-10));
  EXPECT_EQ(n[2], 1 - 2 * p2(-11));
  EXPECT_EQ(n[3], 1 + 2 * p2(-10));
  for (double v : neighbours(round_to_format(0.0, h), h, 3)) EXPECT_EQ(round_value(v, h), v);
  EXPECT_EQ(neighbours(round_to_format(448, F("fp8-e4m3")), F("fp8-e4m3"), 1).size(), 1u);  // nothing above max
}

// The `float` report: 1 + 2^-11 is the tie between 1 and 1 + 2^-10 in fp16 and rounds to even
// (IEEE 754-2019 roundTiesToEven); 500 overflows E4M3 to NaN (OCP OFP8 rev. 1.0 default).
TEST(FloatReportModel, TieToEvenAndE4m3Overflow) {
  const auto r = mlsys::float_report("fp16", 1.00048828125, false);
  ASSERT_TRUE(r.rounded.has_value());
  EXPECT_EQ(*r.rounded, 1.0);
  EXPECT_EQ(r.bits, "0 01111 0000000000");
  EXPECT_EQ(r.exponent, 0);
  EXPECT_EQ(*r.abs_error, 0x1.0p-11);
  EXPECT_EQ(*r.ulp, 0x1.0p-10);
  EXPECT_EQ(r.total_bits, 16);
  EXPECT_EQ(r.neighbours.size(), 12u);
  const auto e = mlsys::float_report("fp8-e4m3", 500, false);
  EXPECT_EQ(e.special, "nan");
  EXPECT_FALSE(e.rounded || e.exponent || e.abs_error || e.rel_error || e.ulp);
  EXPECT_EQ(mlsys::float_report("fp8-e4m3", 500, true).rounded, 448.0);  // saturate to ±max
}

// The textbook softmax's limit: e^x is past the format's max once x > ln(max), 88.72 in fp32
// (ln 3.4028e38) and 11.09 in fp16 (ln 65504); e^x just below it still rounds to a finite value.
TEST(FloatReportModel, ExpOverflowIsLnMax) {
  EXPECT_NEAR(mlsys::float_report("fp32", 0, false).exp_overflow, 88.7228, 1e-4);
  EXPECT_NEAR(mlsys::float_report("fp16", 0, false).exp_overflow, 11.0898, 1e-4);
  for (const char* f : {"fp32", "fp16", "bf16"}) {
    const double x = mlsys::float_report(f, 0, false).exp_overflow;
    EXPECT_EQ(mlsys::float_report(f, std::exp(x - 1e-3), false).special, "none") << f;
    EXPECT_EQ(mlsys::float_report(f, std::exp(x + 1e-2), false).special, "inf") << f;
  }
}

// FNUZ FP8, the variant of AMD's MI300 (AMD HIP "FP8 numbers": gfx942 supports FNUZ, not OCP;
// LLVM APFloat Float8E4M3FNUZ / Float8E5M2FNUZ, StableHLO RFC 2023-03-21): bias 8 and 16, no
// infinities, no negative zero, one NaN 1.0000.000; E4M3FNUZ max 0.1111.111 = 1.875·2^7 = 240,
// min normal 2^-7, min subnormal 2^-10; E5M2FNUZ max 1.75·2^15 = 57344, min normal 2^-15.
TEST(FloatFormat, FnuzVariantsOfMi300) {
  const auto& e4 = F("fp8-e4m3-fnuz");
  EXPECT_EQ(e4.bias, 8);
  EXPECT_EQ(e4.max, 240.0);
  EXPECT_EQ(e4.min_normal, p2(-7));
  EXPECT_EQ(e4.min_subnormal, p2(-10));
  EXPECT_FALSE(e4.has_infinity);
  const auto& e5 = F("fp8-e5m2-fnuz");
  EXPECT_EQ(e5.bias, 16);
  EXPECT_EQ(e5.max, 57344.0);
  EXPECT_EQ(e5.min_normal, p2(-15));
  EXPECT_EQ(e5.min_subnormal, p2(-17));
  EXPECT_EQ(mlsys::float_report("fp8-e4m3-fnuz", 240, false).bits, "0 1111 111");  // a number, not NaN
  const auto nan = mlsys::float_report("fp8-e4m3-fnuz", 250, false);                // past 240 + 8
  EXPECT_EQ(nan.special, "nan");
  EXPECT_EQ(nan.bits, "1 0000 000");
  EXPECT_EQ(mlsys::float_report("fp8-e4m3-fnuz", 250, true).rounded, 240.0);
  const auto z = mlsys::float_report("fp8-e4m3-fnuz", -1e-9, false);  // no negative zero
  EXPECT_EQ(z.bits, "0 0000 000");
  EXPECT_EQ(z.sign, "+");
}

// How each format spends its codes. OCP E4M3: 256 codes, NaN only S.1111.111 (2 codes), no
// infinity (OFP8 rev. 1.0 Table 1), where an IEEE-style all-ones binade would take 2·2^3 = 16
// codes, one sixteenth; E5M2 and fp16 reserve the binade: 2 infinities and 2·(2^m − 1) NaNs.
TEST(FloatReportModel, CodeCounts) {
  const auto e4 = mlsys::float_report("fp8-e4m3", 1, false);
  EXPECT_EQ(e4.code_count, 256.0);
  EXPECT_EQ(e4.nan_codes, 2.0);
  EXPECT_EQ(e4.infinity_codes, 0.0);
  EXPECT_EQ(e4.binade_codes, 16.0);
  EXPECT_EQ(e4.binade_codes / e4.code_count, 1.0 / 16);
  const auto e5 = mlsys::float_report("fp8-e5m2", 1, false);
  EXPECT_EQ(e5.nan_codes, 6.0);
  EXPECT_EQ(e5.infinity_codes, 2.0);
  EXPECT_EQ(e5.nan_codes + e5.infinity_codes, e5.binade_codes);
  const auto h = mlsys::float_report("fp16", 1, false);
  EXPECT_EQ(h.nan_codes, 2046.0);
  EXPECT_EQ(mlsys::float_report("fp8-e4m3-fnuz", 1, false).nan_codes, 1.0);
  EXPECT_EQ(mlsys::float_report("fp8-e4m3-fnuz", 1, false).zero_codes, 1.0);
}

// Precision at the value: 1000 in bf16 lies in [512, 1024), spacing 2^(9−7) = 4, so its
// neighbours are 996 and 1004 and the relative spacing 4/1000; at 1 in fp16 the gap below is
// half the gap above (2^-11 against 2^-10); at max there is no value above.
TEST(FloatReportModel, SpacingAndNeighboursAtTheValue) {
  const auto b = mlsys::float_report("bf16", 1000, false);
  EXPECT_EQ(*b.ulp, 4.0);
  EXPECT_EQ(*b.next_down, 996.0);
  EXPECT_EQ(*b.next_up, 1004.0);
  EXPECT_DOUBLE_EQ(*b.rel_ulp, 0.004);
  const auto one = mlsys::float_report("fp16", 1, false);
  EXPECT_EQ(*one.next_down, 1 - p2(-11));
  EXPECT_EQ(*one.next_up, 1 + p2(-10));
  const auto top = mlsys::float_report("fp8-e4m3", 448, false);
  EXPECT_FALSE(top.next_up.has_value());
  EXPECT_EQ(*top.next_down, 416.0);
  EXPECT_FALSE(mlsys::float_report("fp16", 0, false).rel_ulp.has_value());
}
