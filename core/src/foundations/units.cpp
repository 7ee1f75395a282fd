// Unit-aware reading of typed answers and plain number formatting (no locale).
#include "mlsys/foundations/units.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

struct Base {
  const char* canonical;              // the dimension's own name
  std::vector<const char*> spellings; // accepted spellings (case-insensitive)
  const char* description;
};

const std::vector<Base>& bases() {
  static const std::vector<Base> b = {
      {"FLOP/s", {"flop/s", "flops/s", "flops"}, "a rate of FLOP per second"},
      {"FLOP/B", {"flop/b", "flop/byte", "flops/byte", "flops/b"}, "an arithmetic intensity (FLOP/B)"},
      {"B/s", {"b/s", "bytes/s"}, "a bandwidth (bytes per second)"},
      {"FLOP", {"flop", "flops"}, "an amount of work (FLOP)"},
      {"B", {"b", "bytes", "byte"}, "an amount of memory (bytes)"},
      {"s", {"s", "sec", "seconds"}, "a time"},
  };
  return b;
}

std::string lower(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Splits a unit into (base index, multiplier). Returns false when it is not a known unit.
bool split_unit(const std::string& unit, int& base, double& factor) {
  std::string u = unit;
  // Micro sign (U+00B5) and Greek mu (U+03BC) both mean micro.
  for (const char* mu : {"\xC2\xB5", "\xCE\xBC"}) {
    const auto pos = u.find(mu);
    if (pos == 0) u = std::string("u").append(u, 2, std::string::npos);
  }
  const std::string l = lower(u);
  const auto& all = bases();
  // Times longer than a second, in whole words (no prefixes): a training run is days long.
  static const std::vector<std::pair<const char*, double>> kLong = {
      {"min", 60.0}, {"minute", 60.0}, {"minutes", 60.0}, {"h", 3600.0}, {"hour", 3600.0},
      {"hours", 3600.0}, {"day", 86400.0}, {"days", 86400.0}};
  for (const auto& [name, seconds] : kLong) {
    if (l != name) continue;
    for (int i = 0; i < static_cast<int>(all.size()); ++i)
      if (std::string(all[i].canonical) == "s") { base = i; factor = seconds; return true; }
  }
  for (int i = 0; i < static_cast<int>(all.size()); ++i) {
    for (const char* spelling : all[i].spellings) {
      if (!ends_with(l, spelling)) continue;
      const std::string prefix = u.substr(0, u.size() - std::string(spelling).size());
      struct P { const char* p; double f; };
      static const P kTime[] = {{"", 1}, {"m", 1e-3}, {"u", 1e-6}, {"n", 1e-9}, {"p", 1e-12}};
      static const P kOther[] = {{"", 1},     {"k", 1e3},  {"K", 1e3},  {"M", 1e6},  {"m", 1e6},
                                 {"G", 1e9},  {"g", 1e9},  {"T", 1e12}, {"t", 1e12}, {"P", 1e15},
                                 {"p", 1e15}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0},
                                 {"Ti", 1099511627776.0}, {"ki", 1024.0}, {"mi", 1048576.0},
                                 {"gi", 1073741824.0}, {"ti", 1099511627776.0}};
      const bool time = std::string(all[i].canonical) == "s";
      const bool ratio = std::string(all[i].canonical) == "FLOP/B";
      if (ratio && !prefix.empty()) continue;
      if (time) {
        for (const auto& p : kTime)
          if (prefix == p.p) { base = i; factor = p.f; return true; }
      } else {
        for (const auto& p : kOther)
          if (prefix == p.p) { base = i; factor = p.f; return true; }
      }
    }
  }
  return false;
}

// `s` for quoting in a message: invalid UTF-8 bytes and control characters become '?', so the
// message stays valid JSON text whatever was typed.
std::string quotable(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = at(i);
    // Length of the sequence and the range of its second byte (RFC 3629: no overlong forms,
    // no surrogates, nothing above U+10FFFF).
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0x20 && c < 0x80) n = 1;
    else if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    bool ok = n > 0 && i + n <= s.size();
    if (ok && n > 1) ok = at(i + 1) >= lo && at(i + 1) <= hi;
    for (std::size_t k = 2; ok && k < n; ++k) ok = (at(i + k) & 0xC0) == 0x80;
    if (ok) out.append(s, i, n), i += n;
    else out += '?', ++i;
  }
  return out;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\n\r");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\n\r");
  return s.substr(a, b - a + 1);
}

