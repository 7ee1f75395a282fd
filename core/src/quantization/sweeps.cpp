// Sweeps of the executed quantizer: MSE vs bits and the clipping search (see sweeps.hpp).
#include "mlsys/quantization/sweeps.hpp"

#include <algorithm>
#include <cmath>

namespace mlsys::quant {

std::vector<BitsPoint> mse_vs_bits(const Matrix& m, Scheme s, int bits_min, int bits_max) {
  std::vector<BitsPoint> out;
  for (int b = bits_min; b <= bits_max; ++b) {
    s.bits = b;
    out.push_back({b, quantize_matrix(m, s)});
    out.back().ratio_to_model = out.back().measured.mse / out.back().measured.mse_predicted;
    out.back().step_rms = std::sqrt(12 * out.back().measured.mse_predicted);
  }
  return out;
}

ClipSearch clip_search(const Matrix& m, Scheme s, double clip_min, int points) {
  ClipSearch r;
  auto at = [&](double c) {
    s.clip = c;
    return quantize_matrix(m, s);
  };
  std::size_t best = 0;
  for (int i = 0; i < points; ++i) {
    const double c = clip_min + (1 - clip_min) * i / (points - 1);
    r.points.push_back({c, at(c)});
    if (r.points.back().measured.mse < r.points[best].measured.mse) best = r.points.size() - 1;
  }
  r.no_clip = r.points.back().measured;
  r.best_clip = r.points[best].clip;
  r.best = r.points[best].measured;
  // Golden-section refinement between the neighbours of the best grid point (MSE is close
  // to unimodal in the clip; the grid point is kept if the refinement finds nothing better).
  double a = r.points[best == 0 ? 0 : best - 1].clip, b = r.points[std::min(best + 1, r.points.size() - 1)].clip;
  const double g = 0.61803398874989484820;
  double c1 = b - g * (b - a), c2 = a + g * (b - a);
  Measured f1 = at(c1), f2 = at(c2);
  for (int it = 0; it < 20; ++it) {
    if (f1.mse < f2.mse) {
      b = c2;
      c2 = c1;
      f2 = f1;
      c1 = b - g * (b - a);
      f1 = at(c1);
    } else {
      a = c1;
      c1 = c2;
      f1 = f2;
      c2 = a + g * (b - a);
      f2 = at(c2);
    }
  }
  const Measured& f = f1.mse < f2.mse ? f1 : f2;
  if (f.mse < r.best.mse) {
    r.best = f;
    r.best_clip = f1.mse < f2.mse ? c1 : c2;
  }
  r.mse_gain = r.no_clip.mse / r.best.mse;
  return r;
}

}  // namespace mlsys::quant
