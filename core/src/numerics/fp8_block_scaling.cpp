// FP8 per-tensor, block, tile and MX scaling on a synthetic activation tensor (see the header).
#include "mlsys/numerics/fp8_block_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/numerics/float_format.hpp"

namespace mlsys {

namespace {

double round12(double x) { return round_sig(x, 12); }

// 2^l for whole l, and between whole numbers the straight line 2^k·(1 + f): only exact
// operations, so native and WebAssembly builds (different exp2) draw the same tensor.
double pow2_linear(double l) {
  const double k = std::floor(l);
  return std::ldexp(1.0 + (l - k), static_cast<int>(k));
}

struct SchemeSpec {
  const char* name;
  int rows, cols;
  bool pow2;
  double scale_bits;
};
const SchemeSpec kSchemes[] = {
    {"per-tensor", kFp8BlockTokens, kFp8BlockChannels, false, 32},
    {"block-128x128", 128, 128, false, 32},
    {"tile-1x128", 1, 128, false, 32},
    {"mx-1x32", 1, 32, true, 8},
};

struct Tally {
  double lost = 0, zero = 0;
};

// Quantizes every group of `x` (row-major tokens × channels) with the scheme's scale.
Tally quantize(const std::vector<double>& x, const SchemeSpec& s, const FloatFormat& f) {
  Tally t;
  for (int r0 = 0; r0 < kFp8BlockTokens; r0 += s.rows)
    for (int c0 = 0; c0 < kFp8BlockChannels; c0 += s.cols) {
      double amax = 0;
      for (int r = r0; r < r0 + s.rows; ++r)
        for (int c = c0; c < c0 + s.cols; ++c) amax = std::max(amax, std::fabs(x[r * kFp8BlockChannels + c]));
      if (amax == 0) continue;
      // fp32 scale: amax lands on max exactly. Power-of-two scale: amax / max rounded up to a
      // power of two, so that amax lands in (max/2, max] and nothing clamps.
      const double ratio = amax / f.max;
      int e = 0;
      const double m = std::frexp(ratio, &e);  // ratio = m · 2^e, m in [0.5, 1)
      const double scale = !s.pow2 ? ratio : (m == 0.5 ? ratio : std::ldexp(1.0, e));
      for (int r = r0; r < r0 + s.rows; ++r)
        for (int c = c0; c < c0 + s.cols; ++c) {
          const double v = x[r * kFp8BlockChannels + c];
          // A value at or above the smallest normal stays normal when rounded: only the rest
          // need rounding (most of the tensor, so this is most of the figure's time).
          if (v == 0 || std::fabs(v / scale) >= f.min_normal) continue;
          const Rounded q = round_to_format(v / scale, f, Overflow::Saturate);
          if (q.subnormal || q.value == 0) t.lost += 1;
          if (q.value == 0) t.zero += 1;
        }
    }
  return t;
}

}  // namespace

double fp8_group_dequantize(double x, double group_amax, const std::string& format) {
  const FloatFormat& f = float_format(format);
  const double scale = group_amax / f.max;
  return round_to_format(x / scale, f, Overflow::Saturate).value * scale;
}

Fp8BlockScalingReport fp8_block_scaling_report(const std::string& format, int outlier_channels, double outlier_log2,
                                               double channel_sigma_log2, std::uint64_t seed) {
  if (format != "fp8-e4m3" && format != "fp8-e5m2") throw std::invalid_argument("format must be fp8-e4m3 or fp8-e5m2");
  const FloatFormat& f = float_format(format);
  SeededStream rng(mix_seed(seed, 0x3C6EF372FE94F82BULL));
  // Channel magnitudes, outlier channels (distinct, seeded), then the values.
  std::vector<double> channel(kFp8BlockChannels);
  for (double& c : channel) c = pow2_linear(channel_sigma_log2 * rng.normal());
  std::vector<int> order(kFp8BlockChannels);
  for (int i = 0; i < kFp8BlockChannels; ++i) order[i] = i;
  for (int i = 0; i < outlier_channels; ++i)
    std::swap(order[i], order[i + static_cast<int>(rng.below(static_cast<std::uint64_t>(kFp8BlockChannels - i)))]);
  std::vector<bool> outlier(kFp8BlockChannels, false);
  for (int i = 0; i < outlier_channels; ++i) outlier[order[i]] = true;
  std::vector<double> z(static_cast<std::size_t>(kFp8BlockTokens) * kFp8BlockChannels);
  for (double& v : z) v = rng.normal();
  const auto tensor = [&](double boost_log2) {
    std::vector<double> x(z.size());
    const double boost = pow2_linear(boost_log2);
    for (int r = 0; r < kFp8BlockTokens; ++r)
      for (int c = 0; c < kFp8BlockChannels; ++c)
        x[r * kFp8BlockChannels + c] = z[r * kFp8BlockChannels + c] * channel[c] * (outlier[c] ? boost : 1.0);
    return x;
  };

  Fp8BlockScalingReport out;
  out.format = f.name;
  out.tokens = kFp8BlockTokens;
  out.channels = kFp8BlockChannels;
  out.outlier_channels = outlier_channels;
  out.outlier_log2 = outlier_log2;
  out.channel_sigma_log2 = channel_sigma_log2;
  const std::vector<double> x = tensor(outlier_log2);
  double amax = 0;
  for (double v : x) amax = std::max(amax, std::fabs(v));
  out.tensor_amax = round12(amax);
  const double n = static_cast<double>(x.size());
  for (const SchemeSpec& s : kSchemes) {
    const Tally t = quantize(x, s, f);
    out.schemes.push_back({s.name, s.rows, s.cols, s.pow2, round12(s.scale_bits / (s.rows * s.cols)),
                           round12(t.lost / n), round12(t.zero / n)});
  }
  for (int k = 0; k <= 20; k += 2) {
    const std::vector<double> xs = tensor(k);
    Fp8BlockSweepPoint p{static_cast<double>(k), {}};
    for (const SchemeSpec& s : kSchemes) p.lost_fraction.push_back(round12(quantize(xs, s, f).lost / n));
    out.sweep.push_back(p);
  }
  return out;
}

}  // namespace mlsys