// Reads the number at the start of `text` the way a person writes one: an optional sign
// ("-", "+" or the minus sign U+2212), digits with commas only between groups of three
// ("1,234,567.5"), an optional fraction and an optional exponent ("1e3", "2.5E-4").
// Sets `rest` to what follows. Anything else that looks like a number ("0.0,247", "1,2,3",
// "1..2", "1e", "--3", ",5") throws with a sentence saying what is wrong, rather than being
// read as something the reader did not mean.
double read_number(const std::string& text, std::string& rest) {
  const auto digit = [&](std::size_t k) { return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); };
  const auto malformed = [&](const std::string& why) {
    return InputError("answer", "'" + quotable(text) + "' is not a well-formed number: " + why);
  };
  std::size_t i = 0;
  std::string plain;  // the number without its commas, for strtod
  if (text.compare(0, 3, "\xE2\x88\x92") == 0) plain = "-", i = 3;
  else if (text[0] == '-' || text[0] == '+') plain = text[0], i = 1;
  if (i < text.size() && (text[i] == '-' || text[i] == '+' || text.compare(i, 3, "\xE2\x88\x92") == 0))
    throw malformed("it has more than one sign.");
  if (i < text.size() && text[i] == ',') throw malformed("a comma cannot start a number.");
  if (!digit(i) && !(i < text.size() && text[i] == '.' && digit(i + 1)))
    throw InputError("answer", "Could not read a number at the start of '" + quotable(text) + "'.");
  const std::size_t int_start = i;
  while (digit(i)) plain += text[i++];
  if (i < text.size() && text[i] == ',') {
    // Thousands separators: a first group of one to three digits, then groups of exactly three.
    if (i - int_start > 3) throw malformed("commas go between groups of three digits, as in 1,234,567.");
    while (i < text.size() && text[i] == ',') {
      if (!(digit(i + 1) && digit(i + 2) && digit(i + 3)) || digit(i + 4))
        throw malformed("commas go between groups of three digits, as in 1,234,567; use a point for decimals.");
      plain.append(text, i + 1, 3);
      i += 4;
    }
  }
  if (i < text.size() && text[i] == '.') {
    plain += text[i++];
    while (digit(i)) plain += text[i++];
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t k = i + 1;
    if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
    if (!digit(k)) throw malformed("the exponent after 'e' needs digits, as in 1e3.");
    plain += 'e';
    plain.append(text, i + 1, k - i - 1);
    for (i = k; digit(i);) plain += text[i++];
  }
  if (i < text.size() && (text[i] == '.' || text[i] == ','))
    throw malformed(text[i] == '.' ? "it has a second decimal point." : "a comma can only separate thousands before the decimal point.");
  rest = text.substr(i);
  return std::strtod(plain.c_str(), nullptr);
}

}  // namespace

double parse_quantity(const std::string& raw, const std::string& unit) {
  if (raw.size() > 200) throw InputError("answer", "That answer is too long; type a number such as 1.5e3.");
  const std::string text = trim(raw);
  if (text.empty()) throw InputError("answer", "Type a number first.");
  std::string rest;
  const double value = read_number(text, rest);
  if (!std::isfinite(value)) throw InputError("answer", "That number is not finite.");
  const std::string typed_unit = trim(rest);

  // A percent answer is read in percent points: "59.3%", "59.3 %" and "59.3" are all 59.3
  // (the checker points out a fraction such as 0.593). "%" is not a unit of anything else.
  if (unit == "%") {
    if (typed_unit.empty() || typed_unit == "%") return value;
    throw InputError("answer", "This answer is a percent; type it as a number of percent, such as 59.3 or 59.3%.");
  }
  if (typed_unit.empty()) return value;  // read in the unit the question asks for
  if (typed_unit == "%")
    throw InputError("answer", unit.empty() ? "This answer is a plain number, not a percent; remove the '%'."
                                            : "This answer is not a percent; answer in " + unit + ".");

  int want_base = -1, got_base = -1;
  double want_factor = 1, got_factor = 1;
  if (unit.empty() || !split_unit(unit, want_base, want_factor))
    throw InputError("answer", "This answer is a plain number; remove the unit '" + quotable(typed_unit) + "'.");
  if (!split_unit(typed_unit, got_base, got_factor))
    throw InputError("answer", "Unknown unit '" + quotable(typed_unit) + "'; answer in " + unit + ".");
  if (got_base != want_base)
    throw InputError("answer", "'" + quotable(typed_unit) + "' is " + bases()[got_base].description + ", but this answer is " +
                                   bases()[want_base].description + "; answer in " + unit + ".");
  const double converted = value * got_factor / want_factor;  // "1e308 s" in µs overflows
  if (!std::isfinite(converted)) throw InputError("answer", "That number is not finite.");
  return converted;
}

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
