// Output-logit growth and the z-loss (the `logit-growth` calculator). A toy that shows the
// mechanism, executed step by step; not a model of a language model's training run.
//
// Model: a linear softmax classifier, logits z = W x + b over K = 8 classes from d = 16
// features, W and b starting at 0, trained with Adam (β₁ = 0.9, β₂ = 0.95, ε = 1e-8, bias
// correction; AdamW's decoupled weight decay on W when weight_decay > 0) on batches of 16.
// Data: 1,024 examples drawn once per seed, class c uniform, x = μ_c + 0.3·n, μ_c and n standard
// normal; each batch draws 16 of them with replacement:
// the classes are separable, so cross-entropy keeps falling as the logits of the right class
// grow, and Adam's step (about lr per weight, whatever the gradient's size) lets them grow
// steadily. Cross-entropy is unchanged when a constant is added to every logit, so nothing in
// it holds the logits near zero.
// Loss per example: CE = log Z − z_y with log Z = ln Σ_k e^{z_k}, plus the z-loss of PaLM
// (Chowdhery et al. 2022, section 5): z_loss·(log Z)², coefficient 1e-4 in PaLM. Its gradient
// with respect to the logits is 2·z_loss·log Z·softmax(z), which pulls log Z toward 0.
// Logits and softmax are computed in double (the reference); per step the calculator reports
// the largest logit of the batch, the batch's mean and largest log Z, the cross-entropy, and
// what the low formats would do with those logits: whether e^z of the largest logit overflows
// fp16 (z > ln 65504 = 11.09), whether a logit itself passes fp16's max 65,504, bf16's spacing at
// the largest logit (2^(⌊log₂|z|⌋ − 7)), and the largest error of softmax probabilities when the
// logits are first stored in bf16 (max over the batch and classes of |softmax(round_bf16(z)) −
// softmax(z)|), and of log-probabilities, max |log softmax(round_bf16(z)) − log softmax(z)| in
// nats: a relative error of the probabilities, which grows with bf16's spacing at the logits.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace mlsys {

inline constexpr int kLogitClasses = 8;
inline constexpr int kLogitFeatures = 16;
inline constexpr int kLogitBatch = 16;
inline constexpr int kMaxLogitSteps = 3000;
inline constexpr int kLogitExamples = 1024;  // the training set, drawn once; batches are drawn from it
inline constexpr int kMaxLogitSeries = 500;  // series: every ⌈steps/500⌉-th step, and the last

struct LogitGrowthConfig {
  int steps = 2000;
  double lr = 0.03;
  double z_loss = 0;        // coefficient of (log Z)²
  double weight_decay = 0;  // AdamW decoupled decay on W
  std::uint64_t seed = 1;
};

struct LogitStep {
  int step = 0;
  double max_logit = 0;     // largest logit of the batch
  double mean_log_z = 0;    // batch mean of log Z
  double max_log_z = 0;     // largest log Z of the batch
  double loss = 0;          // mean cross-entropy (nats), without the z-loss
  double z_loss = 0;        // mean z_loss·(log Z)²
  bool fp16_exp_overflow = false;  // e^max_logit > 65504
  bool fp16_overflow = false;      // |a logit| > 65504
  double bf16_spacing = 0;         // spacing of bf16 at max_logit
  double max_abs_logit = 0;        // largest |logit| of the batch (often a very negative one)
  double bf16_spacing_abs = 0;     // spacing of bf16 at max_abs_logit: the stored logit that moves
                                   // log-probabilities most is the one of largest magnitude
  double bf16_prob_error = 0;      // max |softmax(bf16(z)) − softmax(z)|
  double bf16_log_prob_error = 0;  // max |log softmax(bf16(z)) − log softmax(z)| (nats)
};

struct LogitGrowthResult {
  std::vector<LogitStep> series;  // step 0 (the initial model), then every ⌈steps/500⌉-th step and the last, before its update
  double final_max_logit = 0, peak_max_logit = 0;
  double final_mean_log_z = 0;
  double final_loss = 0;
  double fp16_exp_overflow_threshold = 0;  // ln 65504
  double fp16_max = 0;                     // 65504
  std::optional<int> first_fp16_exp_overflow_step;  // first step whose largest logit passes ln 65504
  double final_bf16_spacing = 0;
  double final_bf16_spacing_abs = 0;
  double final_max_abs_logit = 0;
  double peak_bf16_prob_error = 0;  // peaks over the steps the series records
  double peak_bf16_log_prob_error = 0;
};

// Throws InputError: steps 1 … 3000, lr in (0, 1], z_loss ≥ 0, weight_decay ≥ 0 with lr·weight_decay ≤ 0.5.
LogitGrowthResult logit_growth(const LogitGrowthConfig& c);

}  // namespace mlsys
