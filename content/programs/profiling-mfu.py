"""Counting a training step's FLOPs: 6·N·D, MFU, training time, and the exposed all-reduce.

A companion to the lesson "Profiling, MFU and compilation". It follows the lesson's
accounting: "Counting the FLOPs of a training step" (N lists every weight a token multiplies,
the output head included and the input embedding's lookup left out, and PaLM's
F_token = 6·N + 12·L·H·Q·T), "MFU and HFU" (PaLM 540B's run: 238.3K tokens/s on 6144 TPU v4
chips) and "From FLOPs to a calendar" (t = 6·N·D / (G · P · MFU) for 70B parameters on 2T
tokens); and from its diagnosis half, "Exposed communication": the walk over gradient buckets
that says how much all-reduce time a trace shows after the backward pass. N is counted by
listing the weight matrices of the model, the way the engine's `transformer` calculator counts
params_flops. Model shapes and accelerator peaks are the course's tables, written into this
file when the course was built.

Run:  python3 profiling-mfu.py                 the lesson's worked examples
      python3 profiling-mfu.py --model llama-2-7b --seq 32768 --tokens-per-s 1e6 --devices 512 --hardware h100-sxm
      python3 profiling-mfu.py --params 8e9 --tokens 15e12 --gpus 2048 --mfu 0.45
      python3 profiling-mfu.py --backward-ms 60 --buckets 8 --allreduce-ms 9.7
      python3 profiling-mfu.py --json          the same numbers as JSON
"""
import argparse
import json
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x, tpu-v4, tpu-v5p | name, peak_flops")
MODELS = table("models: gpt-2-124m, gpt-3-175b, llama-2-7b, llama-2-70b, llama-3-8b, llama-3-70b, llama-3-405b, gemma-7b, palm-540b | name, layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, seq, gated_mlp, tied_embeddings")

SECONDS_PER_DAY = 86_400


def weight_shapes(m):
    """Every parameter tensor of the model as (name, rows, cols, copies); norms are rows × 1."""
    q_width, kv_width = m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
    layers, h, f, v = m["layers"], m["hidden"], m["ffn_hidden"], m["vocab"]
    mlp = [("mlp gate", h, f, layers)] if m["gated_mlp"] else []
    return [("attention Q", h, q_width, layers), ("attention K", h, kv_width, layers), ("attention V", h, kv_width, layers),
            ("attention out", q_width, h, layers), *mlp, ("mlp up", h, f, layers), ("mlp down", f, h, layers),
            ("norm gains", h, 1, 2 * layers), ("final norm", h, 1, 1),
            ("output head", h, v, 1),  # a V × h matmul per token, tied to the embedding or not
            ("input embedding", v, h, 0 if m["tied_embeddings"] else 1)]  # a lookup: no FLOPs


def param_counts(m):
    """N of the 6·N rule (params_flops) and the 'non-embedding' count that leaves the head out."""
    by_name = {name: rows * cols * copies for name, rows, cols, copies in weight_shapes(m)}
    params = sum(by_name.values())
    params_flops = params - by_name["input embedding"]  # every weight in a token's matmuls
    non_embedding = params_flops - by_name["output head"]
    return {"params": params, "params_flops": params_flops, "params_non_embedding": non_embedding}


def flops_per_token(params_n, layers, heads, head_dim, seq):
    """PaLM's training FLOPs per token: 6·N for the weights, 12·L·H·Q·T for QKᵀ and PV."""
    weights = 6 * params_n  # 2 forward (multiply + add) + 4 backward (input and weight gradients)
    attention = 12 * layers * heads * head_dim * seq  # 2 products × 2 FLOPs × 3 (fwd + bwd)
    return weights, attention


def mfu(params_n, m, seq, tokens_per_s, devices, peak_flops_per_s, recompute_fraction):
    """MFU = tokens/s · F_token / (devices · peak); HFU adds the recomputed share of the forward pass."""
    weights, attention = flops_per_token(params_n, m["layers"], m["heads"], m["head_dim"], seq)
    per_token = weights + attention
    achieved = tokens_per_s * per_token / devices  # model FLOP/s of one device
    hardware_per_token = per_token * (1 + recompute_fraction / 3)  # the forward pass is a third
    return {"params_counted": params_n, "flops_per_token": per_token, "flops_per_token_attention": attention,
            "attention_share": attention / per_token, "achieved_flops_per_device": achieved,
            "mfu": achieved / peak_flops_per_s, "hfu": tokens_per_s * hardware_per_token / devices / peak_flops_per_s}


