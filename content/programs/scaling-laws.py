"""Scaling laws: Hoffmann et al.'s approach-3 loss fit, iso-FLOP curves, the compute-optimal
model in closed form, and the cheapest model of a given loss over training plus inference.

A companion to the lesson "Scaling laws". It evaluates L(N, D) = E + A/N^alpha + B/D^beta
(Hoffmann et al. 2022, eq. 10), samples the iso-FLOP curve of a budget C (D = C / 6N) and
checks its lowest sampled point against the closed form N_opt = G (C/6)^(beta/(alpha+beta)),
prints the 20-tokens-per-parameter rule beside it, places published runs at C = 6ND, and
searches the curve of equal loss for the model with the least 6ND + 2NI (Sardana et al. 2024),
by the same scan and golden-section search as the course's scaling-law calculator. With
--fit besiroglu-2024 it uses Besiroglu et al.'s 2024 refit of the same law instead. Model
sizes and token counts are the course's table, written into this file when the course was built.

Run:  python3 scaling-laws.py                                   the lesson's worked example
      python3 scaling-laws.py --compute 1e22
      python3 scaling-laws.py --model llama-3-8b --inference-tokens 1e14
      python3 scaling-laws.py --fit besiroglu-2024                the refit constants
      python3 scaling-laws.py --json                            the same numbers as JSON
"""
import argparse
import json
import math
import re
import sys
from course_data import table  # the tables of content/data; the download has them written in

MODELS = table("models: gpt-3-175b, llama-2-7b, llama-2-70b, llama-3-8b, llama-3-70b, gemma-7b, palm-540b | name, params, training_tokens")

FITS = {
    "hoffmann-2022": (1.69, 406.4, 410.7, 0.34, 0.28),  # Hoffmann et al. 2022, eq. 10 as printed
    "besiroglu-2024": (1.8172, 482.01, 2085.43, 0.3478, 0.3658),  # Besiroglu et al. 2024, Table 1
}
E, A, B, ALPHA, BETA = FITS["hoffmann-2022"]


def g(x, digits):
    """x to `digits` significant digits, exponents written 3.2e10 rather than 3.2e+10."""
    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{x:.{digits}g}")


def loss(n, d):
    return E + A / n ** ALPHA + B / d ** BETA


def optimal(c):
    """Closed-form minimum of L under 6ND = C."""
    g = (ALPHA * A / (BETA * B)) ** (1 / (ALPHA + BETA))
    n = g * (c / 6) ** (BETA / (ALPHA + BETA))
    d = (c / 6) ** (ALPHA / (ALPHA + BETA)) / g
    return {"params": n, "tokens": d, "loss": loss(n, d)}


def isoflop(c, points=41):
    """The curve N_opt/100 ... 100 N_opt, even in log N, each N on D = C / (6N)."""
    n0 = optimal(c)["params"]
    ns = [n0 * 10 ** (-2 + 4 * i / (points - 1)) for i in range(points)]
    return [{"params": n, "tokens": c / (6 * n), "loss": loss(n, c / (6 * n))} for n in ns]


