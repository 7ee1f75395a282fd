// Post-training with preferences: the memory of the models an RLHF trainer holds (PPO as in
// InstructGPT, Ouyang et al. 2022, arXiv:2203.02155; DPO, Rafailov et al. 2023,
// arXiv:2305.18290; GRPO, Shao et al. 2024, arXiv:2402.03300), DPO executed on a seeded toy
// preference set, and the time of one RLHF step split between generation (decode-bound,
// serving/decode.hpp) and training (6·N FLOPs per token trained, 2·N per token scored).
#pragma once
#include <string>
#include <vector>

namespace mlsys {

// ---- rlhf-memory ----------------------------------------------------------------------
// A trained model costs weights + gradients in `dtype_bytes` each plus Adam's 12 bytes per
// parameter (fp32 master copy and two moments); a frozen one costs its weights. PPO: policy,
// value (trained), reference, reward (frozen). DPO: policy (trained), reference (frozen).
// GRPO: policy (trained), reference and reward (frozen); no value model.
struct RlhfModel {
  std::string role;
  double params;
  bool trained;
  double bytes;
  double bytes_per_param;
};
struct RlhfMemory {
  std::string method;
  std::vector<RlhfModel> models;
  double total_bytes, per_gpu_bytes, trained_bytes, frozen_bytes;
  double trained_params, held_params;
  double dpo_bytes, grpo_bytes, ppo_bytes;  // the same sizes under each method, to compare
};
RlhfMemory rlhf_memory(const std::string& method, double policy_params, double reward_params, double value_params,
                       double dtype_bytes, long long gpus);

// ---- dpo --------------------------------------------------------------------------------
// The toy: `pairs` prompts, each with 4 candidate responses carrying seeded feature vectors
// φ ∈ R^8 (standard normal). The policy is a softmax over the 4 responses with logits w·φ;
// the reference is the same with w₀ (seeded, N(0, 0.5²)). A hidden true reward w*·φ (w* ~
// N(0, 1)) labels one seeded pair of distinct responses per prompt by Bradley–Terry sampling:
// the first is chosen with probability σ(w*·(φ_a − φ_b)), so some labels disagree with w*.
// DPO minimises L = −mean ln σ(h), h = β[(ln π(c) − ln π_ref(c)) − (ln π(r) − ln π_ref(r))]
// = β (w − w₀)·(φ_c − φ_r) (the softmax normaliser cancels within a prompt), with Adam
// (PyTorch's rule, bias-corrected, β₁ 0.9, β₂ 0.999, ε 1e-8) on the full batch.
constexpr int kDpoResponses = 4;
constexpr int kDpoFeatures = 8;
struct DpoToy {
  std::vector<std::vector<double>> phi_chosen, phi_rejected;  // per pair
  std::vector<std::vector<std::vector<double>>> phi_all;      // per prompt, per response
  std::vector<double> w_ref, w_true;
  double label_agreement;  // share of pairs whose chosen response has the higher true reward
};
DpoToy dpo_toy(long long pairs, long long seed);
// Loss, mean h and share of h > 0 at w, and the gradient dL/dw = −(β/n) Σ (1 − σ(h))(φ_c − φ_r).
struct DpoEval {
  double loss, reward_margin, accuracy, chosen_reward, rejected_reward, kl;
  std::vector<double> grad;
};
DpoEval dpo_evaluate(const DpoToy& toy, const std::vector<double>& w, double beta);

struct DpoFinal {
  double loss, reward_margin, accuracy, chosen_reward, rejected_reward, kl;
};
struct DpoRun {
  std::vector<double> loss, reward_margin, accuracy, kl;  // per step, step 0 = the reference
  DpoFinal final;
  double initial_loss, ln2, label_agreement;
};
DpoRun dpo_run(double beta, long long pairs, long long steps, double lr, long long seed);

// The exact minimiser of the DPO loss on the toy set. h depends on w only through u = β(w − w₀),
// so the optimum is one u* for every β: the same loss, margins and accuracy, reached at
// w = w₀ + u*/β, a move from the reference that shrinks as β grows. Damped Newton on the convex
// logistic loss; `finite` is false when some u ranks every pair right (the loss then falls
// to 0 only as |u| → ∞, and the other fields stay 0).
struct DpoOptimum {
  std::vector<double> u;  // β(w − w₀) at the optimum
  bool finite;
  int iterations;
  double loss, reward_margin, accuracy;
};
DpoOptimum dpo_optimum(const DpoToy& toy);

struct DpoBetaPoint {
  double beta, loss, reward_margin, accuracy, kl, chosen_reward, rejected_reward;
  double optimum_kl;  // KL(π‖π_ref) at the exact optimum for this β (0 when it is not finite)
};
struct DpoBetaSweep {
  std::vector<DpoBetaPoint> points;
  double label_agreement, ln2;
  bool optimum_finite;
  double optimum_loss, optimum_reward_margin, optimum_accuracy;  // the same at every β
};
DpoBetaSweep dpo_beta_sweep(const std::vector<double>& betas, long long pairs, long long steps, double lr,
                            long long seed);

// ---- rlhf-step --------------------------------------------------------------------------
// One step on `gpus` GPUs: `prompts` prompts, `samples` responses each (PPO 1, GRPO the
// group G, DPO a chosen and a rejected given in the data). Generation (PPO, GRPO): each GPU
// decodes its share of the sequences in rounds of `gen_batch`, each round a prefill of the
// prompt and `response_tokens` decode steps costed by decode_step_cost at the mean context
// (prompt + response/2), at the roofline bound (ideal). Training: tokens T = sequences ·
// (prompt + response); policy 6·N_p·T (forward and backward), value (PPO) 6·N_v·T, reference
// 2·N_p·T, reward (PPO, GRPO) 2·N_r·T, the trained passes repeated `epochs` times, at `mfu`
// of the GPUs' peak. Making the experience before training (OpenRLHF's make_experience): PPO
// also runs the policy forward for the old log-probabilities of its clipped ratio and the value
// model forward for the values of GAE, 2·N·T each; GRPO runs the policy forward only when
// epochs > 1 (at one pass the old log-probabilities are the current ones, as TRL skips them).
struct RlhfPhase {
  std::string phase;
  double flops, seconds;
};
struct RlhfStep {
  std::string method;
  double sequences, tokens;
  double generation_s, training_s, step_s, generation_fraction;
  double decode_step_s, rounds;
  // One GPU's generation memory: the policy's weights plus the KV cache of a full round
  // (gen_batch sequences at prompt + response tokens); 0 for DPO. A floor: the trainer's
  // sharded state, if it shares the GPU, comes on top.
  double kv_cache_bytes, generation_bytes;
  std::string decode_bound;
  std::vector<RlhfPhase> phases;
  double peak_flops, bandwidth_Bps;
};
struct RlhfStepInput {
  std::string method;
  double policy_params, reward_params, value_params;
  double prompts, samples, prompt_tokens, response_tokens;
  double layers, heads, kv_heads, head_dim, dtype_bytes;
  double gen_batch, gpus, epochs, mfu;
  double peak_flops, bandwidth_Bps;
};
RlhfStep rlhf_step(const RlhfStepInput& in);

}  // namespace mlsys

namespace mlsys {
// The DPO loss of one pair from its log-ratios ln π(y|x) − ln π_ref(y|x): −ln σ(β(ρ_c − ρ_r)).
double dpo_pair_loss(double beta, double log_ratio_chosen, double log_ratio_rejected);
}  // namespace mlsys
