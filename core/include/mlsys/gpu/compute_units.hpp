// Tensor cores against CUDA cores: the dense peak of each kind of unit per number format, from
// NVIDIA's whitepapers and datasheets (hardware table: peak_flops for tensor cores and fp32
// CUDA cores, cuda_core_flops for the non-tensor rates). fp32 inputs reach the tensor cores
// only as tf32.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

struct ComputeRate {
  std::string format;                     // "fp64" | "fp32" | "fp16" | "bf16" | "fp8" | "int8"
  std::string tensor_format;              // the tensor-core format serving it ("tf32" for fp32)
  std::optional<double> cuda_core_flops;  // FLOP/s (int8: op/s), none when the CUDA cores lack it
  std::optional<double> tensor_core_flops;
  std::optional<double> tensor_speedup;   // tensor / CUDA core, when both exist
};

// cuda_core: format -> FLOP/s of the CUDA cores; tensor: the table's peak_flops (format -> FLOP/s,
// where "fp32" is the CUDA-core rate and is not a tensor rate). Rows in the order above; a row
// is kept when either unit has a rate.
std::vector<ComputeRate> compute_units(const std::map<std::string, double>& cuda_core,
                                       const std::map<std::string, double>& peak_flops);

}  // namespace mlsys
