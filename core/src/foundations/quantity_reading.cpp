// Reading typed answers: numbers as people write them (thousands separators, e-notation,
// "× 10^-6", "10⁻⁶", "$2.87") and units of the asked quantity's dimension, converted to the
// unit the question asks in. Powers of ten are applied to the decimal text, so "0.537B" read
// as a count is exactly 537,000,000.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys {

namespace {

// ---------------------------------------------------------------------------------------
// Text helpers

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\n\r");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\n\r");
  return s.substr(a, b - a + 1);
}
}  // namespace

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

std::string lower(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool starts_with(const std::string& s, std::size_t at, const char* p) { return at <= s.size() && s.compare(at, std::string(p).size(), p) == 0; }

const char* const kMinus = "\xE2\x88\x92";  // U+2212

// Superscript digits ⁰¹²³⁴⁵⁶⁷⁸⁹, minus ⁻ and plus ⁺ (UTF-8): the digit (0-9), 10 for minus,
// 11 for plus, and the byte length; -1 when `s` has none at `at`.
std::pair<int, std::size_t> superscript(const std::string& s, std::size_t at) {
  static const char* const kDigits[] = {"\xE2\x81\xB0", "\xC2\xB9", "\xC2\xB2", "\xC2\xB3", "\xE2\x81\xB4",
                                        "\xE2\x81\xB5", "\xE2\x81\xB6", "\xE2\x81\xB7", "\xE2\x81\xB8", "\xE2\x81\xB9"};
  for (int d = 0; d < 10; ++d)
    if (starts_with(s, at, kDigits[d])) return {d, std::string(kDigits[d]).size()};
  if (starts_with(s, at, "\xE2\x81\xBB")) return {10, 3};
  if (starts_with(s, at, "\xE2\x81\xBA")) return {11, 3};
  return {-1, 0};
}

// An exponent written after "^" (digits with an optional sign: "-6", "−6", "(-6)") or in
// superscripts ("⁻⁶"). Returns false when there is none at `i`; moves `i` past it.
bool read_exponent(const std::string& s, std::size_t& i, bool caret, long& exponent) {
  std::size_t k = i;
  bool negative = false, digits = false;
  long e = 0;
  const auto add = [&](int d) { e = e < 100000 ? 10 * e + d : e, digits = true; };
  if (caret) {
    const bool paren = k < s.size() && s[k] == '(';
    if (paren) ++k;
    if (k < s.size() && (s[k] == '-' || s[k] == '+')) negative = s[k] == '-', ++k;
    else if (starts_with(s, k, kMinus)) negative = true, k += 3;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) add(s[k++] - '0');
    if (paren) {
      if (k >= s.size() || s[k] != ')') return false;
      ++k;
    }
  } else {
    auto [d, n] = superscript(s, k);
    if (d == 10 || d == 11) negative = d == 10, k += n, std::tie(d, n) = superscript(s, k);
    while (d >= 0 && d < 10) add(d), k += n, std::tie(d, n) = superscript(s, k);
  }
  if (!digits) return false;
  exponent = negative ? -e : e;
  i = k;
  return true;
}

// ---------------------------------------------------------------------------------------
// Numbers

// base^e by repeated squaring: plain IEEE products, the same bits natively and in WASM.
double integer_power(double base, long e) {
  double result = 1, b = base;
  for (long n = e < 0 ? -e : e; n > 0 && std::isfinite(result); n >>= 1, b *= b)
    if (n & 1) result *= b;
  return e < 0 ? 1 / result : result;
}

// A typed number: `digits` (sign, digits and point, no separators) × 10^exp10. The decimal
// text is kept so that powers of ten are applied exactly.
struct Decimal {
  std::string digits = "0";
  long exp10 = 0;
  bool money = false;          // written with a leading "$"
  std::string comma_as_point;  // "2,870" with its one comma read as a decimal point ("2.870")
  double at(long shift) const {
    const long e = exp10 + shift;
    if (e > 100000 || e < -100000) return e > 0 ? HUGE_VAL : 0.0;
    return std::strtod((digits + "e" + std::to_string(e)).c_str(), nullptr);
  }
};

