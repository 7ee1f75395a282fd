"""Sequence, context and expert parallelism: activation memory, ring attention, MoE routing and all-to-all.

A companion to the lesson "Sequence, context and expert parallelism". It follows its sections: "What tensor
parallelism leaves behind" (Korthikanti's s·b·h·(34 + 5·a·s/h) bytes per layer under tensor parallelism alone and
with Megatron sequence parallelism, for GPT-3 175B), "Ring attention" and "The causal mask breaks the symmetry"
(the ring's block schedule, executed tile by tile over the causal mask for contiguous and zig-zag chunks, the
overlap condition and the forward and backward times), "Mixture of experts" and "The load-balancing loss" (a
seeded top-k router with capacity, dropped tokens and E·Σ f_i·P_i) and "Expert parallelism" (the bytes of the
dispatch and combine all-to-alls). The router draws its numbers from the engine's SplitMix64 stream with the same
polar-method normals and the same exp and log series, reimplemented here, so a seed gives the same routing as the
course's moe-routing calculator. Model shapes (Mixtral 8x7B's 32 query heads of 128 for the ring, its experts for
the all-to-all) and accelerator numbers are the course's tables, written into this file when the course was built.

Run:  python3 sequence-context-expert.py                the lesson's worked examples
      python3 sequence-context-expert.py --kv-heads 8 --link-GBps 50 --ranks 16 --seq 262144
      python3 sequence-context-expert.py --model llama-3-8b --tp 4 --experts 16 --top-k 4 --seed 3
      python3 sequence-context-expert.py --json         the same numbers as JSON
"""
import argparse
import functools
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x | name, peak_flops, scaleup_bandwidth_Bps")
MODELS = table("models: gpt-3-175b, llama-2-7b, llama-2-70b, llama-3-8b, llama-3-70b | name, layers, hidden, heads, ffn_hidden, gated_mlp, seq")
MOE = table("models: mixtral-8x7b | name, hidden, heads, head_dim, ffn_hidden, experts, experts_per_token")

BYTES, TILE, LATENCY_S = 2, 128, 5e-6  # bf16; the ring's tile side (tokens) and one message's latency
MIXTRAL = MOE["mixtral-8x7b"]  # the lesson's attention shape (32 query heads of 128) and MoE layer
IB_BPS, BACKWARD_FLOP_RATIO = 50e9, 2.5  # one InfiniBand NIC per GPU; FlashAttention-2's backward/forward FLOPs
MASK64, GOLDEN = (1 << 64) - 1, 0x9E3779B97F4A7C15
add_in_order = lambda values: functools.reduce(lambda acc, x: acc + x, values, 0.0)  # as the engine; 3.12's sum() compensates


def layer_activation_bytes(s, b, h, a, t, sequence_parallel, selective, mlp_units):
    """Korthikanti: 10 units stay whole under TP alone, 8 + mlp_units split; scores 5·a·s/h."""
    linear = (10 + 8 + mlp_units) / t if sequence_parallel else 10 + (8 + mlp_units) / t
    scores = 0 if selective else 5 * a * s / (h * t)
    return s * b * h * (linear + scores)


