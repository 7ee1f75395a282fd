// Exercise generator table and the seeded random source they draw from.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/splitmix.hpp"

namespace mlsys::exercises {

// Seeded source of the exercises (SplitMix64, foundations/splitmix.hpp).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL) {}
  std::uint64_t next() { return splitmix(state_); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  int integer(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
  template <class T>
  const T& pick(const std::vector<T>& items) { return items[static_cast<std::size_t>(integer(0, static_cast<int>(items.size()) - 1))]; }

 private:
  std::uint64_t state_;
};

struct Generator {
  std::string id;
  std::function<Exercise(Rng&)> make;
};

// Registration: each core/src/exercises/<group>_exercises.cpp defines add_<group>_exercises;
// the build generates the file that calls them (core/cmake/groups.cmake).
void add_exercise_groups(std::vector<Generator>& out);

}  // namespace mlsys::exercises
