// Reading quantities a person types ("3.4 ms", "295 FLOP/B", "1,200") and writing numbers
// for prose, identically in native code and WebAssembly.
#pragma once
#include <limits>
#include <string>
#include <vector>

namespace mlsys {

// Reads a typed answer for a question asked in `unit` and returns it in `unit`. Numbers as
// people write them: "1,234,567.5", "1.6e-6", "1.6 × 10^-6", "1.6·10⁻⁶", "10^9", "$2.87"; a
// decimal comma ("0,154") is refused with the point to use. Units of the asked dimension are
// converted: times (ns … s, min, h, days), bytes and bits (B, kB … PB, KiB … TiB; a lower-case
// b is a bit, 8 to a byte), B/s and b/s ("Gbps"), FLOP and FLOP/s with prefixes, percent
// ("%", "points", "pp"), dollars ("$", "USD") and counts in scales (k, M, B or G, T and
// their words). `unit` may carry a scale: "billion" (1.552 is 1.552 × 10^9; "1.552B", "1552M"
// and "1.552e9" are all 1.552), "10^21 FLOP", "10^-4". Words of `prompt` may follow a count
// or an amount of money ("96 elements", "537M parameters", "$2.87 per chip-hour").
// Throws InputError("answer", ...) with a sentence saying what is wrong.
struct QuantityReading {
  double value = 0;         // in `unit`
  bool bare = true;         // typed without a unit: read in `unit`
  std::string read_as;      // the typed unit in words where it differs from `unit` ("billions",
                            // "gigabits per second (8 bits to a byte)"); else empty
  double whole = std::numeric_limits<double>::quiet_NaN();  // a bare number asked in a scale, read
                            // as the whole quantity: "1552000000" asked in billions is 1.552
  double comma_as_point = std::numeric_limits<double>::quiet_NaN();  // "2,870" with its comma read
                            // as a decimal point (2.87), to point out a decimal comma
};
QuantityReading read_quantity(const std::string& text, const std::string& unit, const std::string& prompt = "");

// read_quantity(text, unit).value: "0.5 ms" read in "us" is 500.
double parse_quantity(const std::string& text, const std::string& unit);

// `s` for quoting typed text in a message: invalid UTF-8 bytes and control characters become
// '?', so the message stays valid JSON text whatever was typed.
std::string quotable(const std::string& s);

// A number (already formatted) with the unit it is in, as prose writes it: "59.3%", "$2.87",
// "1.552 billion", "112 × 10^21 FLOP", "3.4 ms", "96".
std::string with_unit(const std::string& number, const std::string& unit);

// `x` with `sig` significant digits, fixed notation for 1e-3 <= |x| < 1e7, trailing zeros
// trimmed, thousands separated by commas ("12,345", "0.0123", "2.5e+09").
std::string format_number(double x, int sig);

// Whole number with thousands separators ("268,435,456").
std::string format_int(double x);

// The numbers a reader sees in prose: "4,096", "3.35", "2.5e+09", the 59.3 of "59.3%",
// "2^30" or "10^6" as their value (text "1073741824"), and "4.01 × 10⁻⁵" as its mantissa 4.01
// and its value (text "4.0099999999999998e-05"). Digits glued to a letter name things,
// not quantities ("fp8", "H100", "e4m3", "T_c", "ZeRO-1"), and are skipped. Signs are not read.
struct PrintedNumber {
  std::string text;  // as a reader would type it
  double value;
};
std::vector<PrintedNumber> printed_numbers(const std::string& prose);

// `x` rounded to `sig` significant digits (the value a reader sees in format_number).
double round_sig(double x, int sig);

}  // namespace mlsys
