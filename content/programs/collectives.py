"""A ring all-reduce executed on simulated ranks, and the alpha-beta model that prices it.

A companion to the lesson "Collective communication and the alpha-beta cost model". It first
runs a ring all-reduce on a few simulated ranks holding real lists of numbers (a reduce-scatter
of p - 1 steps, then an all-gather of p - 1 steps), checks that every rank ends with the sum,
and counts the steps and the bytes each rank sends. It then follows the lesson's sections: the
alpha-beta cost a·α + b·S/B of the ring, the binomial tree, recursive doubling and
halving-doubling ("The ring", "Trees and recursive doubling"), the crossover sizes, nccl-tests'
algorithm and bus bandwidth ("Measuring a collective"), the hierarchical all-reduce across
nodes ("Many nodes") and the all-to-all across nodes, routed or direct ("All-to-all"). The NVLink bandwidth comes from the course's datasheet table (written in
when the course was built), halved because datasheets sum both directions.

The simulated buffers are random small integers from Python's own generator (--seed), not the
engine's stream: the counts compared with the engine (steps, bytes, time) do not depend on them.

Run:  python3 collectives.py                  the lesson's 14 GB of gradients on 8 H100s
      python3 collectives.py --ranks 16 --bytes 1e6 --hardware b200
      python3 collectives.py --json           the same numbers as JSON
"""
import argparse
import json
import math
import random
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: h100-sxm, h200-sxm, a100-sxm-80gb, b200, mi300x | name, scaleup_bandwidth_Bps")

INTER_BANDWIDTH_BPS = 50e9  # one 400 Gb/s InfiniBand adapter per GPU, per direction
INTER_LATENCY_S = 5e-6  # the lesson's α across nodes
GPUS_PER_NODE = 8
BYTES_PER_ELEMENT = 8  # the simulated buffers hold doubles, as the engine's


def ring_allreduce_executed(buffers):
    """Runs the ring all-reduce on p lists of p·m numbers; returns (buffers, steps, bytes_sent)."""
    p = len(buffers)
    m = len(buffers[0]) // p  # elements per chunk: chunk c is buffers[r][c·m:(c+1)·m]
    bufs = [list(b) for b in buffers]
    bytes_sent = [0] * p
    steps = 0
    for reduce in (True, False):  # reduce-scatter, then all-gather
        for s in range(p - 1):
            # Every rank sends at once: take all messages first, then deliver them.
            messages = []
            for r in range(p):
                chunk = (r - s - (1 if reduce else 0)) % p
                messages.append(((r + 1) % p, chunk, bufs[r][chunk * m:(chunk + 1) * m]))
                bytes_sent[r] += m * BYTES_PER_ELEMENT
            for dst, chunk, data in messages:
                for e, x in enumerate(data):
                    i = chunk * m + e
                    bufs[dst][i] = bufs[dst][i] + x if reduce else x
            steps += 1
    return bufs, steps, bytes_sent


def alpha_beta_terms(algorithm, p):
    """(latency steps a, bandwidth terms b, bytes sent per rank in units of S) of an all-reduce."""
    frac = (p - 1) / p
    log2p = math.ceil(math.log2(p))  # ⌈log2 p⌉: rounds of a binomial tree
    if algorithm == "ring":
        return 2 * (p - 1), 2 * frac, 2 * frac
    if algorithm == "tree":  # reduce to rank 0, broadcast back: whole buffer every round
        return 2 * log2p, 2 * log2p, log2p
    if p & (p - 1):  # recursive doubling and halving need a power of two
        return None
    if algorithm == "recursive-doubling":
        return log2p, log2p, log2p
    return 2 * log2p, 2 * frac, 2 * frac  # halving-doubling (Rabenseifner)


def collective_time(algorithm, p, size_bytes, latency_s, bandwidth_Bps):
    """T = a·α + b·S/B, with the bytes each rank sends, and nccl-tests' algbw and busbw."""
    terms = alpha_beta_terms(algorithm, p)
    if terms is None:
        return None
    a, b, sent = terms
    time_s = a * latency_s + b * size_bytes / bandwidth_Bps
    algbw = size_bytes / time_s if time_s > 0 else 0.0
    bus_factor = 2 * (p - 1) / p  # all-reduce: the ring's bytes per rank over S
    return {"time_s": time_s, "steps": a, "bytes_sent_per_rank": sent * size_bytes,
            "algbw_Bps": algbw, "busbw_Bps": algbw * bus_factor}


def crossover_bytes(algorithm, p, latency_s, bandwidth_Bps):
    """S* = (a1 − a2)·α·B / (b2 − b1): where the algorithm and the ring take the same time."""
    other, ring = alpha_beta_terms(algorithm, p), alpha_beta_terms("ring", p)
    if other is None:
        return None
    dl, db = other[0] - ring[0], ring[1] - other[1]
    if dl == 0 or db == 0:
        return None
    s = dl * latency_s * bandwidth_Bps / db
    return s if s > 0 else None  # halving-doubling: never slower than the ring, no crossover


