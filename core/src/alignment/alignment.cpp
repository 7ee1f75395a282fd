#include "mlsys/alignment/alignment.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/serving/decode.hpp"

namespace mlsys {

namespace {

double trained_bytes_per_param(double dtype_bytes) { return 2.0 * dtype_bytes + 12.0; }

double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + exp_det(-x));
  const double e = exp_det(x);
  return e / (1.0 + e);
}
// ln σ(x) without overflow: −ln(1 + e^(−x)).
double log_sigmoid(double x) {
  if (x >= 0) return -log1p_det(exp_det(-x));
  return x - log1p_det(exp_det(x));
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

RlhfMemory rlhf_memory(const std::string& method, double policy_params, double reward_params, double value_params,
                       double dtype_bytes, long long gpus) {
  if (method != "ppo" && method != "dpo" && method != "grpo")
    throw InputError("method", "method must be ppo, dpo or grpo.");
  if (!(policy_params > 0)) throw InputError("policy_params", "policy_params must be positive.");
  if (gpus < 1) throw InputError("gpus", "gpus must be at least 1.");
  if (!(reward_params >= 0)) throw InputError("reward_params", "reward_params must be 0 (a rule-based reward) or more.");
  // PPO's critic is part of the method: without it there is no PPO, only GRPO or DPO.
  if (method == "ppo" && !(value_params > 0))
    throw InputError("value_params",
                     "PPO trains a value model (its critic), so value_params must be positive; a method without one is "
                     "GRPO or DPO.");
  const double tb = trained_bytes_per_param(dtype_bytes);
  auto model = [&](const std::string& role, double p, bool trained) {
    const double bpp = trained ? tb : dtype_bytes;
    return RlhfModel{role, p, trained, p * bpp, bpp};
  };
  RlhfMemory r{};
  r.method = method;
  r.models.push_back(model("policy", policy_params, true));
  r.models.push_back(model("reference", policy_params, false));
  if (method != "dpo") r.models.push_back(model("reward", reward_params, false));
  if (method == "ppo") r.models.push_back(model("value", value_params, true));
  for (const auto& m : r.models) {
    r.total_bytes += m.bytes;
    (m.trained ? r.trained_bytes : r.frozen_bytes) += m.bytes;
    if (m.trained) r.trained_params += m.params;
    r.held_params += m.params;
  }
  r.per_gpu_bytes = r.total_bytes / static_cast<double>(gpus);
  r.dpo_bytes = policy_params * (tb + dtype_bytes);
  r.grpo_bytes = r.dpo_bytes + reward_params * dtype_bytes;
  r.ppo_bytes = r.grpo_bytes + value_params * tb;
  return r;
}

DpoToy dpo_toy(long long pairs, long long seed) {
  if (pairs < 1 || pairs > 4096) throw InputError("pairs", "pairs must be between 1 and 4096.");
  SeededStream rng(mix_seed(static_cast<std::uint64_t>(seed), 0xD0A11Cull));
  DpoToy t{};
  t.w_true.resize(kDpoFeatures);
  t.w_ref.resize(kDpoFeatures);
  for (auto& v : t.w_true) v = rng.normal();
  for (auto& v : t.w_ref) v = 0.5 * rng.normal();
  long long agree = 0;
  for (long long p = 0; p < pairs; ++p) {
    std::vector<std::vector<double>> resp(kDpoResponses, std::vector<double>(kDpoFeatures));
    for (auto& r : resp)
      for (auto& v : r) v = rng.normal();
    const int a = rng.integer(0, kDpoResponses - 1);
    int b = rng.integer(0, kDpoResponses - 2);
    if (b >= a) ++b;
    const double ra = dot(t.w_true, resp[a]), rb = dot(t.w_true, resp[b]);
    const bool a_chosen = rng.uniform() < sigmoid(ra - rb);
    const int c = a_chosen ? a : b, r = a_chosen ? b : a;
    if (dot(t.w_true, resp[c]) > dot(t.w_true, resp[r])) ++agree;
    t.phi_chosen.push_back(resp[c]);
    t.phi_rejected.push_back(resp[r]);
    t.phi_all.push_back(std::move(resp));
  }
  t.label_agreement = static_cast<double>(agree) / static_cast<double>(pairs);
  return t;
}

DpoEval dpo_evaluate(const DpoToy& toy, const std::vector<double>& w, double beta) {
  DpoEval e{};
  e.grad.assign(kDpoFeatures, 0.0);
  const double n = static_cast<double>(toy.phi_chosen.size());
  std::vector<double> dw(kDpoFeatures);
  for (int i = 0; i < kDpoFeatures; ++i) dw[i] = w[i] - toy.w_ref[i];
  for (size_t p = 0; p < toy.phi_chosen.size(); ++p) {
    const double rc = beta * dot(dw, toy.phi_chosen[p]);
    const double rr = beta * dot(dw, toy.phi_rejected[p]);
    const double h = rc - rr;
    e.loss -= log_sigmoid(h);
    e.reward_margin += h;
    e.chosen_reward += rc;
    e.rejected_reward += rr;
    if (h > 0) e.accuracy += 1;
    const double g = -beta * (1.0 - sigmoid(h));
    for (int i = 0; i < kDpoFeatures; ++i) e.grad[i] += g * (toy.phi_chosen[p][i] - toy.phi_rejected[p][i]);
    // KL(π‖π_ref) over the prompt's 4 responses.
    double lp[kDpoResponses], lq[kDpoResponses], mp = -1e300, mq = -1e300;
    for (int k = 0; k < kDpoResponses; ++k) {
      lp[k] = dot(w, toy.phi_all[p][k]);
      lq[k] = dot(toy.w_ref, toy.phi_all[p][k]);
      mp = std::max(mp, lp[k]);
      mq = std::max(mq, lq[k]);
    }
    double zp = 0, zq = 0;
    for (int k = 0; k < kDpoResponses; ++k) {
      zp += exp_det(lp[k] - mp);
      zq += exp_det(lq[k] - mq);
    }
    double kl = 0;
    for (int k = 0; k < kDpoResponses; ++k) {
      const double a = lp[k] - mp - log_det(zp), b = lq[k] - mq - log_det(zq);
      kl += exp_det(a) * (a - b);
    }
    e.kl += std::max(0.0, kl);
  }
  e.loss /= n;
  e.reward_margin /= n;
  e.chosen_reward /= n;
  e.rejected_reward /= n;
  e.accuracy /= n;
  e.kl /= n;
  for (auto& g : e.grad) g /= n;
  return e;
}

DpoRun dpo_run(double beta, long long pairs, long long steps, double lr, long long seed) {
  if (!(beta > 0) || beta > 100) throw InputError("beta", "beta must be in (0, 100].");
  if (steps < 1 || steps > 5000) throw InputError("steps", "steps must be between 1 and 5000.");
  if (!(lr > 0) || lr > 10) throw InputError("lr", "lr must be in (0, 10].");
  const DpoToy toy = dpo_toy(pairs, seed);
  std::vector<double> w = toy.w_ref, m(kDpoFeatures, 0.0), v(kDpoFeatures, 0.0);
  DpoRun r{};
  r.ln2 = log_det(2.0);
  r.label_agreement = toy.label_agreement;
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  DpoEval e{};
  for (long long t = 0; t <= steps; ++t) {
    e = dpo_evaluate(toy, w, beta);
    r.loss.push_back(e.loss);
    r.reward_margin.push_back(e.reward_margin);
    r.accuracy.push_back(e.accuracy);
    r.kl.push_back(e.kl);
    if (t == steps) break;
    const double c1 = 1.0 - pow_int_det(b1, t + 1), c2 = 1.0 - pow_int_det(b2, t + 1);
    for (int i = 0; i < kDpoFeatures; ++i) {
      m[i] = b1 * m[i] + (1 - b1) * e.grad[i];
      v[i] = b2 * v[i] + (1 - b2) * e.grad[i] * e.grad[i];
      w[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
    }
  }
  r.initial_loss = r.loss.front();
  r.final = DpoFinal{e.loss, e.reward_margin, e.accuracy, e.chosen_reward, e.rejected_reward, e.kl};
  return r;
}

DpoOptimum dpo_optimum(const DpoToy& toy) {
  // The margin is h = β·u·d with u = w − w₀ and d = φ_c − φ_r, so the loss is a function of
  // u alone: L(u) = mean ln(1 + e^(−u·d)), convex (a logistic regression through the origin).
  // Damped Newton from u = 0; the optimum is finite unless some u separates every pair.
  const size_t n = toy.phi_chosen.size();
  const int k = kDpoFeatures;
  std::vector<std::vector<double>> d(n, std::vector<double>(k));
  for (size_t p = 0; p < n; ++p)
    for (int i = 0; i < k; ++i) d[p][i] = toy.phi_chosen[p][i] - toy.phi_rejected[p][i];
  auto loss_at = [&](const std::vector<double>& u) {
    double l = 0;
    for (size_t p = 0; p < n; ++p) l -= log_sigmoid(dot(u, d[p]));
    return l / static_cast<double>(n);
  };
  DpoOptimum o{};
  std::vector<double> u(k, 0.0);
  double loss = loss_at(u);
  for (int it = 0; it < 100; ++it) {
    std::vector<double> g(k, 0.0);
    std::vector<std::vector<double>> h(k, std::vector<double>(k + 1, 0.0));
    for (size_t p = 0; p < n; ++p) {
      const double z = dot(u, d[p]), s = sigmoid(-z), c = s * (1.0 - s);
      for (int i = 0; i < k; ++i) {
        g[i] -= s * d[p][i];
        for (int j = 0; j < k; ++j) h[i][j] += c * d[p][i] * d[p][j];
      }
    }
    double gnorm = 0;
    for (int i = 0; i < k; ++i) {
      g[i] /= static_cast<double>(n);
      gnorm += g[i] * g[i];
      for (int j = 0; j < k; ++j) h[i][j] /= static_cast<double>(n);
      h[i][i] += 1e-12;
      h[i][k] = -g[i];
    }
    o.iterations = it;
    // Below ln 2 / n every pair has a positive margin: the set is separable, the infimum 0 and
    // no finite minimiser (a non-separable set keeps some margin ≤ 0, whose pair alone costs ln 2).
    if (loss < log_det(2.0) / static_cast<double>(n)) break;
    if (std::sqrt(gnorm) < 1e-12) {
      o.finite = true;
      break;
    }
    for (int c = 0; c < k; ++c) {  // Gaussian elimination with partial pivoting: H·step = −g
      int piv = c;
      for (int r = c + 1; r < k; ++r)
        if (std::fabs(h[r][c]) > std::fabs(h[piv][c])) piv = r;
      std::swap(h[c], h[piv]);
      for (int r = c + 1; r < k; ++r) {
        const double f = h[r][c] / h[c][c];
        for (int j = c; j <= k; ++j) h[r][j] -= f * h[c][j];
      }
    }
    std::vector<double> step(k, 0.0);
    for (int r = k - 1; r >= 0; --r) {
      double v = h[r][k];
      for (int j = r + 1; j < k; ++j) v -= h[r][j] * step[j];
      step[r] = v / h[r][r];
    }
    double t = 1.0, next = loss;
    std::vector<double> cand(k);
    for (int tries = 0; tries < 60; ++tries, t *= 0.5) {
      for (int i = 0; i < k; ++i) cand[i] = u[i] + t * step[i];
      next = loss_at(cand);
      if (next <= loss) break;
    }
    u = cand;
    loss = next;
    double unorm = 0;
    for (double v : u) unorm += v * v;
    if (std::sqrt(unorm) > 1e6) break;  // no finite minimiser within reach
  }
  o.u = u;
  if (!o.finite) return o;
  o.loss = loss;
  for (size_t p = 0; p < n; ++p) {
    const double z = dot(u, d[p]);
    o.reward_margin += z;
    if (z > 0) o.accuracy += 1;
  }
  o.reward_margin /= static_cast<double>(n);
  o.accuracy /= static_cast<double>(n);
  return o;
}

DpoBetaSweep dpo_beta_sweep(const std::vector<double>& betas, long long pairs, long long steps, double lr,
                            long long seed) {
  DpoBetaSweep s{};
  s.ln2 = log_det(2.0);
  const DpoToy toy = dpo_toy(pairs, seed);
  const DpoOptimum opt = dpo_optimum(toy);
  s.optimum_finite = opt.finite;
  s.optimum_loss = opt.loss;
  s.optimum_reward_margin = opt.reward_margin;
  s.optimum_accuracy = opt.accuracy;
  for (double b : betas) {
    const DpoRun r = dpo_run(b, pairs, steps, lr, seed);
    s.label_agreement = r.label_agreement;
    double opt_kl = 0;
    if (opt.finite) {  // the same optimum u, reached at w = w₀ + u/β
      std::vector<double> w = toy.w_ref;
      for (int i = 0; i < kDpoFeatures; ++i) w[i] += opt.u[i] / b;
      opt_kl = dpo_evaluate(toy, w, b).kl;
    }
    s.points.push_back({b, r.final.loss, r.final.reward_margin, r.final.accuracy, r.final.kl, r.final.chosen_reward,
                        r.final.rejected_reward, opt_kl});
  }
  return s;
}

RlhfStep rlhf_step(const RlhfStepInput& in) {
  if (in.method != "ppo" && in.method != "dpo" && in.method != "grpo")
    throw InputError("method", "method must be ppo, dpo or grpo.");
  if (in.method == "ppo" && !(in.value_params > 0))
    throw InputError("value_params", "PPO trains a value model (its critic), so value_params must be positive.");
  RlhfStep s{};
  s.method = in.method;
  s.peak_flops = in.peak_flops;
  s.bandwidth_Bps = in.bandwidth_Bps;
  const double samples = in.method == "ppo" ? 1.0 : (in.method == "dpo" ? 2.0 : in.samples);
  s.sequences = in.prompts * samples;
  s.tokens = s.sequences * (in.prompt_tokens + in.response_tokens);
  s.decode_bound = "none";
  if (in.method != "dpo") {
    const ServingModel sm{in.policy_params, in.policy_params * in.dtype_bytes,
                          2.0 * in.layers * in.kv_heads * in.head_dim * in.dtype_bytes, in.layers, in.heads,
                          in.head_dim};
    const double per_gpu = std::ceil(s.sequences / in.gpus);
    s.rounds = std::ceil(per_gpu / in.gen_batch);
    const double batch = std::min(in.gen_batch, per_gpu);
    const PhaseCost pre = prefill_cost(sm, batch, in.prompt_tokens, in.peak_flops, in.bandwidth_Bps);
    const PhaseCost dec =
        decode_step_cost(sm, batch, in.prompt_tokens + 0.5 * in.response_tokens, in.peak_flops, in.bandwidth_Bps);
    s.kv_cache_bytes = batch * (in.prompt_tokens + in.response_tokens) * sm.kv_bytes_per_token;
    s.generation_bytes = sm.weight_bytes + s.kv_cache_bytes;
    s.decode_step_s = dec.time_s;
    s.decode_bound = dec.bound;
    s.generation_s = s.rounds * (pre.time_s + in.response_tokens * dec.time_s);
    s.phases.push_back({"generation", s.rounds * in.gpus * (pre.flops + in.response_tokens * dec.flops),
                        s.generation_s});
  }
  const double rate = in.gpus * in.peak_flops * in.mfu;
  auto add = [&](const std::string& name, double flops) {
    s.phases.push_back({name, flops, flops / rate});
    s.training_s += flops / rate;
  };
  // Making the experience (OpenRLHF's make_experience): PPO scores the fresh samples with the
  // policy (the old log-probabilities of the clipped ratio) and the value model (the values of
  // GAE) before it trains; GRPO needs the old log-probabilities only when it takes more than
  // one pass over the batch (TRL skips them at num_iterations 1: they equal the current ones).
  if (in.method == "ppo" || (in.method == "grpo" && in.epochs > 1))
    add("policy_logprobs", 2.0 * in.policy_params * s.tokens);
  if (in.method == "ppo") add("value_estimates", 2.0 * in.value_params * s.tokens);
  add("policy", in.epochs * 6.0 * in.policy_params * s.tokens);
  if (in.method == "ppo") add("value", in.epochs * 6.0 * in.value_params * s.tokens);
  add("reference", 2.0 * in.policy_params * s.tokens);
  if (in.method != "dpo") add("reward", 2.0 * in.reward_params * s.tokens);
  s.step_s = s.generation_s + s.training_s;
  s.generation_fraction = s.step_s > 0 ? s.generation_s / s.step_s : 0.0;
  return s;
}

}  // namespace mlsys

namespace mlsys {
double dpo_pair_loss(double beta, double log_ratio_chosen, double log_ratio_rejected) {
  return -log_sigmoid(beta * (log_ratio_chosen - log_ratio_rejected));
}
}  // namespace mlsys