def ring(seq, p, kv_heads, peak, link_Bps, causal=True, zigzag=False, latency_s=LATENCY_S):
    """Every step, rank r computes its queries against the KV block of rank r − step."""
    heads, head_dim = MIXTRAL["heads"], MIXTRAL["head_dim"]
    chunks = 2 * p if zigzag else p
    n = seq // chunks // TILE  # tiles per chunk side
    execute = (seq / TILE) ** 2 <= 1 << 20  # the engine visits up to ~1M tiles, then uses the closed form
    owned = (lambda r: (r, 2 * p - 1 - r)) if zigzag else (lambda r: (r,))

    def pair_tiles(q, k):  # tiles of (query chunk q, key chunk k) holding an unmasked score
        if execute:  # tile (a, b) is unmasked iff its first key <= its last query
            return sum(1 for a in range(n) for b in range(n) if not causal or k * n + b <= q * n + a)
        return n * n if not causal or k < q else n * (n + 1) / 2 if k == q else 0
    tiles_per_rank, critical = [0] * p, [0] * p
    for step in range(p):
        for rank in range(p):
            tiles = sum(pair_tiles(q, k) for q in owned(rank) for k in owned((rank - step) % p))
            tiles_per_rank[rank] += tiles
            critical[step] = max(critical[step], tiles)
    block = seq / p
    flops_per_tile = 4.0 * TILE * TILE * head_dim * heads  # QKᵀ and PV, micro-batch 1
    kv_block_bytes = block * 2 * kv_heads * head_dim * BYTES  # K and V of one block
    step_comm = latency_s + kv_block_bytes / link_Bps if p > 1 else 0.0
    A = 4 * head_dim * heads / peak  # seconds of compute per token² of block
    beta = 2 * head_dim * kv_heads * BYTES / link_Bps  # seconds of transfer per token of block
    time_s = add_in_order(max(c * flops_per_tile / peak, step_comm if i < p - 1 else 0) for i, c in enumerate(critical))
    back_comm = latency_s + 2 * kv_block_bytes / link_Bps if p > 1 else 0.0  # K/V and dK/dV together
    back_s = add_in_order(max(BACKWARD_FLOP_RATIO * c * flops_per_tile / peak, back_comm if i < p - 1 else 0)
                 for i, c in enumerate(critical)) + (step_comm if p > 1 else 0)  # dK/dV's hop home
    return {"tiles_per_rank": tiles_per_rank, "imbalance": max(tiles_per_rank) / (sum(tiles_per_rank) / p),
            "contiguous_imbalance_limit": 2 - 1 / p, "block_tokens": block, "kv_block_bytes": kv_block_bytes,
            "step_compute_s": block * block * A, "step_comm_s": step_comm, "time_s": time_s,
            "min_block_tokens_bandwidth": beta / A, "min_block_tokens": (beta + math.sqrt(beta * beta + 4 * A * latency_s)) / (2 * A),
            "backward_min_block_tokens_bandwidth": 2 * beta / (BACKWARD_FLOP_RATIO * A),
            "kv_bytes_sent_per_rank": (p - 1) * kv_block_bytes, "backward_time_s": back_s,
            "backward_kv_bytes_sent_per_rank": (2 * p - 1) * kv_block_bytes if p > 1 else 0.0}


INV = [0.0] + [1.0 / k for k in range(1, 30)]
LN2, INV_LN2, LN2_HI, LN2_LO, ROUND = 0.69314718055994530942, 1.44269504088896340736, 6.93147180369123816490e-01, 1.90821492927058770002e-10, 6755399441055744.0


def exp_det(x):
    """The engine's e^x for x <= 0: x = k·ln 2 + r, Taylor series of e^r, times 2^k."""
    if x < -745.1332191019412:
        return 0.0
    k = (x * INV_LN2 + ROUND) - ROUND  # x / ln 2 rounded half to even
    r, s = (x - k * LN2_HI) - k * LN2_LO, 1.0
    for i in range(14, 0, -1):
        s = 1 + r * INV[i] * s
    return s * 2.0 ** int(k) if k >= -1022 else (s * 2.0 ** (int(k) + 64)) * 2.0 ** -64


def log_det(x):
    """The engine's ln x: x = m·2^e, ln m = 2·atanh((m − 1)/(m + 1)) by its series."""
    m, e = math.frexp(x)
    if m < 0.70710678118654752440:
        m, e = m * 2, e - 1
    t, s = (m - 1) / (m + 1), 1.0 / 29
    for k in range(27, 0, -2):
        s = INV[k] + t * t * s
    return e * LN2 + 2 * t * s


