"""Comparing accelerators from their datasheets: one workload timed on each chip by the roofline.

A companion to the lesson "Comparing accelerators from their datasheets". For each chip it
takes two datasheet numbers, the dense peak for bf16 and the HBM bandwidth, and computes the
ridge point peak / bandwidth. Then it counts the FLOPs and HBM bytes of one step of a
transformer (a training step, a prefill or a decode step), times the step on every chip as
max(FLOPs / peak, bytes / bandwidth), checks that the step fits in HBM, and divides the
tokens per second by the chip's power and by a price per chip-hour you give. The chips'
numbers and the model configurations are the course's tables, written into this file when
the course was built.

Run:  python3 comparing-accelerators.py                        decode step of Llama 3 8B
      python3 comparing-accelerators.py --workload training-step --chips 8
      python3 comparing-accelerators.py --price h100-sxm=3 --price b200=5
      python3 comparing-accelerators.py --json                 the same numbers as JSON
"""
import argparse
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x, tpu-v4, tpu-v5e, tpu-v5p | name, peak_flops, hbm_bandwidth_Bps, hbm_bytes, power_w")
MODELS = table("models: llama-2-7b, llama-3-8b, mistral-7b, llama-2-13b, llama-2-70b, llama-3-70b | name, layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, gated_mlp, tied_embeddings")

BF16 = 2  # bytes per weight, gradient, activation and KV value


def counts(m):
    """Parameters: every weight, and N, the ones each token multiplies (all but the input embedding)."""
    h, q = m["hidden"], m["head_dim"]
    attention = h * m["heads"] * q * 2 + h * m["kv_heads"] * q * 2  # W_Q, W_O and W_K, W_V
    mlp = (3 if m["gated_mlp"] else 2) * h * m["ffn_hidden"]
    layers = m["layers"] * (attention + mlp + 2 * h) + h  # two norm gains per layer, a final norm
    embedding = m["vocab"] * h * (1 if m["tied_embeddings"] else 2)
    return layers + embedding, layers + m["vocab"] * h  # total, N (the output head multiplies)


def workload(m, kind, batch, seq):
    """FLOPs, HBM bytes, tokens and resident bytes of one step (the lesson's section 3)."""
    total, n = counts(m)
    lhq = m["layers"] * m["heads"] * m["head_dim"]
    kv_per_token = 2 * m["layers"] * m["kv_heads"] * m["head_dim"] * BF16
    if kind == "training-step":
        tokens = batch * seq
        flops = tokens * (6 * n + 12 * lhq * seq)  # PaLM, appendix B
        units = 6 * m["ffn_hidden"] / m["hidden"] if m["gated_mlp"] else 4 * m["ffn_hidden"] / m["hidden"]
        activations = m["layers"] * seq * batch * m["hidden"] * (18 + units)  # Korthikanti, FlashAttention
        # weights read twice, gradient written, Adam reads and writes 16-bit and fp32 states: 34 B
        bytes_moved = 34 * total + 2 * activations
        resident = 16 * total + activations
        fixed = 34 * total  # the bytes no sequence adds: the rest grows with the batch
    elif kind == "prefill":
        tokens = batch * seq
        flops = batch * (2 * n * seq + 2 * lhq * seq * (seq + 1))  # causal attention
        bytes_moved = n * BF16 + batch * seq * kv_per_token
        resident = total * BF16 + batch * seq * kv_per_token
        fixed = n * BF16
    else:  # decode-step: one token per sequence over seq cached tokens
        tokens = batch
        flops = batch * (2 * n + 4 * lhq * seq)
        bytes_moved = n * BF16 + batch * seq * kv_per_token
        resident = total * BF16 + batch * seq * kv_per_token
        fixed = n * BF16
    # FLOPs and bytes grow linearly with the batch; the intensity approaches the ratio of what
    # each sequence adds and never passes it (decode: its KV cache sets the ceiling).
    limit = flops / (bytes_moved - fixed)
    return {"flops": flops, "bytes": bytes_moved, "tokens": tokens, "memory_bytes": resident,
            "intensity": flops / bytes_moved, "intensity_limit": limit}


