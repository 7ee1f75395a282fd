// Floating-point formats and exact round-to-nearest-even (IEEE 754-2019 §4.3.1; OCP OFP8
// rev. 1.0 for E4M3 and E5M2).
#include "mlsys/numerics/float_format.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace mlsys {

namespace {

enum class Specials { Ieee, OcpE4m3, Fnuz };

FloatFormat make(std::string name, int e, int m, Specials kind = Specials::Ieee) {
  FloatFormat f;
  f.name = std::move(name);
  f.exponent_bits = e;
  f.mantissa_bits = m;
  f.fnuz = kind == Specials::Fnuz;
  // FNUZ biases one more, so that its extra exponent value extends the range downward too.
  f.bias = (1 << (e - 1)) - (f.fnuz ? 0 : 1);
  f.has_infinity = kind == Specials::Ieee;
  f.emin = 1 - f.bias;
  if (kind == Specials::Ieee) {
    // The all-ones exponent is reserved for inf/NaN: emax = (2^e − 2) − bias.
    f.emax = (1 << e) - 2 - f.bias;
    f.max = std::ldexp(2.0 - std::ldexp(1.0, -m), f.emax);
  } else if (kind == Specials::OcpE4m3) {
    // E4M3: the all-ones exponent holds normal values except mantissa all ones (NaN).
    f.emax = (1 << e) - 1 - f.bias;
    f.max = std::ldexp(2.0 - std::ldexp(1.0, 1 - m), f.emax);
  } else {
    // FNUZ: every code but 0x80 is a number, the all-ones exponent and mantissa included.
    f.emax = (1 << e) - 1 - f.bias;
    f.max = std::ldexp(2.0 - std::ldexp(1.0, -m), f.emax);
  }
  f.min_normal = std::ldexp(1.0, f.emin);
  f.min_subnormal = std::ldexp(1.0, f.emin - m);
  f.epsilon = std::ldexp(1.0, -m);
  return f;
}

const std::vector<FloatFormat>& formats() {
  static const std::vector<FloatFormat> all = {
      make("fp32", 8, 23),
      make("tf32", 8, 10),
      make("bf16", 8, 7),
      make("fp16", 5, 10),
      make("fp8-e4m3", 4, 3, Specials::OcpE4m3),
      make("fp8-e5m2", 5, 2),
      make("fp8-e4m3-fnuz", 4, 3, Specials::Fnuz),
      make("fp8-e5m2-fnuz", 5, 2, Specials::Fnuz)};
  return all;
}

// Nearest integer to y >= 0, ties to even. y < 2^53, so y − floor(y) is exact.
double round_half_even(double y) {
  const double f = std::floor(y);
  const double d = y - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1;
}

}  // namespace

const std::vector<std::string>& float_format_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& f : formats()) n.push_back(f.name);
    return n;
  }();
  return names;
}

const FloatFormat& float_format(const std::string& name) {
  for (const auto& f : formats())
    if (f.name == name) return f;
  throw std::invalid_argument("unknown float format '" + name + "'");
}

Rounded round_to_format(double x, const FloatFormat& fmt, Overflow mode) {
  Rounded r;
  if (std::isnan(x)) {
    r.special = FloatSpecial::NaN;
    return r;
  }
  r.negative = std::signbit(x);
  const double a = std::fabs(x);
  double mag = 0;
  if (a != 0 && std::isfinite(a)) {
    int e2 = 0;
    std::frexp(a, &e2);                          // a = f·2^e2, f in [0.5, 1)
    const int e = std::max(e2 - 1, fmt.emin);    // exponent of a, clamped to the subnormal binade
    const double q = std::ldexp(1.0, e - fmt.mantissa_bits);  // spacing in that binade
    mag = round_half_even(a / q) * q;            // exact: a/q < 2^(m+1) and q is a power of two
  } else if (!std::isfinite(a)) {
    mag = a;
  }
  if (mag > fmt.max) {
    r.overflow = std::isfinite(a);
    if (mode == Overflow::Saturate) {
      mag = fmt.max;
    } else {
      r.special = fmt.has_infinity ? FloatSpecial::Infinity : FloatSpecial::NaN;
      if (fmt.fnuz) {  // the one NaN, 1.0000.000
        r.negative = true;
        return r;
      }
      const unsigned long long ones = (1ULL << fmt.exponent_bits) - 1;
      r.exponent_field = ones;
      r.mantissa_field = fmt.has_infinity ? 0 : (1ULL << fmt.mantissa_bits) - 1;
      return r;
    }
  }
  r.underflow = a != 0 && mag == 0;
  if (fmt.fnuz && mag == 0) r.negative = false;  // no negative zero: its code is the NaN
  r.value = r.negative ? -mag : mag;
  if (mag < fmt.min_normal) {
    r.subnormal = mag != 0;
    r.exponent = fmt.emin;
    r.exponent_field = 0;
    r.mantissa_field = static_cast<unsigned long long>(mag / fmt.min_subnormal);
    r.ulp = fmt.min_subnormal;
  } else {
    int e2 = 0;
    const double f = std::frexp(mag, &e2);
    r.exponent = e2 - 1;
    r.exponent_field = static_cast<unsigned long long>(r.exponent + fmt.bias);
    r.mantissa_field = static_cast<unsigned long long>(std::ldexp(2 * f - 1, fmt.mantissa_bits));
    r.ulp = std::ldexp(1.0, r.exponent - fmt.mantissa_bits);
  }
  return r;
}