def avalanche(z):  # SplitMix64's output function; mix_seed(seed, salt) = avalanche(avalanche(salt + γ) ^ avalanche(seed))
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class SeededStream:
    """SplitMix64 from a starting state; standard normals by Marsaglia's polar method, two at a time."""
    def __init__(self, state):
        self.state, self.spare = state & MASK64, None
    def uniform(self):  # top 53 bits of the next output: k·2⁻⁵³
        self.state = (self.state + GOLDEN) & MASK64
        return (avalanche(self.state) >> 11) * 2.0 ** -53
    def normal(self):
        if self.spare is not None:
            value, self.spare = self.spare, None
            return value
        while True:
            u, v = 2 * self.uniform() - 1, 2 * self.uniform() - 1
            s = u * u + v * v
            if 0 < s < 1:
                f = math.sqrt(-2 * log_det(s) / s)
                self.spare = v * f
                return u * f


def route(tokens, experts, top_k, capacity_factor, skew, balance, seed):
    """Logit = normal token affinity + expert bias (1 − balance)·skew·z_e; top-k; first choices fill capacity first."""
    rng = SeededStream(avalanche(avalanche((0x5851F42D4C957F2D + GOLDEN) & MASK64) ^ avalanche(seed)))  # mix_seed
    bias = [(1.0 - balance) * skew * rng.normal() for _ in range(experts)]
    mean_prob, choices = [0.0] * experts, []
    for _ in range(tokens):
        logits = [rng.normal() + b for b in bias]
        top = max(logits)
        probs = [exp_det(x - top) for x in logits]
        z = add_in_order(probs)
        mean_prob = [mp + pr / z / tokens for mp, pr in zip(mean_prob, probs)]  # the router's P_i
        choices.append(sorted(range(experts), key=lambda e: -logits[e])[:top_k])  # arg-max first, ties to the lower id
    routed = [sum(c.count(e) for c in choices) for e in range(experts)]
    assignments = tokens * top_k
    capacity = math.floor(capacity_factor * assignments / experts)
    kept, lost = [0] * experts, [0] * tokens
    for j in range(top_k):  # GShard: every token's first choice before anyone's second
        for t, picks in enumerate(choices):
            if kept[picks[j]] < capacity:
                kept[picks[j]] += 1
            else:
                lost[t] += 1
    dropped = sum(lost)
    score = experts * add_in_order(routed[e] / assignments * mean_prob[e] for e in range(experts))
    return {"capacity": capacity, "routed_per_expert": routed, "kept": assignments - dropped, "dropped": dropped,
            "drop_fraction": dropped / assignments, "tokens_fully_dropped": lost.count(top_k),
            "max_over_mean": max(routed) / (assignments / experts), "balance_score": score}


