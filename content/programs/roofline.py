"""The roofline model: is a kernel limited by arithmetic or by memory bandwidth?

A companion to the lesson "The roofline model and arithmetic intensity". It follows the
lesson's sections in order: the ridge point of an accelerator, the time bound
max(FLOPs / peak, bytes / bandwidth) of a kernel and its no-overlap bound FLOPs / peak +
bytes / bandwidth, the arithmetic intensity of a matrix multiplication
C[m, n] = A[m, k] @ B[k, n], whose FLOPs it also counts by executing a small one, and the
batch m at which that matmul, as a weight matmul with n and k fixed, turns compute-bound. The accelerators' peaks and bandwidths are the course's datasheet table, written into
this file when the course was built.

Run:  python3 roofline.py                 the lesson's worked example on the H100 SXM
      python3 roofline.py --hardware b200 --m 1 --n 8192 --k 8192
      python3 roofline.py --dtype fp8     fp8 halves the bytes and doubles the peak
      python3 roofline.py --json          the same numbers as JSON
"""
import argparse
import json
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x | name, peak_flops, hbm_bandwidth_Bps")

BYTES_PER_ELEMENT = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}


def roofline(flops, bytes_moved, peak_flops_per_s, bandwidth_bytes_per_s):
    """Time bound of one kernel: the slower of doing its arithmetic and moving its bytes."""
    compute_s = flops / peak_flops_per_s
    memory_s = bytes_moved / bandwidth_bytes_per_s
    intensity = flops / bytes_moved  # FLOP per byte of DRAM traffic
    ridge = peak_flops_per_s / bandwidth_bytes_per_s  # the intensity where both limits meet
    return {
        "intensity": intensity,
        "ridge_intensity": ridge,
        "compute_time_s": compute_s,
        "memory_time_s": memory_s,
        "time_s": max(compute_s, memory_s),  # compute and memory traffic overlap
        "time_no_overlap_s": compute_s + memory_s,  # the pessimistic bound: no overlap at all
        "attainable_flops": min(peak_flops_per_s, intensity * bandwidth_bytes_per_s),
        "bound": "compute" if compute_s >= memory_s else "memory",
    }


def matmul_counts(m, n, k, element_bytes):
    """FLOPs of C[m, n] = A[m, k] @ B[k, n] and its minimum DRAM bytes: each matrix moved once."""
    flops = 2 * m * n * k  # one multiply and one add per (i, j, p)
    bytes_moved = (m * k + k * n + m * n) * element_bytes
    return flops, bytes_moved


def crossover_batch(n, k, element_bytes, ridge):
    """The m where C[m, n] = A[m, k] @ B[k, n] turns compute-bound with n and k fixed.

    Exact: 2 / (s (1/m + 1/n + 1/k)) = ridge gives 1/m = 2 / (s ridge) - 1/n - 1/k, and no m
    at all when n and k are too narrow (None). Approximate: m = s ridge / 2, ignoring the
    activations' bytes."""
    inverse = 2 / (element_bytes * ridge) - 1 / n - 1 / k
    return (1 / inverse if inverse > 0 else None), element_bytes * ridge / 2


def executed_matmul_flops(m, n, k):
    """Runs a naive matmul on small integer matrices and counts its multiplies and adds."""
    a = [[(i + p) % 7 for p in range(k)] for i in range(m)]  # A[m][k]
    b = [[(p * j) % 5 for j in range(n)] for p in range(k)]  # B[k][n]
    ops = 0
    for i in range(m):
        for j in range(n):
            acc = 0
            for p in range(k):
                acc += a[i][p] * b[p][j]
                ops += 2
    return ops


