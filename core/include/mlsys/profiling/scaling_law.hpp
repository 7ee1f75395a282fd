// Scaling-law trade-offs on the loss fit of Hoffmann et al. 2022 (arXiv:2203.15556, approach 3,
// eq. 10; chinchilla_loss in training_compute.hpp, the one loss model): the iso-FLOP curve
// (every N trained on D = C / (6N) tokens) and its minimum, and the cost of a model over its
// life, training 6·N·D plus inference 2·N per token, with the cheapest model of the same loss
// (the inference-aware optimum of Sardana et al. 2024, arXiv:2401.00448, on the same fit).
// Each function takes the law's constants: the printed ones by default, or kBesiroglu2024.
#pragma once
#include <vector>

#include "mlsys/profiling/training_compute.hpp"

namespace mlsys {

struct LossPoint {
  double params = 0;  // N
  double tokens = 0;  // D
  double loss = 0;    // L(N, D)
};

// The iso-FLOP curve of budget compute_flops (FLOP): for each N of `params`, D = C / (6N)
// and the loss; `optimal` is chinchilla_optimal's closed-form minimum of that curve.
struct IsoFlopCurve {
  std::vector<LossPoint> curve;
  LossPoint optimal;
};
IsoFlopCurve iso_flop_curve(double compute_flops, const std::vector<double>& params,
                            const ChinchillaConstants& k = {});

// `count` values of N evenly spaced in log N from N_opt / 100 to N_opt · 100 (N_opt of the
// budget in the middle when count is odd), the default grid of an iso-FLOP curve.
std::vector<double> iso_flop_params(double compute_flops, int count, const ChinchillaConstants& k = {});

// Training and inference compute of N parameters trained on D tokens and then serving
// inference_tokens tokens (2·N FLOPs each, the forward pass).
struct LifetimeCompute {
  double params, tokens, loss;
  double training_flops;   // 6·N·D
  double inference_flops;  // 2·N·inference_tokens
  double total_flops;
};
LifetimeCompute lifetime_compute(double params, double tokens, double inference_tokens,
                                 const ChinchillaConstants& k = {});

// The N and D of the same loss as (params, tokens) with the least total compute, found on the
// iso-loss curve: with x the share of the reducible loss L − E spent on A/N^α, N =
// (A / (x·(L − E)))^(1/α) and D = (B / ((1 − x)·(L − E)))^(1/β), x searched over (0, 1)
// (logit grid, then golden section), keeping N ≥ 1 and D ≥ 1. With inference_tokens = 0 it
// is chinchilla_optimal of the budget whose optimum has this loss.
struct OverTraining {
  LifetimeCompute given;
  LifetimeCompute cheapest;
  double savings_fraction;  // 1 − cheapest.total_flops / given.total_flops (≥ 0)
};
OverTraining cheapest_same_loss(double params, double tokens, double inference_tokens,
                                const ChinchillaConstants& k = {});

// The curve of that loss: `count` values of N evenly spaced in log N from N*/10 to 10·N*
// (widened to reach params/2 and 2·params), N* the compute-optimal size of the loss
// (cheapest_same_loss with no inference), each with the D
// that reaches the loss, D = (B / (L − E − A/N^α))^(1/β), and its lifetime compute. An N whose
// A/N^α alone reaches the loss, or whose D would pass 10^18 tokens, is left out.
std::vector<LifetimeCompute> same_loss_curve(double params, double tokens, double inference_tokens, int count,
                                             const ChinchillaConstants& k = {});

}  // namespace mlsys
