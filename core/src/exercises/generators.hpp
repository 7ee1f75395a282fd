// Exercise generator table and the seeded random source they draw from.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/deterministic.hpp"

namespace mlsys::exercises {

// Seeded source of the exercises: a SeededStream (foundations/deterministic.hpp; next,
// uniform on [0, 1), integer in [lo, hi]) with a uniform pick from a list.
class Rng : public SeededStream {
 public:
  explicit Rng(std::uint64_t seed) : SeededStream(mix_seed(seed, 0x632BE59BD9B4E019ULL)) {}
  template <class T>
  const T& pick(const std::vector<T>& items) { return items[static_cast<std::size_t>(integer(0, static_cast<int>(items.size()) - 1))]; }
};

struct Generator {
  std::string id;
  std::function<Exercise(Rng&)> make;
  std::string group{};  // the <group>_exercises.cpp that adds it (set by the generated registry)
};

// Registration: each core/src/exercises/<group>_exercises.cpp defines add_<group>_exercises;
// the build generates the file that calls them (core/cmake/groups.cmake), and names the
// group of the generators each call added.
void add_exercise_groups(std::vector<Generator>& out);
inline void set_group(std::vector<Generator>& out, std::size_t first, const char* group) {
  for (std::size_t i = first; i < out.size(); ++i) out[i].group = group;
}

// {exercise id: its group}, of the exercises this engine holds (wasm/bindings.cpp).
nlohmann::json exercise_groups();

}  // namespace mlsys::exercises