// Reads the number at the start of `text` the way a person writes one: an optional sign
// ("-", "+" or the minus sign U+2212), an optional "$", digits with commas only between groups
// of three ("1,234,567.5"), an optional fraction and an optional exponent ("1e3", "2.5E-4",
// "1.6 × 10^-6", "1.6·10⁻⁶", "10^9", "10⁹"). Sets `rest` to what follows. Anything else that
// looks like a number ("0.0,247", "1,2,3", "1..2", "1e", "--3", ",5") throws with a sentence
// saying what is wrong, rather than being read as something the reader did not mean; so does a
// decimal comma ("0,154", "1,5"), with the point to use instead.
Decimal read_number(const std::string& text, std::string& rest) {
  const auto digit = [&](std::size_t k) { return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); };
  const auto malformed = [&](const std::string& why) {
    return InputError("answer", "'" + quotable(text) + "' is not a well-formed number: " + why);
  };
  const auto sign_at = [&](std::size_t k) {
    return k < text.size() && (text[k] == '-' || text[k] == '+' || starts_with(text, k, kMinus));
  };
  Decimal d;
  std::size_t i = 0;
  std::string sign;   // "-" or ""
  std::string plain;  // the digits and point, without separators, for strtod
  if (starts_with(text, 0, kMinus)) sign = "-", i = 3;
  else if (text[0] == '-' || text[0] == '+') sign = text[0] == '-' ? "-" : "", i = 1;
  if (sign_at(i)) throw malformed("it has more than one sign.");
  if (starts_with(text, i, "US$")) d.money = true, i += 3;
  else if (i < text.size() && text[i] == '$') d.money = true, ++i;
  if (d.money && sign_at(i)) throw malformed("put the sign before the '$', as in -$2.50.");
  if (i < text.size() && text[i] == ',') throw malformed("a comma cannot start a number.");
  if (!digit(i) && !(i < text.size() && text[i] == '.' && digit(i + 1)))
    throw InputError("answer", "Could not read a number at the start of '" + quotable(text) + "'.");
  const std::size_t int_start = i;
  bool point = false, commas = false;
  while (digit(i)) plain += text[i++];
  if (i < text.size() && text[i] == ',') {
    commas = true;
    // A comma after nothing but zeros, or before a group of other than three digits that ends
    // the number, is a decimal comma: say to use a point.
    std::size_t run = i + 1;
    while (digit(run)) ++run;
    const bool last = run >= text.size() || (text[run] != ',' && text[run] != '.');
    const bool zeros = text.find_first_not_of('0', int_start) >= i;
    if (run > i + 1 && (zeros || (last && run - i - 1 != 3)))
      throw malformed("a comma separates thousands; for a decimal, use a point, as in " + text.substr(int_start, i - int_start) +
                      "." + text.substr(i + 1, run - i - 1) + ".");
    // Thousands separators: a first group of one to three digits, then groups of exactly three.
    if (i - int_start > 3) throw malformed("commas go between groups of three digits, as in 1,234,567; for a decimal, use a point.");
    int groups = 0;
    while (i < text.size() && text[i] == ',') {
      if (!(digit(i + 1) && digit(i + 2) && digit(i + 3)) || digit(i + 4))
        throw malformed("commas go between groups of three digits, as in 1,234,567; use a point for decimals.");
      plain.append(text, i + 1, 3);
      i += 4;
      ++groups;
    }
    if (groups == 1 && !(i < text.size() && text[i] == '.'))
      d.comma_as_point = sign + plain.substr(0, plain.size() - 3) + "." + plain.substr(plain.size() - 3);
  }
  if (i < text.size() && text[i] == '.') {
    point = true;
    plain += text[i++];
    while (digit(i)) plain += text[i++];
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t k = i + 1;
    // "5EFLOP", "96elements": a letter after the e starts the unit.
    if (!(k < text.size() && std::isalpha(static_cast<unsigned char>(text[k])))) {
      long e = 0;
      if (k < text.size() && text[k] == '(') throw malformed("the exponent after 'e' needs digits, as in 1e3.");
      if (!read_exponent(text, k, true, e)) throw malformed("the exponent after 'e' needs digits, as in 1e3.");
      d.exp10 = e;
      i = k;
    }
  }
  // A power written with a caret or in superscripts: "10^9", "10⁹", "2^30".
  {
    std::size_t k = i;
    long e = 0;
    const bool caret = k < text.size() && text[k] == '^';
    if (caret) ++k;
    if ((caret || superscript(text, k).first >= 0) && read_exponent(text, k, caret, e)) {
      if (point || commas || d.exp10 != 0) throw malformed("only a whole number can be raised to a power, as in 10^9.");
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
    } else if (caret) {
      throw malformed("write a power as 10^9 or 10^-6.");
    }
  }
  // "× 10^-6", "x 10^-6", "* 10^-6", "·10⁻⁶": a mantissa times a power of ten.
  {
    std::size_t k = i;
    while (k < text.size() && text[k] == ' ') ++k;
    std::size_t after = k;
    for (const char* times : {"\xC3\x97", "\xC2\xB7", "\xE2\x8B\x85", "\xE2\x88\x99", "x", "X", "*"})
      if (starts_with(text, k, times)) after = k + std::string(times).size();
    std::size_t m = after;
    while (m < text.size() && text[m] == ' ') ++m;
    if (after > k && digit(m)) {
      long e = 0;
      std::size_t p = m + 2;
      const bool caret = p < text.size() && text[p] == '^';
      if (caret) ++p;
      if (!starts_with(text, m, "10") || !read_exponent(text, p, caret, e))
        throw malformed("after the '\xC3\x97' write a power of ten, as in 1.6 \xC3\x97 10^-6 or 1.6 \xC3\x97 10\xE2\x81\xBB\xE2\x81\xB6.");
      if (d.exp10 != 0) throw malformed("it has two exponents.");
      d.exp10 = e;
      i = p;
    }
  }
  if (i < text.size() && (text[i] == '.' || text[i] == ','))
    throw malformed(text[i] == '.' ? "it has a second decimal point." : "a comma can only separate thousands before the decimal point.");
  d.digits = sign + plain;
  if (d.exp10 != 0) d.comma_as_point.clear();
  rest = text.substr(i);
  return d;
}

