"""Quantization: store values as b-bit integer codes and a scale, and measure what that costs.

A companion to the lesson "Quantization for training and inference". It follows the lesson's
sections: "The uniform quantizer" (q = clamp(round(x/s) + z, qmin, qmax), x̂ = s·(q − z), the
zero point of an asymmetric range), "How large is the error?" (the step Δ, the worst error Δ/2
inside the range, the rounding-noise model Δ²/12 and the SQNR in dB, then where that model fails
on data with outlier channels) and "Granularity: how many scales?" (one scale per tensor, per
row or per group, and the bits the scales cost). The seeded matrices are made by the engine's
own generator (SplitMix64, Marsaglia's polar method and the engine's natural log, reimplemented
here), so every measured error equals the engine's exactly.

Run:  python3 quantization.py                       the lesson's numbers (4 bits, outlier matrix)
      python3 quantization.py --bits 8 --distribution laplace --group-size 32 --asymmetric
      python3 quantization.py --outlier-scale 5 --cols 256 --seed 3 --json
"""
import argparse
import json
import math
import sys

MASK, GAMMA, LN2, LN10 = 2 ** 64 - 1, 0x9E3779B97F4A7C15, 0.69314718055994530942, 2.30258509299404568402


def log_det(x):
    """The engine's ln x: x = m·2^e, then 2·atanh((m − 1)/(m + 1)) by a fixed series (no libm)."""
    if x == 0:
        return -math.inf
    m, e = math.frexp(x)
    if m < 0.70710678118654752440:
        m, e = m * 2, e - 1
    t = (m - 1) / (m + 1)
    t2, total = t * t, 1.0 / 29
    for k in range(27, 0, -2):
        total = 1.0 / k + t2 * total
    return e * LN2 + 2 * t * total


def avalanche(z):
    """SplitMix64's output function: every input bit flips each output bit about half the time."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class Stream:
    """SplitMix64 from seed and salt hashed together (mix_seed), as the engine's SeededStream."""

    def __init__(self, seed, salt):
        self.state = avalanche(avalanche((salt + GAMMA) & MASK) ^ avalanche(seed & MASK))

    def next(self):
        self.state = (self.state + GAMMA) & MASK
        return avalanche(self.state)

    def uniform(self):  # [0, 1) on the grid k·2⁻⁵³
        return (self.next() >> 11) * 2.0 ** -53

    def normal_pair(self):  # polar method with u, v = 2·(k + 1)·2⁻⁵³ − 1
        while True:
            u = 2 * (((self.next() >> 11) + 1) * 2.0 ** -53) - 1
            v = 2 * (((self.next() >> 11) + 1) * 2.0 ** -53) - 1
            s = u * u + v * v
            if 0 < s < 1:
                f = math.sqrt(-2 * log_det(s) / s)
                return u * f, v * f


