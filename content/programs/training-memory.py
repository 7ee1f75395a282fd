"""Training memory: the bytes of weights, gradients, optimizer state and activations on one GPU.

A companion to the lesson "Training memory: model states, activations and checkpointing". It
follows the lesson's sections: counting parameters, sixteen bytes per parameter, ZeRO's three
stages, the activations of a layer (Korthikanti et al.: s·b·h·(18 + m + 5·a·s/h) bytes, with
m = 16 for a 4h MLP and 6·f/h for a gated one), tensor, sequence and pipeline parallelism,
activation checkpointing of every k-th layer, the memory of one step walked event by event,
and the worked example "does Llama 2 7B fit on H100s?" with the one-GPU options (fp32 gradient
buffers, 8-bit Adam, CPU offload). The formulas are the engine's training-memory calculators';
the model shapes and HBM sizes are the course's tables, written in when the course was built.

Run:  python3 training-memory.py                      Llama 2 7B at 4,096 tokens on H100s
      python3 training-memory.py --model gpt-3-175b --tp 8 --pp 8 --sequence-parallel --flash-attention
      python3 training-memory.py --model llama-3-8b --micro-batch 2 --recompute full --json
"""
import argparse
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

MODELS = table("models: gpt-2-124m, gpt-3-175b, opt-13b, llama-2-7b, llama-2-13b, llama-2-70b, llama-3-8b, mistral-7b | name, layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab, seq, gated_mlp, tied_embeddings")
HARDWARE = table("hardware: a100-sxm-80gb, h100-sxm, h200-sxm, b200, mi300x | name, hbm_bytes")


def counts(m):
    """Parameters: attention (own K/V heads), 2 or 3 MLP matrices, two norm gains a layer, final norm, embeddings."""
    q, kv = m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
    per_layer = 2 * m["hidden"] * q + 2 * m["hidden"] * kv + (3 if m["gated_mlp"] else 2) * m["hidden"] * m["ffn_hidden"] + 2 * m["hidden"]
    embedding = (1 if m["tied_embeddings"] else 2) * m["vocab"] * m["hidden"]
    non_embedding = m["layers"] * per_layer + m["hidden"]
    params_flops = non_embedding + m["vocab"] * m["hidden"]  # the output head multiplies, the input lookup does not
    return {"params": non_embedding + embedding, "params_per_layer": per_layer, "params_embedding": embedding,
            "flops_per_token_training": 6 * params_flops + 12 * m["layers"] * m["heads"] * m["head_dim"] * m["seq"]}


def bytes_per_param(st):
    """(weights, gradients, optimizer) bytes: mixed precision keeps an fp32 master copy in the optimizer's share."""
    adam = st["optimizer"] != "sgd"
    w, g, opt = (4, 4, 8 if adam else 4) if st["dtype"] == "fp32" else (2, 2, 12 if adam else 8)
    if st["optimizer"] == "adam-8bit":
        opt -= 6  # two fp32 moments (8 bytes) become 1 byte each
    return w, 4 if st["fp32_grads"] else g, opt


def activation_bytes_per_layer(m, st, recompute):
    """16-bit activations one layer stores for one micro-batch (Korthikanti et al. 2022, section 4.1)."""
    s, b, h, a, t = m["seq"], st["micro_batch"], m["hidden"], m["heads"], st["tp"]
    sbh = s * b * h
    if recompute == "full":
        return 2 * sbh / (t if st["sequence_parallel"] else 1)  # only the layer's input
    mlp = (6 if m["gated_mlp"] else 4) * m["ffn_hidden"] / h
    replicated, split = 10, 8 + mlp  # norms, matmul inputs and masks; Q, K, V, projections and the MLP
    linear = (replicated + split) / t if st["sequence_parallel"] else replicated + split / t
    quadratic = 0 if recompute == "selective" or st["flash_attention"] else 5 * a * s / (h * t)  # s×s scores
    return sbh * (linear + quadratic)


