"""Tiling and fusion: the global-memory bytes of a matmul kernel and of an elementwise chain.

A companion to the lesson "Kernels, tiling, coalescing and fusion". It follows two of its
sections. "Tiling: reuse instead of re-reading": C[M, N] = A[M, K] @ B[K, N] with block tiles
BM x BN stepping along K by BK reads A ceil(N/BN) times and B ceil(M/BM) times, against
2·M·N·K loads for the naive kernel (one thread per output, every operand fetched at every
use). "Fusion: do not write what you will read back": a chain of L elementwise ops, b of them
reading a second tensor, moves (2L + b)·n·s bytes unfused and (2 + b)·n·s fused, and on the
roofline (at the CUDA-core fp32 peak, as the engine's fusion calculator) takes that much time.

Both are executed, as the engine executes its tiled matmul: the kernels run on small integer
matrices and vectors through counted "global memory" and a "shared memory" tile buffer, and
the counts must equal the closed forms. The matrices are not the engine's seeded ones, so
only counts are compared, which do not depend on the values. The matmul runs when
M·N·K <= 128³; larger shapes get the closed form only.

Run:  python3 kernels-tiling-fusion.py                the lesson's 128³ fp32 matmul, 32 x 32 tiles
      python3 kernels-tiling-fusion.py --m 100 --n 100 --k 100 --bm 24 --bn 24
      python3 kernels-tiling-fusion.py --m 4096 --n 4096 --k 4096 --bm 128 --bn 128 --dtype bf16
      python3 kernels-tiling-fusion.py --ops 3 --binary-ops 1 --json
"""
import argparse
import json
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x | name, peak_flops, hbm_bandwidth_Bps")

BYTES_PER_ELEMENT = {"fp64": 8, "fp32": 4, "bf16": 2, "fp16": 2, "int8": 1}
EXECUTE_MAX_MNK = 128**3  # multiply-adds a Python run can do in well under a second per tile
SWEEP_TILES = (8, 16, 32, 64, 128)  # square tile widths counted on the executed matrices


