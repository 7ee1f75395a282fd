"""FlashAttention: the online softmax, and the HBM bytes of attention with and without tiling.

A companion to the lesson "FlashAttention". It follows its sections in order: standard
attention (Algorithm 0: three kernels, 4N² + 4Nd elements cross HBM), the online softmax
(a running max m, sum l and output o, rescaled by e^(m - m') when the max grows), and
FlashAttention's tiles (Algorithm 1: B_c = ceil(M / 4d) keys and B_r = min(B_c, d) queries per
tile for an SRAM of M elements; 3Nd + 2N + T_c·(3Nd + 4N) elements), with the causal mask's
skipped tiles and FlashAttention-2's loop order, and the roofline time of both per head.

It executes both: the online softmax over blocks of seeded scores (the engine's SplitMix64
stream, reimplemented, so the scores are the engine's), which must equal the two-pass softmax,
and both attention kernels on a small head of seeded Q, K, V, counting every element they read
and write in HBM, which must equal the closed forms. It computes in fp64 where the engine
computes in fp32, so outputs agree to rounding and the counts exactly.

Run:  python3 flashattention.py                the lesson's N = 4096, d = 64 on an H100 SXM
      python3 flashattention.py --head-dim 128 --causal
      python3 flashattention.py --hardware a100-sxm-80gb --seq 16384 --dtype fp16
      python3 flashattention.py --json
"""
import argparse
import json
import math
import struct
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, h100-pcie, l4 | name, peak_flops, hbm_bandwidth_Bps, max_smem_per_block_bytes")

BYTES_PER_ELEMENT = {"fp32": 4, "bf16": 2, "fp16": 2}
MASK64 = 2**64 - 1


def avalanche(z):  # SplitMix64's output function: each input bit flips each output bit half the time
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def seeded_stream(seed, salt):
    """SplitMix64 from mix_seed, seed and salt hashed together: the engine's foundations/deterministic.hpp."""
    state = avalanche(avalanche((salt + 0x9E3779B97F4A7C15) & MASK64) ^ avalanche(seed & MASK64))
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        yield avalanche(state)