def all_to_all(tokens, hidden, ffn, top_k, ep, peak, link_Bps):
    """Dispatch and combine: (EP − 1)/EP of the T·k·h vectors leave each GPU, twice per forward pass."""
    leaving = (ep - 1) / ep * (tokens * top_k * hidden * BYTES)  # of the dispatch, what leaves the GPU
    a2a_s = (ep - 1) * LATENCY_S + leaving / link_Bps  # the ring all-to-all: p − 1 steps
    compute_s = tokens * top_k * 2.0 * 3.0 * hidden * ffn / peak  # three SwiGLU matrices per expert
    return {"bytes_per_layer_forward": 2 * leaving, "comm_time_forward_s": 2 * a2a_s, "expert_compute_time_s": compute_s,
            "comm_over_compute": 2 * a2a_s / compute_s}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="sequence-context-expert.py", description="Sequence, context and expert parallelism, counted.")
    p.add_argument("--model", default="gpt-3-175b", choices=sorted(MODELS), help="model of the activation memory (default gpt-3-175b)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator (default h100-sxm)")
    p.add_argument("--link-GBps", type=float, help="link bandwidth per direction (default: half the scale-up bandwidth)")
    ints = (("tp", 8, 1, 1024, "tensor-parallel degree"), ("seq", 131072, 1, 1 << 24, "ring attention's sequence length"),
            ("ranks", 8, 1, 256, "ring size p"), ("kv-heads", 32, 1, 32, f"KV heads for {MIXTRAL['heads']} query heads"),
            ("tokens", 4096, 1, 65536, "tokens routed"), ("experts", MIXTRAL["experts"], 1, 256, "experts E"), ("top-k", MIXTRAL["experts_per_token"], 1, 8, "experts per token"),
            ("seed", 1, 0, 2**32 - 1, "seed of the router"), ("ep", 8, 1, 1024, "expert-parallel degree"))
    for flag, default, _, _, what in ints:
        p.add_argument(f"--{flag}", type=int, default=default, help=f"{what} (default {default})")
    for flag, default, what in (("capacity-factor", 1.25, "expert capacity factor"), ("skew", 1.0, "spread of the experts' popularity"),
                                ("balance", 0.0, "effect of the load-balancing loss, 0 to 1")):
        p.add_argument(f"--{flag}", type=float, default=default, help=f"{what} (default {default:g})")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    limits = [(f, lo, hi) for f, _, lo, hi, _ in ints] + [("capacity-factor", 1e-9, 64), ("skew", 0, 10), ("balance", 0, 1)]
    for flag, low, high in limits + ([("link-GBps", 1e-3, 1e6)] if a.link_GBps is not None else []):
        if not low <= getattr(a, flag.replace("-", "_")) <= high:  # also rejects nan
            num = lambda x: f"{x:,}" if isinstance(x, int) else f"{x:g}"
            p.error(f"--{flag} must be from {num(low)} to {num(high)}")
    for bad, why in ((MIXTRAL["heads"] % a.kv_heads, f"--kv-heads must divide the {MIXTRAL['heads']} query heads"),
                     (a.top_k > a.experts, "--top-k must be at most --experts"),
                     (a.seq % (2 * a.ranks * TILE), f"--seq must be a multiple of 2·ranks·{TILE} = {2 * a.ranks * TILE}"),
                     (a.tokens * a.experts > 1 << 20, "--tokens x --experts must be at most 1048576")):
        if bad:
            p.error(why)
    m, gpu, peak = MODELS[a.model], HARDWARE[a.hardware], HARDWARE[a.hardware]["peak_flops"]["bf16"]
    link = a.link_GBps * 1e9 if a.link_GBps is not None else gpu["scaleup_bandwidth_Bps"] / 2

    s, h, heads, layers = m["seq"], m["hidden"], m["heads"], m["layers"]
    mlp_units = (6 if m["gated_mlp"] else 4) * m["ffn_hidden"] / h  # 16 for a 4h GeLU MLP
    tp_only, tp_sp = (layer_activation_bytes(s, 1, h, heads, a.tp, sp, False, mlp_units) for sp in (False, True))
    out = {"memory": {"tp_only_bytes_per_layer": tp_only, "tp_sp_bytes_per_layer": tp_sp, "saving_ratio": tp_only / tp_sp,
                      "tp_only_bytes": tp_only * layers, "tp_sp_bytes": tp_sp * layers,
                      "tp_sp_selective_bytes_per_layer": layer_activation_bytes(s, 1, h, heads, a.tp, True, True, mlp_units)},
           "ring": ring(a.seq, a.ranks, a.kv_heads, peak, link), "zigzag": ring(a.seq, a.ranks, a.kv_heads, peak, link, zigzag=True),
           "full": ring(a.seq, a.ranks, a.kv_heads, peak, link, causal=False),
           "router": route(a.tokens, a.experts, a.top_k, a.capacity_factor, a.skew, a.balance, a.seed),
           "router_balanced": route(a.tokens, a.experts, a.top_k, a.capacity_factor, a.skew, 1.0, a.seed),
           "all_to_all": all_to_all(8192, MIXTRAL["hidden"], MIXTRAL["ffn_hidden"], a.top_k, a.ep, peak, link),
           "all_to_all_ib": all_to_all(8192, MIXTRAL["hidden"], MIXTRAL["ffn_hidden"], a.top_k, a.ep, peak, IB_BPS)}
    out["ring"]["min_block_tokens_ib"] = out["ring"]["min_block_tokens_bandwidth"] * link / IB_BPS  # β ∝ 1 / bandwidth
    if a.json:
        print(json.dumps(out, indent=1))
        return
    mem, r, z, rt, rb, x = (out[k] for k in ("memory", "ring", "zigzag", "router", "router_balanced", "all_to_all"))
    print(f"{m['name']} activations per layer, s = {s:,}, b = 1, t = {a.tp}:\n  TP alone {tp_only / 1e6:.0f} MB, with SP "
          f"{tp_sp / 1e6:.0f} MB ({mem['saving_ratio']:.2f}x); SP + selective recomputation "
          f"{mem['tp_sp_selective_bytes_per_layer'] / 1e6:.0f} MB\n  {layers} layers: {mem['tp_only_bytes'] / 1e9:.1f} GB against {mem['tp_sp_bytes'] / 1e9:.1f} GB")
    print(f"\nring attention: {a.seq:,} tokens on {a.ranks} x {gpu['name']},\n  {MIXTRAL['heads']} query "
          f"and {a.kv_heads} KV heads of {MIXTRAL['head_dim']}")
    print(f"  overlap needs blocks >= {r['min_block_tokens_bandwidth']:,.0f} tokens on a {link / 1e9:.0f} GB/s link "
          f"({r['min_block_tokens']:,.0f} with {LATENCY_S * 1e6:g} µs latency)\n    backward: "
          f"{r['backward_min_block_tokens_bandwidth']:,.0f}; over {IB_BPS / 1e9:.0f} GB/s InfiniBand {r['min_block_tokens_ib']:,.0f}")
    print(f"  block {r['block_tokens']:,.0f} tokens: compute {r['step_compute_s'] * 1e3:.2f} ms a step, "
          f"its {r['kv_block_bytes'] / 1e6:.0f} MB K/V block {r['step_comm_s'] * 1e3:.3f} ms")
    print(f"  causal, contiguous: imbalance {r['imbalance']:.2f} (limit {r['contiguous_imbalance_limit']:.3f}), "
          f"{r['time_s'] * 1e3:.1f} ms; no mask {out['full']['time_s'] * 1e3:.1f} ms")
    print(f"  causal, zig-zag: imbalance {z['imbalance']:.2f}, {z['time_s'] * 1e3:.1f} ms\n    backward "
          f"{z['backward_time_s'] * 1e3:.1f} ms, sending {z['backward_kv_bytes_sent_per_rank'] / 1e9:.2f} GB "
          f"(forward {z['kv_bytes_sent_per_rank'] / 1e9:.2f} GB)")
    print(f"\nrouter, {a.tokens:,} tokens, {a.experts} experts, top-{a.top_k}, capacity {rt['capacity']} "
          f"(factor {a.capacity_factor:g}), skew {a.skew:g}, seed {a.seed}:")
    for name, res in ((f"balance {a.balance:g}", rt), ("balance 1", rb)):
        print(f"  {name:<11} busiest expert {res['max_over_mean']:.2f}x the mean, "
              f"dropped {res['drop_fraction']:.{1 if res['drop_fraction'] >= 0.01 else 2}%}, E·Σ f·P = {res['balance_score']:.3f}")
    print(f"\nexpert parallelism, a {MIXTRAL['name']} layer, 8,192 tokens to top-{a.top_k} experts, EP = {a.ep}:\n"
          f"  {x['bytes_per_layer_forward'] / 1e6:.0f} MB a layer, {x['expert_compute_time_s'] * 1e3:.2f} ms of expert compute")
    for name, res in ((f"link {link / 1e9:.0f} GB/s", x), (f"InfiniBand {IB_BPS / 1e9:.0f} GB/s", out["all_to_all_ib"])):
        print(f"  {name:<18} dispatch + combine {res['comm_time_forward_s'] * 1e3:.2f} ms, {res['comm_over_compute']:.1f}x the compute")


if __name__ == "__main__":
    main()