// ---------------------------------------------------------------------------------------
// Units

enum class Dim { Count, Percent, Money, Time, Bytes, ByteRate, Flop, FlopRate, Intensity };

const char* dim_description(Dim d) {
  switch (d) {
    case Dim::Count: return "a number";
    case Dim::Percent: return "a percent";
    case Dim::Money: return "an amount of money (dollars)";
    case Dim::Time: return "a time";
    case Dim::Bytes: return "an amount of memory (bytes)";
    case Dim::ByteRate: return "a bandwidth (bytes per second)";
    case Dim::Flop: return "an amount of work (FLOP)";
    case Dim::FlopRate: return "a rate of FLOP per second";
    case Dim::Intensity: return "an arithmetic intensity (FLOP/B)";
  }
  return "";
}

// A unit: its dimension and its size in the dimension's base (bytes, seconds, FLOP, a count of
// one), as a power of ten times a multiplier (3600 for an hour, 1/8 for a bit, 2^30 for Gi).
struct Unit {
  Dim dim = Dim::Count;
  long p10 = 0;
  double mult = 1;
  std::string words;  // what it was read as, for messages: "gigabits per second", "billions"
};

struct Prefix {
  const char* text;
  long p10;
  double mult;
  const char* word;
};

// SI prefixes as symbols (case matters: M is mega; m, g, t and p are also read as mega, giga,
// tera and peta for bytes and FLOP, where milli makes no sense) and as words.
const std::vector<Prefix>& big_prefixes() {
  static const std::vector<Prefix> p = {
      {"", 0, 1, ""},           {"k", 3, 1, "kilo"},      {"K", 3, 1, "kilo"},      {"M", 6, 1, "mega"},
      {"m", 6, 1, "mega"},      {"G", 9, 1, "giga"},      {"g", 9, 1, "giga"},      {"T", 12, 1, "tera"},
      {"t", 12, 1, "tera"},     {"P", 15, 1, "peta"},     {"p", 15, 1, "peta"},     {"E", 18, 1, "exa"},
      {"Z", 21, 1, "zetta"},    {"kilo", 3, 1, "kilo"},   {"mega", 6, 1, "mega"},   {"giga", 9, 1, "giga"},
      {"tera", 12, 1, "tera"},  {"peta", 15, 1, "peta"},  {"exa", 18, 1, "exa"},    {"zetta", 21, 1, "zetta"}};
  return p;
}
const std::vector<Prefix>& binary_prefixes() {
  static const std::vector<Prefix> p = {
      {"Ki", 0, 1024.0, "kibi"},          {"ki", 0, 1024.0, "kibi"},          {"Mi", 0, 1048576.0, "mebi"},
      {"mi", 0, 1048576.0, "mebi"},       {"Gi", 0, 1073741824.0, "gibi"},    {"gi", 0, 1073741824.0, "gibi"},
      {"Ti", 0, 1099511627776.0, "tebi"}, {"ti", 0, 1099511627776.0, "tebi"}, {"Pi", 0, 1125899906842624.0, "pebi"},
      {"kibi", 0, 1024.0, "kibi"},        {"mebi", 0, 1048576.0, "mebi"},     {"gibi", 0, 1073741824.0, "gibi"},
      {"tebi", 0, 1099511627776.0, "tebi"}};
  return p;
}
const std::vector<Prefix>& time_prefixes() {
  static const std::vector<Prefix> p = {{"", 0, 1, ""},          {"m", -3, 1, "milli"}, {"u", -6, 1, "micro"},
                                        {"n", -9, 1, "nano"},    {"p", -12, 1, "pico"}, {"milli", -3, 1, "milli"},
                                        {"micro", -6, 1, "micro"}, {"nano", -9, 1, "nano"}, {"pico", -12, 1, "pico"}};
  return p;
}

