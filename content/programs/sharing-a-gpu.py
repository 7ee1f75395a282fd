"""Sharing one GPU: small jobs run exclusively, time-sliced, under MPS or on MIG instances,
and which MIG layouts fit a GPU.

A companion to the lesson "Sharing one GPU". A job takes T seconds alone on the whole GPU and
keeps a share f of its SMs busy; its work is f*T whatever the sharing. n jobs wait at t = 0:
  exclusive     one job at a time:                     makespan n*T
  time-slicing  round robin in slices of q, a switch of c after each preempted slice:
                                                       makespan n*T + n*(ceil(T/q) - 1)*c
  MPS           k running jobs get min(f, 1/k) of the SMs each (at most 48 clients):
                                                       makespan T*max(1, n*f)
  MIG           K instances of SM share s, one job each, speed min(f, s)/f:
                                                       makespan ceil(n/K)*T*f/min(f, s)
Utilization (busy SMs / all SMs over the makespan) is n*f*T / makespan. The simulation below
runs the jobs event by event and checks itself against these formulas.

MIG profiles (NVIDIA MIG User Guide, Supported MIG Profiles; SMs as nvidia-smi mig -lgip lists
them): an instance takes a run of the 8 memory slices starting only at its allowed slots
(1g: 0-6, 1g with double memory: 0,2,4,6, 2g: 0,2,4, 3g: 0,4, 4g and 7g: 0); instances may not
share a memory slice; one +me instance at most. The GPUs' names and SM counts come from the
course's hardware table, written into this file when the course was built.

Run:  python3 sharing-a-gpu.py                                   the lesson's worked example
      python3 sharing-a-gpu.py --jobs 4 --f 0.25 --time-ms 20
      python3 sharing-a-gpu.py --gpu a100-sxm-80gb --layout 3g.40gb,3g.40gb,1g.10gb
      python3 sharing-a-gpu.py --json                            the same numbers as JSON
"""
import argparse
import itertools
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm | name, sms, hbm_bytes")

# (memory in the names for 1, 2, 4 and 8 memory slices; SMs of 1g, 1g double memory, 2g, 3g, 4g, 7g)
MIG = {
    "a100-sxm-80gb": (("10gb", "20gb", "40gb", "80gb"), (14, 14, 28, 42, 56, 98)),
    "h100-sxm": (("10gb", "20gb", "40gb", "80gb"), (16, 26, 32, 60, 64, 132)),
    "h200-sxm": (("18gb", "35gb", "71gb", "141gb"), (16, 26, 32, 60, 64, 132)),
}
MPS_CLIENTS = 48


def profiles(gpu):
    """name -> (compute slices, memory slices, SMs, max instances, allowed starts, media extensions)"""
    (m1, m2, m4, m8), (s1, s1d, s2, s3, s4, s7) = MIG[gpu]
    return {f"1g.{m1}": (1, 1, s1, 7, range(7), False), f"1g.{m1}+me": (1, 1, s1, 1, range(7), True),
            f"1g.{m2}": (1, 2, s1d, 4, (0, 2, 4, 6), False), f"2g.{m2}": (2, 2, s2, 3, (0, 2, 4), False),
            f"3g.{m4}": (3, 4, s3, 2, (0, 4), False), f"4g.{m4}": (4, 4, s4, 1, (0,), False),
            f"7g.{m8}": (7, 8, s7, 1, (0,), False)}


def check_layout(gpu, names):
    """Whether the instances fit: counts, slices, then every placement (at most 7 instances)."""
    table = profiles(gpu)
    rows = [table[n] for n in names]
    used = {"compute_slices_used": sum(r[0] for r in rows), "memory_slices_used": sum(r[1] for r in rows),
            "sms_used": sum(r[2] for r in rows)}
    used["sm_fraction_used"] = used["sms_used"] / HARDWARE[gpu]["sms"]
    ok = (all(names.count(n) <= table[n][3] for n in set(names)) and sum(r[5] for r in rows) <= 1
          and len(rows) <= 7 and used["compute_slices_used"] <= 7 and used["memory_slices_used"] <= 8)
    placement = None
    if ok:
        for starts in itertools.product(*(r[4] for r in rows)):
            cells = [m for r, s in zip(rows, starts) for m in range(s, s + r[1])]
            if max(cells) < 8 and len(cells) == len(set(cells)):
                placement = list(starts)
                break
    return {"valid": placement is not None, "placement": placement, **used}


