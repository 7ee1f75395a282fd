// SmoothQuant (Xiao et al., ICML 2023, arXiv:2211.10438): Y = X·W is unchanged by
// X' = X·diag(s)^−1, W' = diag(s)·W; the per-input-channel smoothing factor
// s_j = max|X_j|^α / max|W_j|^(1−α) moves quantization difficulty from activations with
// outlier channels to the weights. Executed here on seeded X and W with W8A8: per-tensor
// symmetric activations, per-output-channel symmetric weights, errors measured against the
// fp64 product.
#pragma once
#include <cstdint>
#include <vector>

namespace mlsys::quant {

struct SmoothQuantSetup {
  long long tokens = 64;         // rows of X
  long long channels = 128;      // columns of X = rows of W (input channels)
  long long out_features = 128;  // columns of W
  long long outlier_channels = 4;
  double outlier_scale = 30;     // outlier columns of X are N(0, outlier_scale²)
  int bits = 8;
  std::uint64_t seed = 1;
};

struct SmoothQuantErrors {
  double activation_rel_mse;  // ‖Q(X') − X'‖² / ‖X'‖²
  double weight_rel_mse;      // ‖Q(W') − W'‖² / ‖W'‖²
  double output_rel_mse;      // ‖Q(X')·Q(W') − X·W‖² / ‖X·W‖²
  double activation_channel_spread;  // max over channels of max|X'_j| ÷ median of them
  double weight_channel_spread;      // the same for the rows of W'
};

struct SmoothQuantResult {
  SmoothQuantErrors baseline;  // no smoothing (s = 1): plain W8A8
  std::vector<double> alphas;
  std::vector<SmoothQuantErrors> sweep;  // one per alpha
};

// Smoothing factors s_j for migration strength alpha in [0, 1] (x_absmax, w_absmax > 0).
std::vector<double> smoothing_factors(const std::vector<double>& x_absmax, const std::vector<double>& w_absmax,
                                      double alpha);

// Executes W8A8 (bits from setup) at each alpha and without smoothing.
SmoothQuantResult smoothquant(const SmoothQuantSetup& setup, const std::vector<double>& alphas);

// Multiply-adds one call executes: tokens·channels·out_features per product, for the
// baseline, the reference and each alpha.
double smoothquant_work(const SmoothQuantSetup& setup, std::size_t alphas);

// `points` alphas evenly from 0 to 1, then `alpha` (the sweep and the chosen strength).
std::vector<double> smoothquant_alphas(long long points, double alpha);

// smoothquant over alphas (the last one is the chosen strength, the others the sweep): the
// errors at the chosen alpha, without smoothing, at each sweep alpha, and the sweep alpha
// with the least output error (the first of equals).
struct SmoothQuantPoint {
  double alpha;
  SmoothQuantErrors errors;
};
struct SmoothQuantSweep {
  double alpha;
  SmoothQuantErrors smoothed, baseline;
  std::vector<SmoothQuantPoint> points;
  double best_alpha, best_output_rel_mse;
};
SmoothQuantSweep smoothquant_sweep(const SmoothQuantSetup& setup, const std::vector<double>& alphas);

}  // namespace mlsys::quant
