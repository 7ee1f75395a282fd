"""Attention under masks: the masked softmax, the pairs each mask allows, the n x n score
matrix's memory, and the KV cache of multi-head, grouped-query and multi-query attention.

A companion to the lesson "Attention and masks". It follows the lesson's sections: a toy
sequence's seeded scores and their softmax under a mask (the engine's SplitMix64 draws,
reimplemented here, so a seed gives the same weights as the course's attention-mask
calculator), the allowed pairs counted by brute force and by their closed forms, the two
pitfalls (masking after the softmax; a row with every key masked), how far information
travels through stacked causal sliding windows (executed), the bytes of the score matrices
S and P of one layer against an accelerator's HBM, and the KV cache per token of MHA, GQA
and MQA. Model shapes and accelerator numbers are the course's tables, written into this
file when the course was built.

Run:  python3 attention-and-masks.py                      the lesson's worked examples
      python3 attention-and-masks.py --mask sliding-window --seq 12 --window 3 --seed 7
      python3 attention-and-masks.py --model mistral-7b --heads 32 --batch 4 --hardware b200
      python3 attention-and-masks.py --json               the same numbers as JSON
"""
import argparse
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x | name, hbm_bytes")
MODELS = table("models: gpt-3-175b, llama-2-7b, llama-2-70b, llama-3-8b, llama-3-405b, mistral-7b, palm-540b | name, layers, hidden, heads, kv_heads, head_dim")

BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8-e4m3": 1}
MASKS = ("none", "causal", "padding", "sliding-window", "causal-sliding-window", "document", "prefix-lm", "sink-window")
M64 = (1 << 64) - 1


