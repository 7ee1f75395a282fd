"""Aligning with preferences: the memory of the models PPO, GRPO and DPO hold, the DPO loss
and its gradient, and the time of one RLHF step split between generation and training.

A companion to the lesson "Aligning with preferences". A trained model costs weights and
gradients in bf16 plus Adam's 12 bytes per parameter (16 B/param); a frozen one its 2 bytes of
weights. PPO holds the policy and value model (trained), the reference and reward model
(frozen); GRPO drops the value model; DPO also drops the reward model. The DPO loss of a pair is
-ln sigmoid(beta * (rho_w - rho_l)), rho = ln pi - ln pi_ref: ln 2 when the policy is the
reference; its gradient is checked here against a finite difference on a small example. An RLHF
step: generation in rounds of gen_batch sequences per GPU, each a prefill and response_tokens
decode steps at the roofline bound, max(FLOPs / peak, bytes / bandwidth); training 6N FLOPs per
token trained and 2N per token scored, at an MFU; PPO also scores its samples with the policy
(old log-probabilities) and the value model (values) before training, 2N each. Peak and bandwidth are the course's hardware
table, written into this file when the course was built.

Run:  python3 preference-alignment.py                     the lesson's worked example
      python3 preference-alignment.py --policy-b 70 --gpus 64
      python3 preference-alignment.py --group 16 --gen-batch 8
      python3 preference-alignment.py --json              the same numbers as JSON
"""
import argparse
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x | name, peak_flops, hbm_bandwidth_Bps")


def memory(method, policy, reward, value, gpus, dtype_bytes=2.0):
    trained, frozen = 2 * dtype_bytes + 12, dtype_bytes
    models = [("policy", policy, trained), ("reference", policy, frozen)]
    if method != "dpo":
        models.append(("reward", reward, frozen))
    if method == "ppo":
        models.append(("value", value, trained))
    total = sum(p * b for _, p, b in models)
    return {"models": {r: p * b for r, p, b in models}, "total_bytes": total, "per_gpu_bytes": total / gpus}


def log_sigmoid(z):
    return -math.log1p(math.exp(-z)) if z >= 0 else z - math.log1p(math.exp(z))


def pair_loss(beta, rho_w, rho_l):
    return -log_sigmoid(beta * (rho_w - rho_l))


def toy_loss_and_grad(w, w_ref, pairs, beta):
    """DPO on a linear softmax policy: h = beta (w - w_ref).(phi_w - phi_l); returns loss and dL/dw."""
    loss, grad = 0.0, [0.0] * len(w)
    for phi_w, phi_l in pairs:
        d = [a - b for a, b in zip(phi_w, phi_l)]
        h = beta * sum((wi - ri) * di for wi, ri, di in zip(w, w_ref, d))
        loss -= log_sigmoid(h)
        g = -beta * (1 - 1 / (1 + math.exp(-h)))
        grad = [gi + g * di for gi, di in zip(grad, d)]
    n = len(pairs)
    return loss / n, [g / n for g in grad]


def roofline(flops, nbytes, peak, bw):
    return max(flops / peak, nbytes / bw)


