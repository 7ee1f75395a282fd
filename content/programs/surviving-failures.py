"""Surviving failures: how often a synchronous job on N GPUs fails, how often it should save a
checkpoint, and how long saving one takes.

A companion to the lesson "Surviving failures". With independent, exponentially distributed
failures, a job of N GPUs fails every M_cluster = M_gpu / N; the rate comes from failures
observed over some days (by default the Llama 3 405B run's 419 unexpected interruptions in 54
days on 16,384 GPUs, Llama Team 2024, section 3.3.4). A checkpoint holds 14 bytes per parameter
(bf16 weights + fp32 master weights and two Adam moments) and is written at
min(storage bandwidth, writers x per-writer bandwidth); an asynchronous save stalls training only
for the copy of each writer's share to host memory. The wasted share of time at an interval tau
is delta/tau + (tau + delta)/(2M) + R/M (first order; Young's optimum sqrt(2 delta M)) or, for
exponential failures, 1 - tau / (M e^(R/M) (e^((tau+delta)/M) - 1)) (Daly 2006, whose
higher-order interval is printed too). Parameter counts are the course's table, written into
this file when the course was built.

Run:  python3 surviving-failures.py                              the lesson's worked example
      python3 surviving-failures.py --gpus 100000
      python3 surviving-failures.py --failures 12 --days 30 --observed-gpus 2048   your own cluster
      python3 surviving-failures.py --model llama-3-70b --writers 64 --restart-s 60
      python3 surviving-failures.py --json                       the same numbers as JSON
"""
import argparse
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

MODELS = table("models: llama-3-8b, llama-3-70b, llama-3-405b, gpt-3-175b | name, params")

DAY, YEAR = 86400.0, 365.25 * 86400.0


def cluster(gpus, failures, days, observed_gpus):
    """M_gpu from failures seen on observed_gpus over days; the job's MTBF on gpus."""
    gpu_mtbf = observed_gpus * days * DAY / failures
    m = gpu_mtbf / gpus
    return {"gpu_mtbf_s": gpu_mtbf, "failures_per_gpu_per_year": YEAR / gpu_mtbf, "cluster_mtbf_s": m,
            "cluster_mtbf_h": m / 3600, "failures_per_day": DAY / m, "failure_free_day_probability": math.exp(-DAY / m)}


def save(params, bytes_per_param, storage, writers, per_writer, is_async, copy):
    """Bytes, write bandwidth min(storage, writers x per_writer), save time and stall."""
    total = params * bytes_per_param
    bw = min(storage, writers * per_writer)
    write = total / bw
    copy_s = total / writers / copy if is_async else 0.0
    return {"checkpoint_bytes": total, "write_bandwidth_Bps": bw, "bottleneck": "storage" if storage <= writers * per_writer else "writers",
            "write_s": write, "copy_s": copy_s, "save_time_s": write + copy_s, "stall_s": copy_s if is_async else write}


def waste(tau, m, delta, r):
    """First-order waste, at most 1."""
    return min(1.0, delta / tau + (tau + delta) / (2 * m) + r / m)


def waste_exact(tau, m, delta, r):
    """Daly's complete model for exponential failures."""
    try:
        wall = m * math.exp(r / m) * math.expm1((tau + delta) / m) / tau
    except OverflowError:
        return 1.0
    return min(1.0, max(0.0, 1 - 1 / wall))


