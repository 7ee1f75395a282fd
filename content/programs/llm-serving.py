"""Serving an LLM: KV-cache bytes, the decode roofline, paged KV blocks and speculative decoding.

A companion to the lesson "LLM inference serving". It follows its sections: "Two phases with
opposite bottlenecks" (the roofline bounds of prefill, TTFT, and of one decode step, TPOT, for
Llama 3 8B on an H100 SXM), "The KV cache" (2 · layers · kv_heads · head_dim · bytes per token,
and at most how many sequences fit beside the weights), "Paging the KV cache" (an executed allocator:
one seeded backlog served by contiguous max-length reservation and by 16-token blocks, step by
step, measuring the memory each wastes) and "Speculative decoding" (the expected tokens per
round (1 − α^(γ+1)) / (1 − α) and the speedup). The backlog comes from the engine's SplitMix64
generator, reimplemented here, so a seed gives the same requests and the same counts as the
course's kv-paging-sim calculator. Model shapes and accelerator numbers are the course's tables,
written into this file when the course was built.

Run:  python3 llm-serving.py                 the lesson's worked examples
      python3 llm-serving.py --model llama-2-7b --hardware a100-sxm-80gb --context 1024 --batch 64
      python3 llm-serving.py --block-size 64 --seed 7 --alpha 0.6 --gamma 3
      python3 llm-serving.py --json          the same numbers as JSON
"""
import argparse
import json
import math
import sys
from collections import deque
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x, l4 | name, peak_flops, hbm_bytes, hbm_bandwidth_Bps")
MODELS = table("models: opt-13b, llama-2-7b, llama-2-13b, llama-2-70b, llama-3-8b, llama-3-70b, mistral-7b, gemma-7b | name, layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, gated_mlp, tied_embeddings")

BYTES, MEMORY_FRACTION = 2, 0.9  # bf16; vLLM's default budget for weights, activations, graphs, KV
PROMPT_MEAN, OUTPUT_MEAN, MAX_OUTPUT = 256, 128, 512  # the allocator's backlog, in tokens
MASK64 = (1 << 64) - 1


def kv_bytes_per_token(m):
    """K and V of one token in every layer: 2 · layers · kv_heads · head_dim · bytes."""
    return 2 * m["layers"] * m["kv_heads"] * m["head_dim"] * BYTES


def params(m):
    """(every resident parameter, those a token multiplies: the layers and the output head)."""
    h, q, kv = m["hidden"], m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
    per_layer = 2 * h * q + 2 * h * kv + (3 if m["gated_mlp"] else 2) * h * m["ffn_hidden"] + 2 * h
    layers_and_norm = m["layers"] * per_layer + h
    resident = layers_and_norm + (1 if m["tied_embeddings"] else 2) * m["vocab"] * h
    return resident, layers_and_norm + m["vocab"] * h  # the embedding lookup reads one row


def bound(flops, bytes_moved, peak, bandwidth):
    """The roofline: a pass takes the longer of its arithmetic and its memory traffic."""
    compute_s, memory_s = flops / peak, bytes_moved / bandwidth
    return {"time_s": max(compute_s, memory_s), "compute_time_s": compute_s, "memory_time_s": memory_s,
            "bound": "compute" if compute_s >= memory_s else "memory", "flops": flops, "bytes": bytes_moved}


def prefill(m, n_matmul, batch, prompt, peak, bandwidth):
    """One pass over the prompt: causal attention scores query i against i keys."""
    attention = 2 * m["layers"] * m["heads"] * m["head_dim"] * prompt * (prompt + 1)
    flops = batch * (2 * n_matmul * prompt + attention)
    return bound(flops, n_matmul * BYTES + batch * prompt * kv_bytes_per_token(m), peak, bandwidth)


def decode_step(m, n_matmul, batch, context, peak, bandwidth):
    """One new token per sequence: every weight read once, and `context` cached tokens each."""
    flops = batch * (2 * n_matmul + 4 * m["layers"] * m["heads"] * m["head_dim"] * context)
    return bound(flops, n_matmul * BYTES + batch * context * kv_bytes_per_token(m), peak, bandwidth)