def training_memory(m, st, params_override=None):
    c = counts(m)
    tp, pp, L = st["tp"], st["pp"], math.ceil(m["layers"] / st["pp"])
    if params_override:
        params_gpu = params_override / (tp * pp)
    else:  # the first pipeline stage: its layers and the input embedding (and, unpipelined, norm and head)
        stage = L * c["params_per_layer"] + m["vocab"] * m["hidden"]
        if pp <= 1:
            stage += m["hidden"] + (0 if m["tied_embeddings"] else m["vocab"] * m["hidden"])
        params_gpu = stage / tp
    w, g, o = bytes_per_param(st)
    z, dp = st["zero_stage"], st["dp"]
    states = {"weights_bytes": params_gpu * w / (dp if z >= 3 else 1), "grads_bytes": params_gpu * g / (dp if z >= 2 else 1),
              "optimizer_bytes": params_gpu * o / (dp if z >= 1 else 1), "offloaded_bytes": 0.0}
    if st["cpu_offload"]:  # ZeRO-Offload: gradients and the optimizer step live in CPU memory
        states["offloaded_bytes"] = states["grads_bytes"] + states["optimizer_bytes"]
        states["grads_bytes"] = states["optimizer_bytes"] = 0.0
    act = (4 if st["dtype"] == "fp32" else 2) / 2  # Korthikanti counts 16-bit activations; fp32 doubles them
    per_layer = act * activation_bytes_per_layer(m, st, st["recompute"])
    sbh = m["seq"] * st["micro_batch"] * m["hidden"]
    embed = pp * sbh / (tp if st["sequence_parallel"] else 1)  # the embedding's dropout mask, per micro-batch in flight
    if pp <= 1:
        embed += 4 * sbh * (1 + m["vocab"] / m["hidden"]) / tp  # final norm, logits and fp32 loss
    # the backward pass re-makes one layer on top of the stored ones: all of it (full), its scores (selective)
    whole = act * activation_bytes_per_layer(m, st, "none")
    remade = {"none": 0.0, "full": whole, "selective": whole - act * activation_bytes_per_layer(m, st, "selective")}
    out_layer = act * 4 * sbh * (1 + m["vocab"] / m["hidden"]) / tp if pp <= 1 else 0.0  # freed before that
    r = {"params": params_override or c["params"], "params_per_gpu": params_gpu, **states,
         "model_states_bytes": states["weights_bytes"] + states["grads_bytes"] + states["optimizer_bytes"],
         "activations_per_layer_bytes": per_layer, "activations_layers_bytes": pp * L * per_layer,
         "activations_embedding_bytes": act * embed, "recompute_bytes": remade[st["recompute"]]}
    r["activations_bytes"] = (r["activations_layers_bytes"] + r["activations_embedding_bytes"]
                              + max(0.0, r["recompute_bytes"] - out_layer))  # the step's peak
    r["total_bytes"] = r["model_states_bytes"] + r["activations_bytes"]
    return r


def step_peak(m, st, persistent_grads):
    """Walks one micro-batch event by event on the first stage (pp - 1 earlier micro-batches held, as in 1F1B)."""
    tm, c, pp = training_memory(m, st), counts(m), st["pp"]
    L = math.ceil(m["layers"] / pp)
    w, o, G = tm["weights_bytes"], tm["optimizer_bytes"], tm["grads_bytes"]
    act = 2 if st["dtype"] == "fp32" else 1
    head = (m["hidden"] + (0 if m["tied_embeddings"] else m["vocab"] * m["hidden"])) if pp <= 1 else 0
    denom = L * c["params_per_layer"] + m["vocab"] * m["hidden"] + head
    layer_share, head_share = c["params_per_layer"] / denom, head / denom  # gradients arrive with the parameters
    mask = act * m["seq"] * st["micro_batch"] * m["hidden"] / (st["tp"] if st["sequence_parallel"] else 1)
    out_layer = tm["activations_embedding_bytes"] - pp * mask  # logits and loss (0 when pp > 1)
    grads, acts, peak, phase = G if persistent_grads else 0.0, (pp - 1) * (mask + L * tm["activations_per_layer_bytes"]), -1.0, ""

    def push(name):
        nonlocal peak, phase
        if w + grads + o + acts > peak:
            peak, phase = w + grads + o + acts, name

    push("start")
    acts += mask
    for _ in range(L):
        acts += tm["activations_per_layer_bytes"]
        push("forward")
    if pp <= 1:
        acts += out_layer
        push("forward")
        acts -= out_layer
        grads += 0 if persistent_grads else head_share * G
        push("backward")
    for _ in range(L):
        if tm["recompute_bytes"] > 0:
            acts += tm["recompute_bytes"]
            push("recompute")
            acts -= tm["recompute_bytes"]
        acts -= tm["activations_per_layer_bytes"]
        grads += 0 if persistent_grads else layer_share * G
        push("backward")
    acts, grads = 0.0, G
    push("backward")
    push("optimizer")
    return {"peak_bytes": peak, "peak_phase": phase}


