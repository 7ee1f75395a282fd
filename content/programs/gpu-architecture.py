"""Occupancy, waves and Little's law: what an SM holds, how a grid fills the GPU, what hides latency.

A companion to the lesson "GPU architecture: SMs, warps, the memory hierarchy and tensor
cores". It follows three of its sections: "Occupancy: what limits the warps" (the four limits
of NVIDIA's CUDA Occupancy Calculator, with its allocation granularities: warps per block
rounded up, registers in 256-register units per warp inside 4 sub-partitions, shared memory
plus a 1 KiB reserve in 128-byte units, and the block-slot limit), "Blocks to SMs, in
waves" (W = ceil(B / (S·k)) waves at utilization U = B / (W·S·k)), and "Hiding latency:
Little's law" (bandwidth x latency bytes in flight, here from the kernel's resident warps,
for the GPUs whose HBM latency the table has measured). It executes the first two: it
fills one SM block by block until a resource runs out, and it schedules a grid block by
block, and checks that the closed forms agree. The SM limits are the course's hardware
table, written into this file when the course was built.

Run:  python3 gpu-architecture.py             the lesson's worked example on the H100 SXM
      python3 gpu-architecture.py --hardware a100-sxm-80gb
      python3 gpu-architecture.py --threads 1024 --registers 32 --blocks 1024
      python3 gpu-architecture.py --json      the same numbers as JSON
"""
import argparse
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

MEMORY = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, h100-pcie | hbm_bandwidth_Bps, hbm_latency_s")
HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, h100-pcie, l4 | name, sms, warp_size, max_warps_per_sm, max_blocks_per_sm, max_threads_per_block, registers_per_sm, max_registers_per_block, max_registers_per_thread, register_alloc_unit, sm_sub_partitions, smem_per_sm_bytes, max_smem_per_block_bytes, smem_alloc_unit_bytes, smem_reserved_per_block_bytes")


LIMIT_NAMES = {"threads": "warp slots", "registers": "registers", "smem": "shared memory", "blocks": "block slots"}


