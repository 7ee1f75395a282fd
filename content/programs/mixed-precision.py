"""Mixed precision: round to bf16 and fp16 from the bits, watch a low-precision sum stall, scale a loss.

A companion to the lesson "Mixed precision: formats, loss scaling and accumulation". It follows the
lesson's sections: "What a format is made of" and "Rounding" (round to nearest, ties to even, done on the
integer bits of a float that the struct module exposes), "A sum that stops growing" (a running sum held in
bf16 against fp32 accumulation, Kahan and pairwise summation, each addition rounded), "Loss scaling" (the
share of log-normal gradients that fp16 flushes to zero or overflows) and "The mixed-precision recipe"
(bytes per parameter and step time). The uniform addends come from the engine's own generator (SplitMix64,
reimplemented here), so the sums match the engine's exactly. The peaks are the course's datasheet table.

Run:  python3 mixed-precision.py                        the lesson's numbers (bf16, 4096 addends)
      python3 mixed-precision.py --format fp16 --count 100000 --value 0.01 --seed 7
      python3 mixed-precision.py --loss-scale 1024 --hardware b200 --json
"""
import argparse, functools, json, math, struct, sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x | name, peak_flops")

# name: (exponent bits, mantissa bits, has infinity). E4M3 keeps the top binade for numbers.
FORMATS = {"fp32": (8, 23, True), "bf16": (8, 7, True), "fp16": (5, 10, True),
           "fp8-e4m3": (4, 3, False), "fp8-e5m2": (5, 2, True)}


@functools.lru_cache(maxsize=None)  # called for every rounded addition
def format_limits(name):
    e, m, ieee = FORMATS[name]
    bias = 2 ** (e - 1) - 1
    emax = 2 ** e - (2 if ieee else 1) - bias  # IEEE reserves the all-ones exponent
    top = 2 - 2.0 ** -m if ieee else 2 - 2.0 ** (1 - m)  # E4M3: only S.1111.111 is NaN
    return {"bias": bias, "emin": 1 - bias, "emax": emax, "mantissa_bits": m, "max": top * 2.0 ** emax,
            "min_normal": 2.0 ** (1 - bias), "min_subnormal": 2.0 ** (1 - bias - m), "epsilon": 2.0 ** -m}


def round_to(x, name):
    """x (a Python float) rounded to nearest, ties to even, using the integer bits of the float64."""
    f = format_limits(name)
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    negative, field, frac = bits >> 63, (bits >> 52) & 0x7FF, bits & (2 ** 52 - 1)
    if field == 0x7FF or x == 0:
        return x  # inf, NaN and zero pass through
    sig, e = ((1 << 52) | frac, field - 1023) if field else (frac, -1022)  # x = sig·2^(e-52)
    e_t = max(e, f["emin"])  # below the smallest normal the spacing stops shrinking: subnormals
    shift = 52 - f["mantissa_bits"] + (e_t - e)  # bits of sig that fall below the target's last place
    q, rest = sig >> shift, sig & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    if rest > half or (rest == half and q & 1):  # past halfway, or a tie with an odd last bit
        q += 1
    mag = q * 2.0 ** (e_t - f["mantissa_bits"])
    if mag > f["max"]:
        mag = math.inf if FORMATS[name][2] else math.nan  # E4M3 overflows to NaN
    return -mag if negative else mag


def bf16_from_fp32_bits(x):
    """The textbook bf16 cast: the top 16 bits of the fp32 pattern, rounded to nearest even."""
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def describe(x, name):
    """Rounded value, its bit fields and errors, as the engine's float calculator reports them."""
    f, r = format_limits(name), round_to(x, name)
    if not math.isfinite(r):
        return {"rounded": None, "special": "inf" if math.isinf(r) else "nan"}
    e = max(math.frexp(abs(r))[1] - 1, f["emin"]) if r else f["emin"]
    ulp = 2.0 ** (e - f["mantissa_bits"])
    field = e + f["bias"] if abs(r) >= f["min_normal"] else 0
    man = round(abs(r) / ulp) - (2 ** f["mantissa_bits"] if field else 0)
    ebits = FORMATS[name][0]
    bits = f"{int(r < 0)} {field:0{ebits}b} {man:0{f['mantissa_bits']}b}"
    return {"rounded": r, "special": "none", "bits": bits, "ulp": ulp, "subnormal": field == 0 and r != 0,
            "rel_error": abs(r - x) / abs(x), "rel_ulp": ulp / abs(r) if r else None}


def splitmix_uniform(seed):
    """The engine's SeededStream: SplitMix64 from mix_seed(seed, salt), top 53 bits as k·2⁻⁵³."""
    gamma, mask = 0x9E3779B97F4A7C15, 2 ** 64 - 1
    def mix(z):  # SplitMix64's output function; mix_seed hashes seed and salt with it
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)
    state = mix(mix((0x632BE59BD9B4E019 + gamma) & mask) ^ mix(seed & mask))
    while True:
        state = (state + gamma) & mask
        yield (mix(state) >> 11) * 2.0 ** -53