def hierarchical_allreduce(nodes, g, size_bytes, latency_s, bandwidth_Bps):
    """Reduce-scatter in the node, all-reduce of S/g across nodes, all-gather in the node."""
    n = nodes
    intra_s = 2 * (g - 1) * (latency_s + size_bytes / g / bandwidth_Bps)
    inter_s = 2 * (n - 1) * (INTER_LATENCY_S + size_bytes / (g * n) / INTER_BANDWIDTH_BPS)
    # One flat ring over every GPU runs at its slowest hop: the adapter, at the larger α.
    p = n * g
    flat_lat, flat_bw = (max(latency_s, INTER_LATENCY_S), INTER_BANDWIDTH_BPS) if n > 1 else (latency_s, bandwidth_Bps)
    flat_s = collective_time("ring", p, size_bytes, flat_lat, flat_bw)["time_s"]
    # What NCCL runs: g flat rings, one leaving each node through each GPU's adapter, S/g each;
    # a step waits for the adapter's chunk or the g - 1 chunks passed on over NVLink.
    chunk = size_bytes / (g * p)
    step_s = max(chunk / INTER_BANDWIDTH_BPS, (g - 1) * chunk / bandwidth_Bps) if n > 1 else size_bytes / p / bandwidth_Bps
    nccl_s = 2 * (n - 1) * INTER_LATENCY_S + 2 * (p - n) * latency_s + 2 * (p - 1) * step_s if p > 1 else 0.0
    time_s = intra_s + inter_s
    return {"time_s": time_s, "intra_time_s": intra_s, "inter_time_s": inter_s,
            "inter_bytes_per_rank": 2 * (n - 1) * size_bytes / (g * n),
            "flat_ring_time_s": flat_s, "speedup": flat_s / time_s if time_s > 0 else 1.0,
            "nccl_rings_time_s": nccl_s}


def alltoall_across_nodes(nodes, g, size_bytes, latency_s, bandwidth_Bps):
    """Routed (NVLink to the GPU on the destination's rail, then one message per node) against
    the direct exchange (local blocks over NVLink while the others leave one by one through the
    GPU's own adapter). size_bytes: each GPU's buffer of p blocks."""
    n, p = nodes, nodes * g
    intra_s = (g - 1) * (latency_s + size_bytes / g / bandwidth_Bps)
    inter_s = (n - 1) * (INTER_LATENCY_S + size_bytes / n / INTER_BANDWIDTH_BPS)
    block = size_bytes / p
    direct_s = max((g - 1) * (latency_s + block / bandwidth_Bps), (p - g) * (INTER_LATENCY_S + block / INTER_BANDWIDTH_BPS))
    time_s = intra_s + inter_s
    return {"time_s": time_s, "inter_time_s": inter_s, "overlapped_time_s": max(intra_s, inter_s),
            "inter_bytes_per_rank": (n - 1) * size_bytes / n, "flat_ring_time_s": direct_s,
            "flat_inter_bytes_per_rank": (p - g) * block, "speedup": direct_s / time_s if time_s > 0 else 1.0}