def div_up(x, y):
    return -(-x // y)


def round_up(x, unit):
    return div_up(x, unit) * unit


def occupancy(gpu, threads_per_block, registers_per_thread, smem_per_block_bytes):
    """Blocks per SM by each of the four limits, the smallest of them, and the limiter."""
    warps_per_block = div_up(threads_per_block, gpu["warp_size"])
    registers_per_warp = round_up(registers_per_thread * gpu["warp_size"], gpu["register_alloc_unit"])
    registers_per_block = registers_per_warp * warps_per_block
    smem_allocated_bytes = round_up(smem_per_block_bytes + gpu["smem_reserved_per_block_bytes"],
                                    gpu["smem_alloc_unit_bytes"])
    # A warp lives on one quarter (sub-partition) of the register file.
    quarters = gpu["sm_sub_partitions"]
    warps_per_quarter = (gpu["registers_per_sm"] // quarters) // registers_per_warp
    by = {
        "threads": gpu["max_warps_per_sm"] // warps_per_block,  # warp slots
        "registers": warps_per_quarter * quarters // warps_per_block,
        "smem": gpu["smem_per_sm_bytes"] // smem_allocated_bytes,
        "blocks": gpu["max_blocks_per_sm"],  # block slots
    }
    blocks_per_sm = min(by.values())
    limiters = [name for name, n in by.items() if n == blocks_per_sm]  # ties: every binding limit
    active_warps = blocks_per_sm * warps_per_block
    return {
        "warps_per_block": warps_per_block,
        "registers_per_warp": registers_per_warp,
        "registers_per_block": registers_per_block,
        "smem_per_block_allocated_bytes": smem_allocated_bytes,
        "blocks_by": by,
        "blocks_per_sm": blocks_per_sm,
        "limiter": limiters[0],
        "limiters": limiters,
        "active_warps": active_warps,
        "active_threads": blocks_per_sm * threads_per_block,
        "occupancy": active_warps / gpu["max_warps_per_sm"],
        "idle_threads_per_block": warps_per_block * gpu["warp_size"] - threads_per_block,
        "registers_used_per_sm": blocks_per_sm * registers_per_block,
        "smem_used_per_sm_bytes": blocks_per_sm * smem_allocated_bytes,
    }


def launch_error(gpu, threads_per_block, registers_per_thread):
    """Why a block cannot launch at all (the hardware's per-block register check), or None."""
    warps_per_block = div_up(threads_per_block, gpu["warp_size"])
    registers_per_warp = round_up(registers_per_thread * gpu["warp_size"], gpu["register_alloc_unit"])
    # The check assumes the block's warps are spread evenly over the sub-partitions.
    assumed = registers_per_warp * round_up(warps_per_block, gpu["sm_sub_partitions"])
    if max(assumed, registers_per_warp * warps_per_block) > gpu["max_registers_per_block"]:
        return (f"a block of {threads_per_block} threads at {registers_per_thread} registers needs {assumed:,} "
                f"registers, more than the {gpu['max_registers_per_block']:,} one block may use")
    return None


def fill_one_sm(gpu, threads_per_block, registers_per_thread, smem_per_block_bytes):
    """Executed: place blocks on an empty SM one at a time, each warp on the emptiest quarter."""
    warps = div_up(threads_per_block, gpu["warp_size"])
    regs_per_warp = round_up(registers_per_thread * gpu["warp_size"], gpu["register_alloc_unit"])
    smem = round_up(smem_per_block_bytes + gpu["smem_reserved_per_block_bytes"], gpu["smem_alloc_unit_bytes"])
    quarter_free = [gpu["registers_per_sm"] // gpu["sm_sub_partitions"]] * gpu["sm_sub_partitions"]
    warps_free, smem_free, blocks = gpu["max_warps_per_sm"], gpu["smem_per_sm_bytes"], 0
    while blocks < gpu["max_blocks_per_sm"] and warps <= warps_free and smem <= smem_free:
        trial = list(quarter_free)
        for _ in range(warps):
            q = max(range(len(trial)), key=lambda i: trial[i])
            if trial[q] < regs_per_warp:
                return blocks  # no quarter has registers left for this warp
            trial[q] -= regs_per_warp
        quarter_free, warps_free, smem_free, blocks = trial, warps_free - warps, smem_free - smem, blocks + 1
    return blocks


def waves(blocks, sms, blocks_per_sm):
    """Wave quantization of a grid of equal blocks on sms SMs holding blocks_per_sm each."""
    slots = sms * blocks_per_sm
    n_waves = div_up(blocks, slots)
    last = blocks - (n_waves - 1) * slots
    return {"slots": slots, "waves": n_waves, "full_waves": blocks // slots, "last_wave_blocks": last,
            "last_wave_utilization": last / slots, "utilization": blocks / (n_waves * slots)}


def schedule_grid(blocks, sms, blocks_per_sm):
    """Executed: fill the SMs breadth first (one block on every SM per round), let the wave
    finish, repeat. Returns the waves, the blocks of the last one and the SMs it keeps busy."""
    left, n_waves = blocks, 0
    while left > 0:
        running = [0] * sms  # blocks on each SM in this wave
        for _ in range(blocks_per_sm):
            for sm in range(sms):
                if left:
                    running[sm], left = running[sm] + 1, left - 1
        n_waves += 1
    return n_waves, sum(running), sum(1 for n in running if n)


def littles_law(bandwidth_Bps, latency_s, sms, warps_per_sm, bytes_per_warp):
    """Bytes in flight needed = bandwidth x latency; achieved = min(bandwidth, in flight / latency)."""
    needed = bandwidth_Bps * latency_s
    exact = needed / sms / bytes_per_warp
    achieved = min(bandwidth_Bps, sms * warps_per_sm * bytes_per_warp / latency_s)
    return {"needed_bytes_in_flight": needed, "needed_bytes_in_flight_per_sm": needed / sms,
            "warps_needed_per_sm_exact": exact, "warps_needed_per_sm": math.ceil(exact - 1e-9),
            "achieved_bandwidth_Bps": achieved, "fraction_of_peak": achieved / bandwidth_Bps}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="gpu-architecture.py", description="Occupancy of a kernel and the waves of its grid.")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="NVIDIA GPU (default h100-sxm)")
    p.add_argument("--threads", type=int, default=256, help="threads per block (default 256)")
    p.add_argument("--registers", type=int, default=48, help="registers per thread (default 48)")
    p.add_argument("--smem", type=int, default=36864, help="shared memory per block in bytes (default 36864 = 36 KiB)")
    p.add_argument("--blocks", type=int, default=133, help="blocks in the grid for the waves (default 133)")
    p.add_argument("--blocks-per-sm", type=int, default=1, help="blocks each SM holds for the waves (default 1)")
    p.add_argument("--bytes-per-warp", type=int, default=512,
                   help="bytes one warp keeps in flight for Little's law (default 512: 32 float4 loads)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    gpu = HARDWARE[args.hardware]
    for flag, value, low, high in (("threads", args.threads, 1, gpu["max_threads_per_block"]),
                                   ("registers", args.registers, 1, gpu["max_registers_per_thread"]),
                                   ("smem", args.smem, 0, gpu["max_smem_per_block_bytes"]),
                                   ("blocks", args.blocks, 1, 1_000_000),  # the scheduler runs block by block
                                   ("blocks-per-sm", args.blocks_per_sm, 1, gpu["max_blocks_per_sm"]),
                                   ("bytes-per-warp", args.bytes_per_warp, 32, 65536)):
        if not low <= value <= high:
            p.error(f"--{flag} must be a whole number from {low} to {high} on the {gpu['name']}")
    problem = launch_error(gpu, args.threads, args.registers)
    if problem:
        p.error(f"--registers: {problem}; the launch would fail")

    occ = occupancy(gpu, args.threads, args.registers, args.smem)
    filled = fill_one_sm(gpu, args.threads, args.registers, args.smem)
    assert filled == occ["blocks_per_sm"], "filling an SM block by block agrees with the four limits"
    wv = waves(args.blocks, gpu["sms"], args.blocks_per_sm)
    executed_waves, last_blocks, wv["sms_busy_last_wave"] = schedule_grid(args.blocks, gpu["sms"], args.blocks_per_sm)
    assert (executed_waves, last_blocks) == (wv["waves"], wv["last_wave_blocks"]), "the scheduler agrees with ceil(B / S·k)"

    memory = MEMORY.get(args.hardware)  # measured HBM latency: only for some GPUs
    law = memory and littles_law(memory["hbm_bandwidth_Bps"], memory["hbm_latency_s"], gpu["sms"],
                                 occ["active_warps"], args.bytes_per_warp)

    if args.json:
        print(json.dumps({"hardware": args.hardware, "occupancy": occ, "executed_blocks_per_sm": filled,
                          "waves": wv, "littles_law": law}, indent=1))
        return
    print(f"{gpu['name']}: {gpu['sms']} SMs, each with {gpu['max_warps_per_sm']} warp slots,")
    print(f"{gpu['registers_per_sm']:,} registers and {gpu['smem_per_sm_bytes']:,} B of shared memory")
    print()
    print(f"kernel: {args.threads} threads/block, {args.registers} registers/thread, {args.smem:,} B shared memory/block")
    print(f"  warps per block      {occ['warps_per_block']}  (ceil({args.threads} / 32))")
    print(f"  registers per warp   {occ['registers_per_warp']:,}  (32 x {args.registers}, rounded up to 256)")
    print(f"  shared memory/block  {occ['smem_per_block_allocated_bytes']:,} B  (+ 1 KiB reserve, rounded up to 128 B)")
    by = occ["blocks_by"]
    print(f"  blocks per SM by     warp slots {by['threads']}, registers {by['registers']}, "
          f"shared memory {by['smem']}, block slots {by['blocks']}")
    print(f"  -> {occ['blocks_per_sm']} blocks, {occ['active_warps']} warps: occupancy {occ['occupancy']:.1%}, "
          f"limited by {' and '.join(LIMIT_NAMES[n] for n in occ['limiters'])}")
    print(f"  executed: filling one SM block by block fits {filled} blocks")
    print()
    print(f"grid of {args.blocks:,} blocks, {args.blocks_per_sm} per SM: {wv['slots']:,} slots per wave")
    print(f"  {wv['waves']} waves, the last with {wv['last_wave_blocks']:,} block(s) on {wv['sms_busy_last_wave']} SM(s): "
          f"utilization {wv['utilization']:.1%}")

    print()
    if not law:
        print(f"Little's law: the course's table has no measured HBM latency for the {gpu['name']}")
        return
    print(f"Little's law: {memory['hbm_bandwidth_Bps'] / 1e12:.2f} TB/s x {memory['hbm_latency_s'] * 1e9:.0f} ns = "
          f"{law['needed_bytes_in_flight'] / 1e6:.2f} MB in flight, {law['needed_bytes_in_flight_per_sm'] / 1e3:.1f} KB per SM")
    print(f"  at {args.bytes_per_warp} B per warp: {law['warps_needed_per_sm']} warps per SM saturate HBM; this kernel's "
          f"{occ['active_warps']} reach {law['fraction_of_peak']:.0%}")


if __name__ == "__main__":
    main()
