// One table of the ways a reader writes a right (or wrong) answer, checked through
// check_exercise as the site checks it, on real exercises over several seeds. Each row types
// a text built from the exercise's own answer, so the table holds whatever the draw: scales
// asked in words ("in billions": 1.552, 1.552e9, 1.552B, 1552M, 1,552,000,000), scientific
// notation (e, × 10^n, ·10⁻ⁿ, 10^9), SI and count suffixes, hours, dollars, percentage points,
// nouns the prompt asks in, bits against bytes, the precision a prompt asks for, and decimal
// commas, which are refused with a message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"

namespace {

using mlsys::Exercise;

// `x` with `sig` significant digits and no thousands separators ("1552.3456").
std::string plain(double x, int sig = 7) {
  std::string out;
  for (char c : mlsys::format_number(x, sig))
    if (c != ',') out += c;
  return out;
}

// `x` as mantissa and exponent: {"1.60412", "-6"}.
std::pair<std::string, std::string> sci(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6e", x);
  const std::string s = buf;
  const auto e = s.find('e');
  return {s.substr(0, e), std::to_string(std::stoi(s.substr(e + 1)))};
}

// The exponent in superscripts, with the superscript minus: "⁻⁶".
std::string superscript(const std::string& exponent) {
  static const char* const kSup[] = {"\u2070", "\u00B9", "\u00B2", "\u00B3", "\u2074",
                                     "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  std::string out;
  for (char c : exponent) out += c == '-' ? "\u207B" : kSup[c - '0'];
  return out;
}

// "$2.87" (a string built outside the expression: GCC 12's -Wrestrict misfires on
// "literal" + std::string&&).
std::string dollars(double x) {
  std::string s = "$";
  s += plain(x);
  return s;
}

// A whole number with a decimal point `places` from the right: (2345678, 6) → "2.345678".
std::string shifted(double n, int places) {
  std::string d = plain(n, 17);
  while (static_cast<int>(d.size()) <= places) d.insert(d.begin(), '0');
  return d.substr(0, d.size() - places) + "." + d.substr(d.size() - places);
}

struct Row {
  const char* notation;  // the notation, as the issue names it
  const char* id;        // an exercise that asks in the row's unit or scale
  std::function<std::string(const Exercise&)> typed;
  bool correct;
  const char* message;  // a part of the verdict's message ("" for any)
  // The value the verdict must report, in the exercise's unit (unset: not checked).
  std::function<double(const Exercise&)> value = nullptr;
};

TEST(AnswerNotations, EveryCommonNotationIsReadAsWritten) {
  const auto a = [](const Exercise& e) { return e.answer; };
  const std::vector<Row> table = {
      // A scale asked in words: "how many parameters ..., in billions?"
      {"billions, bare", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer); }, true, "billion", a},
      {"billions as 1.552e9", "sl-optimal-params", [](const Exercise& e) { return sci(e.answer * 1e9).first + "e" + sci(e.answer * 1e9).second; }, true, "", a},
      {"billions as 1.552B", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer) + "B"; }, true, "billion", a},
      {"billions as 1.552G", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer) + "G"; }, true, "", a},
      {"billions as 1552M", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer * 1e3) + "M"; }, true, "millions", a},
      {"billions as 1,552,000,000", "sl-optimal-params", [](const Exercise& e) { return mlsys::format_int(e.answer * 1e9); }, true, "", a},
      {"billions as 1552000000", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer * 1e9, 10); }, true, "", a},
      {"billions in words with the noun", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer) + " billion parameters"; }, true, "", a},
      {"billions as 1.552 × 10^9", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer) + " \u00D7 10^9"; }, true, "", a},
      {"billions, wrong in millions", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer * 1.2e3) + "M"; }, false, "read in millions",
       [](const Exercise& e) { return e.answer * 1.2; }},
      {"billions, wrong bare", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer * 1.2); }, false, "read in billions, as asked", nullptr},
      {"billions, bytes refused", "sl-optimal-params", [](const Exercise& e) { return plain(e.answer) + " GB"; }, false, "memory", nullptr},
      // A parameter count asked in billions, typed as a count.
      {"count as 537M", "tb-config-params", [](const Exercise& e) { return plain(e.answer * 1e3) + "M"; }, true, "", a},
      {"count as 0.537B", "tb-config-params", [](const Exercise& e) { return plain(e.answer) + "B"; }, true, "", a},
      {"count as 537,000,000", "tb-config-params", [](const Exercise& e) { return mlsys::format_int(e.answer * 1e9); }, true, "", a},
      {"count in millions", "fl-adapter-params", [](const Exercise& e) { return mlsys::format_int(e.answer * 1e6) + " parameters"; }, true, "", a},
      {"count in millions as B", "fl-adapter-params", [](const Exercise& e) { return plain(e.answer / 1e3) + "B"; }, true, "", a},
      // A whole count stays exact, and 2.345678M is exactly 2,345,678.
      {"exact count as M", "masks-causal-pairs", [](const Exercise& e) { return shifted(e.answer, 6) + "M"; }, true, "", a},
      {"exact count as k", "masks-causal-pairs", [](const Exercise& e) { return shifted(e.answer, 3) + "k"; }, true, "", a},
      {"exact count, one off as M", "masks-causal-pairs", [](const Exercise& e) { return shifted(e.answer + 1, 6) + "M"; }, false, "not the answer", nullptr},
      // Scientific notation, the prompt's own included.
      {"1.6e-6", "finite-difference-error", [](const Exercise& e) { return sci(e.answer).first + "e" + sci(e.answer).second; }, true, "", nullptr},
      {"1.6E-6", "finite-difference-error", [](const Exercise& e) { return sci(e.answer).first + "E" + sci(e.answer).second; }, true, "", nullptr},
      {"1.6 × 10^-6", "finite-difference-error", [](const Exercise& e) { return sci(e.answer).first + " \u00D7 10^" + sci(e.answer).second; }, true, "", nullptr},
      {"1.6×10^-6", "finite-difference-error", [](const Exercise& e) { return sci(e.answer).first + "\u00D710^" + sci(e.answer).second; }, true, "", nullptr},
      {"1.6 x 10^-6", "finite-difference-error", [](const Exercise& e) { return sci(e.answer).first + " x 10^" + sci(e.answer).second; }, true, "", nullptr},
      {"1.6 * 10^-6", "finite-difference-error", [](const Exercise& e) { return sci(e.answer).first + " * 10^" + sci(e.answer).second; }, true, "", nullptr},
      {"1.6·10⁻⁶", "finite-difference-error", [](const Exercise& e) { return sci(e.answer).first + "\u00B710" + superscript(sci(e.answer).second); }, true, "", nullptr},
      {"1.6 × 10⁻⁶", "finite-difference-error", [](const Exercise& e) { return sci(e.answer).first + " \u00D7 10" + superscript(sci(e.answer).second); }, true, "", nullptr},
      {"1.6 × 10^−6 (minus sign)", "finite-difference-error",
       [](const Exercise& e) {
         std::string x = sci(e.answer).second;
         if (x[0] == '-') x.replace(0, 1, "\u2212");
         return sci(e.answer).first + " \u00D7 10^" + x;
       },
       true, "", nullptr},
      {"1.6 × 10^-6, wrong", "finite-difference-error", [](const Exercise& e) { return sci(e.answer * 1.5).first + " \u00D7 10^" + sci(e.answer).second; }, false, "off by more", nullptr},
      {"10^9 alone", "sl-tokens-per-param", [](const Exercise&) { return std::string("10^9"); }, false, "", [](const Exercise&) { return 1e9; }},
      {"10⁹ alone", "sl-chinchilla-loss", [](const Exercise&) { return std::string("10\u2079"); }, false, "", [](const Exercise&) { return 1e9; }},
      {"in units of 10^21 FLOP, whole", "sl-overtraining-total", [](const Exercise& e) { return plain(e.answer * 1e21); }, true, "", a},
      {"in units of 10^21 FLOP, × 10^21", "sl-overtraining-total", [](const Exercise& e) { return plain(e.answer) + " \u00D7 10^21"; }, true, "", a},
      {"in units of 10^21 FLOP, as FLOP", "sl-overtraining-total", [](const Exercise& e) { return plain(e.answer * 1e21) + " FLOP"; }, true, "", a},
      {"in units of 10^21 FLOP, as ZFLOP", "sl-overtraining-total", [](const Exercise& e) { return plain(e.answer) + " ZFLOP"; }, true, "", a},
      {"in units of 10⁻⁴, the rate itself", "fd-sqrt-lr", [](const Exercise& e) { return plain(e.answer * 1e-4); }, true, "", a},
      {"in units of 10⁻⁴, bare", "fd-sqrt-lr", [](const Exercise& e) { return plain(e.answer); }, true, "", a},
      // Times in hours, minutes and days.
      {"10.7 h", "sf-cluster-mtbf", [](const Exercise& e) { return plain(e.answer) + " h"; }, true, "", a},
      {"10.7 hours", "sf-cluster-mtbf", [](const Exercise& e) { return plain(e.answer) + " hours"; }, true, "", a},
      {"642 min", "sf-cluster-mtbf", [](const Exercise& e) { return plain(e.answer * 60) + " min"; }, true, "minutes", a},
      {"0.446 days", "sf-cluster-mtbf", [](const Exercise& e) { return plain(e.answer / 24) + " days"; }, true, "days", a},
      {"hours, wrong in minutes", "sf-cluster-mtbf", [](const Exercise& e) { return plain(e.answer) + " min"; }, false, "read in minutes",
       [](const Exercise& e) { return e.answer / 60; }},
      {"hours, bytes refused", "sf-cluster-mtbf", [](const Exercise& e) { return plain(e.answer) + " GB"; }, false, "a time", nullptr},
      // Dollars.
      {"$2.87", "ca-break-even-price", [](const Exercise& e) { return dollars(e.answer); }, true, "$", a},
      {"2.87 USD", "ca-break-even-price", [](const Exercise& e) { return plain(e.answer) + " USD"; }, true, "", a},
      {"2.87 dollars", "ca-break-even-price", [](const Exercise& e) { return plain(e.answer) + " dollars"; }, true, "", a},
      {"$2.87 per chip-hour", "ca-break-even-price", [](const Exercise& e) { return dollars(e.answer) + " per chip-hour"; }, true, "", a},
      {"dollars, wrong", "ca-break-even-price", [](const Exercise& e) { return dollars(e.answer * 1.2); }, false, "off by more", nullptr},
      {"dollars refused for a time", "sf-cluster-mtbf", [](const Exercise& e) { return dollars(e.answer); }, false, "money", nullptr},
      // The precision the prompt asks for: to the nearest MB, to the nearest whole percent.
      {"nearest unit, rounded", "kernels-tiled-traffic", [](const Exercise& e) { return plain(std::round(e.answer), 17); }, true, "", nullptr},
      {"nearest unit, rounded from within the tolerance", "kernels-tiled-traffic",
       [](const Exercise& e) { return plain(std::round(e.answer * (1 + 0.9 * e.rel_tolerance)), 17); }, true, "", nullptr},
      {"nearest unit, the write of C forgotten", "kernels-tiled-traffic",
       [](const Exercise& e) {
         const double c_mb = e.params["m"].get<double>() * e.params["n"].get<double>() * (e.params["dtype"] == "bf16" ? 2 : 4) / 1e6;
         return plain(std::round(e.answer - c_mb), 17);
       },
       false, "off by more", nullptr},
      {"whole percent", "fd-cross-document", [](const Exercise& e) { return plain(std::round(e.answer), 17); }, true, "", nullptr},
      {"whole percent with %", "fd-cross-document", [](const Exercise& e) { return plain(std::round(e.answer), 17) + "%"; }, true, "", nullptr},
      {"whole percent, one off beyond rounding", "fd-cross-document",
       [](const Exercise& e) { return plain(std::round(e.answer) + (e.answer > std::round(e.answer) ? -1 : 1), 17); }, false, "off by more", nullptr},
      {"three significant digits", "pp-bubble-fraction", [](const Exercise& e) { return plain(e.answer, 3); }, true, "", nullptr},
      // Percentage points.
      {"4.06 points", "ev-min-detectable", [](const Exercise& e) { return plain(e.answer) + " points"; }, true, "", a},
      {"4.06 pp", "ev-min-detectable", [](const Exercise& e) { return plain(e.answer) + " pp"; }, true, "", a},
      {"4.06 percentage points", "ev-min-detectable", [](const Exercise& e) { return plain(e.answer) + " percentage points"; }, true, "", a},
      {"percent as a fraction, refused", "ev-min-detectable", [](const Exercise& e) { return plain(e.answer / 100, 6); }, false, "percent", nullptr},
      // A noun the prompt asks in is the plain number; another word is not.
      {"96 elements", "broadcast-elements", [](const Exercise& e) { return mlsys::format_int(e.answer) + " elements"; }, true, "", a},
      {"96 parsecs", "broadcast-elements", [](const Exercise& e) { return mlsys::format_int(e.answer) + " parsecs"; }, false, "remove the unit", nullptr},
      {"tokens per joule", "ca-decode-tokens-per-joule", [](const Exercise& e) { return plain(e.answer) + " tokens per joule"; }, true, "", a},
      // Bits are not bytes: a lower-case b is a bit, 8 to a byte.
      {"315.6 Gb/s", "kernels-coalescing-bandwidth", [](const Exercise& e) { return plain(e.answer * 8) + " Gb/s"; }, true, "bits", a},
      {"315.6 Gbps", "kernels-coalescing-bandwidth", [](const Exercise& e) { return plain(e.answer * 8) + " Gbps"; }, true, "bits", a},
      {"39.45 GB/s", "kernels-coalescing-bandwidth", [](const Exercise& e) { return plain(e.answer) + " GB/s"; }, true, "", a},
      {"39.45 Gb/s is not 39.45 GB/s", "kernels-coalescing-bandwidth", [](const Exercise& e) { return plain(e.answer) + " Gb/s"; }, false,
       "8 bits to a byte", [](const Exercise& e) { return e.answer / 8; }},
      {"0.3156 Tb/s", "kernels-coalescing-bandwidth", [](const Exercise& e) { return plain(e.answer * 8e-3) + " Tbit/s"; }, true, "", a},
      // Decimal commas are refused with the point to use; thousands separators stay.
      {"0,154", "kernels-coalescing-bandwidth", [](const Exercise&) { return std::string("0,154"); }, false, "use a point, as in 0.154", nullptr},
      {"1,5", "kernels-coalescing-bandwidth", [](const Exercise&) { return std::string("1,5"); }, false, "use a point", nullptr},
      {"2,870 for 2.870", "sl-optimal-params",
       [](const Exercise& e) {
         const std::string s = plain(e.answer, 17);
         const auto dot = s.find('.');
         return s.substr(0, dot) + "," + (s.substr(dot + 1) + "000").substr(0, 3);
       },
       false, "use a point", nullptr},
  };
  for (const Row& row : table) {
    for (std::uint32_t seed = 1; seed <= 12; ++seed) {
      const Exercise e = mlsys::make_exercise(row.id, seed);
      const std::string typed = row.typed(e);
      const auto r = mlsys::check_exercise(row.id, seed, typed);
      const std::string message = r["message"].get<std::string>();
      const std::string where = std::string(row.notation) + ": " + row.id + " #" + std::to_string(seed) + " '" + typed +
                                "' (answer " + mlsys::format_number(e.answer, 8) + " " + e.unit + "): " + message;
      EXPECT_EQ(r["correct"].get<bool>(), row.correct) << where;
      EXPECT_NE(message.find(row.message), std::string::npos) << where << "\n  expected it to say '" << row.message << "'";
      if (row.value) {
        ASSERT_TRUE(r["value"].is_number()) << where;
        // Typed with seven significant digits; a count exactly.
        if (e.integer) EXPECT_EQ(r["value"].get<double>(), row.value(e)) << where;
        else EXPECT_NEAR(r["value"].get<double>(), row.value(e), 1e-6 * std::fabs(row.value(e))) << where;
      }
      if (message.find("well-formed") != std::string::npos) {
        EXPECT_TRUE(r["value"].is_null()) << where;
      }
    }
  }
}

}  // namespace
