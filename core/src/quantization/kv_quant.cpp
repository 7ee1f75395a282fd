// KV-cache formats priced with the serving models (see kv_quant.hpp).
#include "mlsys/quantization/kv_quant.hpp"

#include <stdexcept>

#include "mlsys/serving/decode.hpp"
#include "mlsys/serving/kv_cache.hpp"

namespace mlsys::quant {

const std::vector<std::string>& kv_format_names() {
  static const std::vector<std::string> names = {"bf16", "fp8", "int8", "int4"};
  return names;
}

double kv_bits_per_value(const std::string& format, double head_dim, double group_size) {
  if (format == "bf16") return 16;
  if (format == "fp8") return 8;  // one fp32 scale per tensor: nothing per value
  if (format == "int8") return 8 + 16 / head_dim;
  if (format == "int4") return 4 + 32 / group_size;
  throw std::invalid_argument("unknown KV format " + format);
}

std::vector<KvFormatCost> kv_quantization(const KvQuantSetup& s) {
  std::vector<KvFormatCost> out;
  const double weight_bytes = s.params * s.weight_bits / 8;
  for (const auto& f : kv_format_names()) {
    KvFormatCost c;
    c.format = f;
    c.bits_per_value = kv_bits_per_value(f, s.head_dim, s.group_size);
    c.bytes_per_token = kv_bytes_per_token(s.layers, s.kv_heads, s.head_dim, c.bits_per_value / 8);
    c.kv_bytes = s.batch * s.context * c.bytes_per_token;
    const ServingModel m{s.params, weight_bytes, c.bytes_per_token, s.layers, s.heads, s.head_dim};
    const PhaseCost step = decode_step_cost(m, s.batch, s.context, s.peak_flops, s.bandwidth_Bps);
    c.decode_time_s = step.time_s;
    c.decode_bound = step.bound;
    c.kv_share = c.kv_bytes / step.bytes;
    c.max_sequences = kv_capacity(s.hbm_bytes, s.memory_fraction, weight_bytes, c.bytes_per_token, s.context).max_sequences;
    out.push_back(c);
  }
  for (auto& c : out) {
    c.decode_speedup = out[0].decode_time_s / c.decode_time_s;
    c.capacity_gain = out[0].max_sequences > 0 ? c.max_sequences / out[0].max_sequences : 0;
  }
  return out;
}

}  // namespace mlsys::quant
