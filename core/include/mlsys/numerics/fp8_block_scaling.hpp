// FP8 training with finer scales than one per tensor. A synthetic activation tensor (tokens ×
// channels, Gaussian values times a per-channel magnitude, a few outlier channels far above
// the rest) is scaled, rounded to an FP8 format and read back four ways:
//   per-tensor      one fp32 scale, amax/max (the delayed/current scaling of early FP8 recipes);
//   block-128x128   one fp32 scale per 128×128 block (DeepSeek-V3 §3.3.2, its weights);
//   tile-1x128      one fp32 scale per token per 128 channels (DeepSeek-V3 §3.3.2, activations);
//   mx-1x32         OCP Microscaling (MXFP8, Blackwell tensor cores): 32 consecutive values
//                   share a power-of-two (E8M0) scale, here amax/max rounded up to a power
//                   of two so that nothing clamps (the MX reference code, microsoft/
//                   microxcaling, takes 2^(floor(log2 amax) − emax) and saturates the values
//                   that then pass max; implementations differ).
// What each scheme loses: the share of elements stored with fewer significant bits than the
// format's normal numbers (subnormal or zero), the share flushed to zero, and the scale bits
// it spends per element.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mlsys {

struct Fp8BlockScheme {
  std::string scheme;       // per-tensor, block-128x128, tile-1x128, mx-1x32
  int block_rows = 0, block_cols = 0;
  bool power_of_two_scale = false;
  double scale_bits_per_element = 0;
  double lost_fraction = 0;   // nonzero elements stored as subnormal or zero
  double zero_fraction = 0;   // nonzero elements rounded to zero
};

struct Fp8BlockSweepPoint {
  double outlier_log2 = 0;
  std::vector<double> lost_fraction;  // per scheme, in the order of `schemes`
};

struct Fp8BlockScalingReport {
  std::string format;
  int tokens = 0, channels = 0, outlier_channels = 0;
  double outlier_log2 = 0, channel_sigma_log2 = 0, tensor_amax = 0;
  std::vector<Fp8BlockScheme> schemes;
  std::vector<Fp8BlockSweepPoint> sweep;  // outlier_log2 = 0, 2, ..., 20 (same tensor otherwise)
};

inline constexpr int kFp8BlockTokens = 128, kFp8BlockChannels = 1024;

// format: fp8-e4m3 or fp8-e5m2. outlier_channels in [0, 64]; outlier_log2 in [0, 24].
Fp8BlockScalingReport fp8_block_scaling_report(const std::string& format, int outlier_channels, double outlier_log2,
                                               double channel_sigma_log2, std::uint64_t seed);

// One group scaled the DeepSeek-V3 way (fp32 scale amax / max) and rounded with saturation:
// the value x comes back as. Shared with the lesson's exercise.
double fp8_group_dequantize(double x, double group_amax, const std::string& format);

}  // namespace mlsys