def simulate(mode, n, f, t, q, c, lanes=1, speed=1.0):
    """Finish times of n equal jobs waiting at t = 0; returns makespan, mean latency, switches."""
    if mode == "exclusive" or mode == "mig":  # lanes of one job each, at `speed`
        ends = [(i // lanes + 1) * t / speed for i in range(n)]
        return max(ends), sum(ends) / n, 0
    if mode == "mps":  # processor sharing: all equal, so all run together
        ends, now, left = [], 0.0, n
        while left:
            k = min(left, MPS_CLIENTS)
            now += t * max(1.0, k * f)
            ends += [now] * k
            left -= k
        return now, sum(ends) / n, 0
    remaining, queue, now, ends, switches = [t] * n, list(range(n)), 0.0, [0.0] * n, 0
    while queue:  # time-slicing: round robin, executed slice by slice
        j = queue.pop(0)
        run = min(q, remaining[j])
        now += run
        remaining[j] -= run
        if remaining[j] > 1e-12 * t:
            if queue:
                now += c
                switches += 1
            queue.append(j)
        else:
            ends[j] = now
    return now, sum(ends) / n, switches


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="sharing-a-gpu.py", description="Small jobs sharing one GPU four ways, and MIG layouts.")
    p.add_argument("--jobs", type=int, default=28, help="jobs waiting at t = 0, 1 to 512 (default 28)")
    p.add_argument("--f", type=float, default=0.1, help="share of the SMs one job keeps busy, (0, 1] (default 0.1)")
    p.add_argument("--time-ms", type=float, default=10, help="time of one job alone on the GPU, ms (default 10)")
    p.add_argument("--slice-ms", type=float, default=2, help="time-slicing: slice length, ms (default 2)")
    p.add_argument("--switch-us", type=float, default=100, help="time-slicing: context switch, µs (default 100, an assumption)")
    p.add_argument("--gpu", default="h100-sxm", choices=sorted(MIG), help="GPU of the MIG tables (default h100-sxm)")
    p.add_argument("--mig", default="1g", choices=["1g", "2g", "3g", "4g", "7g"], help="MIG instance size (default 1g)")
    p.add_argument("--layout", default="4g.40gb,3g.40gb", help="MIG profile names, comma-separated (default 4g.40gb,3g.40gb)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not 1 <= a.jobs <= 512:
        p.error("--jobs must be from 1 to 512")
    if not (math.isfinite(a.f) and 0 < a.f <= 1):
        p.error("--f must be in (0, 1]")
    for name in ("time_ms", "slice_ms"):
        if not (math.isfinite(getattr(a, name)) and getattr(a, name) > 0):
            p.error(f"--{name.replace('_', '-')} must be a positive number")
    if not (math.isfinite(a.switch_us) and a.switch_us >= 0):
        p.error("--switch-us must be zero or more")
    if a.jobs * math.ceil(a.time_ms / a.slice_ms) > 2_000_000:
        p.error("too many slices to execute: raise --slice-ms or lower --jobs")
    table = profiles(a.gpu)
    names = [s.strip() for s in a.layout.split(",") if s.strip()]
    bad = [s for s in names if s not in table]
    if not names or bad:
        p.error(f"--layout: profiles of {a.gpu} are {', '.join(table)}")

    n, f, t, q, c = a.jobs, a.f, a.time_ms / 1e3, a.slice_ms / 1e3, a.switch_us / 1e6
    size = int(a.mig[0])
    mig_name, mig = min(((k, v) for k, v in table.items() if v[0] == size and not v[5]), key=lambda kv: kv[1][1])
    share = mig[2] / HARDWARE[a.gpu]["sms"]
    modes = {}
    for mode in ("exclusive", "time-slicing", "mps", "mig"):
        lanes, speed = (mig[3], min(f, share) / f) if mode == "mig" else (1, 1.0)
        makespan, latency, switches = simulate(mode, n, f, t, q, c, lanes, speed)
        modes[mode] = {"makespan_s": makespan, "throughput_jobs_per_s": n / makespan, "mean_latency_s": latency,
                       "utilization": min(1.0, n * f * t / makespan), "context_switches": switches}
    closed = {"exclusive": n * t, "time-slicing": n * t + (n * (math.ceil(t / q * (1 - 1e-12)) - 1) * c if n > 1 else 0),
              "mps": t * max(1.0, n * f) if n <= MPS_CLIENTS else None, "mig": math.ceil(n / mig[3]) * t / (min(f, share) / f)}
    for mode, want in closed.items():
        if want is not None:
            assert abs(modes[mode]["makespan_s"] - want) <= 1e-9 * want, (mode, modes[mode]["makespan_s"], want)
    layout = check_layout(a.gpu, names)
    out = {"jobs": n, "job_sm_fraction": f, "job_time_s": t, "gpu": a.gpu, "mig_instance": mig_name,
           "mig_instances": mig[3], "modes": modes, "layout": {"names": names, **layout}}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{n} jobs of {a.time_ms:g} ms alone, each keeping {100 * f:g}% of the SMs busy, all waiting at t = 0:")
    for mode, r in modes.items():
        label = f"mig ({mig[3]} x {mig_name})" if mode == "mig" else mode
        print(f"  {label:22s} makespan {1e3 * r['makespan_s']:8.1f} ms, {r['throughput_jobs_per_s']:7.1f} jobs/s, "
              f"mean latency {1e3 * r['mean_latency_s']:7.1f} ms, utilization {100 * r['utilization']:5.1f}%")
    print(f"  time-slicing: {modes['time-slicing']['context_switches']} context switches of {a.switch_us:g} µs")
    gpu = HARDWARE[a.gpu]
    verdict = ("fits: " + ", ".join(f"{nm} at memory slice {st}" for nm, st in zip(names, layout["placement"]))
               if layout["valid"] else "does not fit")
    print(f"\nMIG layout {' + '.join(names)} on the {gpu['name']}: {verdict}")
    if layout["valid"]:
        print(f"  {layout['compute_slices_used']} of 7 compute slices, {layout['memory_slices_used']} of 8 memory slices, "
              f"{layout['sms_used']} of {gpu['sms']} SMs ({100 * layout['sm_fraction_used']:.0f}%)")
    else:  # no such partition exists, so it holds no SMs
        print(f"  it needs {layout['compute_slices_used']} of 7 compute slices and {layout['memory_slices_used']} of 8 memory slices")


if __name__ == "__main__":
    main()
