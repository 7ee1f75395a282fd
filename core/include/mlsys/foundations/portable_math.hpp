// Natural log and exp built from + − × ÷ only, so native code and WASM give the same bits
// (the C libraries differ in the last bit, and glibc picks FMA variants by CPU). Used where a
// seeded simulation must produce identical output everywhere.
#pragma once
#include <cstdint>

namespace mlsys {

double portable_log(double x);  // x > 0
double portable_exp(double x);  // |x| ≤ 700

// A standard normal pair by Marsaglia's polar method on SplitMix64 uniforms (no trigonometry).
struct NormalPair {
  double a, b;
};
NormalPair portable_normal_pair(std::uint64_t& state);

}  // namespace mlsys