def div_up(x, y):
    return -(-x // y)


def tiled_traffic(m, n, k, bm, bn):
    """Elements each level moves in the tiled kernel, by the closed form."""
    a_reads = m * k * div_up(n, bn)  # every column of blocks streams all of A
    b_reads = k * n * div_up(m, bm)  # every row of blocks streams all of B
    return {"a_reads": a_reads, "b_reads": b_reads, "writes": m * n,
            "smem_writes": a_reads + b_reads, "smem_reads": 2 * m * n * k}


def naive_traffic(m, n, k):
    return {"a_reads": m * n * k, "b_reads": m * n * k, "writes": m * n}


def run_tiled(a, b, m, n, k, bm, bn, bk):
    """Executed tiled matmul: blocks, K-steps, cooperative tile loads into shared memory, counted."""
    count = dict.fromkeys(("a_reads", "b_reads", "writes", "smem_writes", "smem_reads"), 0)
    c = [[0] * n for _ in range(m)]
    for i0 in range(0, m, bm):  # blockIdx.y
        for j0 in range(0, n, bn):  # blockIdx.x
            tm, tn = min(bm, m - i0), min(bn, n - j0)  # the part of the tile inside C
            acc = [[0] * tn for _ in range(tm)]  # one accumulator per thread
            for k0 in range(0, k, bk):  # K-steps
                tk = min(bk, k - k0)
                a_tile = [a[i0 + i][k0:k0 + tk] for i in range(tm)]  # only in-range elements load
                b_tile = [b[k0 + kk][j0:j0 + tn] for kk in range(tk)]
                count["a_reads"] += tm * tk
                count["b_reads"] += tk * tn
                count["smem_writes"] += tm * tk + tk * tn
                for kk in range(tk):  # every thread reads As[i][kk] and Bs[kk][j]
                    b_row = b_tile[kk]
                    for i in range(tm):
                        a_ik = a_tile[i][kk]
                        acc[i] = [x + a_ik * y for x, y in zip(acc[i], b_row)]
                count["smem_reads"] += 2 * tm * tn * tk
            for i in range(tm):
                c[i0 + i][j0:j0 + tn] = acc[i]
            count["writes"] += tm * tn
    return c, count


def run_naive(a, b, m, n, k):
    """Executed naive matmul: thread (i, j) fetches A[i][p] and B[p][j] from global memory."""
    c = [[sum(a[i][p] * b[p][j] for p in range(k)) for j in range(n)] for i in range(m)]
    return c, {"a_reads": m * n * k, "b_reads": m * n * k, "writes": m * n}


def bytes_of(count, s):
    reads = count["a_reads"] + count["b_reads"]
    out = {"a_read_bytes": count["a_reads"] * s, "b_read_bytes": count["b_reads"] * s,
           "global_read_bytes": reads * s, "global_write_bytes": count["writes"] * s,
           "global_bytes": (reads + count["writes"]) * s}
    if "smem_reads" in count:
        out.update(smem_read_bytes=count["smem_reads"] * s, smem_write_bytes=count["smem_writes"] * s)
    return out


def fusion(n, ops, binary_ops, flops_per_element, s, peak_flops, bandwidth):
    """Bytes and roofline time of an elementwise chain, one kernel per op versus one fused kernel."""
    unfused_bytes, fused_bytes = (2 * ops + binary_ops) * n * s, (2 + binary_ops) * n * s
    def time_s(flops, nbytes):
        return max(flops / peak_flops, nbytes / bandwidth)
    unary, binary = time_s(flops_per_element * n, 2 * n * s), time_s(flops_per_element * n, 3 * n * s)
    unfused_time = (ops - binary_ops) * unary + binary_ops * binary
    fused_time = time_s(ops * flops_per_element * n, fused_bytes)
    return {"unfused_bytes": unfused_bytes, "fused_bytes": fused_bytes, "bytes_saved": unfused_bytes - fused_bytes,
            "traffic_ratio": unfused_bytes / fused_bytes, "unfused_time_s": unfused_time,
            "fused_time_s": fused_time, "speedup": unfused_time / fused_time}


def run_chain(x, extra, ops, binary_ops, fused):
    """Executed chain on a short vector: ops add 1, the first binary_ops also add a second tensor."""
    moved = 0  # elements that cross global memory
    if fused:  # one kernel: read x and each extra operand once, keep intermediates in registers
        moved += len(x) * (2 + binary_ops)
        out = [v + ops + sum(e[i] for e in extra[:binary_ops]) for i, v in enumerate(x)]
        return out, moved
    for op in range(ops):  # one kernel per op: read its inputs, write its output
        second = extra[op] if op < binary_ops else None
        moved += len(x) * (3 if second else 2)
        x = [v + 1 + (second[i] if second else 0) for i, v in enumerate(x)]
    return x, moved


def fmt_bytes(b, digits=3):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= scale:
            return f"{b / scale:.{digits}g} {unit}"
    return f"{b:.0f} B"


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="kernels-tiling-fusion.py", description="Traffic of a tiled matmul and of an elementwise chain.")
    for name, default, what in (("m", 128, "rows of A and C"), ("n", 128, "columns of B and C"),
                                ("k", 128, "the shared dimension"), ("bm", 32, "tile rows"),
                                ("bn", 32, "tile columns"), ("bk", 32, "tile depth along K")):
        p.add_argument(f"--{name}", type=int, default=default, help=f"{what} (default {default})")
    p.add_argument("--dtype", default="fp32", choices=sorted(BYTES_PER_ELEMENT), help="matmul number format (default fp32)")
    p.add_argument("--ops", type=int, default=4, help="elementwise ops in the chain, L (default 4)")
    p.add_argument("--binary-ops", type=int, default=0, help="ops of the chain that read a second tensor, b (default 0)")
    p.add_argument("--elements", type=int, default=16_000_000, help="elements of each tensor in the chain (default 16000000)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator for the chain's time (default h100-sxm)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    for flag, value, low, high in (("m", args.m, 1, 65536), ("n", args.n, 1, 65536), ("k", args.k, 1, 65536),
                                   ("bm", args.bm, 1, 4096), ("bn", args.bn, 1, 4096), ("bk", args.bk, 1, 1024),
                                   ("ops", args.ops, 1, 64), ("binary-ops", args.binary_ops, 0, args.ops),
                                   ("elements", args.elements, 1, 10**12)):
        if not low <= value <= high:
            p.error(f"--{flag} must be a whole number from {low} to {high}")
    m, n, k, bm, bn, bk = args.m, args.n, args.k, args.bm, args.bn, args.bk
    s = BYTES_PER_ELEMENT[args.dtype]

    mm = bytes_of(tiled_traffic(m, n, k, bm, bn), s)
    naive = bytes_of(naive_traffic(m, n, k), s)
    flops, compulsory = 2 * m * n * k, (m * k + k * n + m * n) * s
    mm.update(flops=flops, blocks=div_up(m, bm) * div_up(n, bn), a_passes=div_up(n, bn), b_passes=div_up(m, bm),
              compulsory_bytes=compulsory, naive_global_bytes=naive["global_bytes"],
              traffic_reduction=naive["global_bytes"] / mm["global_bytes"], tiled_intensity=flops / mm["global_bytes"],
              naive_intensity=flops / naive["global_bytes"], compulsory_intensity=flops / compulsory,
              smem_per_block_bytes=(bm * bk + bk * bn) * s)  # one stage of operand tiles
    executed, sweep = None, []
    if m * n * k <= EXECUTE_MAX_MNK:
        a = [[(3 * i + p) % 7 - 3 for p in range(k)] for i in range(m)]  # small integers: exact sums
        b = [[(p + 2 * j) % 5 - 2 for j in range(n)] for p in range(k)]
        c_naive, naive_count = run_naive(a, b, m, n, k)
        c, count = run_tiled(a, b, m, n, k, bm, bn, bk)
        assert c == c_naive, "the tiled kernel computes the same C as the naive one"
        executed = {**bytes_of(count, s), "naive_global_bytes": bytes_of(naive_count, s)["global_bytes"]}
        assert executed == {key: mm[key] for key in executed}, "the counted bytes equal the closed form"
        for width in SWEEP_TILES:  # square tiles BM = BN = BK = width on the same matrices
            sweep.append({"tile": width, **bytes_of(run_tiled(a, b, m, n, k, width, width, width)[1], s)})

    gpu = HARDWARE[args.hardware]
    vector_peak = min(gpu["peak_flops"]["fp32"], gpu["peak_flops"]["bf16"])  # elementwise ops: CUDA cores
    chain = fusion(args.elements, args.ops, args.binary_ops, 1, 2, vector_peak, gpu["hbm_bandwidth_Bps"])
    x = list(range(8))
    extra = [[10 * (j + 1) + i for i in range(len(x))] for j in range(args.ops)]
    out_unfused, moved_unfused = run_chain(x, extra, args.ops, args.binary_ops, fused=False)
    out_fused, moved_fused = run_chain(x, extra, args.ops, args.binary_ops, fused=True)
    assert out_unfused == out_fused, "fusion changes the traffic, not the result"
    chain["executed"] = {"elements": len(x), "unfused_bytes": moved_unfused * 2, "fused_bytes": moved_fused * 2}

    if args.json:
        print(json.dumps({"matmul": mm, "executed": executed, "sweep": sweep, "fusion": chain}, indent=1))
        return
    print(f"matmul {m} x {k} @ {k} x {n}, {args.dtype}, {bm} x {bn} tiles stepping by {bk} along K:")
    print(f"  tiled   {fmt_bytes(mm['global_bytes'])}  (A read {mm['a_passes']} times, B {mm['b_passes']} times, C written once)")
    print(f"  naive   {fmt_bytes(naive['global_bytes'], 4)}  (every operand fetched at every use): {mm['traffic_reduction']:.1f}x more")
    print(f"  compulsory {fmt_bytes(compulsory)}; intensity tiled {mm['tiled_intensity']:.1f}, naive "
          f"{mm['naive_intensity']:.2f}, compulsory {mm['compulsory_intensity']:.1f} FLOP/B")
    if executed:
        print(f"  executed: counted {executed['global_bytes']:,} B tiled, {executed['naive_global_bytes']:,} B naive, "
              f"= the formula; same C")
        print("  counted bytes by square tile width  " + ", ".join(f"{r['tile']}: {fmt_bytes(r['global_bytes'])}" for r in sweep[:3]))
        print("                                      " + ", ".join(f"{r['tile']}: {fmt_bytes(r['global_bytes'])}" for r in sweep[3:]))
    else:
        print(f"  (closed form only: M·N·K above {EXECUTE_MAX_MNK:,} is too slow to execute in Python)")
    print()
    print(f"chain of {args.ops} bf16 elementwise ops ({args.binary_ops} binary) on {args.elements:,} elements,")
    print(f"on the {gpu['name']} at its fp32 CUDA-core peak:")
    print(f"  unfused {fmt_bytes(chain['unfused_bytes'])}, {chain['unfused_time_s'] * 1e6:.1f} µs;"
          f"  fused {fmt_bytes(chain['fused_bytes'])}, {chain['fused_time_s'] * 1e6:.1f} µs: {chain['speedup']:.2f}x")
    print(f"  executed on {len(x)} elements: {chain['executed']['unfused_bytes']} B unfused, "
          f"{chain['executed']['fused_bytes']} B fused, same result")


if __name__ == "__main__":
    main()
