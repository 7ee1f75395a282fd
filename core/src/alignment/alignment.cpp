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

DpoBetaSweep dpo_beta_sweep(const std::vector<double>& betas, long long pairs, long long steps, double lr,
                            long long seed) {
  DpoBetaSweep s{};
  s.ln2 = log_det(2.0);
  for (double b : betas) {
    const DpoRun r = dpo_run(b, pairs, steps, lr, seed);
    s.label_agreement = r.label_agreement;
    s.points.push_back({b, r.final.loss, r.final.reward_margin, r.final.accuracy, r.final.kl, r.final.chosen_reward,
                        r.final.rejected_reward});
  }
  return s;
}

RlhfStep rlhf_step(const RlhfStepInput& in) {
  if (in.method != "ppo" && in.method != "dpo" && in.method != "grpo")
    throw InputError("method", "method must be ppo, dpo or grpo.");
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