def summation(name, value, count, uniform, seed):
    """Adds `count` addends with every addition rounded to `name`: naive, Kahan and pairwise in the
    low format, naive in fp32; 'exact' is math.fsum, the correctly rounded sum."""
    rng = splitmix_uniform(seed)
    x = [round_to(value * (2 * next(rng) if uniform else 1.0), name) for _ in range(count)]
    if not all(math.isfinite(v) for v in x):
        raise ValueError(f"--value: the addends exceed the largest {name} value; choose a smaller one")
    if not any(x):
        raise ValueError(f"--value: every addend rounds to zero in {name}; choose a larger one")
    rnd = lambda v: round_to(v, name)
    naive = fp32 = kahan = comp = 0.0
    lost, last_growth, stall_count, stall_sum = 0, 0, None, None
    for i, v in enumerate(x):
        before, naive = naive, rnd(naive + v)
        if naive != before:
            last_growth = i + 1
        elif v != 0 and math.isfinite(before):
            lost += 1  # the addition left no trace
            if not uniform and stall_count is None:
                stall_count, stall_sum = i, naive
        fp32 = round_to(fp32 + v, "fp32")
        y = rnd(v - comp)  # Kahan: feed back what the last addition lost
        t = rnd(kahan + y)
        comp, kahan = rnd(rnd(t - kahan) - y), t

    def pairwise(lo, hi):  # add the halves, then the halves of halves: log2(n) roundings per input
        if hi - lo == 1:
            return x[lo]
        mid = lo + (hi - lo) // 2
        return rnd(pairwise(lo, mid) + pairwise(mid, hi))

    exact = math.fsum(x)
    finite = lambda v: v if math.isfinite(v) else None  # an overflowed sum reports no value
    out = {"addend": x[0], "exact": exact, "naive": finite(naive), "fp32": finite(fp32), "kahan": finite(kahan),
           "pairwise": finite(pairwise(0, count)), "lost_additions": lost, "last_growth_step": last_growth,
           "frozen_additions": count - last_growth, "stall_count": stall_count, "stall_sum": stall_sum}
    for k in ("naive", "fp32", "kahan", "pairwise"):
        out[f"rel_error_{k}"] = None if out[k] is None else abs(out[k] - exact) / exact
    return out


def normal_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


def gradient_fractions(mu_log2, sigma_log2, loss_scale, name="fp16"):
    """log2|g| ~ N(mu, sigma²) times the loss scale: the share rounded to zero, subnormal, overflowing."""
    f = format_limits(name)
    shift = mu_log2 + math.log2(loss_scale)
    zero_t = math.log2(f["min_subnormal"] / 2)  # below half the smallest subnormal: rounds to 0
    normal_t = math.log2(f["min_normal"])
    over_t = math.log2(f["max"] + 2.0 ** (f["emax"] - f["mantissa_bits"] - 1))  # rounds past max
    zero = normal_cdf((zero_t - shift) / sigma_log2)
    below_normal = normal_cdf((normal_t - shift) / sigma_log2)
    over = normal_cdf((shift - over_t) / sigma_log2)
    return {"zero": zero, "subnormal": below_normal - zero, "normal": max(0.0, 1 - below_normal - over), "overflow": over}


# Bytes per parameter with Adam: working weights, gradients, fp32 master copy, two fp32 moments.
RECIPE = {"fp32": (4, 4, 0, 8), "tf32": (4, 4, 0, 8), "bf16": (2, 2, 4, 8), "fp8-e4m3": (2, 2, 4, 8)}
PEAK_KEY = {"fp32": "fp32", "tf32": "tf32", "bf16": "bf16", "fp8-e4m3": "fp8"}