def checkpoint_every_k(m, st, k):
    """Keep every k-th layer's input; the backward pass re-runs one k-layer segment at a time."""
    full = activation_bytes_per_layer(m, st, "none")
    stored = math.ceil(m["layers"] / k) * activation_bytes_per_layer(m, st, "full")
    return {"k": k, "stored_bytes": stored, "peak_bytes": stored + k * full}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="training-memory.py", description="Bytes per GPU of a training step.")
    p.add_argument("--model", default="llama-2-7b", choices=sorted(MODELS), help="model (default llama-2-7b)")
    p.add_argument("--hardware", default="h100-sxm", choices=sorted(HARDWARE), help="accelerator (default h100-sxm)")
    p.add_argument("--seq", type=int, help="tokens per sequence (default: the model's, 4096 for Llama 2)")
    p.add_argument("--micro-batch", type=int, default=1, help="sequences per micro-batch (default 1)")
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp16", "fp32"], help="weights and gradients (default bf16)")
    p.add_argument("--optimizer", default="adam", choices=["adam", "adam-8bit", "sgd"], help="optimizer (default adam)")
    p.add_argument("--zero-stage", type=int, default=0, help="ZeRO stage 0-3 of your setup (default 0)")
    p.add_argument("--dp", type=int, default=8, help="data-parallel GPUs (default 8)")
    p.add_argument("--tp", type=int, default=1, help="tensor-parallel degree, divides the heads (default 1)")
    p.add_argument("--pp", type=int, default=1, help="pipeline stages (default 1)")
    p.add_argument("--sequence-parallel", action="store_true", help="shard the non-matmul activations over tp")
    p.add_argument("--flash-attention", action="store_true", help="never store the s×s scores")
    p.add_argument("--recompute", default="none", choices=["none", "selective", "full"], help="recomputation (default none)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    m = dict(MODELS[a.model])
    m["seq"] = a.seq if a.seq is not None else m["seq"]
    for flag, lo, hi in (("seq", 1, 1_048_576), ("micro_batch", 1, 4096), ("zero_stage", 0, 3), ("dp", 1, 1_048_576),
                         ("tp", 1, 1024), ("pp", 1, m["layers"])):
        v = m["seq"] if flag == "seq" else getattr(a, flag)
        if not lo <= v <= hi:
            p.error(f"--{flag.replace('_', '-')} must be a whole number from {lo} to {hi}")
    if m["heads"] % a.tp:
        p.error(f"--tp must divide the {m['heads']} heads of {m['name']}")
    hbm = HARDWARE[a.hardware]["hbm_bytes"]
    base = {"micro_batch": a.micro_batch, "dtype": a.dtype, "optimizer": a.optimizer, "fp32_grads": False, "cpu_offload": False,
            "zero_stage": 0, "dp": a.dp, "tp": 1, "pp": 1, "sequence_parallel": False, "recompute": "none", "flash_attention": False}
    mine = {**base, "zero_stage": a.zero_stage, "tp": a.tp, "pp": a.pp, "sequence_parallel": a.sequence_parallel,
            "recompute": a.recompute, "flash_attention": a.flash_attention}
    steps = {  # the lesson's worked example and its one-GPU options, then the flags' own setup
        "one_gpu": ("one GPU", base), "flash": ("FlashAttention", {**base, "flash_attention": True}),
        "zero3": (f"ZeRO-3 over {a.dp} GPUs", {**base, "flash_attention": True, "zero_stage": 3}),
        "fp32_grads": ("fp32 gradients", {**base, "flash_attention": True, "fp32_grads": True}),
        "adam8": ("8-bit Adam", {**base, "optimizer": "adam-8bit"}),
        "adam8_flash": ("8-bit Adam, Flash", {**base, "optimizer": "adam-8bit", "flash_attention": True}),
        "adam8_flash_full": ("8-bit Adam, Flash, full", {**base, "optimizer": "adam-8bit", "flash_attention": True, "recompute": "full"}),
        "offload": ("CPU offload, Flash", {**base, "flash_attention": True, "cpu_offload": True}), "mine": ("your setup", mine)}
    rows = {k: training_memory(m, st) for k, (_, st) in steps.items()}
    for r in rows.values():
        r["fits"] = r["total_bytes"] <= hbm
    zero = {z: training_memory(m, {**base, "dtype": "bf16", "optimizer": "adam", "zero_stage": z, "dp": 64}, 7.5e9)["model_states_bytes"]
            for z in range(4)}  # the ZeRO paper's 7.5B model on 64 GPUs
    ks = [checkpoint_every_k(m, mine, k) for k in range(1, m["layers"] + 1)]
    best = min(ks, key=lambda r: r["peak_bytes"])
    peaks = {"on_demand": step_peak(m, mine, False), "persistent": step_peak(m, mine, True)}
    c = counts(m)
    if a.json:
        print(json.dumps({"model": a.model, "seq": m["seq"], "counts": c, "setups": rows,
                          "zero_7_5b_dp64": zero, "checkpoint_best": best, "checkpoint_k1": ks[0], "step": peaks}, indent=1))
        return
    gb = lambda x: f"{x / 1e9:.1f} GB" if x >= 1e9 else f"{x / 1e6:.0f} MB"
    print(f"{m['name']}: {c['params']:,} parameters, {c['flops_per_token_training'] / 1e9:.1f} GFLOP per token at {m['seq']:,} tokens")
    print(f"{HARDWARE[a.hardware]['name']}: {gb(hbm)} of HBM; micro-batch {a.micro_batch}, {a.dtype}, {a.optimizer}\n")
    print(f"{'setup':26} {'model states':>13} {'activations':>12} {'total':>10}")
    for k, r in rows.items():
        label = steps[k][0]
        fits = "fits" if r["total_bytes"] <= hbm else "does not fit"
        print(f"{label:26} {gb(r['model_states_bytes']):>13} {gb(r['activations_bytes']):>12} {gb(r['total_bytes']):>10}  {fits}")
    print(f"  (CPU offload keeps {gb(rows['offload']['offloaded_bytes'])} in host memory)")
    print("\nZeRO, 7.5B parameters on 64 GPUs: " + ", ".join(f"stage {z} {v / 1e9:.3g} GB" for z, v in zero.items()))
    print(f"\nyour setup, one layer: {gb(rows['mine']['activations_per_layer_bytes'])} of activations; "
          f"checkpointing every k-th layer peaks lowest at k = {best['k']}: {gb(best['peak_bytes'])} (k = 1: {gb(ks[0]['peak_bytes'])})")
    where = f"the first of {a.pp} pipeline stages" if a.pp > 1 else "one GPU"
    for name, pk in peaks.items():
        print(f"your setup, one step on {where}, {name.replace('_', '-')} gradient buffers: "
              f"peak {gb(pk['peak_bytes'])} during {pk['peak_phase']}")


if __name__ == "__main__":
    main()