def fmt_time(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def fmt_bytes(n):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="collectives.py", description="Ring all-reduce, executed and priced by the alpha-beta model.")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator whose NVLink is B (default h100-sxm)")
    p.add_argument("--ranks", type=int, default=8, help="ranks p of the all-reduce (default 8)")
    p.add_argument("--bytes", type=float, default=14e9, help="buffer size S in bytes (default 14e9, 7B bf16 gradients)")
    p.add_argument("--latency-us", type=float, default=2.0, help="latency α per message in µs (default 2)")
    p.add_argument("--nodes", type=int, default=4, help="nodes of 8 GPUs for the hierarchical all-reduce (default 4)")
    p.add_argument("--sim-ranks", type=int, default=8, help="ranks of the executed ring, 2 to 16 (default 8)")
    p.add_argument("--seed", type=int, default=1, help="seed of the simulated buffers (default 1)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    if not 2 <= args.ranks <= 1 << 20:
        p.error("--ranks must be a whole number from 2 to 1048576")
    if not 0 < args.bytes <= 1e15:
        p.error("--bytes must be above 0 and at most 1e15")
    if not 0 <= args.latency_us <= 1e6:
        p.error("--latency-us must be from 0 to 1000000")
    if not 1 <= args.nodes <= 4096:
        p.error("--nodes must be a whole number from 1 to 4096")
    if not 2 <= args.sim_ranks <= 16:
        p.error("--sim-ranks must be a whole number from 2 to 16")
    gpu = HARDWARE[args.hardware]
    bandwidth = gpu["scaleup_bandwidth_Bps"] / 2  # B per direction: datasheets sum both
    alpha, ranks, size = args.latency_us * 1e-6, args.ranks, args.bytes

    # Executed: p ranks, 2 numbers per chunk, small integers so every sum is exact.
    rng = random.Random(args.seed)
    q = args.sim_ranks
    inputs = [[rng.randint(-8, 8) for _ in range(2 * q)] for _ in range(q)]
    outputs, steps, sent = ring_allreduce_executed(inputs)
    direct = [sum(col) for col in zip(*inputs)]
    chunk_bytes = 2 * BYTES_PER_ELEMENT
    executed = {"ranks": q, "bytes": 2 * q * BYTES_PER_ELEMENT, "steps": steps, "bytes_sent_by_rank": sent,
                "bytes_sent_per_rank": max(sent), "equals_direct": all(o == direct for o in outputs),
                "time_s": steps * (alpha + chunk_bytes / bandwidth)}  # every step: one chunk per link
    model = collective_time("ring", q, executed["bytes"], alpha, bandwidth)

    algorithms = {a: collective_time(a, ranks, size, alpha, bandwidth)
                  for a in ("ring", "tree", "recursive-doubling", "halving-doubling")}
    crossovers = {a: crossover_bytes(a, ranks, alpha, bandwidth) for a in ("tree", "recursive-doubling", "halving-doubling")}
    hier = hierarchical_allreduce(args.nodes, GPUS_PER_NODE, size, alpha, bandwidth)
    a2a = alltoall_across_nodes(args.nodes, GPUS_PER_NODE, size, alpha, bandwidth)
    if args.json:
        print(json.dumps({"hardware": args.hardware, "bandwidth_Bps": bandwidth, "latency_s": alpha,
                          "executed": executed, "algorithms": algorithms, "crossovers": crossovers,
                          "half_bandwidth_bytes": alpha * bandwidth, "hierarchical": hier,
                          "alltoall": a2a}, indent=1))
        return
    print(f"executed ring all-reduce on {q} simulated ranks, {2 * q} numbers each:")
    print(f"  {steps} steps (2(p-1)), each rank sent {max(sent)} bytes (2(p-1)/p · {executed['bytes']} B), "
          f"model {model['bytes_sent_per_rank']:.0f} B")
    print(f"  every rank holds the sum: {executed['equals_direct']}")
    print()
    print(f"{gpu['name']} NVLink: B = {bandwidth / 1e9:.0f} GB/s per direction, α = {args.latency_us:g} µs")
    print(f"  n_1/2 = α·B = {fmt_bytes(alpha * bandwidth)}: a message this size reaches half of B")
    ring = algorithms["ring"]
    print(f"all-reduce of {fmt_bytes(size)} on {ranks} ranks:")
    print(f"  ring: {fmt_bytes(ring['bytes_sent_per_rank'])} sent per rank, {fmt_time(ring['time_s'])}, "
          f"of which {ring['steps']} latency terms {fmt_time(ring['steps'] * alpha)}")
    print(f"  algbw {ring['algbw_Bps'] / 1e9:.0f} GB/s, busbw {ring['busbw_Bps'] / 1e9:.0f} GB/s")
    for name, cost in algorithms.items():
        if name != "ring":
            print(f"  {name}: " + ("needs a power of two ranks" if cost is None else f"{fmt_time(cost['time_s'])}, {cost['steps']} steps"))
    for name, s in crossovers.items():
        print(f"  crossover with the ring, {name}: " + ("none" if s is None else fmt_bytes(s)))
    print()
    print(f"hierarchical all-reduce, {args.nodes} nodes of {GPUS_PER_NODE} GPUs: {fmt_time(hier['time_s'])}")
    print(f"  NVLink {fmt_time(hier['intra_time_s'])} + InfiniBand {fmt_time(hier['inter_time_s'])}")
    print(f"  one flat ring over {args.nodes * GPUS_PER_NODE} GPUs: {fmt_time(hier['flat_ring_time_s'])}, "
          f"{hier['speedup']:.1f}x longer")
    print(f"  NCCL's flat rings, one per adapter: {fmt_time(hier['nccl_rings_time_s'])}")
    if args.nodes > 1:
        print(f"all-to-all of {fmt_bytes(size)} per GPU, routed along rails: {fmt_time(a2a['time_s'])} "
              f"({fmt_time(a2a['overlapped_time_s'])} pipelined); direct exchange {fmt_time(a2a['flat_ring_time_s'])}")
        print(f"  both put {fmt_bytes(a2a['inter_bytes_per_rank'])} through each adapter: routing saves messages, not bytes")

if __name__ == "__main__":
    main()
