"""Feeding the accelerators: a data-loader simulation, padding versus packing, and the global
batch with its learning rate.

A companion to the lesson "Feeding the accelerators". It simulates a PyTorch-style DataLoader
(batch k built whole by worker k mod W, prefetch_factor batches in flight per worker, the loop
taking batches in order, lognormal load times) and reports how much of the time the GPU is
busy; it draws random document lengths and fills sequences of max_len tokens by padding (to
max_len, or to the batch's longest: dynamic, and bucketed by length), best-fit-decreasing
packing and concatenate-and-split, counting the attention pairs of a causal and a
per-document mask; and it computes the global batch and the linear, square-root and
noise-scale learning-rate rules. The random draws are the course engine's (SplitMix64,
Marsaglia's polar method), so a seed gives the same runs as the lesson's figures.

Run:  python3 feeding-data.py                                  the lesson's worked example
      python3 feeding-data.py --workers 6 --prefetch 4 --load-cv 1
      python3 feeding-data.py --max-len 4096 --mean-len 300 --lengths uniform
      python3 feeding-data.py --json                           the same numbers as JSON
"""
import argparse
import bisect
import json
import math
import sys

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def avalanche(z):
    """SplitMix64's output function: every input bit flips each output bit about half the time."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class Stream:
    """SplitMix64 from seed and salt hashed together, as the engine's SeededStream and mix_seed."""

    def __init__(self, seed, salt):
        self.state = avalanche(avalanche((salt + GOLDEN) & MASK) ^ avalanche(seed & MASK))
        self.spare = None

    def next(self):
        self.state = (self.state + GOLDEN) & MASK
        return avalanche(self.state)

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    def integer(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)

    def normal(self):  # Marsaglia's polar method, the second value kept for the next call
        if self.spare is not None:
            z, self.spare = self.spare, None
            return z
        while True:
            u, v = 2 * self.uniform() - 1, 2 * self.uniform() - 1
            s = u * u + v * v
            if 0 < s < 1:
                break
        f = math.sqrt(-2 * math.log(s) / s)
        self.spare = v * f
        return u * f


def simulate(workers, prefetch, load, cv, step, steps, seed):
    """issue_k, ready r_k, start s_k and end e_k of every step (the lesson's four rules)."""
    rng = Stream(seed, 0x5A17D47A10ADE5)
    s2 = math.log(1 + cv * cv)
    mu = math.log(load) - s2 / 2
    loads = [load if cv == 0 else math.exp(mu + math.sqrt(s2) * rng.normal()) for _ in range(steps)]
    depth = max(workers, 1) * prefetch
    ready, start, prev_end, stall = [0.0] * steps, [0.0] * steps, 0.0, 0.0
    for k in range(steps):
        if workers == 0:  # the training loop loads its own batch
            ready[k] = prev_end + loads[k]
        else:
            issued = 0.0 if k < depth else start[k - depth]
            ready[k] = max(issued, ready[k - workers] if k >= workers else 0.0) + loads[k]
        start[k] = max(prev_end, ready[k])
        stall += start[k] - prev_end
        prev_end = start[k] + step
    return {"gpu_busy_fraction": steps * step / prev_end, "throughput_steps_per_s": steps / prev_end,
            "stall_s": stall, "makespan_s": prev_end, "workers_needed": math.ceil(load / step - 1e-12)}


def lengths(dist, mean, n, seed, sigma=1.0):
    rng = Stream(seed, 0x9AC4E5D0C0FFEE)
    m = math.floor(mean + 0.5)
    if dist == "fixed":
        return [max(m, 1)] * n
    if dist == "uniform":
        return [rng.integer(1, max(2 * m - 1, 1)) for _ in range(n)]
    mu = math.log(mean) - sigma * sigma / 2
    return [min(1 << 24, max(1, math.floor(math.exp(mu + sigma * rng.normal()) + 0.5))) for _ in range(n)]


def pack(max_len, docs, method):
    """Rows of max_len tokens: a list of the document pieces in each row."""
    if method == "concat":
        stream_rows, row, used = [], [], 0
        for d in docs:
            while d > 0:
                piece = min(d, max_len - used)
                row.append(piece)
                used, d = used + piece, d - piece
                if used == max_len:
                    stream_rows.append(row)
                    row, used = [], 0
        return stream_rows + ([row] if row else [])
    kept = [min(d, max_len) for d in docs]
    if method in ("pad", "dynamic", "bucket"):  # one document per row; bucket sorts by length
        return [[d] for d in (sorted(kept) if method == "bucket" else kept)]
    rows, rooms = [], []  # rooms: sorted (room left, serial, row), as the engine's multimap
    for serial, d in enumerate(sorted(kept, reverse=True)):
        i = bisect.bisect_left(rooms, (d, -1, -1))
        if i == len(rooms):
            rows.append([])
            r = len(rows) - 1
        else:
            r = rooms.pop(i)[2]
        rows[r].append(d)
        room = max_len - sum(rows[r])
        if room > 0:
            bisect.insort(rooms, (room, serial, r))
    return rows


