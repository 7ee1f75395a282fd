// Which phase a quantization scheme speeds up (see phase_speedup.hpp).
#include "mlsys/quantization/phase_speedup.hpp"

#include "mlsys/gpu/roofline.hpp"

namespace mlsys::quant {

std::vector<SchemeCost> phase_costs(const Accelerator& hw, double params, double tokens, double group_size,
                                    std::optional<double> bandwidth_Bps) {
  std::vector<SchemeCost> out = {
      {"bf16", "bf16", "bf16", 16, true, 0, 0, ""},
      {"w8a16", "int8 (per-channel scales)", "bf16", 8, true, 0, 0, ""},
      {"w4a16", "int4 (group-wise fp16 scales)", "bf16", 4 + 16 / group_size, true, 0, 0, ""},
      {"w8a8-int8", "int8", "int8", 8, true, 0, 0, ""},
      {"w8a8-fp8", "fp8-e4m3", "fp8", 8, true, 0, 0, ""},
  };
  const double bw = bandwidth_Bps ? *bandwidth_Bps : hw.hbm_bandwidth_Bps;
  const double flops = 2 * params * tokens;
  double base = 0;
  for (auto& s : out) {
    const auto it = hw.peak_flops.find(s.math_dtype);
    if (it == hw.peak_flops.end()) {
      s.available = false;
      continue;
    }
    const auto r = roofline(flops, params * s.bits_per_weight / 8, it->second, bw);
    s.time_s = r.time_s;
    s.bound = r.bound;
    if (s.scheme == "bf16") base = r.time_s;
  }
  for (auto& s : out)
    if (s.available && base > 0) s.speedup = base / s.time_s;
  return out;
}

}  // namespace mlsys::quant
