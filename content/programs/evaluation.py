"""Measuring without fooling yourself: the error bar of a benchmark score, the error of a
difference between two models scored on the same questions, and two errors more questions
cannot remove.

A companion to the lesson "Measuring without fooling yourself". A model that gets `correct` of
`total` questions right scores p = correct / total. The program prints three 95% intervals for
that accuracy: Wald's p +- z sqrt(p(1 - p)/n), Wilson's score interval, and Clopper-Pearson's
exact interval, whose bounds make a binomial tail, summed here term by term, equal alpha/2
(found by bisection). For two models on the same questions it prints the paired standard error
sqrt((Var(a) + Var(b) - 2 Cov(a, b))/n) with Cov = rho sqrt(Var(a) Var(b)) (Miller 2024,
arXiv:2411.00640), the unpaired one sqrt((Var(a) + Var(b))/n), the paired error from discordant
counts, and the minimum detectable difference (z_{1-alpha/2} + z_power) SE; the standard error
of the accuracy when questions come in clusters of m whose scores correlate by rho_c, times the
design effect 1 + (m - 1) rho_c. Finally the
seed-to-seed spread sqrt((p(1 - p) - s^2)/n + s^2) of a score when the true accuracy varies by s
between training seeds, and the score (1 - f) p + f m of a model that saw a share f of the test
in training and answers those questions with accuracy m.

Run:  python3 evaluation.py                                  the lesson's worked example
      python3 evaluation.py --correct 90 --total 100
      python3 evaluation.py --accuracy-a 0.7 --accuracy-b 0.69 --correlation 0.8 --total 10000
      python3 evaluation.py --json                           the same numbers as JSON
"""
import argparse
import json
import math
import sys
from statistics import NormalDist


def pmf_log(k, n, p):
    if p <= 0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1:
        return 0.0 if k == n else -math.inf
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def tail_at_least(x, n, p):  # P(X >= x)
    return sum(math.exp(pmf_log(k, n, p)) for k in range(x, n + 1))


def tail_at_most(x, n, p):  # P(X <= x)
    return sum(math.exp(pmf_log(k, n, p)) for k in range(0, x + 1))


def intervals(correct, total, confidence):
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p, n = correct / total, total
    h = z * math.sqrt(p * (1 - p) / n)
    wald = (max(0.0, p - h), min(1.0, p + h))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    hw = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    wilson = (max(0.0, centre - hw), min(1.0, centre + hw))
    half = (1 - confidence) / 2
    low, high = 0.0, 1.0
    if correct > 0:
        lo, hi = 0.0, p
        for _ in range(200):
            mid = (lo + hi) / 2
            if tail_at_least(correct, n, mid) < half:
                lo = mid
            else:
                hi = mid
        low = (lo + hi) / 2
    if correct < n:
        lo, hi = p, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if tail_at_most(correct, n, mid) > half:
                lo = mid
            else:
                hi = mid
        high = (lo + hi) / 2
    out = {}
    for name, (a, b) in (("wald", wald), ("wilson", wilson), ("clopper-pearson", (low, high))):
        out[name] = {"accuracy": p, "low": a, "high": b, "half_width": (b - a) / 2}
    return out


def paired(total, pa, pb, rho, confidence, power):
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    zp = NormalDist().inv_cdf(power)
    va, vb = pa * (1 - pa), pb * (1 - pb)
    se = math.sqrt(max(0.0, va + vb - 2 * rho * math.sqrt(va * vb)) / total)
    d = pa - pb
    return {"difference": d, "std_error": se, "ci_low": d - z * se, "ci_high": d + z * se,
            "min_detectable_difference": (z + zp) * se, "unpaired_std_error": math.sqrt((va + vb) / total),
            "unpaired_min_detectable_difference": (z + zp) * math.sqrt((va + vb) / total)}


