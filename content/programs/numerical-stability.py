"""Numerical stability: softmax overflow per format, the max-subtraction fix, and a toy
training run with rare bad batches and gradient-norm clipping.

A companion to the lesson "Numerical stability at scale". It rounds to fp32, bf16 and fp16
exactly (round to nearest, ties to even, subnormals, overflow to infinity), runs a naive
softmax (e^x stored in the format, summed with an fp32 accumulator, divided) and a
max-subtracted one (fp32 intermediates, the result stored in the format) as the course's
softmax-stability calculator does, prints where each format's exponential and sum overflow,
and computes PaLM's z-loss 1e-4 (log Z)^2. Then it executes the loss-spikes toy of the
lesson: SGD with momentum on an 8-dimensional linear regression whose bad batches (inputs
x spike_scale) have spike_scale^2 times the curvature, with and without gradient-norm
clipping as torch.nn.utils.clip_grad_norm_. Its random numbers are the engine's (SplitMix64
and Marsaglia's polar method), so a seed gives the same bad batches as the lesson's figure.

Run:  python3 numerical-stability.py                        the lesson's worked example
      python3 numerical-stability.py --top 12 --count 16 --format bf16
      python3 numerical-stability.py --max-norm 0.5 --seed 3
      python3 numerical-stability.py --json                 the same numbers as JSON
"""
import argparse
import json
import math
import sys

FORMATS = {"fp32": (8, 23), "bf16": (8, 7), "fp16": (5, 10)}  # exponent bits, stored mantissa bits


def limits(fmt):
    e, m = FORMATS[fmt]
    bias = 2 ** (e - 1) - 1
    return (2 - 2.0 ** -m) * 2.0 ** bias, 1 - bias, m  # max, emin, mantissa bits


def rd(x, fmt):
    """x rounded to the format: nearest, ties to even, subnormals, +-inf past the max."""
    if x == 0 or math.isnan(x) or math.isinf(x):
        return x
    top, emin, mbits = limits(fmt)
    a = abs(x)
    exponent = max(math.frexp(a)[1] - 1, emin)
    q = 2.0 ** (exponent - mbits)  # spacing of the format at a
    r = round(a / q) * q           # round() on a float is round-half-even
    if r > top:
        r = math.inf
    return math.copysign(r, x)


def softmax(logits, fmt):
    x = [rd(v, fmt) for v in logits]
    e = [rd(rd(math.exp(v), "fp32"), fmt) if v < 709 else math.inf for v in x]
    naive, s = None, None
    if not any(math.isinf(v) for v in e):
        acc = 0.0
        for v in e:
            acc = rd(acc + v, "fp32")      # fp32 accumulator
        s = rd(acc, fmt)
        naive = [0.0 if math.isinf(s) else rd(rd(v / s, "fp32"), fmt) for v in e]
    m = max(x)
    es = [rd(math.exp(rd(v - m, "fp32")), "fp32") for v in x]
    acc = 0.0
    for v in es:
        acc = rd(acc + v, "fp32")
    stable = [rd(rd(v / acc, "fp32"), fmt) for v in es]
    total = sum(math.exp(v - m) for v in x)
    exact = [math.exp(v - m) / total for v in x]
    log_z = m + math.log(total)
    threshold = math.log(limits(fmt)[0])
    return {"format": fmt, "logits": x, "naive": naive, "stable": stable, "exact": exact,
            "exp_overflow": naive is None, "sum_overflow": naive is not None and math.isinf(s),
            "naive_sum": None if s is None or math.isinf(s) else s, "log_z": log_z,
            "overflow_threshold": threshold, "sum_overflow_threshold": threshold - (log_z - m)}


class Stream:
    """The engine's SplitMix64 stream, uniform draws and Marsaglia polar normals."""
    M64 = (1 << 64) - 1

    def __init__(self, seed, salt):
        # mix_seed: seed and salt hashed together, so distinct seeds draw unrelated streams.
        mix = self.avalanche
        self.state = mix(mix((salt + 0x9E3779B97F4A7C15) & self.M64) ^ mix(seed & self.M64))
        self.spare = None

    @classmethod
    def avalanche(cls, z):
        """SplitMix64's output function: every input bit flips each output bit about half the time."""
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & cls.M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & cls.M64
        return z ^ (z >> 31)

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.M64
        return self.avalanche(self.state)

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    def normal(self):
        if self.spare is not None:
            value, self.spare = self.spare, None
            return value
        while True:
            u, v = 2 * self.uniform() - 1, 2 * self.uniform() - 1
            s = u * u + v * v
            if 0 < s < 1:
                break
        f = math.sqrt(-2 * math.log(s) / s)
        self.spare = v * f
        return u * f


def clip_grad_norm(g, max_norm):
    """torch.nn.utils.clip_grad_norm_: g * min(1, max_norm / (||g|| + 1e-6))."""
    norm = math.sqrt(sum(v * v for v in g))
    coef = min(1.0, max_norm / (norm + 1e-6))
    return [v * coef for v in g], norm, coef < 1


