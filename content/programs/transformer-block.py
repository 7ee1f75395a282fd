"""Counting a decoder-only transformer: parameters matrix by matrix, FLOPs per token, 6·N·D.

A companion to the lesson "The transformer block: parameters and FLOPs". It lists every weight
matrix of a model (attention Q, K, V, O with grouped-query heads; an MLP of two matrices, or
three when gated; norm gains; the token embedding and, when untied, the output head), adds
them up and compares the sum with the published count and with the 12·L·h² rule of thumb.
Then it counts the training FLOPs of one token as PaLM does, 6·N + 12·L·H·Q·T with N every
parameter in a token's matmuls, finds the context at which attention equals the matmuls, and
prices the published training runs with C = 6·N·D on a cluster of your choice. Model shapes,
published counts, training tokens and accelerator peaks are the course's tables, written into
this file when the course was built.

Run:  python3 transformer-block.py                          the lesson's worked examples
      python3 transformer-block.py --model llama-3-8b --seq 32768
      python3 transformer-block.py --layers 48 --hidden 768 --heads 12 --ffn 2048 --vocab 128256 --gated --untied
      python3 transformer-block.py --hardware a100-sxm-80gb --devices 2048 --mfu 0.43
      python3 transformer-block.py --json                   the same numbers as JSON
"""
import argparse
import json
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x, tpu-v4, tpu-v5p | name, peak_flops")
MODELS = table("models: gpt-2-124m, gpt-3-175b, opt-13b, llama-2-7b, llama-2-13b, llama-2-70b, llama-3-8b, llama-3-70b, llama-3-405b, mistral-7b, gemma-7b, palm-540b | name, layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, seq, gated_mlp, tied_embeddings, params")
RUNS = table("models: opt-13b, llama-2-7b, llama-2-13b, llama-2-70b, gemma-7b, llama-3-8b, gpt-3-175b, llama-3-70b, palm-540b, llama-3-405b | name, params, training_tokens")

# What the papers report about their own runs: GPT-3's Table D.1 (Brown et al. 2020), Llama 2's
# Table 2 (Touvron et al. 2023, A100-80GB hours), the Llama 3 and 3.1 model cards (H100-80GB hours).
REPORTED = {"gpt-3-175b": "3.14e23 FLOP", "llama-2-7b": "184,320 A100-hours", "llama-2-13b": "368,640 A100-hours",
            "llama-2-70b": "1,720,320 A100-hours", "llama-3-8b": "1.3M H100-hours", "llama-3-70b": "6.4M H100-hours",
            "llama-3-405b": "3.8e25 FLOP, 30.84M H100-hours"}
PARTS = ("embedding", "attention", "mlp", "norms", "head")


def breakdown(m):
    """Parameters by component, from the shapes of the matrices (no biases, no position tables)."""
    L, h, f, V = m["layers"], m["hidden"], m["ffn_hidden"], m["vocab"]
    q_width, kv_width = m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
    attention = h * q_width + 2 * h * kv_width + q_width * h  # W_Q, W_K, W_V (K heads), W_O
    mlp = (3 if m["gated_mlp"] else 2) * h * f  # gate, up, down (or up, down)
    return {"embedding": V * h, "attention": L * attention, "mlp": L * mlp,
            "norms": 2 * L * h + h,  # two gains per layer, one final norm
            "head": 0 if m["tied_embeddings"] else V * h}  # tied: the embedding serves as the head


def count(m):
    """Totals: all parameters, N of the FLOPs (all but an untied input table), the layers, 12·L·h²."""
    b = breakdown(m)
    params = sum(b.values())
    head_matmul = m["vocab"] * m["hidden"]  # the head's V × h product, tied or not
    non_embedding = b["attention"] + b["mlp"] + b["norms"]
    return {"breakdown": b, "params": params, "params_flops": non_embedding + head_matmul,
            "params_non_embedding": non_embedding, "rule_12Lh2": 12 * m["layers"] * m["hidden"] ** 2,
            "embedding_share": (b["embedding"] + b["head"]) / params}


