// Loss spikes from rare bad batches, and gradient-norm clipping (the `loss-spikes` and
// `clip-grad-norm` calculators). A toy that shows the mechanism, executed step by step; it is
// not a model of a language model's training run.
//
// Problem: linear regression in d = 8 dimensions, y = w*·x + σε with σ = 0.1, w* ~ N(0, I)
// and w₀ = 0. Inputs x = Σ^½ z, z ~ N(0, I), with Σ diagonal, eigenvalues λ_i = κ^(−i/(d−1))
// from 1 down to 1/κ (κ = condition_number). The loss reported per step is the population
// loss of the current weights, L(w) = ½ (w − w*)ᵀ Σ (w − w*) + ½σ² (exact, no batch noise);
// the gradient of one batch of B examples is g = (1/B) Σ_b x_b (x_bᵀ w − y_b).
// Bad batches: each step, with probability spike_rate, the batch's inputs are multiplied by
// spike_scale (a batch of outliers; its labels follow the same w*). Its curvature is
// spike_scale² times the usual one, so a learning rate that is stable on clean batches
// overshoots on it: one plain SGD step multiplies the error along the top eigenvector by
// (1 − lr·s²·λ_max) on average, the loss along it by that squared (bad_step_loss_factor).
// Optimizer: SGD with heavy-ball momentum as torch.optim.SGD: v ← μ v + g, w ← w − lr·v.
// Clipping as torch.nn.utils.clip_grad_norm_(max_norm): total norm ‖g‖₂, coefficient
// max_norm / (‖g‖ + 1e-6) clamped to at most 1, g ← g·coefficient (max_norm = 0: off).
// A step is counted as clipped when the coefficient is below 1.
//
// Spikes: step t starts a spike when L_t > 2·r_t, r_t the lowest loss of the 20 steps before,
// and the loss jumped in that one step, L_t > 1.5·L_{t−1} (no spike in progress). The jump
// keeps out the slow rise of momentum's overshoot early in a clean run (a factor of 2 over
// four or five steps), which is no spike. It ends at the first later step whose loss is back at or below
// 1.5·r_t; recovery_steps = that step − t (null when the run ends first). The run diverges
// when the loss is not finite or exceeds 10¹² times the initial loss; it stops there.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace mlsys {

inline constexpr int kLossSpikeDim = 8;
inline constexpr int kMaxLossSpikeSteps = 3000;
inline constexpr int kMaxLossSpikeBatch = 32;
inline constexpr double kLossSpikeNoise = 0.1;

struct LossSpikeConfig {
  int steps = 600;
  double lr = 0.05;
  double momentum = 0.9;
  double max_norm = 0;       // 0: no clipping
  double spike_rate = 0.01;  // probability that a step's batch is bad
  double spike_scale = 20;   // input scale of a bad batch
  double condition_number = 100;
  int batch_size = 16;
  std::uint64_t seed = 1;
};

struct LossSpike {
  int step = 0;                         // first step above 2× the reference
  double loss_before = 0;               // the reference r_t (lowest loss of the 20 steps before)
  double peak_loss = 0;                 // highest loss until recovery (or the run's end)
  int peak_step = 0;
  std::optional<int> recovery_steps;    // steps until the loss is back at 1.5·r_t
};

struct LossSpikeResult {
  std::vector<double> loss;        // population loss after each step (entry t: after step t; t = 0 is before training)
  std::vector<double> grad_norm;   // ‖g‖ of step t's batch before clipping (entry 0: 0, no step yet)
  std::vector<int> bad_steps;      // steps whose batch was bad
  std::vector<int> clipped_steps;  // steps whose gradient was clipped
  double clipped_fraction = 0;     // clipped steps / steps run
  std::vector<LossSpike> spikes;
  int spike_count = 0;
  std::optional<double> mean_recovery_steps;  // over the spikes that recovered
  bool diverged = false;
  std::optional<int> diverged_step;
  int steps_run = 0;
  double initial_loss = 0, final_loss = 0, min_loss = 0;
  double loss_floor = 0;              // ½σ²: the loss of w = w*
  double bad_step_loss_factor = 0;    // (1 − lr·s²·λ_max)²
  double stable_lr_limit = 0;         // 2(1 + μ)/λ_max: heavy-ball's limit on clean (expected) curvature
  double bad_batch_lr_limit = 0;      // the same for a bad batch's curvature, 2(1 + μ)/(s²·λ_max)
};

// Throws InputError naming the field (steps 1 … 3000, lr > 0, momentum in [0, 1), max_norm ≥ 0,
// spike_rate in [0, 1], spike_scale ≥ 1, condition_number ≥ 1, batch_size 1 … 32).
LossSpikeResult loss_spikes(const LossSpikeConfig& c);

// torch.nn.utils.clip_grad_norm_ on one flat gradient (the `clip-grad-norm` calculator).
struct ClipGradResult {
  double total_norm = 0;         // ‖g‖₂
  double clip_coef = 0;          // max_norm / (total_norm + 1e-6)
  double clip_coef_clamped = 0;  // min(1, clip_coef): what the gradient is multiplied by
  bool clipped = false;          // clip_coef < 1
  std::vector<double> grads;     // g · clip_coef_clamped
  double clipped_norm = 0;       // its norm
};
// Throws InputError: "grads" empty or longer than 4096, "max_norm" ≤ 0.
ClipGradResult clip_grad_norm(const std::vector<double>& grads, double max_norm);

}  // namespace mlsys
