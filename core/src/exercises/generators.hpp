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

void add_exercise_groups(std::vector<Generator>& out);  // exercise_groups.cpp: the groups this engine holds
void add_roofline_exercises(std::vector<Generator>& out);
void add_gpu_exercises(std::vector<Generator>& out);        // gpu_exercises.cpp
void add_kernel_exercises(std::vector<Generator>& out);     // kernels_exercises.cpp
void add_attention_exercises(std::vector<Generator>& out);  // attention_exercises.cpp
void add_numerics_exercises(std::vector<Generator>& out);   // numerics_exercises.cpp
void add_memory_exercises(std::vector<Generator>& out);     // memory_exercises.cpp
void add_collective_exercises(std::vector<Generator>& out);  // collectives_exercises.cpp
void add_data_parallel_exercises(std::vector<Generator>& out);  // data_parallel_exercises.cpp
void add_model_parallel_exercises(std::vector<Generator>& out);  // model_parallel_exercises.cpp
void add_sequence_exercises(std::vector<Generator>& out);  // sequence_exercises.cpp
void add_quantization_exercises(std::vector<Generator>& out);  // quantization_exercises.cpp
void add_serving_exercises(std::vector<Generator>& out);  // serving_exercises.cpp
void add_profiling_exercises(std::vector<Generator>& out);  // profiling_exercises.cpp

}  // namespace mlsys::exercises