def generate(dist, samples, cols, seed, outlier_fraction, outlier_scale):
    """A rows × cols matrix (row-major list) of unit-variance values; outlier rows scaled up."""
    rows, rng = max(1, samples // cols), Stream(seed, 0x2545F4914F6CDD1D)
    n, v = rows * cols, []
    while len(v) < n:
        if dist == "uniform":
            v.append(math.sqrt(3) * (2 * rng.uniform() - 1))
        elif dist == "laplace":
            u = rng.uniform() - 0.5
            mag = -0.70710678118654752440 * log_det(1 - 2 * abs(u))
            v.append(-mag if u < 0 else mag)
        else:
            v.extend(rng.normal_pair())
    v = v[:n]
    if dist == "gaussian-outliers" and outlier_fraction > 0:
        k = min(max(round_away(outlier_fraction * rows), 1), rows)
        idx = list(range(rows))
        for j in range(k):  # partial Fisher-Yates shuffle picks the outlier rows
            pick = j + rng.next() % (rows - j)
            idx[j], idx[pick] = idx[pick], idx[j]
        for r in idx[:k]:
            for c in range(cols):
                v[r * cols + c] *= outlier_scale
    return rows, v


def round_away(x):
    """C's llround(): halves away from zero, as the engine counts the outlier rows."""
    f = math.floor(abs(x))
    return int(math.copysign(f + 1 if abs(x) - f >= 0.5 else f, x))


def quantizer(bits, lo, hi, symmetric):
    """(scale s, zero point z, qmin, qmax): symmetric codes ±(2^(b−1) − 1), or 0..2^b − 1 over [lo, hi]."""
    if symmetric:
        qmax = 2.0 ** (bits - 1) - 1
        return hi / qmax, 0.0, -qmax, qmax
    lo, hi = min(lo, 0.0), max(hi, 0.0)  # widened to hold 0: the zero point is then a code
    qmax = 2.0 ** bits - 1
    s = (hi - lo) / qmax
    return s, float(round(-lo / s)), 0.0, qmax


def fake_quantize(x, q):
    s, z, qmin, qmax = q
    code = min(max(round(x / s) + z, qmin), qmax)  # round(): halves to even, as the engine
    return s * (code - z)  # dequantized: what the arithmetic sees


def closed_form(bits, lo, hi):
    step = (hi - lo) / (2 ** bits - 1)  # Δ: 2^b − 1 steps across the range
    return {"step": step, "max_error": step / 2, "mse_uniform": step * step / 12}


def quantize_matrix(v, cols, bits, granularity, group_size, symmetric, clip=1.0):
    """Quantize and dequantize every value, one scale per block; measured errors beside Δ²/12."""
    n = len(v)
    block = {"tensor": n, "channel": cols, "group": group_size}[granularity]
    sq = zeroed_sq = rnd = clp = pred = sig = max_err = 0.0
    clipped = zeroed = blocks = 0
    for b0 in range(0, n, block):
        xs = v[b0:b0 + block]
        blocks += 1
        if symmetric:
            amax = max(abs(x) for x in xs)
            q = quantizer(bits, 0, clip * amax if amax > 0 else 1.0, True)
        else:
            lo, hi = min(min(xs), 0.0) * clip, max(max(xs), 0.0) * clip  # the range always holds 0
            q = quantizer(bits, lo, hi, False) if hi > lo else quantizer(bits, -1, 1, False)
        s, z, qmin, qmax = q
        lo_rep, hi_rep = s * (qmin - z), s * (qmax - z)
        pred += block * s * s / 12
        for x in xs:
            xq = fake_quantize(x, q)
            e = x - xq
            e2 = e * e
            if x != 0 and xq == 0:  # rounded to zero: the error is the value itself
                zeroed += 1
                zeroed_sq += e2
            sq += e2
            sig += x * x
            max_err = max(max_err, abs(e))
            if x < lo_rep - s / 2 or x > hi_rep + s / 2:
                clp += e2
                clipped += 1
            else:
                rnd += e2
    mse = sq / n
    scale_bytes = blocks * (2.0 if symmetric else 4.0)  # an fp16 scale (and zero point) per block
    return {"mse": mse, "mse_rounding": rnd / n, "mse_clipping": clp / n, "mse_predicted": pred / n,
            "mse_zeroed": zeroed_sq / n, "signal_power": sig / n, "max_abs_error": max_err,
            "sqnr_db": 10 * log_det((sig / n) / max(mse, 1e-300)) / LN10, "zeroed_fraction": zeroed / n,
            "clipped_fraction": clipped / n, "blocks": float(blocks), "scale_overhead_bytes": scale_bytes,
            "bits_per_value": (n * bits / 8 + scale_bytes) * 8 / n}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="quantization.py", description="Uniform quantization: closed form and measured on seeded data.")
    p.add_argument("--bits", type=int, default=4, help="bits per code, 2 to 16 (default 4)")
    p.add_argument("--distribution", default="gaussian-outliers", choices=["uniform", "gaussian", "laplace", "gaussian-outliers"],
                   help="seeded data, unit variance (default gaussian-outliers)")
    p.add_argument("--outlier-fraction", type=float, default=0.03125, help="share of outlier rows (default 0.03125: 4 of 128)")
    p.add_argument("--outlier-scale", type=float, default=20, help="their magnitude, 1 to 1000 (default 20)")
    p.add_argument("--samples", type=int, default=65536, help="values generated, 4096 to 262144 (default 65536)")
    p.add_argument("--cols", type=int, default=512, help="columns: the values of one row/channel (default 512)")
    p.add_argument("--group-size", type=int, default=128, help="values per group; divides --cols (default 128)")
    p.add_argument("--asymmetric", action="store_true", help="asymmetric codes with a zero point (default symmetric)")
    p.add_argument("--seed", type=int, default=1, help="seed of the data (default 1)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    for flag, lo, hi in (("bits", 2, 16), ("samples", 4096, 262_144), ("cols", 8, 4096), ("group_size", 2, 4096), ("seed", 0, 2 ** 32 - 1)):
        if not lo <= getattr(a, flag) <= hi:
            p.error(f"--{flag.replace('_', '-')} must be a whole number from {lo} to {hi}")
    if not (0 <= a.outlier_fraction <= 1 and 1 <= a.outlier_scale <= 1000):
        p.error("--outlier-fraction must be from 0 to 1 and --outlier-scale from 1 to 1000")
    if a.cols % a.group_size:
        p.error(f"--group-size must divide --cols ({a.cols})")

    closed = {str(b): closed_form(b, -1.0, 1.0) for b in sorted({8, 4, a.bits}, reverse=True)}
    # The lesson's asymmetric example: int8 over [-0.5, 2.05] stores 1.234 as a code.
    s, z, qmin, qmax = q = quantizer(8, -0.5, 2.05, False)
    code = min(max(round(1.234 / s) + z, qmin), qmax)
    example = {"scale": s, "zero_point": z, "code": code, "dequantized": fake_quantize(1.234, q)}
    _, uni = generate("uniform", 65536, 256, a.seed, 0, 1)  # the engine's default matrix, 256 columns
    uniform8 = quantize_matrix(uni, 256, 8, "tensor", 128, False)
    step8 = (max(uni) - min(uni)) / 255
    assert uniform8["max_abs_error"] <= step8 / 2 * (1 + 1e-12), "inside the range, off by at most Δ/2"
    rows, v = generate(a.distribution, a.samples, a.cols, a.seed, a.outlier_fraction, a.outlier_scale)
    sym = not a.asymmetric
    schemes = {g: quantize_matrix(v, a.cols, a.bits, g, a.group_size, sym) for g in ("tensor", "channel", "group")}
    if a.json:
        print(json.dumps({"closed_form": closed, "zero_point_example": example, "uniform8": uniform8,
                          "rows": rows, "max_abs": max(abs(x) for x in v), "schemes": schemes}, indent=1))
        return
    print("closed form over [-1, 1]:")
    for b, c in closed.items():
        print(f"  {b:>2} bits: step Δ = {c['step']:.5g}, worst error Δ/2 = {c['max_error']:.5g}, Δ²/12 = {c['mse_uniform']:.5g}")
    print(f"\nint8 over [-0.5, 2.05]: scale {s:.4g}, zero point {z:.0f}; 1.234 -> code {code:.0f} -> {example['dequantized']:.4g}")
    print(f"\n65,536 uniform values, 8 bits asymmetric: SQNR {uniform8['sqnr_db']:.2f} dB, "
          f"MSE {uniform8['mse']:.4g} against Δ²/12 = {uniform8['mse_predicted']:.4g}")
    print(f"  largest error {uniform8['max_abs_error']:.5g} <= Δ/2 = {step8 / 2:.5g}")
    kind = "asymmetric" if a.asymmetric else "symmetric"
    print(f"\n{a.distribution} {rows} x {a.cols} (seed {a.seed}), max |x| = {max(abs(x) for x in v):.1f}, {a.bits} bits {kind}:")
    print(f"  {'scales':12} {'MSE':>10} {'Δ²/12':>10} {'SQNR':>8} {'zeroed':>7} {'bits/value':>11}")
    for g, r in schemes.items():
        label = {"tensor": "per tensor", "channel": "per row", "group": f"per {a.group_size}"}[g]
        print(f"  {label:12} {r['mse']:10.4g} {r['mse_predicted']:10.4g} {r['sqnr_db']:6.1f} dB {r['zeroed_fraction']:7.1%} {r['bits_per_value']:11.3f}")
    print(f"  scales: {schemes['channel']['scale_overhead_bytes']:,.0f} bytes for the rows, "
          f"{schemes['group']['scale_overhead_bytes']:,.0f} for the groups, beside {rows * a.cols * a.bits // 8:,} bytes of codes")


if __name__ == "__main__":
    main()
