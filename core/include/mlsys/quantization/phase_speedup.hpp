// Which phase a quantization scheme speeds up, by the roofline model (gpu/roofline.hpp):
// the linear layers of a model with N parameters process `tokens` tokens per step with
// 2·N·tokens FLOPs and read every weight once (N · bits-per-weight / 8 bytes; activations,
// KV cache and dequantization work are left out, so these are bounds). Weight-only schemes
// (W8A16, W4A16) shrink the bytes but still multiply in bf16; W8A8 schemes (int8, fp8) also
// run at the int8 / fp8 tensor-core peak (Lin et al., AWQ, arXiv:2306.00978; Xiao et al.,
// SmoothQuant, arXiv:2211.10438; Micikevicius et al., FP8 formats, arXiv:2209.05433).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::quant {

struct SchemeCost {
  std::string scheme;         // "bf16", "w8a16", "w4a16", "w8a8-int8", "w8a8-fp8"
  std::string weight_format;  // what the weights are stored in
  std::string math_dtype;     // the tensor-core format the matmuls run in (a key of peak_flops)
  double bits_per_weight;     // storage, scales included
  bool available;             // false when the chip publishes no peak for math_dtype
  double time_s = 0, speedup = 0;  // roofline time of one step and bf16 time ÷ time
  std::string bound;               // "compute" | "memory"
};

// Per-scheme roofline time of one step over `tokens` tokens. group_size: the int4 group
// (one fp16 scale per group: 4 + 16/group_size bits per weight); int8 weight-only uses one
// scale per output row, taken as negligible. bandwidth_Bps overrides the chip's when given.
std::vector<SchemeCost> phase_costs(const Accelerator& hw, double params, double tokens, double group_size,
                                    std::optional<double> bandwidth_Bps);

// phase_costs for one decode step (decode_batch tokens) and one prefill step (prefill_tokens
// tokens), per scheme; the times, bounds and speedups are there only when available.
struct SchemeSpeedup {
  std::string scheme, weight_format, math_dtype;
  double bits_per_weight;
  double weight_bytes;  // params · bits_per_weight / 8
  bool available;
  std::optional<double> decode_time_s;
  std::optional<std::string> decode_bound;
  std::optional<double> decode_speedup, prefill_time_s;
  std::optional<std::string> prefill_bound;
  std::optional<double> prefill_speedup;
};
struct QuantizationSpeedup {
  std::string hardware;  // the accelerator's id
  std::vector<SchemeSpeedup> schemes;
};
QuantizationSpeedup quantization_speedup(const Accelerator& hw, double params, double decode_batch,
                                         double prefill_tokens, double group_size,
                                         std::optional<double> bandwidth_Bps);

}  // namespace mlsys::quant
