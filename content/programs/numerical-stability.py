"""Numerical stability: softmax overflow per format, the max-subtraction fix, loss spikes and
clipping, and logit growth with and without the z-loss.

A companion to the lesson "Numerical stability at scale". It rounds to fp32, bf16 and fp16
exactly (round to nearest, ties to even, subnormals, overflow to infinity), runs a naive
softmax (e^x stored in the format, summed with an fp32 accumulator, divided) and a
max-subtracted one (fp32 intermediates, the result stored in the format) as the course's
softmax-stability calculator does, prints where each format's exponential and sum overflow,
and computes PaLM's z-loss 1e-4 (log Z)^2. Then it executes the loss-spikes toy of the
lesson: SGD with momentum on an 8-dimensional linear regression whose bad batches (inputs
x spike_scale) have spike_scale^2 times the curvature, with and without gradient-norm
clipping as torch.nn.utils.clip_grad_norm_, and the logit-growth toy: a linear softmax
classifier trained by Adam whose logits grow past fp16's range without a z-loss and stay
near log Z = 0 with one. Its random numbers are the engine's (SplitMix64
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


def logit_growth(steps=1000, lr=0.03, z_loss=0.0, seed=1, K=8, D=16, B=16, N=1024):
    """Linear softmax classifier on separable data, Adam (0.9, 0.95, 1e-8), optional z-loss."""
    rng = Stream(seed, 0x2F6E1D0C9B8A7061)
    mu = [[rng.normal() for _ in range(D)] for _ in range(K)]
    ys, xs = [], []
    for _ in range(N):
        ys.append(rng.next() % K)
        xs.append([m + 0.3 * rng.normal() for m in mu[ys[-1]]])
    P = K * D + K
    th, m1, m2 = [0.0] * P, [0.0] * P, [0.0] * P  # W (K x D) then b (K), and Adam's moments
    peak, first, series = -1e300, None, []
    for t in range(steps + 1):
        g, top, mean_lz, loss = [0.0] * P, -1e300, 0.0, 0.0
        for _ in range(B):
            n = rng.next() % N
            x, y = xs[n], ys[n]
            z = [th[K * D + k] + sum(th[k * D + i] * x[i] for i in range(D)) for k in range(K)]
            m, e = max(z), [math.exp(v - max(z)) for v in z]
            lz = m + math.log(sum(e))
            p = [v / sum(e) for v in e]
            top, mean_lz, loss = max(top, m), mean_lz + lz / B, loss + (lz - z[y]) / B
            for k in range(K):
                dz = (p[k] - (k == y) + 2 * z_loss * lz * p[k]) / B
                for i in range(D):
                    g[k * D + i] += dz * x[i]
                g[K * D + k] += dz
        peak = max(peak, top)
        if first is None and top > math.log(65504):
            first = t
        series.append((t, top, mean_lz, loss))
        if t == steps:
            break
        for j in range(P):
            m1[j] = 0.9 * m1[j] + 0.1 * g[j]
            m2[j] = 0.95 * m2[j] + 0.05 * g[j] * g[j]
            th[j] -= lr * (m1[j] / (1 - 0.9 ** (t + 1))) / (math.sqrt(m2[j] / (1 - 0.95 ** (t + 1))) + 1e-8)
    return {"first_fp16_exp_overflow_step": first, "peak_max_logit": peak, "final_max_logit": series[-1][1],
            "final_mean_log_z": series[-1][2], "final_loss": series[-1][3]}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="numerical-stability.py", description="Softmax overflow per format, max subtraction, loss spikes and clipping, logit growth and z-loss.")
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
           "clipped": {k: on[k] for k in ("bad_steps", "clipped_steps", "clipped_fraction", "final_loss", "peak_loss")},
           "logits": {"no_z_loss": logit_growth(seed=a.seed), "z_loss": logit_growth(seed=a.seed, z_loss=1e-4)}}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print("e^x overflows above ln(max): " + ", ".join(f"{f} {t:.4f}" for f, t in thresholds.items()))
    print(f"\n{a.count} logits {a.top:g}, {a.top - 1:g}, ... in {a.format}:")
    print(f"  the naive sum overflows above a top logit of {sm['sum_overflow_threshold']:.4f}")
    state = "NaN where e^x overflowed (inf/inf), 0 elsewhere (x/inf)" if sm["exp_overflow"] else (
        "all zeros (the sum overflowed)" if sm["sum_overflow"] else f"top token {sm['naive'][0]:.5f}")
    print(f"  naive:  {state}")
    print(f"  stable: top token {sm['stable'][0]:.5f}   exact: {sm['exact'][0]:.5f}")
    print(f"  log Z = {sm['log_z']:.4f}, z-loss 1e-4 (log Z)^2 = {out['z_loss']:.5f}")
    print(f"\nLoss-spikes toy, seed {a.seed}: bad batches at steps {off['bad_steps']}")
    print(f"  one plain SGD step on a bad batch multiplies the top direction's loss by {off['bad_step_loss_factor']:.0f}")
    print(f"  no clipping:          peak loss after step 100 {off['peak_loss']:.4g}, final {off['final_loss']:.4g}")
    print(f"  clipped at {a.max_norm:<10g} peak loss after step 100 {on['peak_loss']:.4g}, final {on['final_loss']:.4g}, "
          f"{100 * on['clipped_fraction']:.1f}% of steps clipped")
    print(f"\nLogit-growth toy (Adam, lr 0.03, 1000 steps), seed {a.seed}:")
    for name, r in out["logits"].items():
        print(f"  {name:9s}: largest logit peaks at {r['peak_max_logit']:.2f}, passes ln 65504 at step "
              f"{r['first_fp16_exp_overflow_step'] or 'never'}, mean log Z ends at {r['final_mean_log_z']:.2f}, loss {r['final_loss']:.3g}")


if __name__ == "__main__":
    main()