def rlhf_step(method, policy, reward, value, prompts, group, prompt, response, layers, heads, kv_heads, head_dim,
              gen_batch, gpus, epochs, mfu, peak, bw):
    samples = {"ppo": 1, "dpo": 2, "grpo": group}[method]
    sequences = prompts * samples
    tokens = sequences * (prompt + response)
    out = {"sequences": sequences, "tokens": tokens, "generation_s": 0.0, "decode_step_s": 0.0, "rounds": 0.0}
    if method != "dpo":
        per_gpu = math.ceil(sequences / gpus)
        rounds = math.ceil(per_gpu / gen_batch)
        b = min(gen_batch, per_gpu)
        kv_per_token = 2 * layers * kv_heads * head_dim * 2
        weights = 2 * policy
        pre = roofline(b * (2 * policy * prompt + 2 * layers * heads * head_dim * prompt * (prompt + 1)),
                       weights + b * prompt * kv_per_token, peak, bw)
        ctx = prompt + response / 2
        dec = roofline(b * (2 * policy + 4 * layers * heads * head_dim * ctx), weights + b * ctx * kv_per_token, peak, bw)
        out.update(rounds=rounds, decode_step_s=dec, generation_s=rounds * (pre + response * dec))
    rate = gpus * peak * mfu
    flops = epochs * 6 * policy * tokens + 2 * policy * tokens
    if method == "ppo" or (method == "grpo" and epochs > 1):
        flops += 2 * policy * tokens  # the old log-probabilities, before training
    if method == "ppo":
        flops += epochs * 6 * value * tokens + 2 * value * tokens  # the values for the advantages
    if method != "dpo":
        flops += 2 * reward * tokens
    out["training_s"] = flops / rate
    out["step_s"] = out["generation_s"] + out["training_s"]
    out["generation_fraction"] = out["generation_s"] / out["step_s"]
    return out


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="preference-alignment.py", description="RLHF memory, the DPO loss and an RLHF step's time split.")
    p.add_argument("--policy-b", type=float, default=7, help="policy parameters, billions (default 7)")
    p.add_argument("--reward-b", type=float, default=None, help="reward model parameters, billions; 0 for a rule-based reward (default: the policy's)")
    p.add_argument("--value-b", type=float, default=None, help="PPO's value model parameters, billions, above 0 (default: the policy's)")
    p.add_argument("--gpus", type=int, default=8, help="GPUs, 1 to 100,000 (default 8)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator (default h100-sxm)")
    p.add_argument("--group", type=int, default=8, help="GRPO group size G (default 8)")
    p.add_argument("--gen-batch", type=int, default=64, help="sequences each GPU decodes at once (default 64)")
    p.add_argument("--beta", type=float, default=0.1, help="DPO beta (default 0.1)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not (math.isfinite(a.policy_b) and 0 < a.policy_b <= 10000):
        p.error("--policy-b must be a positive number of billions up to 10,000")
    if a.reward_b is not None and not (math.isfinite(a.reward_b) and 0 <= a.reward_b <= 10000):
        p.error("--reward-b must be from 0 to 10,000 billions")
    if a.value_b is not None and not (math.isfinite(a.value_b) and 0 < a.value_b <= 10000):
        p.error("--value-b must be above 0 and up to 10,000 billions: PPO always trains its value model")
    if not 1 <= a.gpus <= 100000:
        p.error("--gpus must be from 1 to 100,000")
    if not 1 <= a.group <= 1024 or not 1 <= a.gen_batch <= 4096:
        p.error("--group must be 1 to 1,024 and --gen-batch 1 to 4,096")
    if not (math.isfinite(a.beta) and 0 < a.beta <= 100):
        p.error("--beta must be in (0, 100]")

    pol = a.policy_b * 1e9
    rew = pol if a.reward_b is None else a.reward_b * 1e9
    val = pol if a.value_b is None else a.value_b * 1e9
    mem = {m: memory(m, pol, rew, val, a.gpus) for m in ("ppo", "grpo", "dpo")}

    # DPO: ln 2 at the reference, and the gradient against a central finite difference.
    pairs = [([math.sin(1 + i + 3 * k) for i in range(4)], [math.cos(2 + i * k) for i in range(4)]) for k in range(6)]
    w_ref = [0.1, -0.2, 0.3, 0.05]
    w = [r + 0.4 * math.sin(i + 1) for i, r in enumerate(w_ref)]
    loss0, _ = toy_loss_and_grad(w_ref, w_ref, pairs, a.beta)
    loss, grad = toy_loss_and_grad(w, w_ref, pairs, a.beta)
    eps, worst = 1e-6, 0.0
    for i in range(len(w)):
        wp, wm = list(w), list(w)
        wp[i] += eps
        wm[i] -= eps
        fd = (toy_loss_and_grad(wp, w_ref, pairs, a.beta)[0] - toy_loss_and_grad(wm, w_ref, pairs, a.beta)[0]) / (2 * eps)
        worst = max(worst, abs(fd - grad[i]))
    dpo = {"loss_at_reference": loss0, "ln2": math.log(2), "pair_loss_5_minus5": pair_loss(a.beta, 5, -5),
           "max_gradient_error": worst}

    hw = HARDWARE[a.hardware]
    peak, bw = hw["peak_flops"]["bf16"], hw["hbm_bandwidth_Bps"]
    steps = {m: rlhf_step(m, pol, rew, val, 512, a.group, 512, 512, 32, 32, 8, 128, a.gen_batch, a.gpus, 1, 0.4, peak, bw)
             for m in ("ppo", "grpo", "dpo")}
    out = {"memory": mem, "dpo": dpo, "step": steps, "hardware": a.hardware}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(f"Model memory for a {a.policy_b:g}B policy, {rew / 1e9:g}B reward and {val / 1e9:g}B value model, "
          f"over {a.gpus} GPUs:")
    for m, r in mem.items():
        print(f"  {m.upper():5s} {r['total_bytes'] / 1e9:8,.1f} GB in all, {r['per_gpu_bytes'] / 1e9:7,.2f} GB per GPU")
    print(f"\nDPO loss at the reference policy: {loss0:.6f} (ln 2 = {math.log(2):.6f})")
    print(f"pair loss with beta {a.beta:g}, log-ratios +5 and -5: {dpo['pair_loss_5_minus5']:.4f}")
    print(f"gradient against a finite difference: largest error {worst:.1e}")
    print(f"\nOne step of 512 prompts on {a.gpus} x {hw['name']} (512 + 512 tokens, decode batch {a.gen_batch}):")
    for m, s in steps.items():
        print(f"  {m.upper():5s} generation {s['generation_s']:7.2f} s + training {s['training_s']:7.2f} s = "
              f"{s['step_s']:7.2f} s ({100 * s['generation_fraction']:.0f}% generating)")


if __name__ == "__main__":
    main()