def crossover_prompt(m, n_matmul, batch, peak, bandwidth):
    """Shortest prompt whose prefill is compute-bound (bisection; 0 if none up to 2^24)."""
    is_compute = lambda p: prefill(m, n_matmul, batch, p, peak, bandwidth)["bound"] == "compute"
    lo, hi = 1, 1 << 24
    if not is_compute(hi):
        return 0
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if is_compute(mid) else (mid + 1, hi)
    return lo


def backlog(count, seed):
    """(prompt, output) lengths uniform on [1, 2·mean − 1], from SplitMix64 as the engine draws them."""
    def mix(z):  # SplitMix64's output function
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)
    state = mix(mix((0x9A6ED4B10C5 + 0x9E3779B97F4A7C15) & MASK64) ^ mix(seed & MASK64))  # mix_seed(seed, salt)

    def below(n):  # next 64 random bits mod n
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        return mix(state) % n
    return [(1 + below(2 * PROMPT_MEAN - 1), 1 + below(2 * OUTPUT_MEAN - 1)) for _ in range(count)]


def summary(steps, pool, batches, used, reserved, internal, external, free):
    total, held = steps * pool, steps * pool - free
    return {"steps": steps, "mean_batch": sum(batches) / steps, "max_batch": max(batches),
            "used_fraction": used / total, "reserved_fraction": reserved / total, "internal_fraction": internal / total,
            "external_fraction": external / total, "waste_fraction": (reserved + internal + external) / held}


def contiguous(reqs, pool):
    """Each request reserves prompt + MAX_OUTPUT slots in one extent (first fit) until it ends."""
    live, queue, batches, acc = [], deque(range(len(reqs))), [], [0] * 5  # used, reserved, internal, external, free
    reserve = lambda i: reqs[i][0] + MAX_OUTPUT

    def first_fit(length):
        at = 0
        for start, size, _, _ in live:
            if start - at >= length:
                return at
            at = start + size
        return at if pool - at >= length else -1
    while queue or live:
        while queue and (start := first_fit(reserve(queue[0]))) >= 0:
            live = sorted(live + [[start, reserve(queue[0]), queue.popleft(), 0]])
        held = 0
        for e in live:  # [start, slots, request, generated]: one token each per step
            e[3] += 1
            prompt, output = reqs[e[2]]
            acc[0] += prompt + e[3]
            acc[1] += output - e[3]  # reserved for tokens still to come
            acc[2] += e[1] - prompt - output  # never filled: the output stops before MAX_OUTPUT
            held += e[1]
        free = pool - held  # stranded in holes when the next request would fit in their sum
        external = free if queue and free >= reserve(queue[0]) else 0
        acc[3] += external
        acc[4] += free - external
        batches.append(len(live))
        live = [e for e in live if e[3] < reqs[e[2]][1]]
    return summary(len(batches), pool, batches, acc[0], acc[1], acc[2], acc[3], acc[4])