// Whether `u` is `prefix` + a spelling in `bases` (compared without case unless `exact`).
bool prefixed(const std::string& u, const std::vector<Prefix>& prefixes, const std::vector<const char*>& bases, bool exact,
              const Prefix*& found) {
  for (const auto& p : prefixes) {
    const std::string pt = p.text;
    if (u.compare(0, pt.size(), pt) != 0) continue;
    const std::string base = u.substr(pt.size());
    for (const char* b : bases)
      if (exact ? base == b : lower(base) == b) return found = &p, true;
  }
  return false;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every reading of the unit text `u` ("Gb/s" is gigabits per second; "B" is bytes or, for a
// count, billions; "FLOPS" is FLOP per second or FLOP). Empty when it is no unit.
std::vector<Unit> readings_of(std::string u) {
  std::vector<Unit> out;
  // Micro sign (U+00B5) and Greek mu (U+03BC) both mean micro.
  for (const char* mu : {"\xC2\xB5", "\xCE\xBC"})
    if (u.compare(0, 2, mu) == 0) u = "u" + u.substr(2);
  const std::string l = lower(u);
  const auto in = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (l == n) return true;
    return false;
  };
  if (in({"%", "percent", "pct", "points", "point", "pp", "percentage points", "percentage point", "percent points", "% points"}))
    out.push_back({Dim::Percent, 0, 1, "percentage points"});
  if (u == "$" || in({"usd", "us$", "dollars", "dollar"})) out.push_back({Dim::Money, 0, 1, "dollars"});
  // Times: SI prefixes on the second; minutes, hours and days as words.
  const Prefix* p = nullptr;
  if (prefixed(u, time_prefixes(), {"s", "sec", "secs", "second", "seconds"}, false, p))
    out.push_back({Dim::Time, p->p10, 1, std::string(p->word) + "seconds"});
  if (in({"min", "mins", "minute", "minutes"})) out.push_back({Dim::Time, 0, 60, "minutes"});
  if (in({"h", "hr", "hrs", "hour", "hours"})) out.push_back({Dim::Time, 0, 3600, "hours"});
  if (in({"d", "day", "days"})) out.push_back({Dim::Time, 0, 86400, "days"});
  // FLOP per byte: no prefixes.
  if (in({"flop/b", "flop/byte", "flops/byte", "flops/b"})) out.push_back({Dim::Intensity, 0, 1, "FLOP per byte"});
  // Bytes and bits, alone or per second. A capital B is a byte, a lower-case b a bit.
  std::string body = u;
  bool rate = false;
  for (const char* per : {"/s", "/sec", "/second", " per second"}) {
    const std::string ps = per;
    if (!rate && body.size() > ps.size() && lower(body.substr(body.size() - ps.size())) == ps)
      body.resize(body.size() - ps.size()), rate = true;
  }
  const bool ps_suffix = !rate && (ends_with(body, "Bps") || ends_with(body, "bps"));
  if (ps_suffix) body.resize(body.size() - 2), rate = true;
  for (const auto* list : {&big_prefixes(), &binary_prefixes()}) {
    for (const bool bits : {false, true}) {
      const std::vector<const char*> words = bits ? std::vector<const char*>{"bit", "bits"} : std::vector<const char*>{"byte", "bytes"};
      const bool word = !ps_suffix && prefixed(body, *list, words, false, p);
      if (word || prefixed(body, *list, {bits ? "b" : "B"}, true, p)) {
        const std::string what = std::string(p->word) + (bits ? "bits" : "bytes") + (rate ? " per second" : "");
        out.push_back({rate ? Dim::ByteRate : Dim::Bytes, p->p10, p->mult * (bits ? 0.125 : 1.0),
                       what + (bits ? ", 8 bits to a byte" : "")});
      }
    }
  }
  // FLOP and FLOP per second; "FLOPS" and "FLOPs" are read as either, by what is asked.
  if (!ps_suffix && prefixed(body, big_prefixes(), {"flop", "flops"}, false, p)) {
    const bool plural = lower(body).back() == 's';
    if (rate || plural) out.push_back({Dim::FlopRate, p->p10, 1, std::string(p->word) + "FLOP per second"});
    if (!rate) out.push_back({Dim::Flop, p->p10, 1, std::string(p->word) + "FLOP"});
  }
  // Counts: k, M, B (or G, bn), T and their words. Last, so that "B" alone is first bytes.
  struct Scale {
    std::vector<const char*> symbols, words;
    long p10;
    const char* name;
  };
  static const std::vector<Scale> scales = {{{"k", "K"}, {"thousand", "thousands"}, 3, "thousands"},
                                            {{"M"}, {"million", "millions", "mn"}, 6, "millions"},
                                            {{"B", "G", "b"}, {"billion", "billions", "bn"}, 9, "billions"},
                                            {{"T"}, {"trillion", "trillions"}, 12, "trillions"}};
  for (const auto& s : scales) {
    bool hit = false;
    for (const char* e : s.symbols) hit = hit || u == e;
    for (const char* w : s.words) hit = hit || l == w;
    if (hit) out.push_back({Dim::Count, s.p10, 1, s.name});
  }
  return out;
}

// A unit as text, with an optional leading power of ten ("10^21 FLOP", "10^-4", "10⁻⁴").
// `asked` picks among the readings of an ambiguous unit ("B"). Returns false when unknown.
bool read_unit(const std::string& text, const Dim* asked, Unit& out) {
  std::string u = trim(text);
  long scale = 0;
  if (starts_with(u, 0, "10")) {
    std::size_t k = 2;
    const bool caret = k < u.size() && u[k] == '^';
    if (caret) ++k;
    long e = 0;
    if (read_exponent(u, k, caret, e)) scale = e, u = trim(u.substr(k));
  }
  std::vector<Unit> all;
  if (u.empty()) all.push_back({Dim::Count, 0, 1, ""});
  else all = readings_of(u);
  if (all.empty()) return false;
  out = all[0];
  if (asked)
    for (const auto& r : all)
      if (r.dim == *asked) {
        out = r;
        break;
      }
  if (scale != 0) {
    out.p10 += scale;
    out.words = "10^" + std::to_string(scale) + (out.words.empty() ? "" : " " + out.words);
  }
  return true;
}

// The words of `prose` a reader may put after a count ("elements", "GPUs", "chip-hour" and its
// parts), lower-cased; "params" stands for "parameters".
std::vector<std::string> words_of(const std::string& prose) {
  std::vector<std::string> out;
  std::string w;
  const auto flush = [&] {
    while (!w.empty() && w.back() == '-') w.pop_back();
    if (w.size() >= 2) {
      out.push_back(lower(w));
      if (out.back() == "parameters") out.push_back("params");
      std::size_t start = 0;
      for (std::size_t h; (h = w.find('-', start)) != std::string::npos; start = h + 1) out.push_back(lower(w.substr(start, h - start)));
      if (start > 0) out.push_back(lower(w.substr(start)));
    }
    w.clear();
  };
  for (char c : prose) {
    if (std::isalpha(static_cast<unsigned char>(c)) || (c == '-' && !w.empty())) w += c;
    else flush();
  }
  flush();
  return out;
}

// Whether `typed` is a noun of the prompt ("element" for "elements", "GPU" for "GPUs").
bool prompt_noun(const std::string& typed, const std::vector<std::string>& words) {
  const std::string t = lower(trim(typed));
  if (t.size() < 2) return false;
  for (const auto& w : words)
    if (t == w || t + "s" == w || (t.back() == 's' && t.substr(0, t.size() - 1) == w)) return true;
  return false;
}

// Removes nouns of the prompt from the end of `unit` ("M parameters" → "M"; "tokens per joule"
// → ""), never a unit ("GB" stays, to be refused as memory). Returns what is left.
std::string without_nouns(std::string unit, const std::vector<std::string>& words) {
  for (int rounds = 0; rounds < 4 && !unit.empty(); ++rounds) {
    const auto per = lower(unit).rfind(" per ");
    const auto slash = unit.rfind('/');
    if (per != std::string::npos && prompt_noun(unit.substr(per + 5), words)) {
      unit = trim(unit.substr(0, per));
      continue;
    }
    if (slash != std::string::npos && readings_of(unit).empty() && prompt_noun(unit.substr(slash + 1), words)) {
      unit = trim(unit.substr(0, slash));
      continue;
    }
    const auto space = unit.rfind(' ');
    const std::string last = space == std::string::npos ? unit : unit.substr(space + 1);
    if (!readings_of(last).empty() || !prompt_noun(last, words)) break;
    unit = space == std::string::npos ? "" : trim(unit.substr(0, space));
  }
  return unit;
}

bool plain_count(const Unit& u) { return u.dim == Dim::Count && u.p10 == 0; }

// "answer in billions", "answer in ms": the unit as a sentence names it.
std::string answer_in(const std::string& unit, const Unit& u) {
  return "answer in " + (u.dim == Dim::Count && !unit.empty() && std::isalpha(static_cast<unsigned char>(unit[0])) ? unit + "s" : unit);
}

}  // namespace

