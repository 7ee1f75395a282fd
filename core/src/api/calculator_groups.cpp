// Which calculator groups this engine holds. The full engine (native, and the wasm engine
// used by Node) holds every group; a wasm part of the site (wasm/parts.json) compiles this
// file again with MLSYS_PART defined and MLSYS_CALC_<group> for each group it holds, so
// the linker leaves the other groups' code out.
#include "registry.hpp"

#ifndef MLSYS_PART
#define MLSYS_CALC_hardware
#define MLSYS_CALC_roofline
#define MLSYS_CALC_transformer
#define MLSYS_CALC_gpu
#define MLSYS_CALC_kernels
#define MLSYS_CALC_attention
#define MLSYS_CALC_numerics
#define MLSYS_CALC_memory
#define MLSYS_CALC_collectives
#define MLSYS_CALC_data_parallel
#define MLSYS_CALC_model_parallel
#define MLSYS_CALC_sequence
#define MLSYS_CALC_quantization
#define MLSYS_CALC_serving
#define MLSYS_CALC_profiling
#define MLSYS_CALC_overview
#endif

namespace mlsys::api {

void add_calculator_groups(std::vector<Calculator>& all) {
#ifdef MLSYS_CALC_hardware
  add_hardware_calculators(all);
#endif
#ifdef MLSYS_CALC_roofline
  add_roofline_calculators(all);
#endif
#ifdef MLSYS_CALC_transformer
  add_transformer_calculators(all);
#endif
#ifdef MLSYS_CALC_gpu
  add_gpu_calculators(all);
#endif
#ifdef MLSYS_CALC_kernels
  add_kernel_calculators(all);
#endif
#ifdef MLSYS_CALC_attention
  add_attention_calculators(all);
#endif
#ifdef MLSYS_CALC_numerics
  add_numerics_calculators(all);
#endif
#ifdef MLSYS_CALC_memory
  add_memory_calculators(all);
#endif
#ifdef MLSYS_CALC_collectives
  add_collective_calculators(all);
#endif
#ifdef MLSYS_CALC_data_parallel
  add_data_parallel_calculators(all);
#endif
#ifdef MLSYS_CALC_model_parallel
  add_model_parallel_calculators(all);
#endif
#ifdef MLSYS_CALC_sequence
  add_sequence_calculators(all);
#endif
#ifdef MLSYS_CALC_quantization
  add_quantization_calculators(all);
#endif
#ifdef MLSYS_CALC_serving
  add_serving_calculators(all);
#endif
#ifdef MLSYS_CALC_profiling
  add_profiling_calculators(all);
#endif
#ifdef MLSYS_CALC_overview
  add_overview_calculators(all);
#endif
}

}  // namespace mlsys::api
