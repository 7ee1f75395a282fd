// Block-scaled floating-point formats: a block of k values shares one scale, and each value is
// a small float. OCP Microscaling (MX) Formats Specification v1.0 (2023), §5 and §6: MXFP8
// (E4M3 elements), MXFP6 (E2M3 or E3M2) and MXFP4 (E2M1), blocks of 32 with one E8M0 scale (a
// power of two, 8 bits: + 8/32 bit per value); the scale is 2^(floor(log2 amax) − emax_elem)
// and elements that exceed the format's largest normal saturate to it. NVIDIA's NVFP4: E2M1
// elements in blocks of 16 with one E4M3 scale (+ 8/16 bit per value) and one fp32 scale per
// tensor (NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference",
// 2025; Transformer Engine documentation). Executed on the lesson's seeded matrices.
#pragma once
#include <string>
#include <vector>

#include "mlsys/quantization/quantizer.hpp"

namespace mlsys::quant {

// A small float: `exponent_bits`, `mantissa_bits`, exponent bias, largest normal value, and the
// exponent of that value (emax); subnormals included, no infinities.
struct MiniFloat {
  int exponent_bits, mantissa_bits, bias;
  double max_normal;
  int emax;
};
MiniFloat e2m1();  // FP4: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}
MiniFloat e2m3();  // FP6, max 7.5
MiniFloat e3m2();  // FP6, max 28
MiniFloat e4m3();  // FP8 (OCP), max 448

// Round-to-nearest-even onto the format's grid, saturating at ±max_normal.
double round_to_minifloat(const MiniFloat& f, double x);

struct BlockFormat {
  std::string name;       // "mxfp8", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4", "nvfp4"
  MiniFloat element;
  long long block;        // values sharing one scale
  double scale_bits;      // bits of that scale
  bool e4m3_scale;        // NVFP4: E4M3 block scale under an fp32 per-tensor scale; else E8M0
  double element_bits() const { return 1.0 + element.exponent_bits + element.mantissa_bits; }
  double bits_per_value() const { return element_bits() + scale_bits / static_cast<double>(block); }
};
const std::vector<BlockFormat>& block_formats();
const BlockFormat& block_format(const std::string& name);  // throws std::invalid_argument

// Quantizes every row of m in blocks of f.block consecutive values (f.block must divide
// m.cols) and measures the error (mse, sqnr_db, zeroed_fraction, max_abs_error, blocks,
// payload, overhead and bits per value; the rounding-model and clipping fields stay 0).
Measured quantize_block_format(const Matrix& m, const BlockFormat& f);

}  // namespace mlsys::quant
