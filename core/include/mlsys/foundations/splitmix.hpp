// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014): tiny and fully specified, so a seed gives the same stream natively and in WASM
// (std:: distributions differ between standard libraries).
#pragma once
#include <cstdint>

namespace mlsys {

// Advances `state` and returns the next 64 random bits.
inline std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace mlsys
