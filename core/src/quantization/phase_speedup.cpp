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

QuantizationSpeedup quantization_speedup(const Accelerator& hw, double params, double decode_batch,
                                         double prefill_tokens, double group_size,
                                         std::optional<double> bandwidth_Bps) {
  const double p = params;
  const auto dec = phase_costs(hw, p, decode_batch, group_size, bandwidth_Bps);
  const auto pre = phase_costs(hw, p, prefill_tokens, group_size, bandwidth_Bps);
  QuantizationSpeedup o{hw.id, {}};
  for (std::size_t i = 0; i < dec.size(); ++i) {
    SchemeSpeedup s;
    s.scheme = dec[i].scheme;
    s.weight_format = dec[i].weight_format;
    s.math_dtype = dec[i].math_dtype;
    s.bits_per_weight = dec[i].bits_per_weight;
    s.weight_bytes = p * dec[i].bits_per_weight / 8;
    s.available = dec[i].available;
    if (dec[i].available) {
      s.decode_time_s = dec[i].time_s;
      s.decode_bound = dec[i].bound;
      s.decode_speedup = dec[i].speedup;
      s.prefill_time_s = pre[i].time_s;
      s.prefill_bound = pre[i].bound;
      s.prefill_speedup = pre[i].speedup;
    }
    o.schemes.push_back(s);
  }
  return o;
}

}  // namespace mlsys::quant
