// Tensor-core and CUDA-core peaks per format (NVIDIA A100 and H100 whitepapers, datasheets).
#include "mlsys/gpu/compute_units.hpp"

namespace mlsys {

std::vector<ComputeRate> compute_units(const std::map<std::string, double>& cuda_core,
                                       const std::map<std::string, double>& peak_flops) {
  struct Row { const char* format; const char* tensor; };
  static const Row kRows[] = {{"fp64", "fp64"}, {"fp32", "tf32"}, {"fp16", "fp16"},
                              {"bf16", "bf16"}, {"fp8", "fp8"},   {"int8", "int8"}};
  std::vector<ComputeRate> out;
  for (const auto& row : kRows) {
    ComputeRate r;
    r.format = row.format;
    r.tensor_format = row.tensor;
    if (auto it = cuda_core.find(row.format); it != cuda_core.end()) r.cuda_core_flops = it->second;
    if (auto it = peak_flops.find(row.tensor); it != peak_flops.end()) r.tensor_core_flops = it->second;
    if (!r.cuda_core_flops && !r.tensor_core_flops) continue;
    if (r.cuda_core_flops && r.tensor_core_flops) r.tensor_speedup = *r.tensor_core_flops / *r.cuda_core_flops;
    out.push_back(r);
  }
  return out;
}

}  // namespace mlsys