def avalanche(z):
    """SplitMix64's output function: every input bit flips each output bit about half the time."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix_seed(seed, salt):
    """The starting state of a seeded stream, seed and salt hashed together (deterministic.hpp)."""
    return avalanche(avalanche((salt + 0x9E3779B97F4A7C15) & M64) ^ avalanche(seed & M64))


def splitmix(state):
    """SplitMix64: the next state and 64 random bits (the engine's deterministic.hpp)."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    return state, avalanche(state)


def seeded_scores(n, seed):
    """n x n scores uniform in [-2, 2), drawn row by row whatever the mask."""
    state = mix_seed(seed, 0x6D61736B73)  # the attention-mask stream
    scores = []
    for _ in range(n):
        row = []
        for _ in range(n):
            state, bits = splitmix(state)
            row.append(4.0 * (bits >> 11) * 2.0 ** -53 - 2.0)
        scores.append(row)
    return scores


def allows(mask, n, window, pad, i, j, extra=1):
    """May query i attend key j? (0-based; padding masks the last `pad` keys only; `extra` is the
    document length, the prefix length or the number of sinks.) Each is a FlexAttention mask_mod."""
    return {"none": True, "causal": j <= i, "padding": j < n - pad,
            "sliding-window": abs(i - j) < window, "causal-sliding-window": j <= i and i - j < window,
            "document": j <= i and j // extra == i // extra, "prefix-lm": j <= i or j < extra,
            "sink-window": j <= i and (i - j < window or j < extra)}[mask]


def allowed_count(mask, n, window, pad, extra=1):
    """The closed forms: n^2, n(n+1)/2, n(n-pad), n^2-(n-w)(n-w+1), m*n-m(m-1)/2 (m = min(w, n)),
    and for documents of D tokens, a prefix p, or s sinks beside a causal window, the three below."""
    if mask == "document":
        q, r = divmod(n, extra)
        return q * extra * (extra + 1) // 2 + r * (r + 1) // 2
    if mask == "prefix-lm":
        return n * (n + 1) // 2 + extra * (extra - 1) // 2
    if mask == "sink-window":
        return allowed_count("causal-sliding-window", n, window, pad) + sum(min(extra, t) for t in range(1, n - window + 1))
    if mask == "none":
        return n * n
    if mask == "causal":
        return n * (n + 1) // 2
    if mask == "padding":
        return n * (n - pad)
    if mask == "sliding-window":
        return n * n if window >= n else n * n - (n - window) * (n - window + 1)
    m = min(window, n)
    return m * n - m * (m - 1) // 2


def masked_softmax(scores, allowed):
    """Add -inf to masked scores, subtract the row maximum, exponentiate, normalize."""
    out = []
    for row, ok in zip(scores, allowed):
        x = [s if a else -math.inf for s, a in zip(row, ok)]
        top = max(x)
        e = [math.exp(v - top) if v != -math.inf else 0.0 for v in x]
        out.append([v / sum(e) for v in e])
    return out


def naive_softmax(x):
    """Textbook safe softmax with no guard: a row of only -inf gives NaN (-inf - -inf)."""
    top = max(x)
    e = [math.exp(v - top) if not math.isnan(v - top) else math.nan for v in x]
    total = sum(e)
    return [v / total if total else math.nan for v in e]


def reach(n, window, layers):
    """Executed: the earliest position each token can draw on after `layers` causal windows."""
    earliest = list(range(n))
    for _ in range(layers):
        earliest = [min(earliest[j] for j in range(max(0, i - window + 1), i + 1)) for i in range(n)]
    return n - 1 - earliest[n - 1] + 1  # tokens the last position sees, itself included


def kv_bytes_per_token(m, kv_heads, size):
    """K and V of one token in every layer: 2 * layers * kv_heads * head_dim * bytes."""
    return 2 * m["layers"] * kv_heads * m["head_dim"] * size


def attention_params(m, kv_heads):
    """W_Q, W_O (h x a*d each) and W_K, W_V (h x kv*d each), no biases."""
    return 2 * m["hidden"] * m["heads"] * m["head_dim"] + 2 * m["hidden"] * kv_heads * m["head_dim"]


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="attention-and-masks.py", description="Masked attention, pair counts, score-matrix memory and KV cache.")
    p.add_argument("--mask", default="causal", choices=MASKS, help="mask of the toy sequence (default causal)")
    p.add_argument("--seq", type=int, default=8, help="toy sequence length, 1 to 64 (default 8)")
    p.add_argument("--window", type=int, default=3, help="sliding window w, at least 1 (default 3)")
    p.add_argument("--pad", type=int, default=3, help="trailing padding tokens, less than --seq (default 3)")
    p.add_argument("--extra", type=int, default=3, help="document: tokens per document; prefix-lm: prefix length; "
                   "sink-window: sink tokens (0 to --seq; default 3)")
    p.add_argument("--seed", type=int, default=1, help="seed of the scores (default 1)")
    p.add_argument("--heads", type=int, default=32, help="heads of the score-matrix layer (default 32)")
    p.add_argument("--batch", type=int, default=1, help="sequences in the batch (default 1)")
    p.add_argument("--dtype", default="bf16", choices=sorted(BYTES), help="dtype of S, P and the KV cache (default bf16)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator (default h100-sxm)")
    p.add_argument("--model", default="llama-2-70b", choices=sorted(MODELS), help="model for the KV cache (default llama-2-70b)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not 1 <= a.seq <= 64:
        p.error("--seq must be a whole number from 1 to 64")
    if a.window < 1:
        p.error("--window must be at least 1 (the token itself)")
    if not 0 <= a.pad < a.seq:
        p.error("--pad must be at least 0 and less than --seq")
    if not (1 if a.mask == "document" else 0) <= a.extra <= a.seq:
        p.error("--extra must be from 0 (1 for documents) to --seq")
    if not 0 <= a.seed < 2 ** 32:
        p.error("--seed must be from 0 to 4294967295")
    if not (1 <= a.heads <= 1024 and 1 <= a.batch <= 4096):
        p.error("--heads must be 1 to 1024 and --batch 1 to 4096")

    n, size = a.seq, BYTES[a.dtype]
    allowed = [[allows(a.mask, n, a.window, a.pad, i, j, a.extra) for j in range(n)] for i in range(n)]
    scores = seeded_scores(n, a.seed)
    weights = masked_softmax(scores, allowed)
    brute = sum(map(sum, allowed))
    assert brute == allowed_count(a.mask, n, a.window, a.pad, a.extra), "closed form and brute force agree"
    # Pitfall 1: mask after the softmax (zero the masked weights): the row no longer sums to 1.
    mid = n // 2
    wrong = [w if ok else 0.0 for w, ok in zip(naive_softmax(scores[mid]), allowed[mid])]
    # Pitfall 2: every key masked gives NaN.
    empty = naive_softmax([-math.inf] * 4)
    # Stacked causal windows: executed reach vs layers * (w - 1) + 1.
    reached = {k: reach(64, 4, k) for k in (1, 2, 4, 8)}
    # The score matrices of one layer: S and P, n^2 * heads * batch each.
    gpu = HARDWARE[a.hardware]
    score_bytes = {s: s * s * a.heads * a.batch * size for s in (4096, 32768)}
    fit = math.isqrt(gpu["hbm_bytes"] // (2 * a.heads * a.batch * size))
    lse_bytes = 4096 * a.heads * a.batch * 4
    m = MODELS[a.model]
    variants = {k: {"kv_heads": kv, "kv_bytes_per_token": kv_bytes_per_token(m, kv, size),
                    "attention_params_per_layer": attention_params(m, kv),
                    # decode: 4 * heads * d FLOPs per cached token and layer over 2 * kv * d * size bytes
                    "decode_flops_per_byte": 2 * m["heads"] / kv / size}
                for k, kv in (("mha", m["heads"]), ("gqa", m["kv_heads"]), ("mqa", 1))}

    out = {"mask": a.mask, "seq": n, "allowed_count": brute, "weights": weights, "scores": scores,
           "masked_after_softmax_row_sum": sum(wrong), "all_masked_row": [str(v) for v in empty],
           "reach_w4": reached, "score_bytes_4096": score_bytes[4096], "score_bytes_32768": score_bytes[32768],
           "logsumexp_bytes_4096": lse_bytes, "fit_seq": fit, "hbm_bytes": gpu["hbm_bytes"],
           "model": a.model, **variants}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{a.mask} mask, n = {n}, seed {a.seed}: attention weights (rows = queries, '.' = masked)")
    for i, row in enumerate(weights):
        print(f"  q{i:<2} " + " ".join(f"{w:4.2f}" if allowed[i][j] else "  . " for j, w in enumerate(row)) + f"   sum {sum(row):.3f}")
    print(f"allowed pairs: {brute:,} of {n * n:,} (brute force = closed form)")
    print(f"masking after the softmax: row q{mid} sums to {sum(wrong):.3f}"
          + (", not 1" if not all(allowed[mid]) else " (no key of this row is masked)"))
    print(f"a row with every key masked: {', '.join(out['all_masked_row'])}")
    print("causal window w = 4, tokens the last position can draw on after k layers: "
          + ", ".join(f"k={k}: {v}" for k, v in reached.items()) + "  (= k(w - 1) + 1)")
    print()
    print(f"score matrices of one layer, {a.heads} heads x {a.batch} sequence(s), {a.dtype}:")
    for s, b in score_bytes.items():
        print(f"  n = {s:>6,}: S {b / 1e9:.2f} GB, S and P {2 * b / 1e9:.2f} GB")
    print(f"  FlashAttention-2 keeps a logsumexp per row instead: {lse_bytes / 1e6:.3f} MB at n = 4,096")
    print(f"  S and P fit in the {gpu['name']}'s {gpu['hbm_bytes'] / 2 ** 30:.0f} GiB up to n = {fit:,}")
    print()
    print(f"{m['name']} ({m['layers']} layers, {m['heads']} heads, {m['kv_heads']} KV heads, head size {m['head_dim']}), {a.dtype}:")
    for k, v in variants.items():
        print(f"  {k.upper()} ({v['kv_heads']} KV head{'s' if v['kv_heads'] > 1 else ''}): KV cache {v['kv_bytes_per_token']:,} B per token, "
              f"attention {v['attention_params_per_layer'] / 1e6:.1f} M parameters per layer, "
              f"decode {v['decode_flops_per_byte']:g} FLOP per byte of cache")


if __name__ == "__main__":
    main()