def flops_per_token(m, seq):
    """PaLM's training FLOPs per token: 6·N for the weights, 12·L·H·Q·T for QKᵀ and AV."""
    n = count(m)["params_flops"]
    matmul = 6 * n  # 2 forward (a multiply-add per weight) + 4 backward (input and weight gradients)
    per_seq = 12 * m["layers"] * m["heads"] * m["head_dim"]  # 2 products × 2 FLOPs × 3 passes, per context token
    return {"seq": seq, "matmul": matmul, "attention": per_seq * seq, "training": matmul + per_seq * seq,
            "forward": (matmul + per_seq * seq) / 3, "attention_share": per_seq * seq / (matmul + per_seq * seq),
            "attention_equals_matmul_seq": matmul / per_seq}


def training_run(mid, peak_flops, devices, mfu):
    """C = 6·N·D with the published N and D, and its time on `devices` accelerators at `mfu`."""
    m = RUNS[mid]
    total = 6 * m["params"] * m["training_tokens"]
    time_s = total / (devices * peak_flops * mfu)
    return {"params": m["params"], "tokens": m["training_tokens"], "total_flops": total,
            "time_days": time_s / 86_400, "device_hours": devices * time_s / 3600}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="transformer-block.py", description="Parameters, FLOPs per token and 6ND of a decoder-only transformer.")
    p.add_argument("--model", default="llama-2-7b", choices=sorted(MODELS), help="published model to count (default llama-2-7b)")
    for flag, what in (("--layers", "layers L"), ("--hidden", "width h"), ("--heads", "query heads H"),
                       ("--kv-heads", "key/value heads K (default H)"), ("--head-dim", "head size Q (default h/H)"),
                       ("--ffn", "MLP width f (default 4h)"), ("--vocab", "vocabulary V")):
        p.add_argument(flag, type=int, help=f"a configuration of your own: {what}")
    p.add_argument("--gated", action=argparse.BooleanOptionalAction, help="gated (SwiGLU) MLP of three matrices")
    p.add_argument("--tied", action=argparse.BooleanOptionalAction, help="output head tied to the embedding")
    p.add_argument("--untied", dest="tied", action="store_false", help="output head of its own (same as --no-tied)")
    p.add_argument("--seq", type=int, help="context T for the FLOPs per token (default: the model's)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator of the runs (default h100-sxm)")
    p.add_argument("--devices", type=int, default=1024, help="accelerators of the runs (default 1024)")
    p.add_argument("--mfu", type=float, default=0.4, help="MFU sustained over each run (default 0.4)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    for flag, value, low, high in (("--layers", a.layers, 1, 1024), ("--hidden", a.hidden, 64, 131_072), ("--heads", a.heads, 1, 1024),
                                   ("--kv-heads", a.kv_heads, 1, 1024), ("--head-dim", a.head_dim, 8, 1024),
                                   ("--ffn", a.ffn, 1, 1_048_576), ("--vocab", a.vocab, 1, 4_194_304), ("--seq", a.seq, 1, 1_048_576),
                                   ("--devices", a.devices, 1, 10_000_000), ("--mfu", a.mfu, 1e-6, 1)):
        if value is not None and not low <= value <= high:  # also rejects nan
            p.error(f"{flag} must be from {low:,} to {high:,}" if isinstance(low, int) else f"{flag} must be from {low:g} to {high:g}")

    custom = any(v is not None for v in (a.layers, a.hidden, a.heads, a.kv_heads, a.head_dim, a.ffn, a.vocab, a.gated, a.tied))
    m = dict(MODELS[a.model])
    if custom:  # a configuration of your own: the engine's defaults for whatever is not given
        h, heads = a.hidden or 4096, a.heads or 32
        m = {"name": "your configuration", "layers": a.layers or 32, "hidden": h, "heads": heads,
             "kv_heads": a.kv_heads or heads, "head_dim": a.head_dim or h // heads, "ffn_hidden": a.ffn or 4 * h,
             "vocab": a.vocab or 32_000, "seq": 2048, "gated_mlp": bool(a.gated), "tied_embeddings": a.tied is not False,
             "params": None}
        if heads % m["kv_heads"]:
            p.error("--kv-heads must divide --heads")
        if not a.head_dim and (h % heads or not 8 <= h // heads <= 1024):
            p.error("--hidden / --heads is the head size: a whole number from 8 to 1,024 (or give --head-dim)")
    seq = a.seq or m["seq"]
    c, fl = count(m), flops_per_token(m, seq)
    peak = HARDWARE[a.hardware]["peak_flops"]["bf16"]
    runs = {mid: training_run(mid, peak, a.devices, a.mfu) for mid in RUNS}
    table = {mid: count(row) for mid, row in MODELS.items()}

    if a.json:
        print(json.dumps({"model": a.model if not custom else "custom", "count": c, "flops": fl, "runs": runs,
                          "models": table}, indent=1))
        return
    b = c["breakdown"]
    print(f"{m['name']}: L = {m['layers']}, h = {m['hidden']:,}, {m['heads']} query heads and {m['kv_heads']} K/V heads "
          f"of {m['head_dim']}, {'gated ' if m['gated_mlp'] else ''}MLP f = {m['ffn_hidden']:,}, V = {m['vocab']:,}, "
          f"{'tied' if m['tied_embeddings'] else 'untied'}")
    for part in PARTS:
        print(f"  {part:<10}{b[part]:>17,}  {b[part] / c['params']:6.1%}")
    print(f"  {'total':<10}{c['params']:>17,}" + (f"  (published {m['params']:,.0f}: {c['params'] / m['params'] - 1:+.2%})" if m["params"] else ""))
    print(f"  layers {c['params_non_embedding']:,} against 12·L·h² = {c['rule_12Lh2']:,} ({c['params_non_embedding'] / c['rule_12Lh2'] - 1:+.1%})")
    print(f"  N of 6N (every parameter in a token's matmuls) = {c['params_flops']:,}")
    print()
    unit = next(u for u in ((1e9, "GFLOP"), (1e6, "MFLOP"), (1e3, "kFLOP"), (1, "FLOP")) if fl["matmul"] >= u[0] or u[0] == 1)
    print(f"Training FLOPs per token at T = {seq:,}: 6N = {fl['matmul'] / unit[0]:.1f} {unit[1]}, attention 12·L·H·Q·T = "
          f"{fl['attention'] / unit[0]:.1f} {unit[1]} ({fl['attention_share']:.1%}); forward {fl['forward'] / unit[0]:.1f} {unit[1]}")
    print(f"  attention equals the matmuls at T = {fl['attention_equals_matmul_seq']:,.0f} tokens")
    print()
    print("Published models, counted (all parameters / published, and the layers against 12·L·h²):")
    for mid, t in table.items():
        print(f"  {MODELS[mid]['name']:<15}{t['params'] / 1e9:9.3f}B / {MODELS[mid]['params'] / 1e9:8.3f}B  "
              f"{t['params'] / MODELS[mid]['params'] - 1:+6.2%}   layers {t['params_non_embedding'] / t['rule_12Lh2']:.3f} × 12·L·h²")
    print()
    print(f"Published runs, C = 6·N·D, on {a.devices:,} x {HARDWARE[a.hardware]['name']} at {a.mfu:.0%} MFU:")
    for mid, r in runs.items():
        print(f"  {RUNS[mid]['name']:<15}{r['total_flops']:9.3g} FLOP  {r['time_days']:8.1f} days  {r['device_hours']:>12,.0f} GPU-hours"
              + (f"   reported: {REPORTED[mid]}" if mid in REPORTED else ""))


if __name__ == "__main__":
    main()