def compare(w, chips, prices):
    """The roofline time of the step on `chips` chips of each kind, and what it costs."""
    rows = {}
    for cid, hw in HARDWARE.items():
        peak, bw = hw["peak_flops"]["bf16"], hw["hbm_bandwidth_Bps"]
        compute_s, memory_s = w["flops"] / chips / peak, w["bytes"] / chips / bw
        t = max(compute_s, memory_s)
        tps = w["tokens"] / t
        power, price = hw["power_w"], prices.get(cid)
        rows[cid] = {
            "ridge_intensity": peak / bw, "compute_time_s": compute_s, "memory_time_s": memory_s, "time_s": t,
            "bound": "compute" if compute_s >= memory_s else "memory", "tokens_per_s": tps,
            "fits": w["memory_bytes"] / chips <= hw["hbm_bytes"],
            # no published power: no per-watt number, never a guessed one
            "tokens_per_joule": None if power is None else tps / (chips * power),
            "tokens_per_dollar": None if price is None else tps * 3600 / (chips * price),
        }
    return rows


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="comparing-accelerators.py", description="One transformer step timed on eight accelerators by the roofline.")
    p.add_argument("--workload", default="decode-step", choices=["training-step", "prefill", "decode-step"],
                   help="the step to time (default decode-step)")
    p.add_argument("--model", default="llama-3-8b", choices=sorted(MODELS), help="published model (default llama-3-8b)")
    p.add_argument("--batch", type=int, default=8, help="sequences in the step (default 8)")
    p.add_argument("--seq", type=int, default=4096, help="tokens per sequence: trained, prompt or cached (default 4096)")
    p.add_argument("--chips", type=int, default=1, help="chips of each kind sharing the step evenly (default 1)")
    p.add_argument("--price", action="append", default=[], metavar="ID=DOLLARS", help="price per chip-hour, repeatable")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    for name in ("batch", "seq", "chips"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    prices = {}
    for item in args.price:
        cid, _, value = item.partition("=")
        try:
            dollars = float(value)
        except ValueError:
            p.error(f"--price {item!r}: expected ID=DOLLARS")
        if cid not in HARDWARE or not math.isfinite(dollars) or dollars <= 0:
            p.error(f"--price {item!r}: the id must be one of {', '.join(HARDWARE)} and the price above 0")
        prices[cid] = dollars

    w = workload(MODELS[args.model], args.workload, args.batch, args.seq)
    rows = compare(w, args.chips, prices)
    if args.json:
        print(json.dumps({"workload": w, "rows": rows}, indent=1))
        return
    print(f"{args.workload} of {MODELS[args.model]['name']}, batch {args.batch}, {args.seq:,} tokens, {args.chips} chip(s) of each kind")
    print(f"{w['flops']:.4g} FLOP, {w['bytes'] / 1e9:,.2f} GB moved: {w['intensity']:,.1f} FLOP/B; "
          f"{w['memory_bytes'] / 1e9:,.1f} GB resident; at most {w['intensity_limit']:,.1f} FLOP/B at any batch")
    print(f"{'chip':<24}{'ridge':>8}{'time':>11}  {'bound':<8}{'tokens/s':>11}{'tok/J':>8}{'tok/$':>11}  fits")
    for cid, r in rows.items():
        per_j = "-" if r["tokens_per_joule"] is None else f"{r['tokens_per_joule']:.2f}"
        per_d = "-" if r["tokens_per_dollar"] is None else f"{r['tokens_per_dollar']:,.0f}"
        print(f"{HARDWARE[cid]['name'][:23]:<24}{r['ridge_intensity']:>8.1f}{r['time_s'] * 1e3:>9.3f}ms  {r['bound']:<8}"
              f"{r['tokens_per_s']:>11,.0f}{per_j:>8}{per_d:>11}  {'yes' if r['fits'] else 'NO'}")


if __name__ == "__main__":
    main()
