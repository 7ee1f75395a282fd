// Quantizing the KV cache: fewer bits per cached value shrink the bytes every decode step reads
// for each token of context and the memory each sequence holds, so both the step time and the
// number of sequences that fit change. The KV bytes, the decode roofline and the capacity are
// the serving lesson's models (serving/kv_cache.hpp, serving/decode.hpp); this file only says
// how many bits each format stores per value. Formats: bf16; fp8 E4M3 with one scale per
// tensor (vLLM's fp8 KV cache, docs.vllm.ai "Quantized KV Cache"); int8 with one fp16 scale per
// token and head (head_dim values); int4 with an fp16 scale and an fp16 zero point per group of
// `group_size` values, the asymmetric group-wise scheme KIVI takes down to 2 bits (Liu et al.,
// ICML 2024, arXiv:2402.02750). Dequantizing must be fused into the attention kernel for the
// bytes saved to become time saved; the roofline assumes it is.
#pragma once
#include <string>
#include <vector>

namespace mlsys::quant {

struct KvQuantSetup {
  double layers = 32, heads = 32, kv_heads = 8, head_dim = 128;  // Llama 3 8B
  double params = 8e9;          // weights multiplied and read per decode step
  double weight_bits = 16;      // bits per weight as stored (16: bf16)
  double batch = 16, context = 32768;
  double group_size = 64;       // int4 KV groups
  double hbm_bytes = 0, memory_fraction = 0.9;
  double peak_flops = 0, bandwidth_Bps = 0;  // the matmuls and attention run in bf16
};

struct KvFormatCost {
  std::string format;           // "bf16", "fp8", "int8", "int4"
  double bits_per_value;        // code bits plus scales (and zero points) per cached value
  double bytes_per_token;       // 2 · layers · kv_heads · head_dim · bits / 8
  double kv_bytes;              // batch · context · bytes_per_token
  double decode_time_s;         // roofline time of one decode step of the batch
  std::string decode_bound;     // "compute" | "memory"
  double decode_speedup;        // bf16 time / time
  double kv_share;              // KV bytes ÷ all bytes the step reads
  double max_sequences;         // sequences of `context` tokens that fit beside the weights
  double capacity_gain;         // max_sequences / bf16's (0 when bf16 fits none)
};

// Bits per cached value of `format` (throws std::invalid_argument for an unknown one).
double kv_bits_per_value(const std::string& format, double head_dim, double group_size);
const std::vector<std::string>& kv_format_names();

// One entry per format, bf16 first.
std::vector<KvFormatCost> kv_quantization(const KvQuantSetup& s);

}  // namespace mlsys::quant
