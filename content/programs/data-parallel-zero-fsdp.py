"""Memory and communication per GPU of data parallelism, ZeRO stages 1-3 and FSDP.

A companion to the lesson "Data parallelism, ZeRO and FSDP". It follows the lesson's sections:
one data-parallel step ("What one step costs", "Hiding the all-reduce behind the backward pass",
"Scaling efficiency": the global batch, the gradient all-reduce with its NVLink and network
phases pipelined or one after the other, 25 MiB buckets overlapped with the backward pass, the
exposed time and the weak-scaling efficiency), the model-state bytes each GPU holds under plain data parallelism (stage 0) and ZeRO stages 1,
2 and 3 ("The memory problem"), the elements each GPU sends per step and the time of those
collectives ("What sharding costs in communication": a ring inside a node, the hierarchical
algorithm across nodes), FSDP's per-unit all-gathers and reduce-scatters against the step's
compute and the tokens per GPU that hide them ("How many tokens hide the communication?"), and
the lesson's worked example, a 70B model on 1,024 H100s. The peaks and NVLink bandwidths come
from the course's datasheet table, written into this file when the course was built.

Run:  python3 data-parallel-zero-fsdp.py      the worked example: 70B on 1,024 H100s
      python3 data-parallel-zero-fsdp.py --params 7.5e9 --gpus 64 --units 32   (ZeRO's Figure 1)
      python3 data-parallel-zero-fsdp.py --params 7e9 --gpus 64 --tokens 1024 --phases sequential
      python3 data-parallel-zero-fsdp.py --json
"""
import argparse
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: h100-sxm, h200-sxm, a100-sxm-80gb, b200, mi300x | name, peak_flops, scaleup_bandwidth_Bps, hbm_bytes")

GPUS_PER_NODE = 8  # g: GPUs on one NVLink domain
NIC_BANDWIDTH_BPS = 50e9  # one 400 Gb/s InfiniBand adapter per GPU, per direction
LATENCY_S = 1e-6  # α of one communication step, NVLink or network (the engine's assumption)
ELEMENT_BYTES = 2  # bf16 weights, gradients and communicated elements
OPTIMIZER_BYTES = {"adam": 12, "sgd": 8}  # fp32 master weights + momentum (+ variance) per parameter
BUCKET_BYTES = 25 * 2**20  # PyTorch DDP's default bucket_cap_mb
PIPELINED = True  # NVLink and network phases streamed together (NCCL); --phases sequential adds them


def group_collective_s(op, p, size_bytes, nvlink_Bps, latency_s=LATENCY_S, pipelined=None):
    """All-gather / reduce-scatter / all-reduce of S bytes over p GPUs: ring in a node, else hierarchical."""
    phases = 2 if op == "allreduce" else 1  # an all-reduce is a reduce-scatter then an all-gather
    g = GPUS_PER_NODE
    if p <= g:
        return phases * (p - 1) * latency_s + phases * (p - 1) / p * size_bytes / nvlink_Bps
    n = p / g  # nodes: NVLink phases move S/g a step, NIC phases S/(g·N), each GPU on its own NIC
    nv, nic = phases * (g - 1) * size_bytes / g / nvlink_Bps, phases * (n - 1) * size_bytes / (g * n) / NIC_BANDWIDTH_BPS
    latency = phases * (g - 1 + n - 1) * latency_s
    return latency + (max(nv, nic) if (PIPELINED if pipelined is None else pipelined) else nv + nic)


def dp_step(params, gpus, tokens, flops_per_s, nvlink_Bps):
    """One plain data-parallel step: compute, the gradient all-reduce, buckets overlapped with the backward pass."""
    compute = 6 * params * tokens / flops_per_s
    tb, size = compute * 2 / 3, params * ELEMENT_BYTES
    allreduce = group_collective_s("allreduce", gpus, size, nvlink_Bps)
    n = max(1, math.ceil(size / BUCKET_BYTES))
    beta = group_collective_s("allreduce", gpus, size / n, nvlink_Bps, latency_s=0)  # a bucket's bandwidth term
    g, nodes = GPUS_PER_NODE, gpus / GPUS_PER_NODE
    # Latency of a bucket: the (hierarchical) ring or NCCL's trees, 2(g−1) + 2⌈log2 N⌉ steps, the fewer.
    steps = 2 * (gpus - 1) if gpus <= g else 2 * (g - 1) + 2 * min(nodes - 1, math.ceil(math.log2(nodes) - 1e-12))
    bucket_latency = steps * LATENCY_S
    exposed = 0.0 if gpus == 1 else max(bucket_latency + beta, tb / n + bucket_latency + n * beta - tb)
    return {"compute_time_s": compute, "backward_time_s": tb, "allreduce_time_s": allreduce, "bucket_count": n,
            "bucket_allreduce_time_s": bucket_latency + beta, "exposed_comm_s": exposed,
            "step_time_s": compute + exposed, "efficiency": compute / (compute + exposed),
            "step_time_no_overlap_s": compute + allreduce}