def to_float32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def online_softmax(scores, values, block):
    """One pass over blocks: running max m, sum l = Σ e^(x - m), output o = Σ e^(x - m)·v."""
    m, l, o, rescales = -math.inf, 0.0, 0.0, 0
    for begin in range(0, len(scores), block):
        xs, vs = scores[begin:begin + block], values[begin:begin + block]
        m_new = max(m, max(xs))
        if begin and m_new > m:
            rescales += 1  # the max grew: what l and o hold was relative to the old max
        alpha = 0.0 if m == -math.inf else math.exp(m - m_new)
        l = alpha * l + sum(math.exp(x - m_new) for x in xs)
        o = alpha * o + sum(math.exp(x - m_new) * v for x, v in zip(xs, vs))
        m = m_new
    return {"blocks": -(-len(scores) // block), "m": m, "l": l, "output": o / l, "rescales": rescales}


def softmax_output(scores, values):
    """The safe two-pass softmax, then Σ p·v: the reference the online pass must equal."""
    m = max(scores)
    e = [math.exp(x - m) for x in scores]
    return sum(p * v for p, v in zip(e, values)) / sum(e)


def flash_blocks(n, d, sram_elements):
    block_cols = -(-sram_elements // (4 * d))  # B_c = ceil(M / 4d) keys per tile
    block_rows = min(block_cols, d)  # B_r = min(B_c, d) queries per tile
    return {"sram_elements": sram_elements, "block_rows": block_rows, "block_cols": block_cols,
            "row_blocks": -(-n // block_rows), "col_blocks": -(-n // block_cols)}


def flash_io(n, d, b, causal):
    """Algorithm 1's HBM elements, tiles and FLOPs, summed over query blocks (T_r terms)."""
    rows_loaded = tiles = area = 0  # Σ over computed tiles of their query rows; of rows·keys
    for i in range(b["row_blocks"]):
        row0 = i * b["block_rows"]
        rows = min(b["block_rows"], n - row0)
        # With the mask a query block needs key blocks up to its last query, j·B_c <= row0 + rows - 1.
        computed = (row0 + rows - 1) // b["block_cols"] + 1 if causal else b["col_blocks"]
        rows_loaded += rows * computed
        tiles += computed
        area += rows * min(n, computed * b["block_cols"])
    reads = 2 * n * d + (2 * d + 2) * rows_loaded  # K, V once; Q, O, l, m for every tile
    writes = n * d + 2 * n + (d + 2) * rows_loaded  # O, l, m initialized, then written per tile
    skipped = b["row_blocks"] * b["col_blocks"] - tiles
    return {"read": reads, "write": writes, "tiles_computed": tiles, "tiles_skipped": skipped, "flops": 4 * d * area}


def flash2_elements(n, d, b, causal):
    """FlashAttention-2's order (queries outer, blocks of B_c): K and V once per query block."""
    size, count = b["block_cols"], b["col_blocks"]
    keys = size * count * (count - 1) // 2 + n if causal else count * n
    return n * d + 2 * d * keys + n * d + n  # reads Q, K, V; writes O and the logsumexp


def run_standard(q, k, v, n, d, causal):
    """Executed Algorithm 0: S = QKᵀ/√d to HBM, P = softmax(S) to HBM, O = PV; elements counted."""
    hbm = {"read": 2 * n * d, "write": n * n}  # kernel 1 reads Q, K and writes S
    s = [[sum(a * c for a, c in zip(q[i], k[j])) / math.sqrt(d) for j in range(n)] for i in range(n)]
    hbm["read"] += n * n  # kernel 2 reads S, writes P
    hbm["write"] += n * n
    p = []
    for i, row in enumerate(s):
        keys = row[:i + 1] if causal else row
        top = max(keys)
        e = [math.exp(x - top) for x in keys] + [0.0] * (n - len(keys))
        p.append([x / sum(e) for x in e])
    hbm["read"] += n * n + n * d  # kernel 3 reads P, V and writes O
    hbm["write"] += n * d
    return [[sum(p[i][j] * v[j][t] for j in range(n)) for t in range(d)] for i in range(n)], hbm


def run_flash(q, k, v, n, d, b, causal):
    """Executed Algorithm 1: key blocks outer, query blocks inner, the online update per tile."""
    hbm = {"read": 0, "write": n * d + 2 * n}  # O = 0, l = 0, m = -inf written to HBM
    o, l, m = [[0.0] * d for _ in range(n)], [0.0] * n, [-math.inf] * n
    tiles = 0
    for c0 in range(0, n, b["block_cols"]):
        keys = range(c0, min(n, c0 + b["block_cols"]))
        hbm["read"] += 2 * len(keys) * d  # load K_j, V_j
        for r0 in range(0, n, b["block_rows"]):
            rows = range(r0, min(n, r0 + b["block_rows"]))
            if causal and rows[-1] < c0:
                continue  # every key after every query: skipped, nothing loaded
            tiles += 1
            hbm["read"] += len(rows) * (2 * d + 2)  # load Q_i, O_i, l_i, m_i
            for i in rows:
                seen = [j for j in keys if not causal or j <= i]
                if not seen:
                    continue  # the whole row of this tile is masked: it contributes nothing
                s = [sum(a * c for a, c in zip(q[i], k[j])) / math.sqrt(d) for j in seen]
                m_new = max(m[i], max(s))
                alpha = 0.0 if m[i] == -math.inf else math.exp(m[i] - m_new)
                e = [math.exp(x - m_new) for x in s]
                l_new = alpha * l[i] + sum(e)
                pv = [sum(w * v[j][t] for w, j in zip(e, seen)) for t in range(d)]
                o[i] = [(l[i] * alpha * o[i][t] + pv[t]) / l_new for t in range(d)]
                l[i], m[i] = l_new, m_new
            hbm["write"] += len(rows) * (d + 2)  # write O_i, l_i, m_i back
    return o, hbm, tiles


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="flashattention.py", description="Online softmax and the HBM traffic of attention, one head.")
    p.add_argument("--seq", type=int, default=4096, help="sequence length N (default 4096)")
    p.add_argument("--head-dim", type=int, default=64, help="head dimension d (default 64)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="GPU (default h100-sxm)")
    p.add_argument("--sram-bytes", type=int, help="SRAM per block (default: the GPU's shared memory per block)")
    p.add_argument("--dtype", default="bf16", choices=sorted(BYTES_PER_ELEMENT), help="number format (default bf16)")
    p.add_argument("--causal", action="store_true", help="causal mask: skip the tiles above the diagonal")
    p.add_argument("--exec-seq", type=int, default=128, help="N of the executed head (default 128)")
    p.add_argument("--exec-head-dim", type=int, default=16, help="d of the executed head (default 16)")
    p.add_argument("--exec-sram-bytes", type=int, default=4096, help="SRAM of the executed kernel (default 4096)")
    p.add_argument("--seed", type=int, default=1, help="seed of the executed inputs (default 1)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    gpu, s = HARDWARE[a.hardware], BYTES_PER_ELEMENT[a.dtype]
    sram = gpu["max_smem_per_block_bytes"] if a.sram_bytes is None else a.sram_bytes
    for flag, value, low, high in (("seq", a.seq, 1, 1_048_576), ("head-dim", a.head_dim, 1, 256),
                                   ("sram-bytes", sram, 4 * a.head_dim * s, 2**30), ("exec-seq", a.exec_seq, 1, 256),
                                   ("exec-head-dim", a.exec_head_dim, 1, 64),
                                   ("exec-sram-bytes", a.exec_sram_bytes, 4 * a.exec_head_dim * s, 2**30),
                                   ("seed", a.seed, 0, 2**32 - 1)):
        if not low <= value <= high:
            unit = f" bytes (at least 4·d {a.dtype} elements)" if "sram" in flag else ""
            p.error(f"--{flag} must be a whole number from {low} to {high}{unit}")
    n, d, peak, bandwidth = a.seq, a.head_dim, gpu["peak_flops"][a.dtype], gpu["hbm_bandwidth_Bps"]

    def roofline(flops, nbytes):
        return {"time_s": max(flops / peak, nbytes / bandwidth), "compute_time_s": flops / peak}
    std = {"read_bytes": (3 * n * d + 2 * n * n) * s, "write_bytes": (n * d + 2 * n * n) * s, "flops": 4 * n * n * d}
    std["hbm_bytes"] = std["read_bytes"] + std["write_bytes"]
    std.update(intensity=std["flops"] / std["hbm_bytes"], **roofline(std["flops"], std["hbm_bytes"]))
    blocks = flash_blocks(n, d, sram // s)
    io = flash_io(n, d, blocks, a.causal)
    fl = {"read_bytes": io["read"] * s, "write_bytes": io["write"] * s, "hbm_bytes": (io["read"] + io["write"]) * s,
          "flops": io["flops"], "tiles_computed": io["tiles_computed"], "tiles_skipped": io["tiles_skipped"]}
    fl.update(intensity=fl["flops"] / fl["hbm_bytes"], **roofline(fl["flops"], fl["hbm_bytes"]))
    fa2 = flash2_elements(n, d, blocks, a.causal) * s

    example = online_softmax([1.0, 3.0, 2.0], [1.0, 0.0, 0.0], 2)["output"]  # the lesson's row, blocks of two
    moved = online_softmax([2.0, 1.0, 3.0], [0.0, 1.0, 0.0], 2)  # reordered with its values: the max jumps, same output
    assert abs(example - math.e / (math.e + math.e**3 + math.e**2)) < 1e-15
    assert moved["rescales"] == 1 and abs(moved["output"] - example) < 1e-15
    # The engine's online-softmax inputs: 32 scores in [-4, 4) and values in [-1, 1), fp32.
    rng_s, rng_v = seeded_stream(a.seed, 0x1234567), seeded_stream(a.seed, 0x7654321)
    scores = [to_float32(4.0 * (2.0 * (next(rng_s) >> 11) * 2.0**-53 - 1.0)) for _ in range(32)]
    values = [to_float32(2.0 * (next(rng_v) >> 11) * 2.0**-53 - 1.0) for _ in range(32)]
    online = online_softmax(scores, values, 8)
    online["exact_output"] = softmax_output(scores, values)
    assert abs(online["output"] - online["exact_output"]) < 1e-12, "online = two-pass softmax"

    en, ed = a.exec_seq, a.exec_head_dim  # executed head: the engine's seeded Q, K, V
    rng = seeded_stream(a.seed, 0x632BE59BD9B4E019)
    q, k, v = ([[(next(rng) >> 40) * 2.0**-23 - 1.0 for _ in range(ed)] for _ in range(en)] for _ in range(3))
    eb = flash_blocks(en, ed, a.exec_sram_bytes // s)
    o_std, hbm_std = run_standard(q, k, v, en, ed, a.causal)
    o_fl, hbm_fl, tiles = run_flash(q, k, v, en, ed, eb, a.causal)
    diff = max(abs(x - y) for r1, r2 in zip(o_std, o_fl) for x, y in zip(r1, r2))
    closed = flash_io(en, ed, eb, a.causal)
    assert (hbm_fl["read"], hbm_fl["write"], tiles) == (closed["read"], closed["write"], closed["tiles_computed"])
    assert diff < 1e-12, "FlashAttention computes the same output as standard attention"
    executed = {"seq": en, "head_dim": ed, "block_rows": eb["block_rows"], "block_cols": eb["block_cols"],
                "standard_read_bytes": hbm_std["read"] * s, "standard_write_bytes": hbm_std["write"] * s,
                "flash_read_bytes": hbm_fl["read"] * s, "flash_write_bytes": hbm_fl["write"] * s,
                "tiles_computed": tiles, "max_abs_diff": diff}

    result = {"blocks": blocks, "standard": std, "flash": fl, "hbm_ratio": std["hbm_bytes"] / fl["hbm_bytes"],
              "fa2_hbm_bytes": fa2, "fa2_ratio": fl["hbm_bytes"] / fa2, "score_matrix_bytes": n * n * s,
              "online_example": example, "online": online, "executed": executed}
    if a.json:
        print(json.dumps(result, indent=1))
        return
    mask = ", causal" if a.causal else ""
    print(f"one head, N = {n:,}, d = {d}, {a.dtype}{mask}, on the {gpu['name']}")
    print(f"SRAM {sram:,} B = {blocks['sram_elements']:,} elements: tiles of B_r = {blocks['block_rows']} queries "
          f"x B_c = {blocks['block_cols']} keys")
    print(f"  standard        {std['hbm_bytes'] / 1e6:.0f} MB, {std['flops'] / 1e9:.2f} GFLOP: "
          f"{std['intensity']:.0f} FLOP/B, roofline {std['time_s'] * 1e6:.1f} µs")
    ratio = result["hbm_ratio"]
    gain = f"{ratio:.1f}x less" if ratio >= 1 else f"ratio {ratio:.2f}, more than standard"  # d² large against M
    print(f"  FlashAttention  {fl['hbm_bytes'] / 1e6:.1f} MB: {gain}, {fl['intensity']:.0f} FLOP/B, "
          f"roofline {fl['time_s'] * 1e6:.1f} µs")
    print(f"                  T_c = {blocks['col_blocks']} passes, {fl['tiles_computed']:,} tiles computed, "
          f"{fl['tiles_skipped']:,} skipped, {fl['flops'] / 1e9:.2f} GFLOP")
    print(f"  FlashAttention-2's loop order  {fa2 / 1e6:.1f} MB: {result['fa2_ratio']:.2f}x less than Algorithm 1")
    print()
    print(f"online softmax of (1, 3, 2), values (1, 0, 0), blocks of 2: {example:.3f} = e / (e + e³ + e²)")
    print(f"32 seeded scores in blocks of 8, the max grew {online['rescales']} time(s) after the first block:")
    print(f"  online {online['output']:.9f}, two-pass softmax {online['exact_output']:.9f}")
    print(f"executed head N = {en}, d = {ed}, tiles {eb['block_rows']} x {eb['block_cols']}, counted HBM bytes:")
    print(f"  standard {executed['standard_read_bytes'] + executed['standard_write_bytes']:,} B, FlashAttention "
          f"{executed['flash_read_bytes'] + executed['flash_write_bytes']:,} B (= the formulas); outputs within {diff:.0e}")

if __name__ == "__main__":
    main()