def cheapest(n, d, inference):
    """(N, D) of the same loss with the least 6ND + 2NI: N and D split the reducible loss
    R as x and 1 - x; scan t = logit(x), then golden-section search around the best cell."""
    r = A / n ** ALPHA + B / d ** BETA

    def point(t):
        x, y = 1 / (1 + math.exp(-t)), 1 / (1 + math.exp(t))
        return max(1.0, (A / (x * r)) ** (1 / ALPHA)), max(1.0, (B / (y * r)) ** (1 / BETA))

    def total(t):
        pn, pd = point(t)
        return 6 * pn * pd + 2 * pn * inference

    logit = lambda x: math.log(x) - math.log(1 - x)
    lo = max(-40.0, logit(1 - B / r)) if B / r < 1 else -40.0
    hi = min(40.0, logit(A / r)) if A / r < 1 else 40.0
    grid, step = 800, (hi - lo) / 800
    best = min(range(grid + 1), key=lambda i: total(lo + i * step))
    a, b = lo + max(0, best - 1) * step, lo + min(grid, best + 1) * step
    phi = 0.6180339887498949
    c, e = b - phi * (b - a), a + phi * (b - a)
    fc, fe = total(c), total(e)
    for _ in range(100):
        if fc < fe:
            b, e, fe = e, c, fc
            c = b - phi * (b - a)
            fc = total(c)
        else:
            a, c, fc = c, e, fe
            e = a + phi * (b - a)
            fe = total(e)
    pn, pd = point((a + b) / 2)
    given = 6 * n * d + 2 * n * inference
    best_total = 6 * pn * pd + 2 * pn * inference
    if best_total >= given:
        pn, pd, best_total = n, d, given
    return {"params": pn, "tokens": pd, "total_flops": best_total, "given_total_flops": given,
            "savings_fraction": 1 - best_total / given}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="scaling-laws.py", description="Chinchilla loss, iso-FLOP curves, compute-optimal and inference-aware model sizes.")
    p.add_argument("--compute", type=float, default=5.76e23, help="training budget C in FLOP, 1e6 to 1e32 (default 5.76e23, Gopher's)")
    p.add_argument("--model", default="llama-3-8b", choices=sorted(MODELS), help="published run for the over-training example (default llama-3-8b)")
    p.add_argument("--inference-tokens", type=float, default=1e13, help="tokens served over the model's life, 0 to 1e20 (default 1e13)")
    p.add_argument("--fit", default="hoffmann-2022", choices=sorted(FITS), help="constants of the law (default hoffmann-2022)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    global E, A, B, ALPHA, BETA
    E, A, B, ALPHA, BETA = FITS[a.fit]
    if not (math.isfinite(a.compute) and 1e6 <= a.compute <= 1e32):
        p.error("--compute must be from 1e6 to 1e32 FLOP")
    if not (math.isfinite(a.inference_tokens) and 0 <= a.inference_tokens <= 1e20):
        p.error("--inference-tokens must be from 0 to 1e20")

    opt = optimal(a.compute)
    curve = isoflop(a.compute)
    lowest = min(curve, key=lambda q: q["loss"])
    n20 = math.sqrt(a.compute / 120)
    m = MODELS[a.model]
    n, d = m["params"], m["training_tokens"]
    over = cheapest(n, d, a.inference_tokens)
    runs = {k: {"name": v["name"], "compute_flops": 6 * v["params"] * v["training_tokens"],
                "tokens_per_param": v["training_tokens"] / v["params"], "loss": loss(v["params"], v["training_tokens"])}
            for k, v in MODELS.items()}
    out = {"fit": a.fit, "compute_flops": a.compute, "optimal": opt, "tokens_per_param": opt["tokens"] / opt["params"],
           "exponent_params": BETA / (ALPHA + BETA), "lowest_sampled": lowest,
           "params_20_tokens_per_param": n20, "loss_20_tokens_per_param": loss(n20, 20 * n20),
           "chinchilla_loss": loss(70e9, 1.4e12), "gopher_loss": loss(280e9, 300e9),
           "model": a.model, "model_loss": loss(n, d), "inference_tokens": a.inference_tokens, "cheapest": over, "runs": runs}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(f"L(N, D) = {E} + {A}/N^{ALPHA} + {B}/D^{BETA}   ({a.fit})")
    print(f"Chinchilla 70B on 1.4T tokens: L = {out['chinchilla_loss']:.3f}; Gopher 280B on 300B: L = {out['gopher_loss']:.3f}")
    print(f"\nIso-FLOP curve at C = {g(a.compute, 3)} FLOP (41 sizes, D = C / 6N):")
    for q in curve[::5]:
        print(f"  N = {g(q['params'], 3):>10}  D = {g(q['tokens'], 3):>10}  L = {q['loss']:.4f}")
    print(f"  lowest sampled: N = {g(lowest['params'], 4)}, L = {lowest['loss']:.4f}")
    print(f"  closed form:    N_opt = {g(opt['params'], 4)} on D_opt = {g(opt['tokens'], 4)} tokens "
          f"({out['tokens_per_param']:.0f} tokens per parameter), L = {opt['loss']:.4f}")
    print(f"  20-token rule:  N = sqrt(C/120) = {g(n20, 4)}, L = {out['loss_20_tokens_per_param']:.4f}")
    print("\nPublished runs at C = 6ND:")
    for r in runs.values():
        print(f"  {r['name']:16s} C = {g(r['compute_flops'], 3):>8} FLOP  {r['tokens_per_param']:7.1f} tokens/param  L = {r['loss']:.3f}")
    print(f"\n{m['name']} on {g(d, 3)} tokens (L = {out['model_loss']:.3f}), serving {g(a.inference_tokens, 3)} tokens:")
    print(f"  as trained: total {g(over['given_total_flops'], 4)} FLOP")
    print(f"  cheapest of the same loss: N = {g(over['params'], 4)} on D = {g(over['tokens'], 4)} tokens, "
          f"total {g(over['total_flops'], 4)} FLOP, {100 * over['savings_fraction']:.1f}% less")


if __name__ == "__main__":
    main()