def training_time(params_n, tokens, devices, peak_flops_per_s, mfu_sustained):
    """t = 6·N·D / (devices · peak · MFU), and the GPU-hours it bills."""
    total_flops = 6 * params_n * tokens
    cluster_flops_per_s = devices * peak_flops_per_s * mfu_sustained
    time_s = total_flops / cluster_flops_per_s
    return {"total_flops": total_flops, "time_s": time_s, "time_days": time_s / SECONDS_PER_DAY,
            "device_hours": devices * time_s / 3600}


def comm_tail(backward_s, buckets, allreduce_s, overlap):
    """Equal buckets ready at i/buckets of the backward pass (all at its end without overlap), each
    all-reduced in allreduce_s on one stream, in order: start at the later of ready and stream free."""
    end = 0.0
    for i in range(1, buckets + 1):
        ready = backward_s * i / buckets if overlap else backward_s
        end = max(ready, end) + allreduce_s
    exposed = max(0.0, end - backward_s)
    return {"comm_end_s": end, "exposed_s": exposed, "hidden_s": buckets * allreduce_s - exposed}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="profiling-mfu.py", description="FLOPs per token, MFU and training time of a transformer.")
    p.add_argument("--model", default="palm-540b", choices=sorted(MODELS), help="model of the MFU run (default palm-540b)")
    p.add_argument("--seq", type=int, help="sequence length T of the MFU run (default: the model's)")
    p.add_argument("--tokens-per-s", type=float, default=238_300, help="throughput of the whole job (default 238300)")
    p.add_argument("--devices", type=int, default=6144, help="accelerators of the MFU run (default 6144)")
    p.add_argument("--hardware", default="tpu-v4", choices=sorted(HARDWARE), help="accelerator of the MFU run (default tpu-v4)")
    p.add_argument("--recompute", type=float, default=0.75, help="share of the forward pass recomputed, for HFU (default 0.75)")
    p.add_argument("--params", type=float, default=70e9, help="N of the training-time plan (default 7e10)")
    p.add_argument("--tokens", type=float, default=2e12, help="D of the training-time plan (default 2e12)")
    p.add_argument("--gpus", type=int, default=1024, help="accelerators of the plan (default 1024)")
    p.add_argument("--gpu", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator of the plan (default h100-sxm)")
    p.add_argument("--mfu", type=float, default=0.4, help="MFU sustained by the plan (default 0.4)")
    p.add_argument("--backward-ms", type=float, default=60, help="backward pass of the all-reduce walk, ms (default 60)")
    p.add_argument("--buckets", type=int, default=8, help="equal gradient buckets (default 8)")
    p.add_argument("--allreduce-ms", type=float, default=5, help="all-reduce time of one bucket, ms (default 5)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    for flag, value, low, high in (("--seq", 1 if a.seq is None else a.seq, 1, 10_000_000), ("--tokens-per-s", a.tokens_per_s, 1e-9, 1e12),
                                   ("--devices", a.devices, 1, 10_000_000), ("--recompute", a.recompute, 0, 1),
                                   ("--params", a.params, 1, 1e15), ("--tokens", a.tokens, 1, 1e17),
                                   ("--gpus", a.gpus, 1, 10_000_000), ("--mfu", a.mfu, 1e-6, 1),
                                   ("--backward-ms", a.backward_ms, 1e-6, 1e9), ("--buckets", a.buckets, 1, 100_000),
                                   ("--allreduce-ms", a.allreduce_ms, 0, 1e9)):
        if not low <= value <= high:  # also rejects nan
            num = lambda x: f"{x:,}" if isinstance(x, int) else f"{x:g}"
            p.error(f"{flag} must be from {num(low)} to {num(high)}")
    model = MODELS[a.model]
    seq = model["seq"] if a.seq is None else a.seq

    # N with and without the output head, for every model of the table.
    counts = {mid: param_counts(m) for mid, m in MODELS.items()}
    # PaLM's accounting of the MFU run, with N = params_flops and with the head left out.
    peak = HARDWARE[a.hardware]["peak_flops"]["bf16"]
    run = mfu(counts[a.model]["params_flops"], model, seq, a.tokens_per_s, a.devices, peak, a.recompute)
    no_head = mfu(counts[a.model]["params_non_embedding"], model, seq, a.tokens_per_s, a.devices, peak, 0)
    # The calendar: the plan, at 50% MFU, and with a quarter more GPUs.
    gpu_peak = HARDWARE[a.gpu]["peak_flops"]["bf16"]
    plans = {"plan": training_time(a.params, a.tokens, a.gpus, gpu_peak, a.mfu),
             "plan_mfu_more": training_time(a.params, a.tokens, a.gpus, gpu_peak, min(1.0, a.mfu * 1.25)),
             "plan_gpus_more": training_time(a.params, a.tokens, round(a.gpus * 1.25), gpu_peak, a.mfu)}

    # The bucket walk, overlapped and not.
    tails = {"comm_tail": comm_tail(a.backward_ms / 1e3, a.buckets, a.allreduce_ms / 1e3, True),
             "comm_tail_no_overlap": comm_tail(a.backward_ms / 1e3, a.buckets, a.allreduce_ms / 1e3, False)}
    if a.json:
        print(json.dumps({"counts": counts, "mfu": run, "mfu_no_head": no_head, "peak_flops": peak, **plans, **tails}, indent=1))
        return
    print("N of 6·N counts the output head, 'non-embedding' leaves it out (head: share of N):")
    for mid, c in counts.items():
        print(f"  {MODELS[mid]['name']:<15}N = {c['params_flops']:>15,}  non-embedding {c['params_non_embedding']:>15,}"
              f"  head {1 - c['params_non_embedding'] / c['params_flops']:.0%}")
    print()
    print(f"MFU of {MODELS[a.model]['name']} at T = {seq:,}: {a.tokens_per_s:,.0f} tokens/s on {a.devices:,} x "
          f"{HARDWARE[a.hardware]['name']}")
    print(f"  FLOPs per token  {run['flops_per_token'] / 1e12:.3g} TFLOP  (6·N + 12·L·H·Q·T, attention {run['attention_share']:.1%})")
    print(f"  per device       {run['achieved_flops_per_device'] / 1e12:.0f} TFLOP/s of model FLOPs, of {peak / 1e12:.0f} TFLOP/s bf16")
    print(f"  MFU              {run['mfu']:.1%}   (head left out of N: {no_head['mfu']:.1%})")
    print(f"  HFU              {run['hfu']:.1%}   (recomputing {a.recompute:g} of a forward pass)")
    if run["mfu"] > 1:  # more model FLOP/s than the chips can do: the inputs describe no real run
        print(f"  warning: an MFU above 100% is impossible (no chip does more than its peak); "
              "check --tokens-per-s, --devices and --hardware")
    print()
    print(f"Training {a.params:.3g} parameters on {a.tokens:.3g} tokens: 6·N·D = {plans['plan']['total_flops']:.3g} FLOP")
    for key, gpus, m in (("plan", a.gpus, a.mfu), ("plan_mfu_more", a.gpus, min(1.0, a.mfu * 1.25)),
                         ("plan_gpus_more", round(a.gpus * 1.25), a.mfu)):
        t = plans[key]
        if key == "plan_mfu_more" and a.mfu * 1.25 > 1:
            print(f"  (a quarter more MFU than {a.mfu:.0%} would pass 100%: no such plan)")
            continue
        print(f"  {gpus:>6,} x {HARDWARE[a.gpu]['name']} at {m:.0%} MFU: {t['time_days']:.1f} days, "
              f"{t['device_hours']:,.0f} GPU-hours")
    print()
    print(f"Exposed communication: {a.buckets} buckets of {a.allreduce_ms:g} ms all-reduce, backward pass {a.backward_ms:g} ms")
    for key, how in (("comm_tail", "overlapped"), ("comm_tail_no_overlap", "after the backward pass")):
        t = tails[key]
        print(f"  {how:<25}last all-reduce ends at {t['comm_end_s'] * 1e3:.2f} ms: {t['exposed_s'] * 1e3:.2f} ms exposed, "
              f"{max(0.0, t['hidden_s']) * 1e3:.2f} ms hidden")


if __name__ == "__main__":
    main()