def discordant(total, a_only, b_only):
    d = (a_only - b_only) / total
    return {"difference": d, "std_error": math.sqrt(max(0.0, (a_only + b_only) / total - d * d) / total)}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--correct", type=int, default=850, help="questions answered right (default 850)")
    p.add_argument("--total", type=int, default=1000, help="questions in the benchmark, 1 to 100,000 (default 1,000)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level, between 0 and 1 (default 0.95)")
    p.add_argument("--accuracy-a", type=float, default=0.80, help="accuracy of model a (default 0.80)")
    p.add_argument("--accuracy-b", type=float, default=0.75, help="accuracy of model b (default 0.75)")
    p.add_argument("--correlation", type=float, default=None,
                   help="correlation of their per-question correctness (default 0.5, or the nearest the accuracies allow)")
    p.add_argument("--a-only", type=int, default=None, help="questions only a gets right (default 12%% of --total: 120 of 1,000)")
    p.add_argument("--b-only", type=int, default=None, help="questions only b gets right (default 7%% of --total: 70 of 1,000)")
    p.add_argument("--power", type=float, default=0.8, help="power for the minimum detectable difference (default 0.8)")
    p.add_argument("--cluster-size", type=int, default=None, help="questions per cluster, e.g. per passage (default 10, or --total if smaller)")
    p.add_argument("--cluster-correlation", type=float, default=0.2, help="correlation of scores inside a cluster (default 0.2)")
    p.add_argument("--seed-std", type=float, default=None,
                   help="seed-to-seed spread of the true accuracy, at most a third of the way from --accuracy-b to 0 or 1 (default 0.01, or that third if smaller)")
    p.add_argument("--share", type=float, default=0.10, help="contaminated share of the test for model a (default 0.10)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not 1 <= a.total <= 100000:
        p.error("--total must be from 1 to 100,000")
    if not 0 <= a.correct <= a.total:
        p.error("--correct must be from 0 to --total")
    for name in ("confidence", "power"):
        v = getattr(a, name)
        if not (0 < v < 1):
            p.error(f"--{name} must be strictly between 0 and 1")
    for name in ("accuracy_a", "accuracy_b", "share"):
        v = getattr(a, name)
        if not (0 <= v <= 1):
            p.error(f"--{name.replace('_', '-')} must be between 0 and 1")
    # Both right with probability ab + rho sd, between max(0, a + b - 1) and min(a, b), or no such pair exists.
    pa, pb, sd = a.accuracy_a, a.accuracy_b, math.sqrt(a.accuracy_a * (1 - a.accuracy_a) * a.accuracy_b * (1 - a.accuracy_b))
    lo, hi = ((max(0, pa + pb - 1) - pa * pb) / sd, (min(pa, pb) - pa * pb) / sd) if sd > 0 else (-1.0, 1.0)
    if a.correlation is None:
        a.correlation = min(max(0.5, lo), hi)
    if not (-1 <= a.correlation <= 1):
        p.error("--correlation must be between -1 and 1")
    if not (lo - 1e-9 <= a.correlation <= hi + 1e-9):
        p.error(f"--correlation must be from {lo:.3f} to {hi:.3f} for these accuracies (no two models correlate further)")
    if a.cluster_size is None:
        a.cluster_size = min(10, a.total)
    if not 1 <= a.cluster_size <= a.total:
        p.error("--cluster-size must be from 1 to --total")
    if not (0 <= a.cluster_correlation <= 1):
        p.error("--cluster-correlation must be between 0 and 1")
    # The seeds' true accuracies p + s Z must stay inside [0, 1] for the variance formula to hold.
    room = min(a.accuracy_b, 1 - a.accuracy_b) / 3
    if a.seed_std is None:
        a.seed_std = min(0.01, room)
    if not (0 <= a.seed_std <= room + 1e-12):
        p.error(f"--seed-std ({a.seed_std:g}) must be from 0 to a third of the way from --accuracy-b to 0 or 1 ({room:.4g})")
    # The discordant counts default to the lesson's shares of the benchmark (120 and 70 of 1,000),
    # so that a small --total alone is valid; counts given explicitly are checked as given.
    if a.a_only is None:
        a.a_only = round(0.12 * a.total)
    if a.b_only is None:
        a.b_only = round(0.07 * a.total)
    if a.a_only < 0 or a.b_only < 0 or a.a_only + a.b_only > a.total:
        p.error(f"--a-only ({a.a_only}) and --b-only ({a.b_only}) must be at least 0 and sum to at most --total ({a.total})")

    ci = intervals(a.correct, a.total, a.confidence)
    pc = paired(a.total, a.accuracy_a, a.accuracy_b, a.correlation, a.confidence, a.power)
    dc = discordant(a.total, a.a_only, a.b_only)
    # Questions in clusters: each has m - 1 partners of covariance rho_c p(1 - p) (Miller 2024).
    acc = ci["wald"]["accuracy"]
    deff = 1 + (a.cluster_size - 1) * a.cluster_correlation
    clustered = {"design_effect": deff, "iid_std_error": math.sqrt(acc * (1 - acc) / a.total),
                 "std_error": math.sqrt(acc * (1 - acc) / a.total * deff), "effective_questions": a.total / deff}
    # Seed spread for a recipe averaging accuracy_b (law of total variance).
    pb, s, n = a.accuracy_b, a.seed_std, a.total
    seeds = {"sampling_std": math.sqrt(pb * (1 - pb) / n),
             "expected_std": math.sqrt(max(0.0, pb * (1 - pb) - s * s) / n + s * s)}
    seeds["seed_share_of_variance"] = s * s / seeds["expected_std"] ** 2 if seeds["expected_std"] > 0 else 0.0
    # Contamination: model a (true accuracy 0.70) saw `share` of the test; b (0.72) saw none; memorized answers right.
    ta, tb = 0.70, 0.72
    cont = {"measured_accuracy_a": (1 - a.share) * ta + a.share * 1.0, "measured_accuracy_b": tb,
            "true_difference": ta - tb}
    cont["measured_difference"] = cont["measured_accuracy_a"] - cont["measured_accuracy_b"]
    out = {"correct": a.correct, "total": a.total, "confidence": a.confidence, "intervals": ci, "paired": pc,
           "discordant": dc, "clustered": clustered, "seeds": seeds, "contamination": cont}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    pct = 100 * a.confidence
    print(f"{a.correct:,} of {a.total:,} right: accuracy {100 * ci['wald']['accuracy']:.1f}%")
    for name in ("wald", "wilson", "clopper-pearson"):
        r = ci[name]
        print(f"  {pct:g}% {name}: {100 * r['low']:.2f}% to {100 * r['high']:.2f}%, half-width {100 * r['half_width']:.2f} points")
    print(f"  in clusters of {a.cluster_size} at correlation {a.cluster_correlation:g}: SE {100 * clustered['std_error']:.2f} points, "
          f"not {100 * clustered['iid_std_error']:.2f} (design effect {deff:.2f}, worth {clustered['effective_questions']:,.0f} independent questions)")
    print(f"\nModels at {100 * a.accuracy_a:g}% and {100 * a.accuracy_b:g}% on the same {a.total:,} questions, correlation {a.correlation:.3g}:")
    print(f"  paired SE {100 * pc['std_error']:.2f} points, unpaired SE {100 * pc['unpaired_std_error']:.2f} points")
    print(f"  difference {100 * pc['difference']:.1f} points, {pct:g}% interval {100 * pc['ci_low']:.1f} to {100 * pc['ci_high']:.1f}")
    print(f"  minimum detectable difference at power {a.power:g}: paired {100 * pc['min_detectable_difference']:.1f} points, "
          f"unpaired {100 * pc['unpaired_min_detectable_difference']:.1f} points")
    print(f"  from discordant counts {a.a_only} and {a.b_only}: difference {100 * dc['difference']:.1f} points, SE {100 * dc['std_error']:.2f} points")
    print(f"\nSeed spread {100 * s:.1f} points at {100 * pb:g}% on {n:,} questions: sampling {100 * seeds['sampling_std']:.2f}, "
          f"total {100 * seeds['expected_std']:.2f} points ({100 * seeds['seed_share_of_variance']:.0f}% of the variance from seeds)")
    print(f"Contamination of {100 * a.share:g}%: model a measures {100 * cont['measured_accuracy_a']:.1f}% against b's "
          f"{100 * cont['measured_accuracy_b']:.1f}%; true difference {100 * cont['true_difference']:+.1f}, "
          f"measured {100 * cont['measured_difference']:+.1f} points")


if __name__ == "__main__":
    main()
