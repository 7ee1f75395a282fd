"""Fine-tuning and LoRA: what full fine-tuning, LoRA and QLoRA train, hold in memory and cost
per step, and why a small rank can be enough.

A companion to the lesson "Fine-tuning and LoRA". LoRA freezes each adapted d_out x d_in matrix
and trains B (d_out x r) and A (r x d_in): r * (d_in + d_out) parameters per matrix (Hu et al.
2021). A frozen weight costs 2 bytes; a trained one 16 (bf16 weight and gradient, fp32 master
copy and two Adam moments). QLoRA stores the blocks' linear layers in 4-bit NormalFloat, blocks
of 64 with an absmax constant each; double quantization stores those constants in 8 bits with
one fp32 constant per 256 of them: 4 + 8/64 + 32/(64 * 256) = 4.127 bits (Dettmers et al. 2023).
Per token, full fine-tuning costs 6N + 12 L H Q T FLOPs (PaLM's count); LoRA 4N + 6 P_adapter +
12 L H Q T, because the frozen base computes no weight gradients. QLoRA adds dequantizing its
base twice per step at the memory bandwidth. Then a small one-sided Jacobi SVD is executed on a
matrix with a decaying spectrum, its rank-r truncation formed, and its error measured entry by
entry against Eckart-Young's root of the sum of the dropped squared singular values. Activations are left out (see the lesson's
calculator). Model and hardware numbers are the course's tables, written into this file when the
course was built.

Run:  python3 fine-tuning-lora.py                         Llama 2 7B, r = 16 on every linear layer
      python3 fine-tuning-lora.py --model gpt-3-175b --targets qv --rank 4
      python3 fine-tuning-lora.py --hardware a100-sxm-80gb --batch 1
      python3 fine-tuning-lora.py --json                  the same numbers as JSON
"""
import argparse
import json
import math
import random
import sys
from course_data import table  # the tables of content/data; the download has them written in

MODELS = table("models: gpt-3-175b, llama-2-7b, llama-2-13b, llama-2-70b, llama-3-8b, llama-3-70b, mistral-7b | name, layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, gated_mlp, tied_embeddings")
HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x | name, peak_flops, hbm_bandwidth_Bps")


def counts(m):
    """Parameters of the config, as the engine counts them (no biases)."""
    h, q, kv, f = m["hidden"], m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"], m["ffn_hidden"]
    attn = h * q + 2 * h * kv + q * h
    mlp = (3 if m["gated_mlp"] else 2) * h * f
    non_emb = m["layers"] * (attn + mlp + 2 * h) + h
    params = non_emb + (1 if m["tied_embeddings"] else 2) * m["vocab"] * h
    return {"params": params, "quantized_params": m["layers"] * (attn + mlp), "params_flops": non_emb + m["vocab"] * h}


def adapted(m, targets):
    """(d_in, d_out) of each adapted matrix of one layer."""
    h, q, kv, f = m["hidden"], m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"], m["ffn_hidden"]
    if targets == "qv":
        return [(h, q), (h, kv)]
    mats = [(h, q), (h, kv), (h, kv), (q, h)]
    if targets == "all-linear":
        mats += ([(h, f)] if m["gated_mlp"] else []) + [(h, f), (f, h)]
    return mats


def lora(m, rank, targets, double_quant):
    c = counts(m)
    a = m["layers"] * sum(rank * (di + do) for di, do in adapted(m, targets))
    bits = 4 + 8 / 64 + 32 / (64 * 256) if double_quant else 4 + 32 / 64
    n = c["params"]
    return {"params": n, "trainable_params": a, "trainable_fraction": a / n, "bits_per_base_param": bits,
            "quantized_params": c["quantized_params"], "adapter_file_bytes": 2 * a,
            "full_states_bytes": 16 * n, "lora_states_bytes": 2 * n + 16 * a,
            "qlora_states_bytes": 2 * (n - c["quantized_params"]) + c["quantized_params"] * bits / 8 + 16 * a,
            "quantized_weights_bytes": c["quantized_params"] * bits / 8, "lora_optimizer_bytes": 12 * a}


def step(m, rank, targets, batch, seq, hw, mfu, double_quant):
    c, l = counts(m), lora(m, rank, targets, double_quant)
    att = 12 * m["layers"] * m["heads"] * m["head_dim"] * seq
    full = 6 * c["params_flops"] + att
    lo = 4 * c["params_flops"] + att + 6 * l["trainable_params"]
    tokens, rate = batch * seq, hw["peak_flops"]["bf16"] * mfu
    dequant = 2 * c["quantized_params"] * (l["bits_per_base_param"] / 8 + 4) / hw["hbm_bandwidth_Bps"]
    t = {"full": full * tokens / rate, "lora": lo * tokens / rate, "qlora": lo * tokens / rate + dequant}
    return {"full_flops_per_token": full, "lora_flops_per_token": lo, "lora_flops_ratio": lo / full,
            "full_time_s": t["full"], "lora_time_s": t["lora"], "qlora_time_s": t["qlora"], "dequant_s": dequant,
            "lora_speedup": t["full"] / t["lora"], "qlora_slowdown": t["qlora"] / t["lora"]}