def packing(max_len, dist, mean, n, method, seed):
    docs = lengths(dist, mean, n, seed)
    rows = pack(max_len, docs, method)
    useful = sum(map(sum, rows))
    slots = len(rows) * max_len  # dynamic, bucket: each batch of 16 rows padded to its longest
    if method in ("dynamic", "bucket"):
        slots = sum(len(rows[i:i + 16]) * max(map(sum, rows[i:i + 16])) for i in range(0, len(rows), 16))
    pairs = lambda u: u * (u + 1) / 2
    causal = sum(pairs(sum(r)) for r in rows)
    document = sum(pairs(d) for r in rows for d in r)
    return {"sequences": len(rows), "useful_tokens": useful, "efficiency": useful / slots,
            "truncated_tokens": sum(docs) - useful, "causal_pairs": causal, "document_pairs": document,
            "cross_document_share": (causal - document) / causal}


def batch(per_device, devices, accumulation, seq, base_tokens=2 ** 20, base_lr=3e-4, critical=2 ** 23):
    tokens = per_device * devices * accumulation * seq
    k = tokens / base_tokens
    return {"sequences": per_device * devices * accumulation, "tokens": tokens, "lr_linear": base_lr * k,
            "lr_sqrt": base_lr * math.sqrt(k), "lr_noise_scale": base_lr * (1 + critical / base_tokens) / (1 + critical / tokens),
            "steps_factor": 1 + critical / tokens, "tokens_factor": 1 + tokens / critical}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="feeding-data.py", description="Data-loader stalls, padding versus packing, global batch and learning rate.")
    p.add_argument("--workers", type=int, default=4, help="data-loader workers, 0 to 64 (default 4)")
    p.add_argument("--prefetch", type=int, default=2, help="batches in flight per worker, 1 to 64 (default 2)")
    p.add_argument("--load-time", type=float, default=1.0, help="mean seconds to build one batch (default 1.0)")
    p.add_argument("--load-cv", type=float, default=0.5, help="coefficient of variation of load times, 0 to 4 (default 0.5)")
    p.add_argument("--step-time", type=float, default=0.3, help="seconds per training step (default 0.3)")
    p.add_argument("--max-len", type=int, default=2048, help="sequence length in tokens, 1 to 131072 (default 2048)")
    p.add_argument("--mean-len", type=float, default=600, help="mean document length in tokens (default 600)")
    p.add_argument("--lengths", default="lognormal", choices=["fixed", "uniform", "lognormal"], help="document lengths (default lognormal)")
    p.add_argument("--seed", type=int, default=1, help="seed of the draws (default 1)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not 0 <= a.workers <= 64 or not 1 <= a.prefetch <= 64:
        p.error("--workers must be 0 to 64 and --prefetch 1 to 64")
    if not (0 < a.load_time <= 1e6 and 0 < a.step_time <= 1e6 and 0 <= a.load_cv <= 4):
        p.error("--load-time and --step-time must be positive and --load-cv 0 to 4")
    if not (1 <= a.max_len <= 131072 and 1 <= a.mean_len <= 131072 and 0 <= a.seed < 2 ** 32):
        p.error("--max-len and --mean-len must be 1 to 131072 tokens, --seed 0 to 2^32 - 1")

    runs = {f"w{w}_p{q}": simulate(w, q, a.load_time, a.load_cv, a.step_time, 200, a.seed)
            for w in (a.workers - 1, a.workers, a.workers + 1) if w >= 0 for q in sorted({1, a.prefetch, 2 * a.prefetch}) if q <= 64}
    pipe = simulate(a.workers, a.prefetch, a.load_time, a.load_cv, a.step_time, 200, a.seed)
    methods = {m: packing(a.max_len, a.lengths, a.mean_len, 1000, m, a.seed) for m in ("pad", "dynamic", "bucket", "pack", "concat")}
    gb = batch(2, 512, 1, 4096)
    out = {"pipeline": pipe, "runs": runs, "packing": methods, "batch": gb}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(f"Data loader: {a.load_time:g} s per batch (CV {a.load_cv:g}), {a.step_time:g} s per step, 200 steps, seed {a.seed}")
    print(f"  mean supply covers the step from {pipe['workers_needed']} workers (ceil {a.load_time:g} / {a.step_time:g})")
    for key, r in runs.items():
        w, q = key[1:].split("_p")
        print(f"  {w:>2} workers, prefetch {q:>2}: GPU busy {100 * r['gpu_busy_fraction']:5.1f}%, stalled {r['stall_s']:6.2f} s")
    print(f"\n1000 {a.lengths} documents, mean {a.mean_len:g} tokens, in sequences of {a.max_len}:")
    for m, r in methods.items():
        print(f"  {m:7s}: {r['sequences']:5d} sequences, efficiency {100 * r['efficiency']:5.1f}%, "
              f"truncated {r['truncated_tokens']:6d} tokens, causal-mask pairs across documents {100 * r['cross_document_share']:4.1f}%")
    print(f"\nGlobal batch 2 x 512 x 1 x 4096 = {gb['tokens']:,} tokens ({gb['sequences']} sequences)")
    print(f"  lr tuned 3e-4 at 2^20 tokens: linear {gb['lr_linear']:.5f}, square root {gb['lr_sqrt']:.5f}, "
          f"noise scale (B_crit 2^23) {gb['lr_noise_scale']:.5f}")
    print(f"  steps {gb['steps_factor']:.2f}x and tokens {gb['tokens_factor']:.2f}x the fewest possible")


if __name__ == "__main__":
    main()