def recipe(gpu, params, tokens):
    rows = {}
    for dtype, parts in RECIPE.items():
        peak = gpu["peak_flops"].get(PEAK_KEY[dtype])
        rows[dtype] = {"total_bytes_per_param": sum(parts), "model_state_bytes": sum(parts) * params, "peak_flops": peak,
                       "step_time_s": 6 * params * tokens / peak if peak else None}  # 6N FLOPs per token
    return rows


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="mixed-precision.py", description="Rounding, stalled sums, loss scaling and the recipe's bytes.")
    p.add_argument("--format", default="bf16", choices=sorted(f for f in FORMATS if f != "fp32"), help="low format of the sums (default bf16)")
    p.add_argument("--count", type=int, default=4096, help="number of uniform addends (default 4096)")
    p.add_argument("--ones", type=int, default=1000, help="number of ones in the constant sum (default 1000)")
    p.add_argument("--value", type=float, default=0.01, help="mean of the uniform addends on [0, 2·value) (default 0.01)")
    p.add_argument("--seed", type=int, default=1, help="seed of the uniform addends (default 1)")
    p.add_argument("--mu-log2", type=float, default=-26, help="mean of log2|gradient| (default -26)")
    p.add_argument("--sigma-log2", type=float, default=4, help="its standard deviation (default 4)")
    p.add_argument("--loss-scale", type=float, default=65536, help="loss scale S (default 2^16)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator of the recipe (default h100-sxm)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    for flag in ("count", "ones"):
        if not 1 <= getattr(a, flag) <= 200_000:
            p.error(f"--{flag} must be a whole number from 1 to 200000")
    if not (1e-6 <= a.value <= 1e4):
        p.error("--value must be from 1e-06 to 10000")
    if not 0 <= a.seed < 2 ** 32:
        p.error("--seed must be a whole number from 0 to 4294967295")
    if not (-120 <= a.mu_log2 <= 20 and 0.1 <= a.sigma_log2 <= 20):
        p.error("--mu-log2 must be from -120 to 20 and --sigma-log2 from 0.1 to 20")
    if not (1 <= a.loss_scale <= 2.0 ** 64):
        p.error("--loss-scale must be from 1 to 2^64")

    values = {"bf16_0p1": (0.1, "bf16"), "fp16_0p1": (0.1, "fp16"), "bf16_70000": (70000, "bf16"),
              "fp16_70000": (70000, "fp16"), "fp16_1e-6": (1e-6, "fp16"), "bf16_1p0001": (1.0001, "bf16")}
    rounding = {k: describe(x, f) for k, (x, f) in values.items()}
    for x in (0.1, 70000, 1.0001):  # three roads to the same bits
        assert bf16_from_fp32_bits(x) == round_to(x, "bf16")
    assert struct.unpack("<e", struct.pack("<e", 0.1))[0] == round_to(0.1, "fp16")
    formats = {n: format_limits(n) for n in FORMATS}
    try:
        ones = summation(a.format, 1.0, a.ones, False, a.seed)
        varied = summation(a.format, a.value, a.count, True, a.seed)
    except ValueError as e:
        p.error(str(e))
    scales = {"none": ("no scaling", 1), "scaled": (f"S = {a.loss_scale:g}", a.loss_scale), "2^40": ("S = 2^40", 2.0 ** 40)}
    scaling = {k: gradient_fractions(a.mu_log2, a.sigma_log2, s) for k, (_, s) in scales.items()}
    gpu = HARDWARE[a.hardware]
    steps = recipe(gpu, 7e9, 4_194_304)
    if a.json:
        print(json.dumps({"formats": formats, "rounding": rounding, "ones": ones, "uniform": varied,
                          "loss_scaling": scaling, "recipe": steps}, indent=1))
        return
    print("format     max            min normal  min subnormal  epsilon")
    for n, f in formats.items():
        print(f"{n:9}  {f['max']:<13.6g}  {f['min_normal']:<10.4g}  {f['min_subnormal']:<13.4g}  2^{-f['mantissa_bits']}")
    print("\nround to nearest, ties to even:")
    for k, (x, f) in values.items():
        r = rounding[k]
        if r["rounded"] is None:
            print(f"  {x:g} in {f}: overflows to {r['special']}")
        else:
            print(f"  {x:g} in {f}: {r['rounded']!r}  bits {r['bits']}  error {100 * r['rel_error']:.3g} %"
                  f"{'  (subnormal)' if r['subnormal'] else ''}")
    show = lambda v: "overflow" if v is None else f"{v:g}"
    print(f"\nsum of {a.ones:,} ones in {a.format}: naive {show(ones['naive'])}, fp32 {show(ones['fp32'])}, "
          f"Kahan {show(ones['kahan'])}, pairwise {show(ones['pairwise'])}")
    if ones["stall_count"] is not None:
        print(f"  the naive sum stalls at {ones['stall_sum']:g} after {ones['stall_count']} additions; "
              f"{ones['lost_additions']:,} leave no trace (error {100 * ones['rel_error_naive']:.3g} %)")
    print(f"sum of {a.count:,} uniform addends on [0, {2 * a.value:g}) in {a.format}, seed {a.seed}: exact {varied['exact']:.1f}")
    print(f"  naive last grew at addition {varied['last_growth_step']}, then stayed at {varied['naive']:.1f} "
          f"for {varied['frozen_additions']:,}")
    for k in ("naive", "fp32", "kahan", "pairwise"):
        err = varied[f"rel_error_{k}"]
        print(f"  {k:8} overflows" if err is None else f"  {k:8} {varied[k]:<12.6g} error {100 * err:.3g} %")
    print(f"\nfp16 gradients, log2|g| ~ N({a.mu_log2:g}, {a.sigma_log2:g}²):")
    for k, (label, _) in scales.items():
        fr = scaling[k]
        print(f"  {label:14} zero {100 * fr['zero']:.3g} %  overflow {100 * fr['overflow']:.3g} %")
    print(f"\nrecipe on {gpu['name']} with Adam, 7e9 parameters, 4,194,304 tokens a step:")
    for dtype, r in steps.items():
        t = f"{r['step_time_s']:.0f} s a step" if r["step_time_s"] else "no dense peak"
        print(f"  {dtype:9} {r['total_bytes_per_param']} bytes/param ({r['model_state_bytes'] / 1e9:.0f} GB)  {t}")


if __name__ == "__main__":
    main()
