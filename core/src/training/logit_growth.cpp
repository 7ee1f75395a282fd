// Output-logit growth and the z-loss: see logit_growth.hpp.
#include "mlsys/training/logit_growth.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/numerics/float_format.hpp"

namespace mlsys {

namespace {
constexpr int K = kLogitClasses;
constexpr int D = kLogitFeatures;
constexpr int B = kLogitBatch;
constexpr double kBeta1 = 0.9, kBeta2 = 0.95, kEps = 1e-8, kInputNoise = 0.3;

// Softmax of z in double, max subtracted; returns log Z.
double softmax(const std::array<double, K>& z, std::array<double, K>& p) {
  const double m = *std::max_element(z.begin(), z.end());
  double s = 0;
  for (int k = 0; k < K; ++k) {
    p[k] = exp_det(z[k] - m);
    s += p[k];
  }
  for (int k = 0; k < K; ++k) p[k] /= s;
  return m + log_det(s);
}
}  // namespace

LogitGrowthResult logit_growth(const LogitGrowthConfig& c) {
  if (c.steps < 1 || c.steps > kMaxLogitSteps) throw InputError("steps", "Use 1 to 3000 steps.");
  if (!(c.lr > 0 && c.lr <= 1)) throw InputError("lr", "Use a learning rate in (0, 1].");
  if (!(c.z_loss >= 0)) throw InputError("z_loss", "The z-loss coefficient must be 0 or positive.");
  if (!(c.weight_decay >= 0)) throw InputError("weight_decay", "Weight decay must be 0 or positive.");
  // AdamW multiplies W by (1 − lr·weight_decay) each step: at 1 or more it flips sign and grows.
  if (c.lr * c.weight_decay > 0.5)
    throw InputError("weight_decay", "lr × weight_decay must be at most 0.5 (AdamW shrinks W by that fraction each step).");
  const FloatFormat& bf16 = float_format("bf16");
  const FloatFormat& fp16 = float_format("fp16");

  SeededStream rng(mix_seed(c.seed, 0x2F6E1D0C9B8A7061ULL));
  std::array<std::array<double, D>, K> mu{};
  for (auto& row : mu)
    for (double& v : row) v = rng.normal();
  // The training set, drawn once: kLogitExamples examples, class uniform, x = μ_y + 0.3·n.
  std::vector<std::array<double, D>> xs(kLogitExamples);
  std::vector<int> ys(kLogitExamples);
  for (int n = 0; n < kLogitExamples; ++n) {
    ys[n] = static_cast<int>(rng.below(K));
    for (int i = 0; i < D; ++i) xs[n][i] = mu[ys[n]][i] + kInputNoise * rng.normal();
  }
  // Parameters: W (K×D) and b (K), flattened, with Adam's moments.
  constexpr int P = K * D + K;
  std::array<double, P> theta{}, m1{}, m2{};

  LogitGrowthResult r;
  r.fp16_max = fp16.max;
  r.fp16_exp_overflow_threshold = log_det(fp16.max);
  double b1t = 1, b2t = 1;
  const int stride = (c.steps + kMaxLogitSeries - 1) / kMaxLogitSeries;
  for (int t = 0; t <= c.steps; ++t) {
    const bool record = t % stride == 0 || t == c.steps;
    std::array<double, P> grad{};
    LogitStep s;
    s.step = t;
    s.max_logit = -1e300;
    s.max_log_z = -1e300;
    double max_abs = 0;
    for (int b = 0; b < B; ++b) {
      const auto n = static_cast<std::size_t>(rng.below(kLogitExamples));
      const int y = ys[n];
      const std::array<double, D>& x = xs[n];
      std::array<double, K> z{}, p{}, pq{}, zq{};
      for (int k = 0; k < K; ++k) {
        double v = theta[K * D + k];
        for (int i = 0; i < D; ++i) v += theta[k * D + i] * x[i];
        z[k] = v;
        s.max_logit = std::max(s.max_logit, v);
        max_abs = std::max(max_abs, std::fabs(v));
      }
      const double log_z = softmax(z, p);
      s.mean_log_z += log_z / B;
      s.max_log_z = std::max(s.max_log_z, log_z);
      s.loss += (log_z - z[y]) / B;
      s.z_loss += c.z_loss * log_z * log_z / B;
      // The same logits stored in bf16 first (on the steps the series records).
      if (record) {
      for (int k = 0; k < K; ++k) zq[k] = round_value(z[k], bf16);
      const double log_zq = softmax(zq, pq);
      for (int k = 0; k < K; ++k) {
        s.bf16_prob_error = std::max(s.bf16_prob_error, std::fabs(pq[k] - p[k]));
        // |log p_bf16 − log p| = |(zq_k − log Zq) − (z_k − log Z)|, from the logits (no underflow).
        s.bf16_log_prob_error = std::max(s.bf16_log_prob_error, std::fabs((zq[k] - log_zq) - (z[k] - log_z)));
      }
      }
      // d(loss)/dz_k = p_k − [k = y] + 2·z_loss·log Z·p_k, averaged over the batch.
      for (int k = 0; k < K; ++k) {
        const double dz = (p[k] - (k == y ? 1.0 : 0.0) + 2 * c.z_loss * log_z * p[k]) / B;
        for (int i = 0; i < D; ++i) grad[k * D + i] += dz * x[i];
        grad[K * D + k] += dz;
      }
    }
    s.fp16_exp_overflow = s.max_logit > r.fp16_exp_overflow_threshold;
    s.fp16_overflow = max_abs > fp16.max;
    s.bf16_spacing = round_to_format(s.max_logit, bf16).ulp;
    s.max_abs_logit = max_abs;
    s.bf16_spacing_abs = round_to_format(max_abs, bf16).ulp;
    if (s.fp16_exp_overflow && !r.first_fp16_exp_overflow_step) r.first_fp16_exp_overflow_step = t;
    r.peak_max_logit = t == 0 ? s.max_logit : std::max(r.peak_max_logit, s.max_logit);
    r.peak_bf16_prob_error = std::max(r.peak_bf16_prob_error, s.bf16_prob_error);
    r.peak_bf16_log_prob_error = std::max(r.peak_bf16_log_prob_error, s.bf16_log_prob_error);
    if (record) r.series.push_back(s);
    if (t == c.steps) break;
    // Adam (AdamW's decoupled decay on W only).
    b1t *= kBeta1;
    b2t *= kBeta2;
    for (int j = 0; j < P; ++j) {
      if (c.weight_decay > 0 && j < K * D) theta[j] -= c.lr * c.weight_decay * theta[j];
      m1[j] = kBeta1 * m1[j] + (1 - kBeta1) * grad[j];
      m2[j] = kBeta2 * m2[j] + (1 - kBeta2) * grad[j] * grad[j];
      const double mh = m1[j] / (1 - b1t), vh = m2[j] / (1 - b2t);
      theta[j] -= c.lr * mh / (std::sqrt(vh) + kEps);
    }
  }
  const LogitStep& last = r.series.back();
  r.final_max_logit = last.max_logit;
  r.final_mean_log_z = last.mean_log_z;
  r.final_loss = last.loss;
  r.final_bf16_spacing = last.bf16_spacing;
  r.final_bf16_spacing_abs = last.bf16_spacing_abs;
  r.final_max_abs_logit = last.max_abs_logit;
  return r;
}

}  // namespace mlsys