double round_value(double x, const FloatFormat& fmt) {
  const Rounded r = round_to_format(x, fmt);
  switch (r.special) {
    case FloatSpecial::None: return r.value;
    case FloatSpecial::Infinity: return r.negative ? -std::numeric_limits<double>::infinity()
                                                   : std::numeric_limits<double>::infinity();
    case FloatSpecial::NaN: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string bit_string(const Rounded& r, const FloatFormat& fmt) {
  std::string s = r.negative ? "1 " : "0 ";
  unsigned long long e = r.exponent_field, m = r.mantissa_field;
  if (r.special == FloatSpecial::NaN && fmt.has_infinity) m = 1ULL << (fmt.mantissa_bits - 1);  // quiet NaN
  if (r.special == FloatSpecial::NaN && fmt.fnuz) {  // the one NaN, 0x80
    s = "1 ";
    e = m = 0;
  }
  for (int i = fmt.exponent_bits - 1; i >= 0; --i) s += ((e >> i) & 1) ? '1' : '0';
  s += ' ';
  for (int i = fmt.mantissa_bits - 1; i >= 0; --i) s += ((m >> i) & 1) ? '1' : '0';
  return s;
}

namespace {

// Gap from magnitude a (a value of fmt, a >= 0) to the next larger magnitude.
double gap_above(double a, const FloatFormat& fmt) {
  if (a < fmt.min_normal) return fmt.min_subnormal;
  int e2 = 0;
  std::frexp(a, &e2);
  return std::ldexp(1.0, e2 - 1 - fmt.mantissa_bits);
}

// Gap from magnitude a > 0 down to the next smaller one: half the gap above at a power of two
// of the normal range, the same gap otherwise.
double gap_below(double a, const FloatFormat& fmt) {
  int e2 = 0;
  const double f = std::frexp(a, &e2);
  const double g = gap_above(a, fmt);
  return (f == 0.5 && a > fmt.min_normal) ? g / 2 : g;
}

double next_up(double v, const FloatFormat& fmt) {
  return v >= 0 ? v + gap_above(v, fmt) : -(-v - gap_below(-v, fmt));
}
double next_down(double v, const FloatFormat& fmt) {
  return v > 0 ? v - gap_below(v, fmt) : -(-v + gap_above(-v, fmt));
}

}  // namespace

std::vector<double> neighbours(const Rounded& r, const FloatFormat& fmt, int count) {
  std::vector<double> out;
  if (r.special != FloatSpecial::None) return out;
  double lo = r.value == 0 ? 0.0 : r.value, hi = lo;
  for (int i = 0; i < count; ++i) {
    lo = next_down(lo, fmt);
    if (lo >= -fmt.max) out.push_back(lo);
    hi = next_up(hi, fmt);
    if (hi <= fmt.max) out.push_back(hi);
  }
  return out;
}


FloatReport float_report(const std::string& format, double value, bool saturate) {
  const FloatFormat& f = float_format(format);
  const double x = value;
  const Rounded r = round_to_format(x, f, saturate ? Overflow::Saturate : Overflow::Default);
  const std::string bits = bit_string(r, f);
  const bool finite = r.special == FloatSpecial::None;
  FloatReport out;
  out.format = f.name;
  out.value = x;
  if (finite) out.rounded = r.value;
  out.special = finite ? "none" : (r.special == FloatSpecial::Infinity ? "inf" : "nan");
  out.sign = std::string(1, r.negative ? '-' : '+');
  out.overflow = r.overflow;
  out.underflow = r.underflow;
  out.subnormal = r.subnormal;
  out.bits = bits;
  out.sign_bits = bits.substr(0, 1);
  out.exponent_bits = bits.substr(2, static_cast<std::size_t>(f.exponent_bits));
  out.mantissa_bits = bits.substr(3 + static_cast<std::size_t>(f.exponent_bits));
  if (finite) out.exponent = r.exponent;
  out.exponent_width = f.exponent_bits;
  out.mantissa_width = f.mantissa_bits;
  out.bias = f.bias;
  out.total_bits = f.total_bits();
  out.has_infinity = f.has_infinity;
  out.overflow_mode =
      saturate ? "saturate to ±max"
               : (f.has_infinity ? "to ±inf (IEEE 754)" : f.fnuz ? "to NaN (FNUZ, no infinity)" : "to NaN (OCP E4M3 default)");
  if (finite) {
    out.abs_error = std::fabs(r.value - x);
    out.rel_error = x == 0 ? 0.0 : std::fabs(r.value - x) / std::fabs(x);
    out.ulp = r.ulp;
  }
  out.neighbours = neighbours(r, f, 6);
  if (finite) {
    // neighbours() lists the nearest below first, then the nearest above, each when within ±max.
    const double down = next_down(r.value, f), up = next_up(r.value, f);
    if (down >= -f.max) out.next_down = down;
    if (up <= f.max) out.next_up = up;
    if (r.value != 0) out.rel_ulp = r.ulp / std::fabs(r.value);
  }
  const double binade = std::ldexp(1.0, f.mantissa_bits + 1);  // 2^m mantissas × 2 signs
  out.code_count = std::ldexp(1.0, f.total_bits());
  out.binade_codes = binade;
  out.infinity_codes = f.has_infinity ? 2 : 0;
  out.nan_codes = f.has_infinity ? binade - 2 : f.fnuz ? 1 : 2;
  out.zero_codes = f.fnuz ? 1 : 2;
  out.binades = std::log2(f.max / f.min_subnormal);
  out.max = f.max;
  out.min_normal = f.min_normal;
  out.min_subnormal = f.min_subnormal;
  out.epsilon = f.epsilon;
  out.exp_overflow = std::log(f.max);
  return out;
}

}  // namespace mlsys
