"""SGD, momentum and Adam on an ill-conditioned quadratic, learning-rate schedules, state bytes.

A companion to the lesson "SGD, momentum and Adam". It runs five optimizers with PyTorch's
update rules on f(x, y) = 1/2 (x^2 + kappa y^2), checks plain gradient descent against its
exact iterates (1 - lr)^k and (1 - lr kappa)^k and its stability limit lr < 2/kappa, computes
the learning rate of a warm-up + cosine or WSD schedule at any step, and counts the bytes of
model states per parameter (weights, gradients, fp32 master weights, optimizer state).

Run:  python3 optimizers.py                     the lesson's worked example (kappa 50, lr 0.025)
      python3 optimizers.py --condition 100 --lr 0.015 --steps 200
      python3 optimizers.py --json              the same numbers as JSON
"""
import argparse
import json
import math
import sys

OPTIMIZERS = ("sgd", "momentum", "nesterov", "adam", "adamw")


def loss(x, y, kappa, c=1.0, s=0.0):
    """1/2 (a^2 + kappa b^2) in the valley's own axes (a, b) = R^T (x, y), R turning by (c, s)."""
    a, b = c * x + s * y, -s * x + c * y
    return 0.5 * (a * a + kappa * b * b)


def noise_stream(seed):
    """The engine's gradient noise: SplitMix64 from mix_seed(seed, FNV-1a of the calculator's name)."""
    gamma, mask = 0x9E3779B97F4A7C15, 2 ** 64 - 1
    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)
    salt = 0xCBF29CE484222325
    for ch in b"optimizer-trajectory":
        salt = ((salt ^ ch) * 0x100000001B3) & mask
    state = mix(mix((salt + gamma) & mask) ^ mix(seed & mask))
    while True:
        state = (state + gamma) & mask
        yield (mix(state) >> 11) * 2.0 ** -53


def trajectory(optimizer, lr, kappa, steps, start=(1.0, 1.0), momentum=0.9, beta1=0.9, beta2=0.999,
               eps=1e-8, weight_decay=0.0, rotation=0.0, noise=0.0, seed=1, schedule=None):
    """Iterates of one optimizer, step 0 (the start) first, as torch.optim does them.

    weight_decay is L2 (added to the gradient) except for adamw, which shrinks the weights
    directly before its Adam step. rotation turns the valley and the start by that many degrees;
    noise adds uniform noise of that standard deviation to each gradient coordinate; schedule,
    a dict of lr_at's keywords, sets update t's learning rate to lr_at(t - 1, peak=lr). The path
    ends at the first step whose loss exceeds 10^6 times the start loss (diverged), or before a
    step whose loss is not finite.
    """
    c, s = (math.cos(math.radians(rotation)), math.sin(math.radians(rotation))) if rotation else (1.0, 0.0)
    p = [c * start[0] - s * start[1], s * start[0] + c * start[1]]
    rng = noise_stream(seed)
    buf = [0.0, 0.0]  # momentum's velocity v, or Adam's first moment m
    sq = [0.0, 0.0]  # Adam's second moment v
    start_loss = loss(p[0], p[1], kappa, c, s)
    path = [{"step": 0, "x": p[0], "y": p[1], "loss": start_loss}]
    base = lr
    for t in range(1, steps + 1):
        if schedule:
            lr = lr_at(t - 1, peak=base, total=steps, **schedule)
        a, b = c * p[0] + s * p[1], -s * p[0] + c * p[1]  # the gradient R diag(1, kappa) R^T p
        grad = [c * a - s * kappa * b, s * a + c * kappa * b] if rotation else [p[0], kappa * p[1]]
        if noise:
            grad = [g + math.sqrt(3) * noise * (2 * next(rng) - 1) for g in grad]  # variance noise^2
        new = list(p)
        for i in range(2):
            g = grad[i] + (weight_decay * p[i] if optimizer != "adamw" else 0.0)
            if optimizer == "sgd":
                new[i] = p[i] - lr * g
            elif optimizer in ("momentum", "nesterov"):
                buf[i] = momentum * buf[i] + g  # v <- mu v + g
                step = g + momentum * buf[i] if optimizer == "nesterov" else buf[i]
                new[i] = p[i] - lr * step
            else:
                w = p[i] * (1 - lr * weight_decay) if optimizer == "adamw" else p[i]  # decoupled decay
                buf[i] = beta1 * buf[i] + (1 - beta1) * g
                sq[i] = beta2 * sq[i] + (1 - beta2) * g * g
                m_hat = buf[i] / (1 - beta1 ** t)  # bias correction of the zero start
                v_hat = sq[i] / (1 - beta2 ** t)
                new[i] = w - lr * m_hat / (math.sqrt(v_hat) + eps)
        value = loss(new[0], new[1], kappa, c, s) if all(math.isfinite(v) for v in new) else math.inf
        if not math.isfinite(value):
            return {"path": path, "diverged": True, "diverged_step": t}
        p = new
        path.append({"step": t, "x": p[0], "y": p[1], "loss": value})
        if value > 1e6 * start_loss:
            return {"path": path, "diverged": True, "diverged_step": t}
    return {"path": path, "diverged": False, "diverged_step": None}


