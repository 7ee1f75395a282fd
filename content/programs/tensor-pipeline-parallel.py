"""Tensor parallelism's all-reduces per layer, and pipeline schedules executed stage by stage.

A companion to the lesson "Tensor and pipeline parallelism". It follows the lesson's sections:
the four all-reduces of S = 2·s·b·h bytes that Megatron tensor parallelism adds to one layer,
their alpha-beta time against the layer's compute and the closed form of that ratio
("Communication against compute"), then the pipeline schedules GPipe, 1F1B and interleaved
1F1B, executed op by op on simulated stages against their dependencies, with the bubble
compared with (p - 1)/(v·m) of the ideal time and (p - 1)/(v·m + p - 1) of the step, and the
micro-batches each stage holds in flight ("Cutting the stack"). Peaks and NVLink bandwidths
come from the course's datasheet table, written into this file when the course was built.

Run:  python3 tensor-pipeline-parallel.py       the lesson's 70B layer on 8 H100s; 8 stages, 16 micro-batches
      python3 tensor-pipeline-parallel.py --tp 16 --stages 4 --microbatches 8 --p2p-ms 0.1
      python3 tensor-pipeline-parallel.py --json
"""
import argparse
import json
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: h100-sxm, h200-sxm, a100-sxm-80gb, b200, mi300x | name, peak_flops, scaleup_bandwidth_Bps")

GPUS_PER_NODE = 8
LATENCY_S = 2e-6  # α of one NVLink step
NIC_BANDWIDTH_BPS, NIC_LATENCY_S = 50e9, 5e-6  # one 400 Gb/s adapter per GPU, per direction
ACT_BYTES = 2  # bf16 activations
MAX_OPS = 4096  # stages · micro-batches · chunks the engine executes (above it, a closed form)


def allreduce(t, size_bytes, nvlink_Bps):
    """(time, NVLink part, NIC part, bytes sent per GPU): ring in a node, hierarchical across nodes."""
    if t == 1:
        return 0.0, 0.0, 0.0, 0.0
    g = GPUS_PER_NODE
    if t <= g:
        time_s = 2 * (t - 1) * LATENCY_S + 2 * (t - 1) / t * size_bytes / nvlink_Bps
        return time_s, time_s, 0.0, 2 * (t - 1) / t * size_bytes
    n = t // g  # reduce-scatter in the node, all-reduce of S/g across nodes, all-gather in the node
    intra = 2 * (g - 1) * (LATENCY_S + size_bytes / g / nvlink_Bps)
    inter = 2 * (n - 1) * (NIC_LATENCY_S + size_bytes / (g * n) / NIC_BANDWIDTH_BPS)
    return intra + inter, intra, inter, 2 * (g - 1) * size_bytes / g + 2 * (n - 1) * size_bytes / (g * n)


def tensor_parallel_layer(h, s, b, t, peak_flops, nvlink_Bps):
    """Two all-reduces forward and two backward of S = s·b·h·2 bytes, against 3× the forward FLOPs / t."""
    f = 4 * h  # the MLP's inner width
    size = s * b * h * ACT_BYTES
    one, intra, inter, sent = allreduce(t, size, nvlink_Bps)
    flops_forward = (2 * b * s * (4 * h * h + 2 * h * f) + 4 * b * s * s * h) / t  # Narayanan et al. eq. 3
    compute = 3 * flops_forward / peak_flops  # backward = 2× forward
    return {"allreduce_bytes": size, "allreduce_bytes_per_layer": 4 * size, "sent_bytes_per_gpu": 4 * sent,
            "comm_time_s": 4 * one, "comm_intra_s": 4 * intra, "comm_inter_s": 4 * inter,
            "flops_forward_per_gpu": flops_forward, "flops_per_gpu": 3 * flops_forward,
            "compute_time_s": compute, "ratio": 4 * one / compute,
            "flops_per_link_byte": peak_flops / nvlink_Bps,
            # The lesson's closed form at α = 0, for a group inside one node.
            "ratio_formula": 2 / 9 * (t - 1) / (h * (1 + s / (6 * h))) * peak_flops / nvlink_Bps if t <= GPUS_PER_NODE else None}


