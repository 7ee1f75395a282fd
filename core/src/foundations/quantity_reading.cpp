// Reading typed answers: numbers as people write them (thousands separators, e-notation,
// "× 10^-6", "10⁻⁶", "$2.87") and units of the asked quantity's dimension, converted to the
// unit the question asks in. Powers of ten are applied to the decimal text, so "0.537B" read
// as a count is exactly 537,000,000. Tables and string views, no allocation per spelling: this
// code ships in every engine part, within its size budget.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys {

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

namespace {

using View = std::string_view;

// ---------------------------------------------------------------------------------------
// Text helpers

// The parts joined: one loop rather than a chain of operator+ at each message (smaller code).
std::string cat(std::initializer_list<View> parts) {
  std::string s;
  for (View p : parts) s += p;
  return s;
}

[[noreturn]] void refuse(const std::string& message) { throw InputError("answer", message); }
[[noreturn]] void refuse(std::initializer_list<View> parts) { refuse(cat(parts)); }

char low(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return low(c) >= 'a' && low(c) <= 'z'; }

// Equal without regard to case (ASCII).
bool same(View a, View b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (low(a[i]) != low(b[i])) return false;
  return true;
}

// `s` from `pos`, at most `n` characters; never throws (string_view::substr may, and its
// throwing path at every call would grow the code).
View part(View s, std::size_t pos, std::size_t n = View::npos) {
  pos = pos < s.size() ? pos : s.size();
  return View(s.data() + pos, n < s.size() - pos ? n : s.size() - pos);
}

// Whether `p` stands in `s` at `at`.
bool has(View s, std::size_t at, View p) {
  return at <= s.size() && s.size() - at >= p.size() && std::memcmp(s.data() + at, p.data(), p.size()) == 0;
}

View trim(View s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

constexpr View kMinus = "\xE2\x88\x92";  // U+2212

// A superscript digit ⁰¹²³⁴⁵⁶⁷⁸⁹ (0-9), minus ⁻ (10) or plus ⁺ (11) at `at`, and its byte
// length; -1 when there is none.
int superscript(View s, std::size_t at, std::size_t& length) {
  static constexpr View kSup[] = {"\xE2\x81\xB0", "\xC2\xB9",     "\xC2\xB2",     "\xC2\xB3",     "\xE2\x81\xB4", "\xE2\x81\xB5",
                                  "\xE2\x81\xB6", "\xE2\x81\xB7", "\xE2\x81\xB8", "\xE2\x81\xB9", "\xE2\x81\xBB", "\xE2\x81\xBA"};
  for (int d = 0; d < 12; ++d)
    if (has(s, at, kSup[d])) return length = kSup[d].size(), d;
  return -1;
}

// An exponent after "^" (digits with an optional sign: "-6", "−6", "(-6)") or in superscripts
// ("⁻⁶"). Returns false when there is none at `i`; moves `i` past it.
bool read_exponent(View s, std::size_t& i, bool caret, long& exponent) {
  std::size_t k = i, n = 0;
  bool negative = false, digits = false;
  long e = 0;
  const auto add = [&](int d) { e = e < 100000 ? 10 * e + d : e, digits = true; };
  if (caret) {
    const bool paren = has(s, k, "(");
    k += paren;
    if (has(s, k, "-") || has(s, k, "+")) negative = s[k] == '-', ++k;
    else if (has(s, k, kMinus)) negative = true, k += kMinus.size();
    while (k < s.size() && is_digit(s[k])) add(s[k++] - '0');
    if (paren && !has(s, k++, ")")) return false;
  } else {
    int d = superscript(s, k, n);
    if (d >= 10) negative = d == 10, k += n, d = superscript(s, k, n);
    for (; d >= 0 && d < 10; d = superscript(s, k, n)) add(d), k += n;
  }
  if (!digits) return false;
  exponent = negative ? -e : e;
  i = k;
  return true;
}

// base^e by repeated squaring: plain IEEE products, the same bits natively and in WASM.
double integer_power(double base, long e) {
  double result = 1, b = base;
  for (long n = e < 0 ? -e : e; n > 0 && result < HUGE_VAL; n >>= 1, b *= b)
    if (n & 1) result *= b;
  return e < 0 ? 1 / result : result;
}

// ---------------------------------------------------------------------------------------
// Numbers

// A typed number: `digits` (sign, digits and point, no separators) × 10^exp10. The decimal
// text is kept so that powers of ten are applied exactly.
struct Decimal {
  std::string digits;
  long exp10 = 0;
  bool money = false;          // written with a leading "$"
  std::string comma_as_point;  // "2,870" with its one comma read as a decimal point ("2.870")
  double at(long shift, const std::string& text) const {
    const long e = exp10 + shift;
    if (e > 100000 || e < -100000) return e > 0 ? HUGE_VAL : 0.0;
    return std::strtod((text + "e" + std::to_string(e)).c_str(), nullptr);
  }
  double at(long shift) const { return at(shift, digits); }
};

// Reads the number at the start of `text` the way a person writes one: an optional sign
// ("-", "+" or the minus sign U+2212), an optional "$", digits with commas only between groups
// of three ("1,234,567.5"), an optional fraction and an optional exponent ("1e3", "2.5E-4",
// "1.6 × 10^-6", "1.6·10⁻⁶", "10^9", "10⁹"). Sets `rest` to what follows. Anything else that
// looks like a number ("0.0,247", "1,2,3", "1..2", "1e", "--3", ",5") throws with a sentence
// saying what is wrong, rather than being read as something the reader did not mean; so does a
// decimal comma ("0,154", "1,5"), with the point to use instead.
// Why a number is not well formed, as read_number says it.
enum Malformed { kSigns, kSignAfterDollar, kCommaFirst, kDecimalComma, kLongGroup, kGroups, kExponent, kPowerBase, kPower,
                 kTimes, kTwoExponents, kSecondPoint, kCommaAfter };
constexpr const char* kMalformed[] = {
    "it has more than one sign.",
    "put the sign before the '$', as in -$2.50.",
    "a comma cannot start a number.",
    "a comma separates thousands; for a decimal, use a point, as in ",
    "commas go between groups of three digits, as in 1,234,567; for a decimal, use a point.",
    "commas go between groups of three digits, as in 1,234,567; use a point for decimals.",
    "the exponent after 'e' needs digits, as in 1e3.",
    "only a whole number can be raised to a power, as in 10^9.",
    "write a power as 10^9 or 10^-6.",
    "after the '\xC3\x97' write a power of ten, as in 1.6 \xC3\x97 10^-6 or 1.6 \xC3\x97 10\xE2\x81\xBB\xE2\x81\xB6.",
    "it has two exponents.",
    "it has a second decimal point.",
    "a comma can only separate thousands before the decimal point."};

[[noreturn]] void malformed(View text, Malformed why, View example = "") {
  refuse({"'", quotable(std::string(text)), "' is not a well-formed number: ", kMalformed[why], example});
}

Decimal read_number(View text, View& rest) {
  const auto digit = [&](std::size_t k) { return k < text.size() && is_digit(text[k]); };
  const auto sign_at = [&](std::size_t k) { return has(text, k, "-") || has(text, k, "+") || has(text, k, kMinus); };
  Decimal d;
  std::size_t i = 0;
  View sign;  // "-" or empty
  if (sign_at(0)) sign = text[0] == '+' ? "" : "-", i = text[0] == '+' || text[0] == '-' ? 1 : kMinus.size();
  if (sign_at(i)) malformed(text, kSigns);
  if (has(text, i, "US$")) d.money = true, i += 3;
  else if (has(text, i, "$")) d.money = true, ++i;
  if (d.money && sign_at(i)) malformed(text, kSignAfterDollar);
  if (has(text, i, ",")) malformed(text, kCommaFirst);
  if (!digit(i) && !(has(text, i, ".") && digit(i + 1)))
    refuse({"Could not read a number at the start of '", quotable(std::string(text)), "'."});
  const std::size_t int_start = i;
  int groups = 0;
  while (digit(i)) ++i;
  if (has(text, i, ",")) {
    // A comma after nothing but zeros, or before a group of other than three digits that ends
    // the number, is a decimal comma: say to use a point.
    std::size_t run = i + 1;
    while (digit(run)) ++run;
    const bool last = !has(text, run, ",") && !has(text, run, ".");
    if (run > i + 1 && (text.find_first_not_of('0', int_start) >= i || (last && run - i - 1 != 3)))
      malformed(text, kDecimalComma, cat({part(text, int_start, i - int_start), ".", part(text, i + 1, run - i - 1), "."}));
    // Thousands separators: a first group of one to three digits, then groups of exactly three.
    if (i - int_start > 3) malformed(text, kLongGroup);
    for (; has(text, i, ","); i += 4, ++groups)
      if (!(digit(i + 1) && digit(i + 2) && digit(i + 3)) || digit(i + 4)) malformed(text, kGroups);
  }
  const bool point = has(text, i, ".");
  if (point)
    for (++i; digit(i);) ++i;
  // The digits and point without separators; "2,870" with its comma as a point, for a hint.
  const View number = part(text, int_start, i - int_start);
  std::string plain;
  for (char c : number) {
    if (c != ',') plain += c;
    if (groups == 1 && !point) d.comma_as_point += c == ',' ? '.' : c;
  }
  // "5EFLOP", "96elements": a letter after the e starts the unit.
  if ((has(text, i, "e") || has(text, i, "E")) && !(i + 1 < text.size() && is_letter(text[i + 1]))) {
    std::size_t k = i + 1;
    long e = 0;
    if (has(text, k, "(") || !read_exponent(text, k, true, e)) malformed(text, kExponent);
    d.exp10 = e;
    i = k;
  }
  // A power written with a caret or in superscripts: "10^9", "10⁹", "2^30".
  std::size_t k = i + has(text, i, "^"), n = 0;
  long e = 0;
  if ((k > i || superscript(text, k, n) >= 0) && read_exponent(text, k, k > i, e)) {
    if (point || groups || d.exp10 != 0) malformed(text, kPowerBase);
    if (plain == "10") {
      plain = "1", d.exp10 = e;
    } else {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", integer_power(std::strtod(plain.c_str(), nullptr), e));
      plain = buf;  // "1073741824", or "1.8446744073709552e+19": keep the exponent apart
      if (const auto at = plain.find('e'); at != std::string::npos)
        d.exp10 = std::strtol(plain.c_str() + at + 1, nullptr, 10), plain.resize(at);
    }
    i = k;
  } else if (k > i) {
    malformed(text, kPower);
  }
  // "× 10^-6", "x 10^-6", "* 10^-6", "·10⁻⁶": a mantissa times a power of ten.
  for (k = i; has(text, k, " ");) ++k;
  std::size_t m = k;
  for (View times : {View("\xC3\x97"), View("\xC2\xB7"), View("\xE2\x8B\x85"), View("\xE2\x88\x99"), View("x"), View("X"), View("*")})
    if (has(text, k, times)) m = k + times.size();
  const bool times = m > k;
  while (times && has(text, m, " ")) ++m;
  if (times && digit(m)) {
    k = m + 2 + has(text, m + 2, "^");
    if (!has(text, m, "10") || !read_exponent(text, k, k > m + 2, e)) malformed(text, kTimes);
    if (d.exp10 != 0) malformed(text, kTwoExponents);
    d.exp10 = e;
    i = k;
  }
  if (has(text, i, ".")) malformed(text, kSecondPoint);
  if (has(text, i, ",")) malformed(text, kCommaAfter);
  d.digits = cat({sign, plain});
  if (d.exp10 != 0 || d.comma_as_point.empty()) d.comma_as_point.clear();
  else d.comma_as_point = cat({sign, d.comma_as_point});
  rest = part(text, i);
  return d;
}

// ---------------------------------------------------------------------------------------
// Units

enum class Dim : unsigned char { Count, Percent, Money, Time, Bytes, ByteRate, Flop, FlopRate, Intensity };

constexpr const char* kDimDescription[] = {
    "a number", "a percent", "an amount of money (dollars)", "a time", "an amount of memory (bytes)",
    "a bandwidth (bytes per second)", "an amount of work (FLOP)", "a rate of FLOP per second",
    "an arithmetic intensity (FLOP/B)"};

// A unit: its dimension and its size in the dimension's base (bytes, seconds, FLOP, a count of
// one) as 10^p10 × mult (3600 for an hour, 1/8 for a bit, 2^30 for Gi), and its name in words
// for messages, `prefix` + `name` ("giga" + "bits per second, 8 bits to a byte").
struct Unit {
  Dim dim = Dim::Count;
  long p10 = 0;
  double mult = 1;
  const char* prefix = "";
  const char* name = "";
  long shown_power = 0;  // a leading power of ten, as in "10^21 FLOP"
};

std::string words(const Unit& u) {
  std::string w = u.shown_power ? "10^" + std::to_string(u.shown_power) + (*u.name ? " " : "") : "";
  return w + u.prefix + u.name;
}

// Every reading of a unit text, at most a few ("B" is bytes or billions).
struct Readings {
  Unit at[6];
  int n = 0;
  void add(const Unit& u) {
    if (n < 6) at[n++] = u;
  }
};

// Units named whole (no prefixes). `exact`: case matters.
struct Named {
  const char* text;
  bool exact;
  Dim dim;
  signed char p10;
  double mult;
  const char* name;
};
constexpr Named kNamed[] = {
    {"%", true, Dim::Percent, 0, 1, "percentage points"},  {"percent", false, Dim::Percent, 0, 1, "percentage points"},
    {"pct", false, Dim::Percent, 0, 1, "percentage points"}, {"points", false, Dim::Percent, 0, 1, "percentage points"},
    {"point", false, Dim::Percent, 0, 1, "percentage points"}, {"pp", false, Dim::Percent, 0, 1, "percentage points"},
    {"percentage points", false, Dim::Percent, 0, 1, "percentage points"},
    {"percentage point", false, Dim::Percent, 0, 1, "percentage points"},
    {"percent points", false, Dim::Percent, 0, 1, "percentage points"}, {"% points", false, Dim::Percent, 0, 1, "percentage points"},
    {"$", true, Dim::Money, 0, 1, "dollars"},             {"usd", false, Dim::Money, 0, 1, "dollars"},
    {"us$", false, Dim::Money, 0, 1, "dollars"},          {"dollars", false, Dim::Money, 0, 1, "dollars"},
    {"dollar", false, Dim::Money, 0, 1, "dollars"},       {"min", false, Dim::Time, 0, 60, "minutes"},
    {"mins", false, Dim::Time, 0, 60, "minutes"},         {"minute", false, Dim::Time, 0, 60, "minutes"},
    {"minutes", false, Dim::Time, 0, 60, "minutes"},      {"h", false, Dim::Time, 0, 3600, "hours"},
    {"hr", false, Dim::Time, 0, 3600, "hours"},           {"hrs", false, Dim::Time, 0, 3600, "hours"},
    {"hour", false, Dim::Time, 0, 3600, "hours"},         {"hours", false, Dim::Time, 0, 3600, "hours"},
    {"d", false, Dim::Time, 0, 86400, "days"},            {"day", false, Dim::Time, 0, 86400, "days"},
    {"days", false, Dim::Time, 0, 86400, "days"},         {"flop/b", false, Dim::Intensity, 0, 1, "FLOP per byte"},
    {"flop/byte", false, Dim::Intensity, 0, 1, "FLOP per byte"}, {"flops/byte", false, Dim::Intensity, 0, 1, "FLOP per byte"},
    {"flops/b", false, Dim::Intensity, 0, 1, "FLOP per byte"},
    // Counts in scales, after bytes and bits for "B" and "b" (the asked dimension picks).
    {"k", true, Dim::Count, 3, 1, "thousands"},           {"K", true, Dim::Count, 3, 1, "thousands"},
    {"thousand", false, Dim::Count, 3, 1, "thousands"},   {"thousands", false, Dim::Count, 3, 1, "thousands"},
    {"M", true, Dim::Count, 6, 1, "millions"},            {"million", false, Dim::Count, 6, 1, "millions"},
    {"millions", false, Dim::Count, 6, 1, "millions"},    {"mn", false, Dim::Count, 6, 1, "millions"},
    {"B", true, Dim::Count, 9, 1, "billions"},            {"G", true, Dim::Count, 9, 1, "billions"},
    {"b", true, Dim::Count, 9, 1, "billions"},            {"bn", false, Dim::Count, 9, 1, "billions"},
    {"billion", false, Dim::Count, 9, 1, "billions"},     {"billions", false, Dim::Count, 9, 1, "billions"},
    {"T", true, Dim::Count, 12, 1, "trillions"},          {"trillion", false, Dim::Count, 12, 1, "trillions"},
    {"trillions", false, Dim::Count, 12, 1, "trillions"}};

struct Prefix {
  const char* text;
  signed char p10;
  double mult;
  const char* word;
};
// SI prefixes as symbols (case matters: M is mega; m, g, t and p are also read as mega, giga,
// tera and peta for bytes and FLOP, where milli makes no sense) and as words; then binary ones.
constexpr Prefix kBig[] = {{"", 0, 1, ""},          {"k", 3, 1, "kilo"},      {"K", 3, 1, "kilo"},      {"M", 6, 1, "mega"},
                           {"m", 6, 1, "mega"},     {"G", 9, 1, "giga"},      {"g", 9, 1, "giga"},      {"T", 12, 1, "tera"},
                           {"t", 12, 1, "tera"},    {"P", 15, 1, "peta"},     {"p", 15, 1, "peta"},     {"E", 18, 1, "exa"},
                           {"Z", 21, 1, "zetta"},   {"kilo", 3, 1, "kilo"},   {"mega", 6, 1, "mega"},   {"giga", 9, 1, "giga"},
                           {"tera", 12, 1, "tera"}, {"peta", 15, 1, "peta"},  {"exa", 18, 1, "exa"},    {"zetta", 21, 1, "zetta"},
                           {"Ki", 0, 1024.0, "kibi"},          {"ki", 0, 1024.0, "kibi"},
                           {"Mi", 0, 1048576.0, "mebi"},       {"mi", 0, 1048576.0, "mebi"},
                           {"Gi", 0, 1073741824.0, "gibi"},    {"gi", 0, 1073741824.0, "gibi"},
                           {"Ti", 0, 1099511627776.0, "tebi"}, {"ti", 0, 1099511627776.0, "tebi"},
                           {"Pi", 0, 1125899906842624.0, "pebi"},
                           {"kibi", 0, 1024.0, "kibi"},        {"mebi", 0, 1048576.0, "mebi"},
                           {"gibi", 0, 1073741824.0, "gibi"},  {"tebi", 0, 1099511627776.0, "tebi"}};
constexpr int kDecimalPrefixes = 20;  // the first entries of kBig; the rest are binary
constexpr Prefix kTime[] = {{"", 0, 1, ""},           {"m", -3, 1, "milli"},    {"u", -6, 1, "micro"},
                            {"n", -9, 1, "nano"},     {"p", -12, 1, "pico"},    {"milli", -3, 1, "milli"},
                            {"micro", -6, 1, "micro"}, {"nano", -9, 1, "nano"}, {"pico", -12, 1, "pico"}};

// The prefix of `prefixes` (the first `count`) that `u` starts with, followed by one of
// `bases` (compared without case unless `exact`); null when none.
const Prefix* prefixed(View u, const Prefix* prefixes, int count, std::initializer_list<View> bases, bool exact) {
  for (int i = 0; i < count; ++i) {
    const View p = prefixes[i].text;
    if (!has(u, 0, p)) continue;
    for (View b : bases)
      if (exact ? part(u, p.size()) == b : same(part(u, p.size()), b)) return &prefixes[i];
  }
  return nullptr;
}

// Every reading of the unit text `u` ("Gb/s" is gigabits per second; "B" is bytes or, for a
// count, billions; "FLOPS" is FLOP per second or FLOP), into `out`; returns how many.
int readings_of(View u, Readings& out) {
  std::string micro;  // the micro sign (U+00B5) and Greek mu (U+03BC) both mean micro
  if (has(u, 0, "\xC2\xB5") || has(u, 0, "\xCE\xBC")) u = micro.append("u").append(part(u, 2));
  if (const Prefix* p = prefixed(u, kTime, 9, {"s", "sec", "secs", "second", "seconds"}, false))
    out.add({Dim::Time, p->p10, 1, p->word, "seconds"});
  // Bytes and bits, alone or per second. A capital B is a byte, a lower-case b a bit.
  View body = u;
  bool rate = false;
  for (View per : {View("/s"), View("/sec"), View("/second"), View(" per second")})
    if (!rate && body.size() > per.size() && same(part(body, body.size() - per.size()), per))
      body.remove_suffix(per.size()), rate = true;
  const bool ps = !rate && body.size() >= 3 && (part(body, body.size() - 3) == "Bps" || part(body, body.size() - 3) == "bps");
  if (ps) body.remove_suffix(2), rate = true;
  static constexpr const char* kBytes[] = {"bytes", "bytes per second", "bits, 8 bits to a byte", "bits per second, 8 bits to a byte"};
  for (int bits = 0; bits < 2; ++bits) {
    const Prefix* p = prefixed(body, kBig, sizeof kBig / sizeof *kBig, {bits ? "b" : "B"}, true);
    if (!p && !ps) p = prefixed(body, kBig, sizeof kBig / sizeof *kBig, {bits ? View("bit") : View("byte"), bits ? View("bits") : View("bytes")}, false);
    if (p) out.add({rate ? Dim::ByteRate : Dim::Bytes, p->p10, p->mult * (bits ? 0.125 : 1.0), p->word, kBytes[2 * bits + rate]});
  }
  // FLOP and FLOP per second; "FLOPS" and "FLOPs" are read as either, by what is asked.
  if (const Prefix* p = ps ? nullptr : prefixed(body, kBig, kDecimalPrefixes, {"flop", "flops"}, false)) {
    if (rate || low(body.back()) == 's') out.add({Dim::FlopRate, p->p10, 1, p->word, "FLOP per second"});
    if (!rate) out.add({Dim::Flop, p->p10, 1, p->word, "FLOP"});
  }
  for (const Named& n : kNamed)
    if (n.exact ? u == n.text : same(u, n.text)) out.add({n.dim, n.p10, n.mult, "", n.name});
  return out.n;
}

// A unit as text, with an optional leading power of ten ("10^21 FLOP", "10^-4", "10⁻⁴").
// `asked` picks among the readings of an ambiguous unit ("B"). Returns false when unknown.
bool read_unit(View text, const Dim* asked, Unit& out) {
  View u = trim(text);
  long power = 0;
  std::size_t k = 2 + has(u, 2, "^");
  if (has(u, 0, "10") && read_exponent(u, k, k > 2, power)) u = trim(part(u, k));
  Readings all;
  if (u.empty()) all.add({});
  else if (!readings_of(u, all)) return false;
  out = all.at[0];
  for (int i = all.n - 1; asked && i >= 0; --i)
    if (all.at[i].dim == *asked) out = all.at[i];
  out.p10 += power;
  out.shown_power = power;
  return true;
}

// Whether `word`, with an "s" after it if `plural`, stands whole in `prose` (no letter on
// either side), without regard to case.
bool word_in(View prose, View word, bool plural) {
  for (std::size_t i = 0, end; i + word.size() + plural <= prose.size(); ++i)
    if (same(part(prose, i, word.size()), word) && (!plural || low(prose[i + word.size()]) == 's') &&
        (i == 0 || !is_letter(prose[i - 1])) && ((end = i + word.size() + plural) == prose.size() || !is_letter(prose[end])))
      return true;
  return false;
}

// Whether `typed` is a noun of the prompt ("element" for "elements", "GPU" for "GPUs",
// "params" for "parameters").
bool prompt_noun(View typed, View prompt) {
  typed = trim(typed);
  Readings units;
  if (typed.size() < 2 || readings_of(typed, units)) return false;
  for (char c : typed)
    if (!is_letter(c) && c != '-') return false;
  if (same(typed, "params") || same(typed, "param")) typed = "parameter";
  return word_in(prompt, typed, false) || word_in(prompt, typed, true) ||
         (low(typed.back()) == 's' && word_in(prompt, part(typed, 0, typed.size() - 1), false));
}

// Removes nouns of the prompt from the end of `unit` ("M parameters" → "M"; "tokens per joule"
// → ""), never a unit ("GB" stays, to be refused as memory).
View without_nouns(View unit, View prompt) {
  for (int rounds = 0; rounds < 4 && !unit.empty(); ++rounds) {
    std::size_t cut = unit.rfind(' ');
    for (std::size_t p = 0; p + 5 <= unit.size(); ++p)
      if (same(part(unit, p, 5), " per ") && prompt_noun(part(unit, p + 5), prompt)) cut = p;
    Readings units;
    if (cut == unit.rfind(' ') && unit.rfind('/') != View::npos && !readings_of(unit, units) &&
        prompt_noun(part(unit, unit.rfind('/') + 1), prompt))
      cut = unit.rfind('/');
    const View last = cut == View::npos ? unit : part(unit, cut + 1);
    if (cut == unit.rfind(' ') && !prompt_noun(last, prompt)) break;
    unit = cut == View::npos ? View() : trim(part(unit, 0, cut));
  }
  return unit;
}

}  // namespace

namespace {
// Refuses a typed unit the question is not asked in (`got`: its reading, null when unknown),
// saying what to type instead.
[[noreturn]] void refuse_unit(View typed, const std::string& unit, const Unit& want, const Unit* got) {
  const bool plain_count = want.dim == Dim::Count && want.p10 == 0;
  const std::string shown = quotable(std::string(typed));
  // "answer in billions", "answer in ms": the asked unit as a sentence names it.
  const View plural = want.dim == Dim::Count && !unit.empty() && is_letter(unit[0]) ? "s" : "";
  if (want.dim == Dim::Percent) refuse("This answer is a percent; type it as a number of percent, such as 59.3 or 59.3%.");
  if (got && got->dim == Dim::Percent)
    refuse(plain_count ? "This answer is a plain number, not a percent; remove the '%'." : cat({"This answer is not a percent; answer in ", unit, plural, "."}));
  if (plain_count) refuse({"This answer is a plain number; remove the unit '", shown, "'."});
  if (!got) refuse({"Unknown unit '", shown, "'; answer in ", unit, plural, "."});
  refuse({"'", shown, "' is ", kDimDescription[static_cast<int>(got->dim)], ", but this answer is ",
          kDimDescription[static_cast<int>(want.dim)], "; answer in ", unit, plural, "."});
}
}  // namespace

QuantityReading read_quantity(const std::string& raw, const std::string& unit, const std::string& prompt) {
  if (raw.size() > 200) refuse("That answer is too long; type a number such as 1.5e3.");
  const View text = trim(raw);
  if (text.empty()) refuse("Type a number first.");
  Unit want;
  if (!read_unit(unit, nullptr, want)) refuse({"This exercise's unit '", quotable(unit), "' is unknown to the checker."});
  View rest;
  const Decimal d = read_number(text, rest);
  View typed = trim(rest);
  // Nouns of the prompt after a count or an amount of money are words, not units: "96
  // elements", "537M parameters", "$2.87 per chip-hour".
  if (want.dim == Dim::Count || want.dim == Dim::Money) typed = without_nouns(typed, prompt);
  Unit got = want;  // a bare number is read in the unit the question asks for
  if (d.money) {
    if (!typed.empty() && !(read_unit(typed, nullptr, got) && got.dim == Dim::Money))
      refuse({"'", quotable(std::string(text)), "' has two units, '$' and '", quotable(std::string(typed)), "'; type one."});
    typed = "$";
  }
  QuantityReading r;
  if (!typed.empty()) {
    r.bare = false;
    const bool known = read_unit(typed, &want.dim, got);
    if (!known || got.dim != want.dim) refuse_unit(typed, unit, want, known ? &got : nullptr);
    if (got.p10 != want.p10 || got.mult != want.mult) r.read_as = words(got);
  }
  r.value = d.at(got.p10 - want.p10) * (got.mult / want.mult);
  if (!(r.value - r.value == 0)) refuse("That number is not finite.");
  // A bare number asked in a scale ("in billions", "in units of 10^21 FLOP") may be the whole
  // quantity: 1,552,000,000 parameters is 1.552 billion.
  if (r.bare && want.p10 != 0 && want.mult == 1 && (want.dim == Dim::Count || want.shown_power != 0)) r.whole = d.at(-want.p10);
  if (r.bare && !d.comma_as_point.empty()) r.comma_as_point = d.at(0, d.comma_as_point);
  return r;
}

double parse_quantity(const std::string& text, const std::string& unit) { return read_quantity(text, unit).value; }

std::string with_unit(const std::string& number, const std::string& unit) {
  if (unit.empty()) return number;
  if (unit == "%") return cat({number, "%"});
  if (unit == "$") return number[0] == '-' ? cat({"-$", part(number, 1)}) : cat({"$", number});
  return cat({number, has(unit, 0, "10^") || has(unit, 0, "10\xE2\x81") ? " \xC3\x97 " : " ", unit});
}

}  // namespace mlsys
