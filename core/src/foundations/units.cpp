// Plain number formatting (no locale) and the numbers printed in prose. Reading typed answers
// is in quantity_reading.cpp.
#include "mlsys/foundations/units.hpp"

#include "mlsys/foundations/input_error.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>


namespace mlsys {

std::vector<PrintedNumber> printed_numbers(const std::string& s) {
  const auto digit = [&](std::size_t k) { return k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])); };
  const auto wordy = [&](std::size_t k) {
    const auto c = static_cast<unsigned char>(s[k]);
    return std::isalnum(c) || c == '_' || c == '.';
  };
  const auto plain = [](const std::string& t) {
    std::string out;
    for (char c : t)
      if (c != ',') out += c;
    return std::strtod(out.c_str(), nullptr);
  };
  std::vector<PrintedNumber> out;
  for (std::size_t i = 0; i < s.size();) {
    // "ZeRO-1", "GPT-3": digits after a letter and a hyphen are part of a name too.
    const bool named = i > 0 && (wordy(i - 1) || (s[i - 1] == '-' && i > 1 && std::isalpha(static_cast<unsigned char>(s[i - 2]))));
    if (!digit(i) || named) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (digit(i)) ++i;
    while (i < s.size() && s[i] == ',' && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4)) i += 4;
    if (i < s.size() && s[i] == '.' && digit(i + 1))
      for (++i; digit(i);) ++i;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      const std::size_t k = i + 1 + (i + 1 < s.size() && (s[i + 1] == '+' || s[i + 1] == '-'));
      if (digit(k))
        for (i = k; digit(i);) ++i;
    }
    PrintedNumber p{s.substr(start, i - start), 0};
    p.value = plain(p.text);
    if (i < s.size() && s[i] == '^' && digit(i + 1)) {
      const std::size_t e0 = ++i;
      while (digit(i)) ++i;
      p.value = std::pow(p.value, plain(s.substr(e0, i - e0)));
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", p.value);
      p.text = buf;
    } else {
      // "4.01 × 10⁻⁵", "2.5 × 10^-4": the mantissa and the number it makes with the power of
      // ten are both read (a reader may copy either); the 10 of the power is not a number.
      std::size_t k = i;
      while (k < s.size() && s[k] == ' ') ++k;
      if (s.compare(k, 2, "\xC3\x97") == 0 || s.compare(k, 2, "\xC2\xB7") == 0) {
        for (k += 2; k < s.size() && s[k] == ' ';) ++k;
        if (s.compare(k, 2, "10") == 0) {
          std::size_t end = k + 2;
          while (end < s.size() && (digit(end) || std::string("^-\xE2\x81\x88\x92\xC2\xB9\xB2\xB3\xB0\xB4\xB5\xB6\xB7\xB8\xB9\xBA\xBB").find(s[end]) != std::string::npos))
            ++end;
          try {
            const double v = parse_quantity(s.substr(start, end - start), "");
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.17g", v);
            out.push_back(p);
            p = {buf, v};
            i = end;
          } catch (const InputError&) {
          }
        }
      }
    }
    out.push_back(p);
  }
  return out;
}

double round_sig(double x, int sig) {
  if (x == 0 || !std::isfinite(x)) return x;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", sig - 1, x);
  return std::strtod(buf, nullptr);
}

std::string format_int(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::fabs(x));
  std::string digits = buf, out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return x < 0 ? std::string("-").append(out) : out;
}

std::string format_number(double x, int sig) {
  if (x == 0) return "0";
  if (!std::isfinite(x)) return std::isnan(x) ? "nan" : x < 0 ? "-inf" : "inf";
  const double r = round_sig(x, sig);
  const double a = std::fabs(r);
  char buf[64];
  if (a < 1e-3 || a >= 1e7) {
    std::snprintf(buf, sizeof buf, "%.*e", sig - 1, r);
    std::string s = buf;  // trim zeros of the mantissa: 2.50e+09 -> 2.5e+09
    const auto e = s.find('e');
    std::string mant = s.substr(0, e), exp = s.substr(e);
    if (mant.find('.') != std::string::npos) {
      while (mant.back() == '0') mant.pop_back();
      if (mant.back() == '.') mant.pop_back();
    }
    return mant + exp;
  }
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, sig - 1 - magnitude);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, a);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  const auto dot = s.find('.');
  const std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string out = r < 0 ? "-" : "";
  out.append(format_int(std::stod(whole))).append(frac);
  return out;
}

}  // namespace mlsys
