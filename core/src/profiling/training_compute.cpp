// MFU, 6ND training time, Chinchilla approach 3 and the Young/Daly checkpoint interval
// (see training_compute.hpp for the sources).
#include "mlsys/profiling/training_compute.hpp"

#include <algorithm>
#include <cmath>

namespace mlsys {

MfuResult mfu(double params, double layers, double heads, double head_dim, double seq, double tokens_per_s,
              double devices, double peak_flops, double recompute_fraction) {
  MfuResult r;
  r.flops_per_token_params = 6 * params;
  r.flops_per_token_attention = 12 * layers * heads * head_dim * seq;
  r.flops_per_token = r.flops_per_token_params + r.flops_per_token_attention;
  r.attention_share = r.flops_per_token_attention / r.flops_per_token;
  // The forward pass is a third of the training FLOPs; recomputing a share of it adds that.
  r.hardware_flops_per_token = r.flops_per_token * (1 + recompute_fraction / 3);
  r.achieved_flops_per_device = tokens_per_s * r.flops_per_token / devices;
  r.mfu = r.achieved_flops_per_device / peak_flops;
  r.hfu = tokens_per_s * r.hardware_flops_per_token / devices / peak_flops;
  return r;
}

TrainingTime training_time(double params, double tokens, double devices, double peak_flops, double mfu,
                           double attention_flops_per_token) {
  TrainingTime t;
  const double per_token = 6 * params + attention_flops_per_token;
  t.total_flops = per_token * tokens;
  t.cluster_flops = devices * peak_flops * mfu;
  t.tokens_per_s = t.cluster_flops / per_token;
  t.time_s = t.total_flops / t.cluster_flops;
  t.time_days = t.time_s / 86400;
  t.device_hours = devices * t.time_s / 3600;
  return t;
}

double chinchilla_loss(double params, double tokens, const ChinchillaConstants& k) {
  return k.E + k.A / std::pow(params, k.alpha) + k.B / std::pow(tokens, k.beta);
}

ComputeOptimal chinchilla_optimal(double compute_flops, const ChinchillaConstants& k) {
  ComputeOptimal r;
  const double s = k.alpha + k.beta;
  r.G = std::pow(k.alpha * k.A / (k.beta * k.B), 1 / s);
  r.a = k.beta / s;
  r.b = k.alpha / s;
  r.params = r.G * std::pow(compute_flops / 6, r.a);
  r.tokens = std::pow(compute_flops / 6, r.b) / r.G;
  r.loss = chinchilla_loss(r.params, r.tokens, k);
  return r;
}

double checkpoint_waste(double interval_s, double mtbf_s, double checkpoint_s, double restart_s) {
  const double w = checkpoint_s / interval_s + (interval_s + checkpoint_s) / (2 * mtbf_s) + restart_s / mtbf_s;
  return std::min(1.0, w);
}

double checkpoint_waste_exact(double interval_s, double mtbf_s, double checkpoint_s, double restart_s) {
  const double wall_per_work = mtbf_s * std::exp(restart_s / mtbf_s) * std::expm1((interval_s + checkpoint_s) / mtbf_s) /
                               interval_s;
  return std::isfinite(wall_per_work) ? std::clamp(1 - 1 / wall_per_work, 0.0, 1.0) : 1.0;
}

CheckpointInterval checkpoint_interval(double mtbf_s, double checkpoint_s, double restart_s) {
  CheckpointInterval c;
  const double d = checkpoint_s, m = mtbf_s;
  c.young_interval_s = std::sqrt(2 * d * m);
  if (d < 2 * m) {
    c.daly_interval_s = std::sqrt(2 * d * m) * (1 + std::sqrt(d / (2 * m)) / 3 + d / (18 * m)) - d;
  } else {
    c.daly_interval_s = m;
  }
  c.waste_fraction = checkpoint_waste(c.daly_interval_s, m, d, restart_s);
  c.checkpoint_fraction = d / c.daly_interval_s;
  c.rework_fraction = (c.daly_interval_s + d) / (2 * m);
  c.restart_fraction = restart_s / m;
  c.goodput = 1 - c.waste_fraction;
  c.young_waste_fraction = checkpoint_waste(c.young_interval_s, m, d, restart_s);
  c.waste_fraction_exact = checkpoint_waste_exact(c.daly_interval_s, m, d, restart_s);
  return c;
}

ModelMfu model_mfu(const ModelConfig& c, std::optional<double> params, double tokens_per_s, double devices,
                   double peak_flops, double recompute_fraction) {
  const double n = params ? *params : model_counts(c).params_flops;
  return {n, mfu(n, c.layers, c.heads, c.head_dim, c.seq, tokens_per_s, devices, peak_flops, recompute_fraction),
          peak_flops};
}

Chinchilla chinchilla_at(double params, double tokens, const ChinchillaConstants& k) {
  return {chinchilla_loss(params, tokens, k), 6 * params * tokens, tokens / params, std::nullopt};
}

Chinchilla chinchilla_budget(double compute_flops, const ChinchillaConstants& k) {
  const ComputeOptimal o = chinchilla_optimal(compute_flops, k);
  const double n20 = std::sqrt(compute_flops / 120);  // 6·N·(20·N) = C
  return {o.loss, compute_flops, o.tokens / o.params,
          ChinchillaOptimum{o.params, o.tokens, o.a, o.b, n20, 20 * n20, chinchilla_loss(n20, 20 * n20, k)}};
}

}  // namespace mlsys