def stage_order(schedule, p, m, v, s):
    """The (kind, micro-batch, chunk) ops stage s runs, in the schedule's order."""
    if schedule == "gpipe":
        return [("F", i, 0) for i in range(m)] + [("B", i, 0) for i in range(m)]
    if schedule == "1f1b":  # p−s−1 warm-up forwards, then one forward one backward, then drain
        warm = min(p - s - 1, m)
        ops = [("F", i, 0) for i in range(warm)]
        for i in range(m - warm):
            ops += [("F", warm + i, 0), ("B", i, 0)]
        return ops + [("B", i, 0) for i in range(m - warm, m)]

    def op(k, kind):  # Megatron's k-th forward (or backward) of a stage -> (micro-batch, chunk)
        chunk = (k % (p * v)) // p
        return kind, (k // (p * v)) * p + k % p, v - 1 - chunk if kind == "B" else chunk
    total = m * v
    warm = total if m == p else min((p - s - 1) * 2 + (v - 1) * p, total)
    ops = [op(k, "F") for k in range(warm)]
    for k in range(total - warm):
        ops += [op(warm + k, "F"), op(k, "B")]
    return ops + [op(k, "B") for k in range(total - warm, total)]


def run_pipeline(schedule, p, m, v, forward_s, backward_s, p2p_s):
    """Executes every stage's ops as soon as the stage is free and the op's inputs have arrived."""
    tf, tb = forward_s / v, backward_s / v  # one chunk of a stage
    orders = [stage_order(schedule, p, m, v, s) for s in range(p)]
    f_end, b_end = {}, {}  # (virtual stage, micro-batch) -> end time
    arrive = {}  # (kind, virtual stage, micro-batch) -> when its message reaches the neighbour
    nxt, free_at, held, peak = [0] * p, [0.0] * p, [0] * p, [0] * p
    link_free = [0.0] * p  # each stage's link sends one message at a time
    timeline = []
    while any(nxt[s] < len(orders[s]) for s in range(p)):
        progress = False
        for s in range(p):
            while nxt[s] < len(orders[s]):
                kind, i, chunk = orders[s][nxt[s]]
                vs = chunk * p + s  # virtual stage: chunk c of stage s
                ready = free_at[s]
                if kind == "F" and vs > 0:  # needs the previous virtual stage's forward
                    if ("F", vs - 1, i) not in arrive:
                        break
                    ready = max(ready, arrive[("F", vs - 1, i)])
                elif kind == "B":  # needs its own forward and the next virtual stage's backward
                    if (vs, i) not in f_end or (vs < p * v - 1 and ("B", vs + 1, i) not in arrive):
                        break
                    ready = max(ready, f_end[(vs, i)])
                    if vs < p * v - 1:
                        ready = max(ready, arrive[("B", vs + 1, i)])
                end = ready + (tf if kind == "F" else tb)
                (f_end if kind == "F" else b_end)[(vs, i)] = end
                if (vs < p * v - 1) if kind == "F" else (vs > 0):  # send it on, after the link's last message
                    depart = max(end, link_free[s]) if p > 1 else end
                    arrive[(kind, vs, i)] = depart + p2p_s if p > 1 else end
                    if p > 1:
                        link_free[s] = arrive[(kind, vs, i)]
                free_at[s] = end
                held[s] += 1 if kind == "F" else -1
                peak[s] = max(peak[s], held[s] + (kind == "B"))  # activations held while it runs
                timeline.append({"stage": s, "microbatch": i, "chunk": chunk, "kind": kind, "start_s": ready, "end_s": end})
                nxt[s] += 1
                progress = True
        if not progress:
            raise RuntimeError("the schedule deadlocks")
    timeline.sort(key=lambda op: (op["stage"], op["start_s"]))
    step = max(op["end_s"] for op in timeline)
    ideal = m * (forward_s + backward_s)  # each stage's own work
    idle = max(0.0, step - ideal)
    idle = 0.0 if idle <= 1e-9 * step else idle  # rounding residue, not a bubble
    return {"step_time_s": step, "ideal_time_s": ideal, "bubble_fraction": idle / step, "bubble_ratio": idle / ideal,
            "bubble_ratio_formula": (p - 1) / (v * m), "bubble_fraction_formula": (p - 1) / (v * m + p - 1),
            "peak_inflight_per_stage": [k / v for k in peak], "timeline": timeline}


def ms(seconds):
    return f"{seconds * 1e3:.2f} ms"


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="tensor-pipeline-parallel.py", description="Tensor-parallel all-reduces and pipeline schedules.")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator (default h100-sxm)")
    p.add_argument("--hidden", type=int, default=8192, help="model width h (default 8192)")
    p.add_argument("--seq", type=int, default=4096, help="tokens per sequence s (default 4096)")
    p.add_argument("--micro-batch", type=int, default=1, help="sequences per micro-batch b (default 1)")
    p.add_argument("--tp", type=int, default=8, help="tensor-parallel GPUs t, up to 8 or whole nodes (default 8)")
    p.add_argument("--stages", type=int, default=8, help="pipeline stages p (default 8)")
    p.add_argument("--microbatches", type=int, default=16, help="micro-batches m per step (default 16)")
    p.add_argument("--chunks", type=int, default=2, help="model chunks v per stage, interleaved 1F1B (default 2)")
    p.add_argument("--forward-ms", type=float, default=1.0, help="one micro-batch's forward on one stage (default 1)")
    p.add_argument("--backward-ms", type=float, default=2.0, help="its backward (default 2)")
    p.add_argument("--p2p-ms", type=float, default=0.0, help="one message between stages (default 0)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    for name, lo, hi in (("hidden", 64, 131072), ("seq", 1, 1048576), ("micro_batch", 1, 4096), ("tp", 1, 256),
                         ("stages", 1, 256), ("microbatches", 1, 4096), ("chunks", 1, 64)):
        if not lo <= getattr(a, name) <= hi:
            p.error(f"--{name.replace('_', '-')} must be a whole number from {lo} to {hi}")
    if a.tp > GPUS_PER_NODE and a.tp % GPUS_PER_NODE:
        p.error(f"--tp above {GPUS_PER_NODE} spans whole nodes: use a multiple of {GPUS_PER_NODE}")
    for name in ("forward_ms", "backward_ms", "p2p_ms"):
        if not (0 <= getattr(a, name) <= 1e7) or (name != "p2p_ms" and getattr(a, name) == 0):
            p.error(f"--{name.replace('_', '-')} must be {'from 0 to 1e7' if name == 'p2p_ms' else 'above 0 and at most 1e7'}")
    if a.stages * a.microbatches * a.chunks > MAX_OPS:
        p.error(f"--stages x --microbatches x --chunks must be at most {MAX_OPS} to be executed")
    gpu = HARDWARE[a.hardware]
    nvlink = gpu["scaleup_bandwidth_Bps"] / 2  # per direction: datasheets sum both
    tp = tensor_parallel_layer(a.hidden, a.seq, a.micro_batch, a.tp, gpu["peak_flops"]["bf16"], nvlink)
    times = (a.forward_ms / 1000, a.backward_ms / 1000, a.p2p_ms / 1000)  # seconds
    pipes = {"gpipe": run_pipeline("gpipe", a.stages, a.microbatches, 1, *times),
             "1f1b": run_pipeline("1f1b", a.stages, a.microbatches, 1, *times),
             # Interleaving sends micro-batches round in groups of p: m must be a multiple of p.
             "interleaved-1f1b": run_pipeline("interleaved-1f1b", a.stages, a.microbatches, a.chunks, *times)
             if a.microbatches % a.stages == 0 else None}
    if a.json:
        print(json.dumps({"hardware": a.hardware, "tensor_parallel": tp, "pipeline": pipes}, indent=1))
        return
    print(f"tensor parallelism on {a.tp} x {gpu['name']}, one layer:")
    print(f"  h = {a.hidden}, s = {a.seq}, b = {a.micro_batch}: 4 all-reduces of {tp['allreduce_bytes'] / 1e6:.1f} MB, "
          f"{tp['sent_bytes_per_gpu'] / 1e6:.0f} MB sent per GPU")
    print(f"  communication {ms(tp['comm_time_s'])} (NVLink {ms(tp['comm_intra_s'])}, NICs {ms(tp['comm_inter_s'])})")
    print(f"  compute {ms(tp['compute_time_s'])}: ratio {tp['ratio']:.2f}")
    if tp["ratio_formula"] is not None:
        print(f"  closed form 2/9·(t-1)/(h(1+s/6h))·P/B at α = 0: {tp['ratio_formula']:.2f}, "
              f"P/B = {tp['flops_per_link_byte']:.0f} FLOP/B")
    print()
    print(f"pipeline (executed), p = {a.stages} stage{'s' * (a.stages > 1)}, m = {a.microbatches} micro-batches,")
    print(f"  t_f = {a.forward_ms:g} ms, t_b = {a.backward_ms:g} ms, message {a.p2p_ms:g} ms, v = {a.chunks} when interleaved:")
    print(f"  {'schedule':16}{'step':>10}{'bubble':>8}{'(p-1)/vm':>10}{'of step':>9}{'(p-1)/(vm+p-1)':>16}{'stage 0':>9}")
    for name, r in pipes.items():
        if r is None:
            print(f"  {name:16}  needs m a multiple of p")
            continue
        print(f"  {name:16}{ms(r['step_time_s']):>10}{r['bubble_ratio']:8.3f}{r['bubble_ratio_formula']:10.3f}"
              f"{r['bubble_fraction']:9.1%}{r['bubble_fraction_formula']:16.1%}{r['peak_inflight_per_stage'][0]:9g}")
    print("  bubble = idle/ideal, of step = idle/step, stage 0 = micro-batches it holds")


if __name__ == "__main__":
    main()
