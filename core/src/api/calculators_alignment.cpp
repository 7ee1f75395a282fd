// Calculators of the preference-alignment lesson (shared/API.md): `rlhf-memory` (the models
// PPO, DPO and GRPO hold and their bytes), `dpo` (DPO executed on a seeded toy preference set)
// and, beyond API.md, `dpo-beta` (the final DPO loss, margin, accuracy and KL at several β)
// and `rlhf-step` (one RLHF step's time split between generation and training).
#include <cmath>

#include "mlsys/alignment/alignment.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(RlhfModel, MLSYS_OUT(role, "", "policy, reference, reward or value"),
               MLSYS_OUT(params, "", "Parameters of the model"),
               MLSYS_OUT(trained, "", "Whether it is trained (weights, gradients and Adam states) or frozen (weights)"),
               MLSYS_OUT(bytes, "B", "params × bytes_per_param"),
               MLSYS_OUT(bytes_per_param, "B", "2·dtype bytes + 12 when trained, dtype bytes when frozen"));
MLSYS_DESCRIBE(RlhfMemory, MLSYS_OUT(method, "", "ppo, dpo or grpo"),
               MLSYS_OUT(models, "", "The models the method holds"),
               MLSYS_OUT(total_bytes, "B", "Sum of the models' bytes (activations and KV cache not counted)"),
               MLSYS_OUT(per_gpu_bytes, "B", "total_bytes / gpus (every model sharded evenly, as ZeRO-3)"),
               MLSYS_OUT(trained_bytes, "B", "Bytes of the trained models"),
               MLSYS_OUT(frozen_bytes, "B", "Bytes of the frozen models"),
               MLSYS_OUT(trained_params, "", "Parameters trained"), MLSYS_OUT(held_params, "", "Parameters held"),
               MLSYS_OUT(dpo_bytes, "B", "The same sizes under DPO"),
               MLSYS_OUT(grpo_bytes, "B", "The same sizes under GRPO"),
               MLSYS_OUT(ppo_bytes, "B", "The same sizes under PPO"));
MLSYS_DESCRIBE(DpoFinal, MLSYS_OUT(loss, "", "DPO loss after the last step"),
               MLSYS_OUT(reward_margin, "", "Mean implicit reward margin β·Δlog-ratio, chosen − rejected"),
               MLSYS_OUT(accuracy, "", "Share of pairs whose margin is strictly positive"),
               MLSYS_OUT(chosen_reward, "", "Mean implicit reward β·(ln π − ln π_ref) of the chosen responses"),
               MLSYS_OUT(rejected_reward, "", "Mean implicit reward of the rejected responses"),
               MLSYS_OUT(kl, "nats", "Mean KL(π‖π_ref) over each prompt's 4 responses"));
MLSYS_DESCRIBE(DpoRun, MLSYS_OUT(loss, "", "DPO loss at steps 0 … steps (step 0: the reference policy, ln 2)"),
               MLSYS_OUT(reward_margin, "", "Mean implicit reward margin per step"),
               MLSYS_OUT(accuracy, "", "Share of pairs with a strictly positive margin, per step"),
               MLSYS_OUT(kl, "nats", "Mean KL(π‖π_ref) per step"), MLSYS_OUT(final, "", "The last step's values"),
               MLSYS_OUT(initial_loss, "", "Loss at the reference policy: ln 2"), MLSYS_OUT(ln2, "", "ln 2"),
               MLSYS_OUT(label_agreement, "",
                         "Share of pairs whose chosen response has the higher hidden true reward (label noise)"));
MLSYS_DESCRIBE(DpoBetaPoint, MLSYS_OUT(beta, "", "β"), MLSYS_OUT(loss, "", "Final DPO loss"),
               MLSYS_OUT(reward_margin, "", "Final mean implicit reward margin"),
               MLSYS_OUT(accuracy, "", "Final share of pairs with a positive margin"),
               MLSYS_OUT(kl, "nats", "Final mean KL(π‖π_ref)"),
               MLSYS_OUT(chosen_reward, "", "Final mean implicit reward of the chosen responses"),
               MLSYS_OUT(rejected_reward, "", "Final mean implicit reward of the rejected responses"),
               MLSYS_OUT(optimum_kl, "nats",
                         "Mean KL(π‖π_ref) at the exact minimiser of the DPO loss for this β (0 if not finite)"));
MLSYS_DESCRIBE(DpoBetaSweep, MLSYS_OUT(points, "", "One DPO run per β"),
               MLSYS_OUT(label_agreement, "", "Share of labels that agree with the hidden true reward"),
               MLSYS_OUT(ln2, "", "ln 2: the loss at the reference policy"),
               MLSYS_OUT(optimum_finite, "",
                         "Whether the DPO loss has a finite minimiser (false when some policy ranks every pair right)"),
               MLSYS_OUT(optimum_loss, "", "DPO loss at the exact minimiser: the same at every β"),
               MLSYS_OUT(optimum_reward_margin, "", "Mean implicit reward margin at the minimiser: the same at every β"),
               MLSYS_OUT(optimum_accuracy, "", "Share of pairs with a positive margin at the minimiser"));
