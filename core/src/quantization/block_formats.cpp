// Block-scaled MX and NVFP4 formats executed on a matrix (see block_formats.hpp).
#include "mlsys/quantization/block_formats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mlsys::quant {

MiniFloat e2m1() { return {2, 1, 1, 6.0, 2}; }
MiniFloat e2m3() { return {2, 3, 1, 7.5, 2}; }
MiniFloat e3m2() { return {3, 2, 3, 28.0, 4}; }
MiniFloat e4m3() { return {4, 3, 7, 448.0, 8}; }

double round_to_minifloat(const MiniFloat& f, double x) {
  const double a = std::fabs(x);
  if (a == 0) return 0;
  int e2 = 0;
  std::frexp(a, &e2);                          // a = m · 2^e2, m in [0.5, 1)
  const int e = std::max(e2 - 1, 1 - f.bias);  // binade of a; subnormals share the lowest one
  const double step = std::ldexp(1.0, e - f.mantissa_bits);
  const double r = std::min(std::nearbyint(a / step) * step, f.max_normal);  // ties to even
  return std::copysign(r, x);
}

const std::vector<BlockFormat>& block_formats() {
  static const std::vector<BlockFormat> all = {
      {"mxfp8", e4m3(), 32, 8, false},      {"mxfp6-e2m3", e2m3(), 32, 8, false},
      {"mxfp6-e3m2", e3m2(), 32, 8, false}, {"mxfp4", e2m1(), 32, 8, false},
      {"nvfp4", e2m1(), 16, 8, true},
  };
  return all;
}

const BlockFormat& block_format(const std::string& name) {
  for (const auto& f : block_formats())
    if (f.name == name) return f;
  throw std::invalid_argument("unknown block format " + name);
}

Measured quantize_block_format(const Matrix& m, const BlockFormat& f) {
  if (m.cols % f.block != 0) throw std::invalid_argument("the block size must divide the number of columns");
  const auto n = static_cast<long long>(m.v.size());
  double tensor_amax = 0;
  for (double v : m.v) tensor_amax = std::max(tensor_amax, std::fabs(v));
  // NVFP4's per-tensor fp32 scale maps the largest block scale (amax / 6) onto E4M3's top.
  const double tensor_scale = tensor_amax > 0 ? tensor_amax / (f.element.max_normal * 448.0) : 1.0;
  Measured r;
  double sum_sq = 0, sum_sig = 0, sum_zeroed = 0;
  long long zeroed = 0, blocks = 0;
  for (long long b0 = 0; b0 < n; b0 += f.block, ++blocks) {
    const auto first = m.v.begin() + b0, last = first + f.block;
    double amax = 0;
    for (auto it = first; it != last; ++it) amax = std::max(amax, std::fabs(*it));
    double scale = 0;
    if (amax > 0) {
      if (f.e4m3_scale) {
        scale = round_to_minifloat(e4m3(), amax / f.element.max_normal / tensor_scale) * tensor_scale;
      } else {
        int e2 = 0;
        std::frexp(amax, &e2);  // floor(log2 amax) = e2 − 1
        scale = std::ldexp(1.0, e2 - 1 - f.element.emax);
      }
    }
    for (auto it = first; it != last; ++it) {
      const double x = *it, xq = scale > 0 ? scale * round_to_minifloat(f.element, x / scale) : 0.0;
      const double e2v = (x - xq) * (x - xq);
      sum_sq += e2v;
      sum_sig += x * x;
      r.max_abs_error = std::max(r.max_abs_error, std::fabs(x - xq));
      if (x != 0 && xq == 0) {
        ++zeroed;
        sum_zeroed += e2v;
      }
    }
  }
  const double dn = static_cast<double>(n);
  r.mse = sum_sq / dn;
  r.signal_power = sum_sig / dn;
  r.sqnr_db = decibels(r.signal_power / std::max(r.mse, 1e-300));
  r.zeroed_fraction = static_cast<double>(zeroed) / dn;
  r.mse_zeroed = sum_zeroed / dn;
  r.blocks = static_cast<double>(blocks);
  r.scale_overhead_bytes = r.blocks * f.scale_bits / 8 + (f.e4m3_scale ? 4.0 : 0.0);
  r.payload_bytes = dn * f.element_bits() / 8;
  r.bits_per_value = (r.payload_bytes + r.scale_overhead_bytes) * 8 / dn;
  return r;
}

}  // namespace mlsys::quant