def phase_seconds_per_byte(p, nvlink_Bps):
    """(NVLink, NIC) seconds per byte of one all-gather, latency aside."""
    g = GPUS_PER_NODE
    if p <= g:
        return (p - 1) / (p * nvlink_Bps), 0.0
    n = p / g
    return (g - 1) / (g * nvlink_Bps), (n - 1) / (g * n * NIC_BANDWIDTH_BPS)


def zero_stages(params, gpus, optimizer, nvlink_Bps):
    """Per stage 0-3: weights, gradients and optimizer bytes per GPU, elements sent, comm time."""
    size = params * ELEMENT_BYTES  # S: one bf16 copy of the weights (or gradients)
    ag = group_collective_s("allgather", gpus, size, nvlink_Bps)
    rs = group_collective_s("reducescatter", gpus, size, nvlink_Bps)
    stages = []
    for stage in range(4):
        weights = params * ELEMENT_BYTES / (gpus if stage >= 3 else 1)
        grads = params * ELEMENT_BYTES / (gpus if stage >= 2 else 1)
        opt = params * OPTIMIZER_BYTES[optimizer] / (gpus if stage >= 1 else 1)
        psi = 3 if stage == 3 else 2  # stage 3 gathers the weights twice: forward and backward
        if stage == 0:
            comm = group_collective_s("allreduce", gpus, size, nvlink_Bps)
            allgather = comm - rs  # the all-reduce's second half
        else:
            allgather = ag * (2 if stage == 3 else 1)
            comm = rs + allgather
        stages.append({"stage": stage, "weights_bytes": weights, "grads_bytes": grads, "optimizer_bytes": opt,
                       "model_states_bytes": weights + grads + opt, "volume_psi": psi,
                       "volume_elements": psi * params * (gpus - 1) / gpus,
                       "volume_bytes": psi * params * (gpus - 1) / gpus * ELEMENT_BYTES,
                       "comm_time_s": comm, "allgather_time_s": allgather, "reducescatter_time_s": rs})
    for z in stages:
        z["comm_vs_baseline"] = 1.0 if gpus == 1 else z["comm_time_s"] / max(stages[0]["comm_time_s"], 1e-300)
    return stages


def fsdp(params, gpus, units, tokens_per_gpu, flops_per_s, nvlink_Bps, prefetch):
    """Per unit two all-gathers and a reduce-scatter, against compute 6·Ψ·T / (P·mfu)."""
    unit_bytes = params * ELEMENT_BYTES / units
    # The FSDP threshold keeps the phases one after the other (the conservative bound).
    ag = group_collective_s("allgather", gpus, unit_bytes, nvlink_Bps, pipelined=False)
    rs = group_collective_s("reducescatter", gpus, unit_bytes, nvlink_Bps, pipelined=False)
    comm = units * (2 * ag + rs)
    compute = 6 * params * tokens_per_gpu / flops_per_s
    # Tokens at which compute equals communication; Ψ cancels in the bandwidth term:
    # T = b·P·m/2 · [(g−1)/(g·B_NVLink) + (N−1)/(g·N·B_NIC)].
    half = ELEMENT_BYTES * flops_per_s / 2
    intra, inter = phase_seconds_per_byte(gpus, nvlink_Bps)
    g = GPUS_PER_NODE
    if prefetch:  # only the first all-gather waits; the rest runs beside compute
        exposed = max(ag, comm - compute)
    else:  # every all-gather blocks; the reduce-scatters hide behind the backward pass like buckets
        tb = compute * 2 / 3
        exposed = units * 2 * ag + max(rs, units * rs - tb + tb / units)
    return {"allgather_time_s": ag, "comm_time_s": comm, "compute_time_s": compute,
            "tokens_min": comm * flops_per_s / (6 * params),
            "tokens_min_bandwidth": half * (intra + inter),
            "tokens_limit": half * ((g - 1) / (g * nvlink_Bps) + 1 / (g * NIC_BANDWIDTH_BPS)),
            "tokens_limit_network": half / (g * NIC_BANDWIDTH_BPS),
            "exposed_comm_s": exposed, "step_time_s": compute + exposed, "hidden": compute >= comm}


def fmt_gb(n):
    gb = n / 1e9
    return f"{gb:,.0f} GB" if gb >= 100 else f"{gb:.1f} GB" if gb >= 10 else f"{gb:.2f} GB"