QuantityReading read_quantity(const std::string& raw, const std::string& unit, const std::string& prompt) {
  if (raw.size() > 200) throw InputError("answer", "That answer is too long; type a number such as 1.5e3.");
  const std::string text = trim(raw);
  if (text.empty()) throw InputError("answer", "Type a number first.");
  Unit want;
  if (!read_unit(unit, nullptr, want))
    throw InputError("answer", "This exercise's unit '" + quotable(unit) + "' is unknown to the checker.");
  std::string rest;
  const Decimal d = read_number(text, rest);
  std::string typed = trim(rest);
  // Nouns of the prompt after a count or an amount of money are words, not units: "96
  // elements", "537M parameters", "$2.87 per chip-hour".
  if (want.dim == Dim::Count || want.dim == Dim::Money) typed = without_nouns(typed, words_of(prompt));
  if (d.money) {
    Unit other;
    if (!typed.empty() && !(read_unit(typed, nullptr, other) && other.dim == Dim::Money))
      throw InputError("answer", "'" + quotable(text) + "' has two units, '$' and '" + quotable(typed) + "'; type one.");
    typed = "$";
  }

  QuantityReading r;
  Unit got = want;  // a bare number is read in the unit the question asks for
  if (!typed.empty()) {
    r.bare = false;
    r.typed_unit = typed;
    const bool known = read_unit(typed, &want.dim, got);
    if (!known && want.dim == Dim::Percent)
      throw InputError("answer", "This answer is a percent; type it as a number of percent, such as 59.3 or 59.3%.");
    if (!known)
      throw InputError("answer", plain_count(want) ? "This answer is a plain number; remove the unit '" + quotable(typed) + "'."
                                                   : "Unknown unit '" + quotable(typed) + "'; " + answer_in(unit, want) + ".");
    if (got.dim != want.dim) {
      if (want.dim == Dim::Percent)
        throw InputError("answer", "This answer is a percent; type it as a number of percent, such as 59.3 or 59.3%.");
      if (got.dim == Dim::Percent)
        throw InputError("answer", plain_count(want) ? "This answer is a plain number, not a percent; remove the '%'."
                                                     : "This answer is not a percent; " + answer_in(unit, want) + ".");
      if (plain_count(want)) throw InputError("answer", "This answer is a plain number; remove the unit '" + quotable(typed) + "'.");
      throw InputError("answer", "'" + quotable(typed) + "' is " + dim_description(got.dim) + ", but this answer is " +
                                     dim_description(want.dim) + "; " + answer_in(unit, want) + ".");
    }
    if (got.p10 != want.p10 || got.mult != want.mult) r.read_as = got.words;
  }
  r.value = d.at(got.p10 - want.p10) * (got.mult / want.mult);
  if (!std::isfinite(r.value)) throw InputError("answer", "That number is not finite.");
  // A bare number asked in a scale ("in billions", "in units of 10^21 FLOP") may be the whole
  // quantity: 1,552,000,000 parameters is 1.552 billion.
  if (r.bare && want.p10 != 0 && want.mult == 1 && (want.dim == Dim::Count || starts_with(trim(unit), 0, "10")))
    r.whole = d.at(-want.p10);
  if (r.bare && !d.comma_as_point.empty()) {
    Decimal p = d;
    p.digits = d.comma_as_point;
    r.comma_as_point = p.at(0);
  }
  return r;
}

double parse_quantity(const std::string& text, const std::string& unit) { return read_quantity(text, unit).value; }

std::string with_unit(const std::string& number, const std::string& unit) {
  if (unit.empty()) return number;
  if (unit == "%") return number + "%";
  if (unit == "$") return number[0] == '-' ? "-$" + number.substr(1) : "$" + number;
  if (starts_with(unit, 0, "10^") || starts_with(unit, 0, "10\xE2\x81")) return number + " \xC3\x97 " + unit;
  return number + " " + unit;
}

}  // namespace mlsys