def jacobi_svd(a):
    """One-sided Jacobi: rotate column pairs of A (and of V, from I) until all are orthogonal.
    Then A V has orthogonal columns u_j * sigma_j and A = (A V) V^T; returns (A V, V, sigmas)."""
    rows, cols = len(a), len(a[0])
    a = [row[:] for row in a]
    v = [[float(i == j) for j in range(cols)] for i in range(cols)]
    for _ in range(60):
        rotated = False
        for p in range(cols - 1):
            for q in range(p + 1, cols):
                alpha = sum(a[i][p] ** 2 for i in range(rows))
                beta = sum(a[i][q] ** 2 for i in range(rows))
                gamma = sum(a[i][p] * a[i][q] for i in range(rows))
                if abs(gamma) <= 1e-15 * math.sqrt(alpha * beta) or gamma == 0:
                    continue
                rotated = True
                zeta = (beta - alpha) / (2 * gamma)
                t = math.copysign(1, zeta) / (abs(zeta) + math.sqrt(1 + zeta * zeta))
                cs = 1 / math.sqrt(1 + t * t)
                sn = cs * t
                for m in (a, v):
                    for row in m:
                        x, y = row[p], row[q]
                        row[p], row[q] = cs * x - sn * y, sn * x + cs * y
        if not rotated:
            break
    return a, v, [math.sqrt(sum(a[i][j] ** 2 for i in range(rows))) for j in range(cols)]


def eckart_young(rows=24, cols=16, decay=0.6, rank=3, seed=1):
    """A sum of decaying rank-one terms plus small noise; the rank-r error from its sigmas."""
    rng = random.Random(seed)
    a = [[rng.gauss(0, 0.01) for _ in range(cols)] for _ in range(rows)]
    for k in range(6):
        u = [rng.gauss(0, 1) for _ in range(rows)]
        v = [rng.gauss(0, 1) for _ in range(cols)]
        nu, nv = math.sqrt(sum(x * x for x in u)), math.sqrt(sum(x * x for x in v))
        for i in range(rows):
            for j in range(cols):
                a[i][j] += decay ** k * u[i] * v[j] / (nu * nv)
    av, v, sig = jacobi_svd(a)
    keep = sorted(range(cols), key=lambda j: -sig[j])[:rank]  # the r largest singular values
    # The truncated SVD formed entry by entry: A_r = sum over kept j of (A V)[:, j] V[:, j]^T.
    a_r = [[sum(av[i][j] * v[k][j] for j in keep) for k in range(cols)] for i in range(rows)]
    measured = math.sqrt(sum((a[i][k] - a_r[i][k]) ** 2 for i in range(rows) for k in range(cols)))
    s = sorted(sig, reverse=True)
    norm = math.sqrt(sum(x * x for row in a for x in row))
    err = math.sqrt(sum(x * x for x in s[rank:]))  # Eckart-Young: the root of the dropped sigma^2
    return {"sigma": s[:8], "norm_check": math.sqrt(sum(x * x for x in s)) / norm, "rank": rank,
            "relative_error": err / norm, "measured_error": measured, "eckart_young_error": err}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.error = lambda msg: sys.exit(f"fine-tuning-lora.py: error: {msg}")  # one line, no usage block
    ap.add_argument("--model", default="llama-2-7b", choices=sorted(MODELS))
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--targets", default="all-linear", choices=["qv", "qkvo", "all-linear"])
    ap.add_argument("--no-double-quant", action="store_true")
    ap.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE))
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--mfu", type=float, default=0.4)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    m = MODELS[a.model]
    smallest = min(min(di, do) for di, do in adapted(m, a.targets))
    if not 1 <= a.rank <= smallest:
        ap.error(f"--rank must be between 1 and {smallest:,}")
    if a.batch < 1 or a.seq < 1:
        ap.error("--batch and --seq must be at least 1")
    if not 0 < a.mfu <= 1:
        ap.error("--mfu must be in (0, 1]")
    dq = not a.no_double_quant
    out = {"lora": lora(m, a.rank, a.targets, dq), "step": step(m, a.rank, a.targets, a.batch, a.seq, HARDWARE[a.hardware], a.mfu, dq),
           "svd": eckart_young()}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    l, s, e = out["lora"], out["step"], out["svd"]
    print(f"{m['name']}: {l['params']:,} parameters; LoRA r = {a.rank} on {a.targets}")
    print(f"trainable: {l['trainable_params']:,} ({100 * l['trainable_fraction']:.3f}% of the model), adapter file {l['adapter_file_bytes'] / 1e6:.1f} MB")
    print(f"QLoRA base: {l['bits_per_base_param']:.3f} bits per quantized weight, {l['quantized_weights_bytes'] / 1e9:.2f} GB")
    print(f"weights, gradients and optimizer states: full {l['full_states_bytes'] / 1e9:.1f} GB, LoRA {l['lora_states_bytes'] / 1e9:.1f} GB, QLoRA {l['qlora_states_bytes'] / 1e9:.1f} GB (activations on top)")
    print(f"step of {a.batch} x {a.seq} tokens on {HARDWARE[a.hardware]['name']} at {100 * a.mfu:.0f}% MFU: "
          f"full {s['full_time_s']:.2f} s, LoRA {s['lora_time_s']:.2f} s ({100 * s['lora_flops_ratio']:.0f}% of the FLOPs), QLoRA {s['qlora_time_s']:.2f} s")
    print(f"Eckart-Young on an executed 24 x 16 SVD: the rank-{e['rank']} truncation, formed and measured entry by entry, "
          f"misses |A - A_r|_F = {e['measured_error']:.6f}; the dropped sigmas give {e['eckart_young_error']:.6f} "
          f"({100 * e['relative_error']:.1f}% of |A|_F)")


if __name__ == "__main__":
    try:
        main()
    except (ValueError, KeyError) as err:
        sys.exit(f"error: {err}")