def fmt_time(seconds):
    if seconds >= 1:
        return f"{seconds:.1f} s"  # as the lesson writes step times
    for unit, scale in (("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="data-parallel-zero-fsdp.py", description="Memory and communication of DP, ZeRO and FSDP.")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator (default h100-sxm)")
    p.add_argument("--params", type=float, default=70e9, help="parameters Ψ (default 70e9)")
    p.add_argument("--gpus", type=int, default=1024, help="data-parallel GPUs, up to 8 or a multiple of 8 (default 1024)")
    p.add_argument("--units", type=int, default=80, help="FSDP units, one per layer (default 80)")
    p.add_argument("--tokens", type=int, default=8192, help="tokens per GPU per step (default 8192)")
    p.add_argument("--mfu", type=float, default=0.4, help="fraction of peak the step reaches (default 0.4)")
    p.add_argument("--optimizer", default="adam", choices=sorted(OPTIMIZER_BYTES), help="optimizer (default adam)")
    p.add_argument("--no-prefetch", action="store_true", help="FSDP without parameter prefetch")
    p.add_argument("--phases", default="pipelined", choices=["pipelined", "sequential"],
                   help="NVLink and network phases across nodes: pipelined (default) or one after the other")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    if not 1e6 <= args.params <= 1e13:
        p.error("--params must be from 1e6 to 1e13")
    if not 1 <= args.gpus <= 1 << 20 or (args.gpus > GPUS_PER_NODE and args.gpus % GPUS_PER_NODE):
        p.error(f"--gpus must be 1 to {GPUS_PER_NODE}, or whole nodes: a multiple of {GPUS_PER_NODE} up to 1048576")
    if not 1 <= args.units <= 100_000:
        p.error("--units must be a whole number from 1 to 100000")
    if not 1 <= args.tokens <= 10**12:
        p.error("--tokens must be a whole number from 1 to 1e12")
    if not 0 < args.mfu <= 1:
        p.error("--mfu must be above 0 and at most 1")
    global PIPELINED
    PIPELINED = args.phases == "pipelined"
    gpu = HARDWARE[args.hardware]
    nvlink = gpu["scaleup_bandwidth_Bps"] / 2  # per direction: datasheets sum both
    flops_per_s = gpu["peak_flops"]["bf16"] * args.mfu

    step = dp_step(args.params, args.gpus, args.tokens, flops_per_s, nvlink)
    stages = zero_stages(args.params, args.gpus, args.optimizer, nvlink)
    f = fsdp(args.params, args.gpus, args.units, args.tokens, flops_per_s, nvlink, not args.no_prefetch)
    intra, inter = phase_seconds_per_byte(args.gpus, nvlink)
    bus_bandwidth = nvlink if args.gpus <= GPUS_PER_NODE else (args.gpus - 1) / args.gpus / (intra + inter)
    batch_tokens = args.tokens * args.gpus
    if args.json:
        print(json.dumps({"hardware": args.hardware, "hbm_bytes": gpu["hbm_bytes"], "link_bandwidth_Bps": bus_bandwidth,
                          "dp": step, "stages": stages, "fsdp": f, "global_batch_tokens": batch_tokens}, indent=1))
        return
    nodes = math.ceil(args.gpus / GPUS_PER_NODE)
    print(f"{args.params / 1e9:g}B parameters on {args.gpus} x {gpu['name']} ({nodes} node{'s' * (nodes > 1)})")
    print(f"bus bandwidth {bus_bandwidth / 1e9:.0f} GB/s with the phases one after the other, "
          f"HBM per GPU {gpu['hbm_bytes'] / 2**30:.0f} GiB")
    print()
    print(f"Plain data parallelism, {args.tokens:,} tokens per GPU, {args.phases} phases:")
    print(f"  compute {fmt_time(step['compute_time_s'])} (backward {fmt_time(step['backward_time_s'])}), "
          f"all-reduce {fmt_time(step['allreduce_time_s'])} in {step['bucket_count']} buckets")
    print(f"  exposed {fmt_time(step['exposed_comm_s'])}: efficiency {step['efficiency']:.2%} with overlap, "
          f"{step['compute_time_s'] / step['step_time_no_overlap_s']:.2%} without")
    print()
    print("stage  weights  grads    optimizer  model states  sent/GPU  comm time  in HBM")
    for z in stages:
        print(f"  {z['stage']}    {fmt_gb(z['weights_bytes']):>8} {fmt_gb(z['grads_bytes']):>8} "
              f"{fmt_gb(z['optimizer_bytes']):>9}  {fmt_gb(z['model_states_bytes']):>11}  "
              f"{fmt_gb(z['volume_bytes']):>8}  {fmt_time(z['comm_time_s']):>9}  "
              f"{'yes' if z['model_states_bytes'] <= gpu['hbm_bytes'] else 'no'}")
    print(f"  stages 0-2 send 2Ψ(p-1)/p elements, stage 3 sends 3Ψ(p-1)/p: {stages[3]['comm_vs_baseline']:.2f}x the time")
    print()
    print(f"FSDP, {args.units} units, {args.tokens:,} tokens per GPU, {args.mfu:.0%} MFU"
          f"{', no prefetch' if args.no_prefetch else ''}:")
    print(f"  compute {fmt_time(f['compute_time_s'])}, communication {fmt_time(f['comm_time_s'])}, "
          f"exposed {fmt_time(f['exposed_comm_s'])}")
    print(f"  tokens per GPU to hide it: {f['tokens_min']:,.0f} ({f['tokens_min_bandwidth']:,.0f} from bandwidth alone)")
    print(f"  for many nodes {f['tokens_limit']:,.0f}, the network phase alone {f['tokens_limit_network']:,.0f}")
    print(f"  global batch: {batch_tokens:,} tokens per step")


if __name__ == "__main__":
    main()
