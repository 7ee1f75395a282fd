// Exercises of the preference-alignment lesson: the memory of PPO's four models
// (`rlhf-memory`), what DPO saves, the DPO loss of one pair (`dpo`'s loss), an implicit reward,
// and the generation time of a GRPO step (`rlhf-step`).
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/alignment/alignment.hpp"

namespace mlsys::exercises {

namespace {

const std::vector<double> kPolicyB = {1, 1.5, 3, 7, 8, 13, 14, 32, 34, 70};

Exercise ppo_memory(Rng& rng) {
  double pb = 0, rb = 0;
  int gpus = 0;
  RlhfMemory m;
  // The model state is a floor (activations and the generation KV cache come on top), so a
  // draw leaves at least a quarter of an 80 GB H100 free: at most 60 GB of it per GPU.
  const double state_cap = 60e9;
  do {  // a reward model no larger than the policy, and shards that leave room on an H100
    pb = rng.pick(kPolicyB);
    rb = rng.pick(std::vector<double>{0.5, 1, 1.5, 3, 6, 7});
    gpus = rng.pick(std::vector<int>{8, 16, 32, 64});
    m = rlhf_memory("ppo", pb * 1e9, rb * 1e9, rb * 1e9, 2.0, gpus);
  } while (rb > pb || m.per_gpu_bytes > state_cap);
  Exercise e;
  e.title = "Memory of PPO's four models";
  e.params = {{"method", "ppo"}, {"policy_params", pb * 1e9}, {"reward_params", rb * 1e9},
              {"value_params", rb * 1e9}, {"gpus", gpus}};
  e.prompt = "PPO fine-tunes a policy of " + format_number(pb, 3) + " billion parameters in bf16 with Adam, against a frozen "
             "reference copy of it, a frozen reward model of " + format_number(rb, 3) + " billion parameters and a trained value model of "
             "the same size as the reward model. A trained model costs 2 + 2 + 12 bytes per parameter (weights, "
             "gradients, fp32 master copy and two moments); a frozen one 2. Sharded evenly over " + format_int(gpus) +
             " GPUs, how many GB per GPU do the models take (activations not counted)?";
  e.unit = "GB";
  e.answer = m.per_gpu_bytes / 1e9;
  e.rel_tolerance = 0.01;
  e.hint = "Policy and value: 16 B/param. Reference and reward: 2 B/param. Sum, then divide by the GPUs.";
  e.solution = "Policy " + format_number(pb, 3) + "B × 16 = " + format_number(pb * 16, 4) + " GB; reference × 2 = " +
               format_number(pb * 2, 4) + " GB; reward " + format_number(rb, 3) + "B × 2 = " +
               format_number(rb * 2, 4) + " GB; value × 16 = " + format_number(rb * 16, 4) + " GB. Total " +
               format_number(m.total_bytes / 1e9, 4) + " GB over " + format_int(gpus) + " GPUs: " +
               format_number(e.answer, 4) + " GB.";
  require(e, rb <= pb, "the reward model is no larger than the policy");
  require_fits(e, m.per_gpu_bytes, state_cap, "each GPU's model state, three quarters of an 80 GB H100");
  reject_mistake(e, 16 * (2 * pb + 2 * rb) / gpus, "counted all four models as trained (16 bytes per parameter)");
  reject_mistake(e, m.total_bytes / 1e9, "did not divide by the GPUs");
  return e;
}

Exercise dpo_saving(Rng& rng) {
  // Log-uniform over 1–70B, so small and large models are drawn alike (uniform in size, nine
  // draws in ten were above 10B and the 1–10B models came up rarely).
  const double pb = round_sig(exp_det(rng.uniform() * log_det(70.0)), 2);
  const RlhfMemory ppo = rlhf_memory("ppo", pb * 1e9, pb * 1e9, pb * 1e9, 2.0, 1);
  const RlhfMemory dpo = rlhf_memory("dpo", pb * 1e9, pb * 1e9, pb * 1e9, 2.0, 1);
  Exercise e;
  e.title = "What DPO leaves out";
  e.params = {{"method", "dpo"}, {"policy_params", pb * 1e9}};
  e.prompt = "A team aligns a model of " + format_number(pb, 3) + " billion parameters in bf16 with Adam. With PPO, the reward "
             "and value models are the same size as the policy; with DPO there is neither. Trained models cost 16 "
             "bytes per parameter and frozen ones 2. How many GB of model memory does switching from PPO to DPO "
             "free?";
  e.unit = "GB";
  e.answer = (ppo.total_bytes - dpo.total_bytes) / 1e9;
  e.rel_tolerance = 0.01;
  e.hint = "DPO drops the frozen reward model and the trained value model.";
  e.solution = "PPO holds " + format_number(ppo.total_bytes / 1e9, 4) + " GB (16 + 2 + 2 + 16 = 36 B/param), DPO " +
               format_number(dpo.total_bytes / 1e9, 4) + " GB (16 + 2 = 18 B/param): " + format_number(e.answer, 4) +
               " GB freed.";
  require_between(e, pb, 1, 70, "the policy in billions of parameters");
  reject_mistake(e, 16 * pb, "freed only the value model");
  reject_mistake(e, 32 * pb, "counted the frozen reward model at 16 bytes per parameter too");
  return e;
}

Exercise pair_loss(Rng& rng) {
  double beta = 0, rc = 0, rr = 0;
  do {  // a margin β·Δ between −3 and 3 (a loss of 0.05 to 3 nats, as DPO training sees), not 0
    beta = rng.pick(std::vector<double>{0.05, 0.1, 0.2, 0.3, 0.5});
    rc = std::round(40 * rng.uniform() - 10) / 2;  // −5 … 15 nats in halves
    rr = std::round(-40 * rng.uniform() + 10) / 2;
  } while (std::fabs(beta * (rc - rr)) > 3 || std::fabs(beta * (rc - rr)) < 0.1);
  Exercise e;
  e.title = "The DPO loss of one pair";
  e.params = {{"beta", beta}};
  e.prompt = "During DPO training with β = " + format_number(beta, 2) + ", a pair's chosen response has the log-ratio ln π − ln π_ref = " +
             format_number(rc, 3) + " under the current policy and its rejected response " + format_number(rr, 3) +
             ". What is this pair's DPO loss, in nats?";
  e.unit = "";
  e.answer = dpo_pair_loss(beta, rc, rr);
  e.rel_tolerance = 0.01;
  e.hint = "L = −ln σ(β·[(ln π − ln π_ref)(chosen) − (ln π − ln π_ref)(rejected)]) = ln(1 + e^(−h)).";
  const double h = beta * (rc - rr);
  e.solution = "h = " + format_number(beta, 2) + " × (" + format_number(rc, 3) + " − (" + format_number(rr, 3) +
               ")) = " + format_number(h, 4) + "; L = ln(1 + e^(" + format_number(-h, 4) + ")) = " +
               format_number(e.answer, 4) + " nats.";
  require_between(e, e.answer, 0.04, 3.1, "the loss in nats (β·Δ within ±3)");
  reject_mistake(e, dpo_pair_loss(beta, rr, rc), "swapped the chosen and rejected responses");
  reject_mistake(e, dpo_pair_loss(1, rc, rr), "left out β");
  return e;
}

Exercise implicit_reward(Rng& rng) {
  const double beta = rng.pick(std::vector<double>{0.05, 0.1, 0.2, 0.3, 0.5});
  double p_ref = 0, factor = 0;
  do {  // a probability under the policy of at most 0.8
    p_ref = rng.pick(std::vector<double>{0.01, 0.02, 0.04, 0.05, 0.1, 0.2});
    factor = rng.pick(std::vector<double>{1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10});
  } while (p_ref * factor > 0.8);
  const double p = p_ref * factor;
  Exercise e;
  e.title = "An implicit reward";
  e.params = {{"beta", beta}};
  e.prompt = "After DPO with β = " + format_number(beta, 2) + ", a response that the reference model produced with "
             "probability " + format_number(p_ref, 2) + " has probability " + format_number(p, 3) +
             " under the policy. What implicit reward β·ln(π/π_ref) does DPO assign it?";
  e.unit = "";
  e.answer = beta * std::log(p / p_ref);
  e.rel_tolerance = 0.01;
  e.hint = "Only the ratio of the two probabilities matters.";
  e.solution = "π/π_ref = " + format_number(factor, 3) + "; ln " + format_number(factor, 3) + " = " +
               format_number(std::log(factor), 4) + "; × " + format_number(beta, 2) + " = " +
               format_number(e.answer, 4) + ".";
  require(e, p > 0 && p <= 1, "the policy's probability is a probability: " + format_number(p, 3));
  reject_mistake(e, std::log(factor), "left out β");
  reject_mistake(e, beta * std::log10(factor), "took the base-10 logarithm");
  reject_mistake(e, -e.answer, "divided the reference's probability by the policy's");
  return e;
}

Exercise grpo_generation(Rng& rng) {
  int prompts = 0, group = 0, gpus = 0, gen_batch = 0, resp = 0;
  double step_ms = 0, per_gpu = 0, rounds = 0;
  do {  // a generation phase of at most half an hour
    prompts = rng.pick(std::vector<int>{256, 512, 1024});
    group = rng.pick(std::vector<int>{4, 8, 16, 32});
    gpus = rng.pick(std::vector<int>{8, 16, 32, 64});
    gen_batch = rng.pick(std::vector<int>{64, 128, 256});
    resp = rng.pick(std::vector<int>{256, 512, 1024, 2048});
    step_ms = round_sig(5 + 25 * rng.uniform(), 2);
    per_gpu = std::ceil(static_cast<double>(prompts) * group / gpus);
    rounds = std::ceil(per_gpu / gen_batch);
  } while (rounds * resp * step_ms / 1e3 > 1800);
  Exercise e;
  e.title = "Generation time of a GRPO step";
  e.params = {{"method", "grpo"}, {"prompts", prompts}, {"group", group}, {"gpus", gpus}, {"gen_batch", gen_batch},
              {"response_tokens", resp}};
  e.prompt = "A GRPO step samples a group of " + format_int(group) + " responses for each of " + format_int(prompts) +
             " prompts, on " + format_int(gpus) + " GPUs that each decode up to " + format_int(gen_batch) +
             " sequences at once. Every response has " + format_int(resp) + " tokens, and one decode step of a "
             "batch takes " + format_number(step_ms, 2) + " ms whatever its size (it is bound by reading the "
             "weights). Ignoring prefill, how many seconds does generation take?";
  e.unit = "s";
  e.answer = rounds * resp * step_ms / 1e3;
  e.rel_tolerance = 0.01;
  e.hint = "Sequences per GPU, then rounds of gen_batch, each round response-length decode steps.";
  e.solution = format_int(prompts) + " × " + format_int(group) + " / " + format_int(gpus) + " = " +
               format_int(per_gpu) + " sequences per GPU: " + format_int(rounds) + (rounds == 1 ? " round" : " rounds") + " of up to " +
               format_int(gen_batch) + "; each " + format_int(resp) + " steps × " + format_number(step_ms, 2) +
               " ms. Total " + format_number(e.answer, 4) + " s.";
  require_whole(e, rounds, "decode rounds per GPU");
  require_between(e, e.answer, 1, 1800, "generation time in seconds");
  reject_mistake(e, std::ceil(static_cast<double>(prompts) * group / gen_batch) * resp * step_ms / 1e3,
                 "decoded every response on one GPU: each GPU takes its share at once");
  return e;
}

}  // namespace

void add_alignment_exercises(std::vector<Generator>& out) {
  out.push_back({"pa-ppo-memory", ppo_memory});
  out.push_back({"pa-dpo-saving", dpo_saving});
  out.push_back({"pa-pair-loss", pair_loss});
  out.push_back({"pa-implicit-reward", implicit_reward});
  out.push_back({"pa-grpo-generation", grpo_generation});
}

}  // namespace mlsys::exercises
