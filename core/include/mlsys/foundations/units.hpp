// Reading quantities a person types ("3.4 ms", "295 FLOP/B", "1,200") and writing numbers
// for prose, identically in native code and WebAssembly.
#pragma once
#include <string>
#include <vector>

namespace mlsys {

// Parses `text` as a number with an optional unit and returns it expressed in `unit`
// (e.g. "us", "FLOP/B", "TFLOP/s", "" for a plain count). A unit of the same dimension with
// another prefix is converted ("0.5 ms" read in "us" is 500). Throws InputError("answer", ...)
// with a sentence saying what is wrong.
double parse_quantity(const std::string& text, const std::string& unit);

// `x` with `sig` significant digits, fixed notation for 1e-3 <= |x| < 1e7, trailing zeros
// trimmed, thousands separated by commas ("12,345", "0.0123", "2.5e+09").
std::string format_number(double x, int sig);

// Whole number with thousands separators ("268,435,456").
std::string format_int(double x);

// The numbers a reader sees in prose: "4,096", "3.35", "2.5e+09", the 59.3 of "59.3%", and
// "2^30" or "10^6" as their value (text "1073741824"). Digits glued to a letter name things,
// not quantities ("fp8", "H100", "e4m3", "T_c", "ZeRO-1"), and are skipped. Signs are not read.
struct PrintedNumber {
  std::string text;  // as a reader would type it
  double value;
};
std::vector<PrintedNumber> printed_numbers(const std::string& prose);

// `x` rounded to `sig` significant digits (the value a reader sees in format_number).
double round_sig(double x, int sig);

}  // namespace mlsys