def intervals(m, delta, r):
    young = math.sqrt(2 * delta * m)
    daly = young * (1 + math.sqrt(delta / (2 * m)) / 3 + delta / (18 * m)) - delta if delta < 2 * m else m
    return {"young_interval_s": young, "daly_interval_s": daly, "goodput": 1 - waste(daly, m, delta, r),
            "goodput_exact": 1 - waste_exact(daly, m, delta, r)}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="surviving-failures.py", description="Cluster MTBF, checkpoint save time and the Young/Daly interval.")
    p.add_argument("--gpus", type=int, default=16384, help="GPUs in the job, 1 to 10,000,000 (default 16,384)")
    p.add_argument("--failures", type=float, default=419, help="failures observed on --observed-gpus GPUs (default 419, Llama 3)")
    p.add_argument("--days", type=float, default=54, help="days they were observed over (default 54)")
    p.add_argument("--observed-gpus", type=int, default=16384, help="GPUs the failures were observed on (default 16,384, Llama 3)")
    p.add_argument("--model", default="llama-3-405b", choices=sorted(MODELS), help="model whose checkpoint is saved (default llama-3-405b)")
    p.add_argument("--writers", type=int, default=128, help="GPUs writing in parallel (default 128)")
    p.add_argument("--per-writer", type=float, default=2e9, help="write bandwidth of one writer, B/s (default 2e9, an assumption)")
    p.add_argument("--storage", type=float, default=2e12, help="storage bandwidth, B/s (default 2e12, Tectonic's sustained rate)")
    p.add_argument("--copy", type=float, default=25e9, help="device-to-host copy per writer, B/s (default 25e9, an assumption)")
    p.add_argument("--restart-s", type=float, default=600, help="restart time after a failure, s (default 600, an assumption)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not 1 <= a.gpus <= 10_000_000:
        p.error("--gpus must be from 1 to 10,000,000")
    for name in ("failures", "days", "per_writer", "storage", "copy"):
        v = getattr(a, name)
        if not (math.isfinite(v) and v > 0):
            p.error(f"--{name.replace('_', '-')} must be a positive number")
    if a.writers < 1:
        p.error("--writers must be at least 1")
    if not 1 <= a.observed_gpus <= 10_000_000:
        p.error("--observed-gpus must be from 1 to 10,000,000")
    if not (math.isfinite(a.restart_s) and a.restart_s >= 0):
        p.error("--restart-s must be zero or more")

    c = cluster(a.gpus, a.failures, a.days, a.observed_gpus)
    params = MODELS[a.model]["params"]
    sync = save(params, 14, a.storage, a.writers, a.per_writer, False, a.copy)
    asyn = save(params, 14, a.storage, a.writers, a.per_writer, True, a.copy)
    m = c["cluster_mtbf_s"]
    sync_iv = intervals(m, sync["stall_s"], a.restart_s)
    async_iv = intervals(m, asyn["stall_s"], a.restart_s)
    at = {str(t): 1 - waste(t, m, sync["stall_s"], a.restart_s) for t in (60, 3600)}
    at_exact = {str(t): 1 - waste_exact(t, m, sync["stall_s"], a.restart_s) for t in (60, 3600)}
    out = {"gpus": a.gpus, "cluster": c, "model": a.model, "params": params, "sync": sync, "async": asyn,
           "sync_intervals": sync_iv, "async_intervals": async_iv, "sync_goodput_at": at, "sync_goodput_exact_at": at_exact,
           "restart_s": a.restart_s, "observed_gpus": a.observed_gpus}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{a.failures:g} failures in {a.days:g} days on {a.observed_gpus:,} GPUs: "
          f"{c['failures_per_gpu_per_year']:.3f} failures per GPU per year (M_gpu = {c['gpu_mtbf_s'] / YEAR:.2f} years)")
    print(f"A job on {a.gpus:,} GPUs fails every {c['cluster_mtbf_h']:.2f} h, {c['failures_per_day']:.2f} times a day; "
          f"a day without failure: {100 * c['failure_free_day_probability']:.3g}%")
    print(f"\n{MODELS[a.model]['name']} checkpoint at 14 B/parameter: {sync['checkpoint_bytes'] / 1e9:,.0f} GB")
    print(f"  write bandwidth min({a.storage / 1e9:,.0f}, {a.writers} x {a.per_writer / 1e9:g}) GB/s = "
          f"{sync['write_bandwidth_Bps'] / 1e9:,.0f} GB/s ({sync['bottleneck']}-bound)")
    print(f"  synchronous: stall {sync['stall_s']:.2f} s")
    print(f"  asynchronous: stall {asyn['stall_s']:.2f} s, on storage after {asyn['save_time_s']:.2f} s")
    for name, iv, s in (("synchronous", sync_iv, sync), ("asynchronous", async_iv, asyn)):
        print(f"\n{name} (delta = {s['stall_s']:.2f} s, R = {a.restart_s:g} s, M = {m:,.0f} s):")
        print(f"  Young sqrt(2 delta M) = {iv['young_interval_s']:.0f} s, Daly = {iv['daly_interval_s']:.0f} s")
        print(f"  goodput at Daly: {100 * iv['goodput_exact']:.1f}% (Daly's exact model; first order {100 * iv['goodput']:.1f}%)")
    print(f"\nsynchronous, checkpointing every hour: {100 * at_exact['3600']:.1f}% (first order {100 * at['3600']:.1f}%); "
          f"every minute: {100 * at_exact['60']:.1f}% (first order {100 * at['60']:.1f}%)")


if __name__ == "__main__":
    main()