MLSYS_DESCRIBE(RlhfPhase,
               MLSYS_OUT(phase, "",
                         "generation, policy_logprobs and value_estimates (forward passes that make the experience), "
                         "policy, value, reference or reward"),
               MLSYS_OUT(flops, "FLOP", "FLOPs of the phase over all GPUs"),
               MLSYS_OUT(seconds, "s", "Time of the phase"));
MLSYS_DESCRIBE(RlhfStep, MLSYS_OUT(method, "", "ppo, grpo or dpo"),
               MLSYS_OUT(sequences, "", "Sequences in the step: prompts × samples (DPO: chosen and rejected)"),
               MLSYS_OUT(tokens, "", "sequences × (prompt_tokens + response_tokens)"),
               MLSYS_OUT(generation_s, "s", "Time to generate the responses (0 for DPO)"),
               MLSYS_OUT(training_s, "s", "Time of the forward and backward passes"),
               MLSYS_OUT(step_s, "s", "generation_s + training_s"),
               MLSYS_OUT(generation_fraction, "", "generation_s / step_s"),
               MLSYS_OUT(decode_step_s, "s", "One decode step of a round (decode model, at the mean context)"),
               MLSYS_OUT(rounds, "", "Generation rounds per GPU: ceil(sequences per GPU / gen_batch)"),
               MLSYS_OUT(kv_cache_bytes, "B",
                         "KV cache of one GPU's full round: gen_batch sequences at prompt + response tokens (0 for DPO)"),
               MLSYS_OUT(generation_bytes, "B",
                         "Policy weights + that KV cache: one GPU's generation memory, a floor (0 for DPO)"),
               MLSYS_OUT(decode_bound, "", "memory or compute: what bounds a decode step (none for DPO)"),
               MLSYS_OUT(phases, "", "Time and FLOPs of each phase"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Peak of one GPU"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "HBM bandwidth of one GPU"));

namespace {

double bytes_of(const std::string& dtype) { return dtype == "fp32" ? 4.0 : 2.0; }

Field method_field() { return string_field("method", "RLHF method", "ppo", {"ppo", "dpo", "grpo"}); }

std::vector<Field> dpo_common() {
  return {integer_field("pairs", "", "Preference pairs (one prompt each) in the toy set", 64, 1, 512),
          integer_field("steps", "", "Full-batch Adam steps", 200, 1, 500),
          number_field("lr", "", "Adam learning rate", 0.05, 0.0, 10.0, true), seed_field(1)};
}

}  // namespace

void add_alignment_calculators(Calculators& out) {
  out.add("rlhf-memory",
          "Bytes of the models a preference trainer holds. A trained model costs weights and gradients in `dtype` plus "
          "Adam's 12 bytes per parameter (fp32 master copy and two moments); a frozen one its weights. PPO holds the "
          "policy and value model (trained), the reference and reward model (frozen); DPO the policy (trained) and "
          "reference; GRPO the policy (trained), reference and reward model (reward_params 0 for a rule-based "
          "reward), no value model. Activations and the KV cache of generation are not counted.",
          {method_field(),
           number_field("policy_params", "", "Parameters of the policy (and of its frozen reference)", 7e9, 0.0, 1e13,
                        true),
           optional(number_field("reward_params", "", "Parameters of the reward model (default: the policy's)", json(),
                                 0.0, 1e13)),
           optional(number_field("value_params", "", "Parameters of the value model (default: the policy's)", json(),
                                 0.0, 1e13)),
           string_field("dtype", "Data type of weights and gradients", "bf16", {"bf16", "fp16", "fp32"}),
           string_field("optimizer", "Optimizer (Adam: 12 bytes of state and master weights per parameter)", "adam",
                        {"adam"}),
           integer_field("gpus", "", "GPUs the models are sharded over", 1, 1, 1000000)},
          [](const Inputs& in) {
            const double p = in.num("policy_params");
            return rlhf_memory(in.str("method"), p, in.has("reward_params") ? in.num("reward_params") : p,
                               in.has("value_params") ? in.num("value_params") : p, bytes_of(in.str("dtype")),
                               in.integer("gpus"));
          });

  std::vector<Field> dpo_fields = {number_field("beta", "", "β: strength of the pull towards the reference", 0.1, 0.0,
                                                100.0, true)};
  for (auto& f : dpo_common()) dpo_fields.push_back(f);
  out.add("dpo",
          "DPO (Rafailov et al. 2023) executed on a seeded toy: each prompt has 4 responses with 8 standard-normal "
          "features; the policy is a softmax over them with logits w·φ, the reference the same with w₀; one pair per "
          "prompt is labelled by Bradley–Terry sampling from a hidden true reward. Loss −mean ln σ(β[(ln π(c) − ln "
          "π_ref(c)) − (ln π(r) − ln π_ref(r))]), minimised by full-batch Adam from w = w₀, where it is ln 2. A pair "
          "is correct when its margin is strictly positive.",
          dpo_fields, [](const Inputs& in) {
            return dpo_run(in.num("beta"), in.integer("pairs"), in.integer("steps"), in.num("lr"), in.integer("seed"));
          });

  std::vector<Field> sweep_fields = {number_list_field("betas", "", "Values of β, one DPO run each",
                                                       json::array({0.01, 0.03, 0.1, 0.3, 1.0}), 1e-4, 100.0, 1, 8)};
  for (auto& f : dpo_common()) sweep_fields.push_back(f);
  out.add("dpo-beta",
          "The final loss, implicit reward margin, accuracy and KL from the reference of `dpo` on the same toy set at "
          "several β (same pairs, steps, learning rate and seed).",
          sweep_fields, [](const Inputs& in) {
            return dpo_beta_sweep(in.numbers("betas"), in.integer("pairs"), in.integer("steps"), in.num("lr"),
                                  in.integer("seed"));
          });

  out.add("rlhf-step",
          "Time of one RLHF step on `gpus` GPUs. Generation (PPO one response per prompt, GRPO a group of `group`): "
          "each GPU decodes its share in rounds of gen_batch sequences, a prefill and response_tokens decode steps "
          "each, costed by the decode model's roofline at the mean context (ideal: full bandwidth, nothing "
          "overlapped). Training at mfu of peak: policy 6·N·T FLOPs per pass (forward and backward) × epochs, value "
          "model (PPO) the same, reference 2·N·T and reward 2·N_r·T (forward only), T = sequences × (prompt + "
          "response tokens); making the experience, PPO also runs the policy (old log-probabilities) and the value "
          "model (values) forward once, 2·N·T each, and GRPO the policy when epochs > 1. DPO has no generation: a chosen and a rejected response per prompt from the data.",
          with_machine({method_field(),
                        number_field("policy_params", "", "Parameters of the policy", 7e9, 1e6, 1e13),
                        optional(number_field("reward_params", "", "Reward model parameters (default: the policy's)",
                                              json(), 0.0, 1e13)),
                        optional(number_field("value_params", "", "Value model parameters (default: the policy's)",
                                              json(), 0.0, 1e13)),
                        integer_field("prompts", "", "Prompts per step", 512, 1, 1000000),
                        integer_field("group", "", "GRPO: responses sampled per prompt (G)", 8, 1, 1024),
                        integer_field("prompt_tokens", "tokens", "Tokens per prompt", 512, 1, 131072),
                        integer_field("response_tokens", "tokens", "Tokens per response", 512, 1, 131072),
                        integer_field("layers", "", "Policy layers (KV cache)", 32, 1, 1024),
                        integer_field("heads", "", "Attention heads (attention FLOPs)", 32, 1, 1024),
                        integer_field("kv_heads", "",
                                      "Key/value heads (KV cache); default 8 while heads keeps its default, else heads",
                                      8, 1, 1024),
                        integer_field("head_dim", "", "Head dimension", 128, 1, 4096),
                        integer_field("gen_batch", "", "Sequences each GPU decodes at once", 64, 1, 4096),
                        integer_field("gpus", "", "GPUs", 8, 1, 100000),
                        integer_field("epochs", "", "Passes over the batch per step (PPO epochs)", 1, 1, 16),
                        number_field("mfu", "", "Share of peak the training passes reach", 0.4, 0.0, 1.0, true),
                        hardware_field(true)}),
          [](const Inputs& in) {
            const Machine mc = machine_from(in, "bf16");
            const double p = in.num("policy_params");
            RlhfStepInput s{};
            s.method = in.str("method");
            s.policy_params = p;
            s.reward_params = in.has("reward_params") ? in.num("reward_params") : p;
            s.value_params = in.has("value_params") ? in.num("value_params") : p;
            s.prompts = static_cast<double>(in.integer("prompts"));
            s.samples = static_cast<double>(in.integer("group"));
            s.prompt_tokens = static_cast<double>(in.integer("prompt_tokens"));
            s.response_tokens = static_cast<double>(in.integer("response_tokens"));
            s.layers = static_cast<double>(in.integer("layers"));
            s.heads = static_cast<double>(in.integer("heads"));
            s.kv_heads = following_field(in, "kv_heads", {"heads"}).value_or(s.heads);
            if (std::fmod(s.heads, s.kv_heads) != 0)
              throw InputError("kv_heads", "'kv_heads' must divide 'heads'.");
            s.head_dim = static_cast<double>(in.integer("head_dim"));
            s.dtype_bytes = 2.0;
            s.gen_batch = static_cast<double>(in.integer("gen_batch"));
            s.gpus = static_cast<double>(in.integer("gpus"));
            s.epochs = static_cast<double>(in.integer("epochs"));
            s.mfu = in.num("mfu");
            s.peak_flops = mc.peak_flops;
            s.bandwidth_Bps = mc.bandwidth_Bps;
            return rlhf_step(s);
          });
}

}  // namespace mlsys::api