def fmt_time(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="roofline.py", description="Roofline bound of a kernel and of a matmul.")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator (default h100-sxm)")
    p.add_argument("--dtype", default="bf16", choices=sorted(BYTES_PER_ELEMENT), help="number format (default bf16)")
    p.add_argument("--m", type=int, default=4096, help="rows of A and C (default 4096)")
    p.add_argument("--n", type=int, default=4096, help="columns of B and C (default 4096)")
    p.add_argument("--k", type=int, default=4096, help="the shared dimension (default 4096)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    for name in ("m", "n", "k"):
        if not 1 <= getattr(args, name) <= 1_000_000:
            p.error(f"--{name} must be a whole number from 1 to 1000000")
    gpu = HARDWARE[args.hardware]
    peak = gpu["peak_flops"].get(args.dtype)
    if peak is None:
        p.error(f"{gpu['name']} publishes no {args.dtype} peak")
    bandwidth = gpu["hbm_bandwidth_Bps"]
    # Integer formats count operations, not floating-point ones: TOP/s for int8.
    op, rate = ("OP", "TOP/s") if args.dtype == "int8" else ("FLOP", "TFLOP/s")

    flops, bytes_moved = matmul_counts(args.m, args.n, args.k, BYTES_PER_ELEMENT[args.dtype])
    mm = roofline(flops, bytes_moved, peak, bandwidth)
    # The lesson's vector add over N = 1e8 bf16 elements: N FLOPs; it reads two 2-byte
    # operands and writes one 2-byte result per element, 6 bytes each.
    # It runs on the vector units: the fp32 peak, never above the format's own.
    n_elements = 100_000_000
    vector_peak = min(gpu["peak_flops"].get("fp32", peak), peak)
    vector = roofline(n_elements, 3 * BYTES_PER_ELEMENT[args.dtype] * n_elements, vector_peak, bandwidth)
    exact, approx = crossover_batch(args.n, args.k, BYTES_PER_ELEMENT[args.dtype], mm["ridge_intensity"])
    small = (8, 8, 8)  # executed: small enough to run in Python in a blink
    executed = executed_matmul_flops(*small)
    assert executed == matmul_counts(*small, 1)[0], "2·m·n·k counts every multiply and add"

    if args.json:
        print(json.dumps({"hardware": args.hardware, "dtype": args.dtype, "matmul_flops": flops,
                          "matmul_bytes": bytes_moved, "matmul": mm, "vector": vector,
                          "crossover": {"exact": exact, "approx": approx},
                          "executed_flops": executed}, indent=1))
        return
    print(f"{gpu['name']}, {args.dtype}: peak {peak / 1e12:.1f} {rate}, HBM {bandwidth / 1e12:.2f} TB/s")
    print(f"ridge point: {mm['ridge_intensity']:.0f} {op}/B (below it a kernel is memory-bound)")
    print()
    print(f"matmul [{args.m} x {args.k}] @ [{args.k} x {args.n}]:")
    print(f"  {op}s{' ' * (10 - len(op))}{flops:,}   (2·m·n·k)")
    print(f"  bytes      {bytes_moved:,}   (each matrix once)")
    print(f"  intensity  {mm['intensity']:.1f} {op}/B -> {mm['bound']}-bound")
    print(f"  time       {fmt_time(mm['time_s'])}  (compute {fmt_time(mm['compute_time_s'])}, memory {fmt_time(mm['memory_time_s'])})")
    print(f"  no overlap {fmt_time(mm['time_no_overlap_s'])}  ({mm['time_no_overlap_s'] / mm['time_s']:.2f} x the bound)")
    print(f"  attainable {mm['attainable_flops'] / 1e12:.1f} {rate}")
    if exact is None:
        print(f"  as a weight matmul: memory-bound at any m (1/n + 1/k > 2/(s ridge))")
    else:
        print(f"  as a weight matmul: compute-bound from m = {exact:.1f} (s ridge / 2 = {approx:.1f})")
    print()
    print(f"vector add over {n_elements:,} elements: {n_elements:,} {op}s, {3 * BYTES_PER_ELEMENT[args.dtype] * n_elements:,} bytes")
    print(f"  intensity  {vector['intensity']:.3f} {op}/B -> {vector['bound']}-bound (vector roof {vector_peak / 1e12:.1f} {rate})")
    print(f"  time       {fmt_time(vector['time_s'])}, attainable {vector['attainable_flops'] / 1e12:.2f} {rate}")
    print()
    print(f"executed {small[0]}x{small[1]}x{small[2]} matmul: {executed} multiplies and adds = 2·m·n·k")


if __name__ == "__main__":
    main()
