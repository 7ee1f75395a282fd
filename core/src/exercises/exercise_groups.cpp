// Which exercise groups this engine holds: every group, unless a wasm part of the site
// (wasm/parts.json) compiles this file again with MLSYS_PART and MLSYS_EXERCISE_<group>
// (see api/calculator_groups.cpp).
#include "generators.hpp"

#ifndef MLSYS_PART
#define MLSYS_EXERCISE_roofline
#define MLSYS_EXERCISE_gpu
#define MLSYS_EXERCISE_kernels
#define MLSYS_EXERCISE_attention
#define MLSYS_EXERCISE_numerics
#define MLSYS_EXERCISE_memory
#define MLSYS_EXERCISE_collectives
#define MLSYS_EXERCISE_data_parallel
#define MLSYS_EXERCISE_model_parallel
#define MLSYS_EXERCISE_sequence
#define MLSYS_EXERCISE_quantization
#define MLSYS_EXERCISE_serving
#define MLSYS_EXERCISE_profiling
#endif

namespace mlsys::exercises {

void add_exercise_groups(std::vector<Generator>& g) {
#ifdef MLSYS_EXERCISE_roofline
  add_roofline_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_gpu
  add_gpu_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_kernels
  add_kernel_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_attention
  add_attention_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_numerics
  add_numerics_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_memory
  add_memory_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_collectives
  add_collective_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_data_parallel
  add_data_parallel_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_model_parallel
  add_model_parallel_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_sequence
  add_sequence_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_quantization
  add_quantization_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_serving
  add_serving_exercises(g);
#endif
#ifdef MLSYS_EXERCISE_profiling
  add_profiling_exercises(g);
#endif
}

}  // namespace mlsys::exercises