def loss_spikes(steps=600, lr=0.05, momentum=0.9, max_norm=0.0, spike_rate=0.01, spike_scale=20.0,
                kappa=100.0, batch=16, seed=1, sigma=0.1, d=8):
    rng = Stream(seed, 0x5A1B2C3D4E5F6071)
    lam = [math.exp(-math.log(kappa) * i / (d - 1)) for i in range(d)]
    w_star = [rng.normal() for _ in range(d)]
    w, vel = [0.0] * d, [0.0] * d
    pop = lambda w: 0.5 * sum(l * (a - b) ** 2 for l, a, b in zip(lam, w, w_star)) + 0.5 * sigma ** 2
    loss, norms, bad, clipped = [pop(w)], [0.0], [], []
    for t in range(1, steps + 1):
        is_bad = rng.uniform() < spike_rate
        scale = spike_scale if is_bad else 1.0
        g = [0.0] * d
        for _ in range(batch):
            x = [scale * math.sqrt(l) * rng.normal() for l in lam]
            err = sum(a * b for a, b in zip(x, w)) - sum(a * b for a, b in zip(x, w_star)) - sigma * rng.normal()
            g = [gi + xi * err for gi, xi in zip(g, x)]
        g = [gi / batch for gi in g]
        norm = math.sqrt(sum(v * v for v in g))
        if is_bad:
            bad.append(t)
        if max_norm > 0:
            g, _, was = clip_grad_norm(g, max_norm)
            if was:
                clipped.append(t)
        vel = [momentum * v + gi for v, gi in zip(vel, g)]
        w = [wi - lr * v for wi, v in zip(w, vel)]
        loss.append(pop(w))
        norms.append(norm)
    return {"loss": loss, "grad_norm": norms, "bad_steps": bad, "clipped_steps": clipped,
            "clipped_fraction": len(clipped) / steps, "final_loss": loss[-1], "peak_loss": max(loss[100:] or loss),
            "bad_step_loss_factor": (1 - lr * spike_scale ** 2 * lam[0]) ** 2}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="numerical-stability.py", description="Softmax overflow per format, max subtraction, loss spikes and clipping.")
    p.add_argument("--top", type=float, default=10.5, help="largest logit of the softmax example, -1e4 to 1e4 (default 10.5)")
    p.add_argument("--count", type=int, default=8, help="logits, 1 apart below the top one, 1 to 4096 (default 8)")
    p.add_argument("--format", default="fp16", choices=sorted(FORMATS), help="format of the kernel (default fp16)")
    p.add_argument("--max-norm", type=float, default=1.0, help="clipping threshold of the clipped run, above 0 (default 1.0)")
    p.add_argument("--seed", type=int, default=1, help="seed of the training toy, 0 to 1e9 (default 1)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not (math.isfinite(a.top) and -1e4 <= a.top <= 1e4):
        p.error("--top must be from -1e4 to 1e4")
    if not 1 <= a.count <= 4096:
        p.error("--count must be from 1 to 4096")
    if not (math.isfinite(a.max_norm) and a.max_norm > 0):
        p.error("--max-norm must be positive")
    if not 0 <= a.seed <= 10 ** 9:
        p.error("--seed must be from 0 to 1e9")

    logits = [a.top - i for i in range(a.count)]
    sm = softmax(logits, a.format)
    thresholds = {f: math.log(limits(f)[0]) for f in FORMATS}
    z = softmax([a.top - i for i in range(a.count)], "fp32")["log_z"]
    off = loss_spikes(seed=a.seed)
    on = loss_spikes(seed=a.seed, max_norm=a.max_norm)
    out = {"softmax": sm, "thresholds": thresholds, "z_loss": 1e-4 * z * z,
           "no_clipping": {k: off[k] for k in ("bad_steps", "final_loss", "peak_loss", "bad_step_loss_factor")},
           "clipped": {k: on[k] for k in ("bad_steps", "clipped_steps", "clipped_fraction", "final_loss", "peak_loss")}}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print("e^x overflows above ln(max): " + ", ".join(f"{f} {t:.4f}" for f, t in thresholds.items()))
    print(f"\n{a.count} logits {a.top:g}, {a.top - 1:g}, ... in {a.format}:")
    print(f"  the naive sum overflows above a top logit of {sm['sum_overflow_threshold']:.4f}")
    state = "NaN (an exponential overflowed)" if sm["exp_overflow"] else (
        "all zeros (the sum overflowed)" if sm["sum_overflow"] else f"top token {sm['naive'][0]:.5f}")
    print(f"  naive:  {state}")
    print(f"  stable: top token {sm['stable'][0]:.5f}   exact: {sm['exact'][0]:.5f}")
    print(f"  log Z = {sm['log_z']:.4f}, z-loss 1e-4 (log Z)^2 = {out['z_loss']:.5f}")
    print(f"\nLoss-spikes toy, seed {a.seed}: bad batches at steps {off['bad_steps']}")
    print(f"  one plain SGD step on a bad batch multiplies the top direction's loss by {off['bad_step_loss_factor']:.0f}")
    print(f"  no clipping:          peak loss after step 100 {off['peak_loss']:.4g}, final {off['final_loss']:.4g}")
    print(f"  clipped at {a.max_norm:<10g} peak loss after step 100 {on['peak_loss']:.4g}, final {on['final_loss']:.4g}, "
          f"{100 * on['clipped_fraction']:.1f}% of steps clipped")


if __name__ == "__main__":
    main()
