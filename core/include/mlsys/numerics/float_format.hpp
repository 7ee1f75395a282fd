// Binary floating-point formats and exact round-to-nearest-even conversion into them:
// fp32, tf32, bf16, fp16 (IEEE 754-2019 binary32/binary16 and their truncations) and the
// two 8-bit formats of the OCP 8-bit Floating Point Specification (OFP8) rev. 1.0, 2023:
// E4M3 (no infinities, max 448, NaN = S.1111.111) and E5M2 (IEEE-like, max 57344); and the
// FNUZ variants AMD's MI300 (gfx942) implements instead of OCP (LLVM Float8E4M3FNUZ /
// Float8E5M2FNUZ; AMD HIP "FP8 numbers"): bias one larger, no infinities, no negative zero,
// a single NaN at 1.0000.000 (0x80); E4M3FNUZ max 240, E5M2FNUZ max 57344.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

struct FloatFormat {
  std::string name;
  int exponent_bits;   // width of the exponent field
  int mantissa_bits;   // stored fraction bits (the leading 1 of normals is implicit)
  int bias;            // exponent bias
  bool has_infinity;   // false for OCP E4M3 (only S.1111.111 is special: NaN) and FNUZ
  bool fnuz = false;   // FNUZ: NaN is the negative-zero code, zero is unsigned
  int emax;            // exponent of the largest finite value (unbiased)
  int emin;            // exponent of the smallest normal value, 1 − bias
  double max;          // largest finite value
  double min_normal;   // 2^emin
  double min_subnormal;  // 2^(emin − mantissa_bits)
  double epsilon;      // 2^−mantissa_bits: gap between 1 and the next value
  int total_bits() const { return 1 + exponent_bits + mantissa_bits; }
};

// The format names the API accepts: fp32 tf32 bf16 fp16 fp8-e4m3 fp8-e5m2 fp8-e4m3-fnuz
// fp8-e5m2-fnuz.
const std::vector<std::string>& float_format_names();

// The format called `name`. Throws std::invalid_argument for an unknown name.
const FloatFormat& float_format(const std::string& name);

enum class FloatSpecial { None, Infinity, NaN };

// Overflow convention. IEEE-like formats (fp32, tf32, bf16, fp16, E5M2) overflow to ±inf;
// E4M3 has no infinity, so its default (non-saturating) conversion gives NaN, as in the OCP
// spec's default. Saturate clamps every format's overflow to ±max instead (the spec's
// optional saturating mode, PTX cvt.satfinite).
enum class Overflow { Default, Saturate };

struct Rounded {
  double value = 0;        // the rounded value (meaningful when special == None)
  FloatSpecial special = FloatSpecial::None;
  bool negative = false;   // sign bit
  bool overflow = false;   // |x| rounded past max
  bool underflow = false;  // x != 0 rounded to zero
  bool subnormal = false;  // nonzero result below min_normal
  int exponent = 0;        // unbiased exponent of the result (emin for subnormals and zero)
  unsigned long long exponent_field = 0, mantissa_field = 0;  // the stored bit fields
  double ulp = 0;          // spacing of the format at the result (gap to the next larger magnitude)
};

// Rounds the double `x` to `fmt` with round-to-nearest, ties-to-even, including subnormals.
// Exact: every value of these formats is a double, and the scaling by powers of two is exact.
// NaN input gives NaN; ±inf gives ±inf (NaN for E4M3, ±max when saturating).
Rounded round_to_format(double x, const FloatFormat& fmt, Overflow mode = Overflow::Default);

// Shorthand for the emulation loops: the rounded value as a double (±inf or NaN when special).
double round_value(double x, const FloatFormat& fmt);

// "s eeeee mmmmmmmmmm": the sign, exponent and mantissa fields of `r`, separated by spaces.
std::string bit_string(const Rounded& r, const FloatFormat& fmt);

// The `count` representable finite values below and above `r` (same format), nearest first,
// used to draw the grid around a value. Values past ±max are left out.
std::vector<double> neighbours(const Rounded& r, const FloatFormat& fmt, int count);


// The `float` calculator: `value` rounded to the format called `format`, its bit fields, the
// error, and the format's limits. The optional members are empty when the result is inf or NaN.
struct FloatReport {
  std::string format;
  double value = 0;
  std::optional<double> rounded;
  std::string special;  // none, inf or nan
  std::string sign;     // + or -
  bool overflow = false, underflow = false, subnormal = false;
  std::string bits, sign_bits, exponent_bits, mantissa_bits;
  std::optional<int> exponent;
  int exponent_width = 0, mantissa_width = 0, bias = 0, total_bits = 0;
  bool has_infinity = false;
  std::string overflow_mode;
  std::optional<double> abs_error, rel_error, ulp;
  std::vector<double> neighbours;  // 6 values each side
  double max = 0, min_normal = 0, min_subnormal = 0, epsilon = 0;
  double exp_overflow = 0;  // ln(max): above it e^x is past the format's largest value
  // Precision at the value: the nearest representable values below and above the result,
  // and the spacing relative to it (empty when inf, NaN, at ±max for next_up, or zero for rel_ulp).
  std::optional<double> next_down, next_up, rel_ulp;
  // How the format spends its 2^total_bits codes: NaN, infinity and zero patterns, and the
  // codes of one exponent value (both signs), what reserving a whole binade would cost.
  double code_count = 0, nan_codes = 0, infinity_codes = 0, zero_codes = 0, binade_codes = 0;
  double binades = 0;  // log2(max / min_subnormal): the span of positive values, in powers of two
};
FloatReport float_report(const std::string& format, double value, bool saturate);

}  // namespace mlsys