def paged(reqs, pool, block):
    """Blocks of `block` tokens on demand; when none is free the newest sequence is preempted."""
    blocks_total = pool // block
    free_blocks, generated, queue, running = blocks_total, [0] * len(reqs), deque(range(len(reqs))), []
    blocks_for = lambda i, gen: -(-(reqs[i][0] + gen + 1) // block)  # ceil: room for this step's token
    batches, used_sum, internal_sum, free_sum, preemptions = [], 0, 0, 0, 0
    while queue or running:
        while queue and blocks_for(queue[0], generated[queue[0]]) <= free_blocks:
            i = queue.popleft()
            free_blocks -= blocks_for(i, generated[i])
            running.append([i, generated[i], blocks_for(i, generated[i])])
        k = 0
        while k < len(running):  # grow each sequence by one token
            need = blocks_for(running[k][0], running[k][1])
            while need > running[k][2]:
                if free_blocks >= 1:
                    free_blocks, running[k][2] = free_blocks - 1, running[k][2] + 1
                    continue
                victim = running.pop()  # recomputed later from its prompt and generated text
                free_blocks += victim[2]
                generated[victim[0]] = victim[1]
                queue.appendleft(victim[0])
                preemptions += 1
                if len(running) <= k:
                    break
            k += 1
        used = held = 0
        for s in running:
            s[1] += 1
            used += reqs[s[0]][0] + s[1]
            held += s[2] * block
        batches.append(len(running))
        used_sum, internal_sum, free_sum = used_sum + used, internal_sum + held - used, free_sum + free_blocks * block
        free_blocks += sum(s[2] for s in running if s[1] >= reqs[s[0]][1])
        running = [s for s in running if s[1] < reqs[s[0]][1]]
    remainder = (pool - blocks_total * block) * len(batches)  # slots too few to form a block
    r = summary(len(batches), pool, batches, used_sum, 0, internal_sum, remainder, free_sum)
    return {**r, "preemptions": preemptions, "slack_per_sequence_tokens": r["internal_fraction"] * pool / r["mean_batch"]}


def speculative(alpha, gamma, draft_cost):
    """Leviathan et al.: E[tokens per round] = Σ_{k=0..γ} α^k, speedup = that / (γ·c + 1)."""
    tokens = lambda g: g + 1 if alpha >= 1 else (1 - math.prod([alpha] * (g + 1))) / (1 - alpha)  # α^(γ+1) as products
    best_gamma, best = 1, 0.0
    for g in range(1, 65):
        if tokens(g) / (g * draft_cost + 1) > best + 1e-12:
            best_gamma, best = g, tokens(g) / (g * draft_cost + 1)
    return {"expected_tokens": tokens(gamma), "cost_per_round": gamma * draft_cost + 1,
            "speedup": tokens(gamma) / (gamma * draft_cost + 1), "optimal_gamma": best_gamma, "optimal_speedup": best}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="llm-serving.py", description="KV cache, decode roofline, paged KV blocks and speculative decoding.")
    p.add_argument("--model", default="llama-3-8b", choices=sorted(MODELS), help="served model (default llama-3-8b)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator (default h100-sxm)")
    for flag, default, what in (("prompt", 2048, "prompt tokens of the prefill"), ("context", 4096, "cached tokens at the decode step"),
                                ("batch", 1, "sequences per step"), ("fit-context", 8192, "tokens per sequence for the capacity"),
                                ("requests", 200, "requests in the allocator's backlog"), ("pool-tokens", 16384, "KV slots in the pool"),
                                ("block-size", 16, "tokens per KV block"), ("seed", 1, "seed of the backlog"), ("gamma", 4, "draft tokens per round")):
        p.add_argument(f"--{flag}", type=int, default=default, help=f"{what} (default {default})")
    p.add_argument("--alpha", type=float, default=0.8, help="acceptance rate of a draft token (default 0.8)")
    p.add_argument("--draft-cost", type=float, default=0.05, help="draft cost per token / target's (default 0.05)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    for flag, low, high in (("prompt", 1, 1 << 20), ("context", 1, 1 << 20), ("batch", 1, 4096), ("fit_context", 1, 1 << 24),
                            ("requests", 1, 1562), ("pool_tokens", 2 * PROMPT_MEAN - 1 + MAX_OUTPUT + 512, 4_194_304),
                            ("block_size", 1, 256), ("seed", 0, 2**32 - 1), ("gamma", 1, 64), ("alpha", 0, 1), ("draft_cost", 0, 10)):
        if not low <= getattr(a, flag) <= high:  # also rejects nan
            p.error(f"--{flag.replace('_', '-')} must be from {low:,} to {high:,}")
    m, gpu = MODELS[a.model], HARDWARE[a.hardware]
    peak, bandwidth = gpu["peak_flops"]["bf16"], gpu["hbm_bandwidth_Bps"]
    resident, n_matmul = params(m)

    pre = prefill(m, n_matmul, a.batch, a.prompt, peak, bandwidth)
    step = decode_step(m, n_matmul, a.batch, a.context, peak, bandwidth)
    free = gpu["hbm_bytes"] * MEMORY_FRACTION - resident * BYTES  # left for the cache
    per_sequence = kv_bytes_per_token(m) * a.fit_context
    out = {"kv_bytes_per_token": {mid: kv_bytes_per_token(x) for mid, x in MODELS.items()},
           "matmul_params": n_matmul, "weight_bytes": n_matmul * BYTES, "ttft_s": pre["time_s"], "prefill": pre,
           "tpot_s": step["time_s"], "tokens_per_s": a.batch / step["time_s"], "decode_step": step,
           "decode_intensity": step["flops"] / step["bytes"], "ridge_intensity": peak / bandwidth,
           "prefill_crossover_prompt": crossover_prompt(m, n_matmul, a.batch, peak, bandwidth),
           "weights_bytes": resident * BYTES, "free_bytes": free, "max_sequences": int(free // per_sequence) if free > 0 else 0}
    reqs = backlog(a.requests, a.seed)
    out["contiguous"], out["paged"] = contiguous(reqs, a.pool_tokens), paged(reqs, a.pool_tokens, a.block_size)
    out["speculative"] = spec = speculative(a.alpha, a.gamma, a.draft_cost)

    if a.json:
        print(json.dumps(out, indent=1))
        return
    kv = [f"{MODELS[k]['name']} {v / 1024:.0f} KiB" for k, v in out["kv_bytes_per_token"].items()]
    print("KV cache per token, bf16:\n  " + ",\n  ".join(", ".join(kv[i:i + 4]) for i in range(0, len(kv), 4)))
    print(f"\n{m['name']} on {gpu['name']}: {n_matmul:,} weights per token, {out['weight_bytes'] / 1e9:.1f} GB a step")
    print(f"  prefill, {a.prompt:,} tokens x {a.batch}: TTFT >= {pre['time_s'] * 1e3:.1f} ms, {pre['bound']}-bound "
          f"(weights once: {pre['memory_time_s'] * 1e3:.1f} ms)")
    print(f"  prefill is compute-bound from {out['prefill_crossover_prompt']:,} tokens; ridge {out['ridge_intensity']:.0f} FLOP/B")
    print(f"  decode, {a.context:,} cached tokens x {a.batch}: TPOT >= {step['time_s'] * 1e3:.2f} ms, {out['tokens_per_s']:,.0f} "
          f"tokens/s,\n    {step['bound']}-bound: its arithmetic alone takes {step['compute_time_s'] * 1e6:.0f} µs")
    print(f"  capacity at {a.fit_context:,} tokens: weights {resident * BYTES / 1e9:.1f} GB, cache {free / 1e9:.1f} GB, "
          f"at most {out['max_sequences']} sequences")
    print(f"\nKV allocators, {a.requests} seeded requests (seed {a.seed}) in a pool of {a.pool_tokens:,} slots:")
    pct = lambda x: f"{x:.0%}" if x >= 0.095 else f"{x:.1%}"  # two significant digits, as the lesson
    for name, r in (("contiguous", out["contiguous"]), (f"paged {a.block_size}", out["paged"])):
        print(f"  {name:<11} waste {pct(r['waste_fraction'])} of held memory, mean batch {r['mean_batch']:.1f}, {r['steps']} steps")
    print(f"  paged slack per sequence: {out['paged']['slack_per_sequence_tokens']:.1f} tokens, "
          f"{out['paged']['preemptions']} preemptions")
    print(f"\nspeculative decoding, alpha {a.alpha:g}, gamma {a.gamma}, draft cost {a.draft_cost:g}:\n"
          f"  {spec['expected_tokens']:.2f} tokens for {spec['cost_per_round']:.2f} target passes, speedup {spec['speedup']:.2f}x "
          f"(best gamma {spec['optimal_gamma']}: {spec['optimal_speedup']:.2f}x)")

if __name__ == "__main__":
    main()
