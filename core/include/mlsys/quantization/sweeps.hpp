// Sweeps of the executed quantizer (quantizer.hpp) over one seeded matrix: mean-squared error
// against bit width beside the Δ²/12 model, and the clipping search that picks the clip
// fraction of max|x| with the least measured MSE (the "MSE" range setting of Nagel et al.,
// arXiv:2106.08295, section 3.1; Banner et al., "ACIQ", arXiv:1810.05723).
#pragma once
#include <vector>

#include "mlsys/quantization/quantizer.hpp"

namespace mlsys::quant {

struct BitsPoint {
  int bits;
  Measured measured;
  double ratio_to_model = 0;  // measured mse / mse_predicted (the Δ²/12 model)
  // √(12 · mse_predicted): the root-mean-square step over the blocks, the step itself with one
  // scale per tensor. The data's ordinary values have σ = 1, so this is also the step in σ.
  double step_rms = 0;
};
// One point per bit width in [bits_min, bits_max]; `s.bits` is ignored.
std::vector<BitsPoint> mse_vs_bits(const Matrix& m, Scheme s, int bits_min, int bits_max);

struct ClipPoint {
  double clip;  // fraction of max |x| per block
  Measured measured;
};
struct ClipSearch {
  std::vector<ClipPoint> points;  // clip = clip_min ... 1, evenly spaced (points ≥ 2)
  double best_clip;
  Measured best;
  Measured no_clip;  // clip = 1
  double mse_gain = 0;  // no_clip.mse / best.mse
};
// Grid search over `points` clip fractions in [clip_min, 1], then a golden-section refinement
// around the best grid point; `s.clip` is ignored.
ClipSearch clip_search(const Matrix& m, Scheme s, double clip_min, int points);

}  // namespace mlsys::quant