def late_mean_loss(path):
    """Mean loss over the path's last tenth of points (at least one): the level noise settles at."""
    tail = max(1, (len(path) - 1) // 10)
    return sum(q["loss"] for q in path[-tail:]) / tail


def lr_at(t, schedule="constant", peak=1.0, total=1, warmup=0, minimum=0.0, decay_steps=None, step_size=None, gamma=0.1):
    """Learning rate at step t = 0 ... total - 1: a linear warm-up from 0, then the decay."""
    if t < warmup:
        return peak * t / warmup
    p = (t - warmup) / (total - warmup)  # fraction of the decay phase done
    if schedule == "constant":
        return peak
    if schedule == "step":
        return max(minimum, peak * gamma ** ((t - warmup) // step_size))
    if schedule == "linear":
        return minimum + (peak - minimum) * (1 - p)
    if schedule in ("cosine", "warmup-cosine"):
        return minimum + (peak - minimum) * 0.5 * (1 + math.cos(math.pi * p))
    if schedule == "wsd":  # hold the peak, then decay linearly over the last decay_steps
        start = total - decay_steps
        return peak if t < start else peak - (peak - minimum) * (t - start) / decay_steps
    raise ValueError(schedule)


def state_bytes(optimizer, weight_bytes=2, master=True, rows=4096, cols=4096):
    """Bytes per parameter of the model states: weights, grads, fp32 master copy, optimizer state."""
    states = {"sgd": 0, "momentum": 4, "adam": 8, "adamw": 8, "adam-8bit": 2,  # fp32 = 4 B, 8-bit = 1 B
              "adafactor": 4 * (rows + cols) / (rows * cols)}[optimizer]  # a row and a column of fp32
    parts = {"weights": weight_bytes, "grads": weight_bytes,
             "master": 4 if master and weight_bytes < 4 else 0, "states": states}
    scales = 8 / 2048 if optimizer == "adam-8bit" else 0  # fp32 absmax per 2,048-value block of m and v
    # One fused optimizer step reads the gradient, the weights it updates and the state, and writes
    # those weights, the state and (with a master) the 16-bit working copy: every byte once.
    updated = parts["master"] or weight_bytes
    step = parts["grads"] + 2 * updated + 2 * states + (weight_bytes if parts["master"] else 0)
    return {"breakdown": parts, "bytes_per_param": sum(parts.values()), "block_scale_bytes_per_param": scales,
            "step_bytes_per_param": step}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="optimizers.py", description="Optimizers on an ill-conditioned quadratic; schedules; state bytes.")
    p.add_argument("--condition", type=float, default=50, help="kappa, the curvature along y (default 50)")
    p.add_argument("--lr", type=float, default=0.025, help="learning rate (default 0.025)")
    p.add_argument("--steps", type=int, default=100, help="updates (default 100)")
    p.add_argument("--weight-decay", type=float, default=0.1, help="Adam (L2) and AdamW (decoupled) (default 0.1)")
    p.add_argument("--rotation", type=float, default=0, help="turn the valley by this many degrees (default 0)")
    p.add_argument("--noise", type=float, default=1, help="gradient noise of the schedule comparison (default 1)")
    p.add_argument("--seed", type=int, default=1, help="seed of that noise (default 1)")
    p.add_argument("--params", type=float, default=7e9, help="parameters, for the state bytes (default 7e9)")
    p.add_argument("--bandwidth", type=float, default=3.35e12, help="HBM bytes/s for the step time (default H100 SXM 3.35e12)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not 1 <= a.condition <= 1e6:
        p.error("--condition must be from 1 to 1e6")
    if not 0 < a.lr <= 100:
        p.error("--lr must be above 0 and at most 100")
    if not 1 <= a.steps <= 20000:
        p.error("--steps must be a whole number from 1 to 20000")
    if not -180 <= a.rotation <= 180:
        p.error("--rotation must be from -180 to 180 degrees")
    if not 0 <= a.noise <= 1000 or not 0 <= a.seed <= 2 ** 32 - 1:
        p.error("--noise must be from 0 to 1000 and --seed from 0 to 4294967295")
    if not 0 < a.bandwidth <= 1e16:
        p.error("--bandwidth must be above 0 and at most 1e16")
    if not 0 <= a.weight_decay <= 10:
        p.error("--weight-decay must be from 0 to 10")
    if not 1 <= a.params <= 1e13:
        p.error("--params must be from 1 to 1e13")

    runs = {o: trajectory(o, a.lr, a.condition, a.steps, weight_decay=a.weight_decay if o.startswith("adam") else 0.0,
                          rotation=a.rotation) for o in OPTIMIZERS}
    adam_no_decay = trajectory("adam", a.lr, a.condition, a.steps, rotation=a.rotation)["path"][-1]["loss"]
    # Noisy gradient descent on kappa = 10 at peak lr 0.02: the mean loss of the last tenth per schedule.
    noisy = {name: late_mean_loss(trajectory("sgd", 0.02, 10, 10000, noise=a.noise, seed=a.seed,
                                             schedule=dict(schedule=name, warmup=1000, **extra))["path"])
             for name, extra in (("constant", {}), ("warmup-cosine", {}), ("step", {"step_size": 3000}),
                                 ("wsd", {"decay_steps": 2000}))}
    gd = runs["sgd"]["path"]
    # Gradient descent's exact iterates: x_k = (1 - lr)^k x0, y_k = (1 - lr kappa)^k y0.
    k = len(gd) - 1
    if not a.rotation:
        assert math.isclose(gd[k]["x"], (1 - a.lr) ** k, rel_tol=1e-9, abs_tol=1e-300)
        assert math.isclose(gd[k]["y"], (1 - a.lr * a.condition) ** k, rel_tol=1e-9, abs_tol=1e-300)
    limit = 2 / a.condition  # lr < 2 / lambda_max, and lambda_max = kappa
    adam_first = trajectory("adam", a.lr, a.condition, 1)["path"][1]
    sched = {"warmup_end": lr_at(1000, "warmup-cosine", 3e-4, 10000, 1000),
             "cosine_midpoint": lr_at(5500, "warmup-cosine", 3e-4, 10000, 1000),
             "wsd_at_9000": lr_at(9000, "wsd", 3e-4, 10000, 1000, decay_steps=2000)}
    states = {o: state_bytes(o) for o in ("sgd", "momentum", "adam", "adam-8bit", "adafactor")}
    totals_gb = {o: s["bytes_per_param"] * a.params / 1e9 for o, s in states.items()}
    step_s = states["adam"]["step_bytes_per_param"] * a.params / a.bandwidth

    if a.json:
        print(json.dumps({
            "condition": a.condition, "lr": a.lr, "steps": a.steps,
            "runs": {o: {"final_loss": r["path"][-1]["loss"], "x": r["path"][-1]["x"], "y": r["path"][-1]["y"],
                         "diverged": r["diverged"], "diverged_step": r["diverged_step"]} for o, r in runs.items()},
            "gd_first_y": gd[1]["y"] if len(gd) > 1 else None, "max_stable_lr": limit,
            "adam_first_step": adam_first, "adam_no_decay_loss": adam_no_decay, "schedule": sched,
            "noisy_late_mean_loss": noisy, "states": states, "totals_GB": totals_gb, "adam_step_time_s": step_s}, indent=1))
        return
    turned = f", valley turned {a.rotation:g} degrees" if a.rotation else ""
    print(f"f(x, y) = 1/2 (x^2 + {a.condition:g} y^2){turned}, loss {gd[0]['loss']:g} at the start; lr {a.lr:g}, {a.steps} steps")
    print(f"gradient descent, along the valley's axes: y is multiplied by 1 - lr*kappa = {1 - a.lr * a.condition:g} and x by 1 - lr = {1 - a.lr:g} per step")
    print(f"stable only while lr < 2/kappa = {limit:g}")
    print()
    for o, r in runs.items():
        last = r["path"][-1]
        end = f"diverged at step {r['diverged_step']}" if r["diverged"] else f"loss {last['loss']:.4g}"
        print(f"  {o:<9} x {last['x']:+.4g}  y {last['y']:+.4g}  {end}")
    print()
    why = "with the valley turned, L2 is no longer a per-parameter rescaling" if a.rotation else "Adam's division cancels L2 here"
    print(f"Adam without weight decay: loss {adam_no_decay:.4g} ({why})")
    print(f"Adam's first step: ({adam_first['x']:.4g}, {adam_first['y']:.4g}), each coordinate moved by about lr")
    print(f"warm-up + cosine (peak 3e-4, 1,000 of 10,000 steps): {sched['warmup_end']:.3g} at step 1,000, "
          f"{sched['cosine_midpoint']:.3g} at step 5,500")
    print(f"noisy gradient descent (kappa 10, peak lr 0.02, noise {a.noise:g}, seed {a.seed}), mean loss of the last tenth:")
    print("  " + "  ".join(f"{n} {v:.3g}" for n, v in noisy.items()))
    print()
    print(f"model states per parameter (bf16 weights and gradients, fp32 master), for {a.params:.3g} parameters:")
    for o, s in states.items():
        print(f"  {o:<9} {s['bytes_per_param']:.4g} B/param  {totals_gb[o]:,.1f} GB")
    print(f"one mixed-precision AdamW step moves {states['adam']['step_bytes_per_param']:g} B/param: "
          f"{step_s * 1e3:.3g} ms at {a.bandwidth / 1e12:g} TB/s (memory-bound)")


if __name__ == "__main__":
    main()
