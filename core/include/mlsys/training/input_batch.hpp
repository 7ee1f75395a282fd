// The global batch a data pipeline feeds and how the learning rate moves with it.
//
// Global batch of data-parallel training (as `global-batch`, Goyal et al. 2017):
//   sequences = per_device_batch · devices · accumulation,  tokens = sequences · seq.
// Learning rate at that batch B (tokens), from a base learning rate tuned at batch B₀:
//   linear rule (Goyal et al. 2017, "Accurate, Large Minibatch SGD", arXiv:1706.02677):
//     lr = lr₀ · B/B₀ (SGD; with a warm-up);
//   square-root rule (Malladi et al. 2022, "On the SDEs and Scaling Rules for Adaptive
//     Gradient Algorithms", arXiv:2205.10287, for Adam and RMSprop): lr = lr₀ · √(B/B₀);
//   noise-scale model (McCandlish et al. 2018, "An Empirical Model of Large-Batch Training",
//     arXiv:1812.06162, section 2): the best step size is ε(B) = ε_max / (1 + B_crit/B),
//     linear in B well below the critical batch B_crit and flat above it; anchored here so
//     that ε(B₀) = lr₀: lr = lr₀ · (1 + B_crit/B₀) / (1 + B_crit/B).
// Steps and data to reach a given loss (McCandlish et al. section 2.3, with B_noise ≈ B_crit):
//   S = S_min · (1 + B_crit/B),  E = E_min · (1 + B/B_crit):
// below B_crit doubling the batch nearly halves the steps at almost no extra data; above it,
// the steps barely fall and the data (compute) nearly doubles.
// Implemented in core/src/training/input_pipeline.cpp.
#pragma once
#include <vector>

namespace mlsys {

struct BatchLrPoint {
  double batch_tokens;
  double lr_linear, lr_sqrt, lr_noise_scale;
  double steps_factor;   // S / S_min = 1 + B_crit/B
  double tokens_factor;  // E / E_min = 1 + B/B_crit
};

struct BatchScalingResult {
  double sequences;        // per_device_batch · devices · accumulation
  double tokens;           // sequences · seq: tokens per optimizer step
  double scale;            // tokens / base_batch_tokens
  double lr_linear;        // base_lr · scale
  double lr_sqrt;          // base_lr · √scale
  double lr_noise_scale;   // base_lr · (1 + B_crit/B₀) / (1 + B_crit/B)
  double steps_factor;     // 1 + B_crit/B
  double tokens_factor;    // 1 + B/B_crit
  double steps_vs_base;    // S(B) / S(B₀)
  double tokens_vs_base;   // E(B) / E(B₀)
  std::vector<BatchLrPoint> curve;  // batch_tokens 2^14 … 2^27, doubling
};

// Throws InputError naming the field for non-positive base_lr, base_batch_tokens or
// critical_batch_tokens (counts are checked by the calculator's schema).
BatchScalingResult batch_scaling(double per_device_batch, double devices, double accumulation, double seq,
                                 double base_batch_tokens, double base_lr, double critical_batch_tokens);

// One point of the rules at batch B (tokens).
BatchLrPoint batch_lr_point(double batch_tokens, double base_batch_tokens, double base_lr, double critical_batch_tokens);

}  // namespace mlsys
