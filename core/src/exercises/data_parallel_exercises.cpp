// Exercises of the data-parallel-zero-fsdp lesson: gradient accumulation for a global batch,
// the all-reduce time left exposed with bucketed overlap, ZeRO memory per GPU, ZeRO-3
// communication per GPU, the tokens per GPU that hide FSDP's collectives, and weak-scaling
// efficiency. Hardware numbers are shown rounded; answers use the numbers shown, and
// `params` are the inputs of the data-parallel, zero and fsdp-overlap calculators.
#include <algorithm>
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::exercises {

namespace {

struct Gpu {
  const Accelerator* hw;
  std::string name;    // the table's name without its parenthesized note
  double peak_tflops;  // bf16 dense, shown to 4 significant digits
  double nvlink_gbps;  // per direction, GB/s
};

// Largest global batch drawn: Llama 3 405B trained with 16M tokens per batch (Llama Team,
// arXiv:2407.21783, Table 4).
constexpr double kMaxBatchTokens = 16777216;

// Mixed-precision Adam's 16 bytes per parameter, unsharded: what plain data parallelism keeps
// on every GPU.
double replica_bytes(double params) { return 16 * params; }

std::string nic_words(const InterconnectLink& l) {
  return l.name + " port, " + format_number(l.bandwidth_Bps / 1e9, 3) + " GB/s per direction";
}

Gpu pick_gpu(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  return {hw, hw->name.substr(0, hw->name.find(" (")), round_sig(*hw->peak_for("bf16") / 1e12, 4), round_sig(hw->json()["scaleup_bandwidth_Bps"].get<double>() / 2e9, 3)};
}

Exercise global_batch(Rng& rng) {
  int mb = 0, gpus = 0, accum = 0, seq = 0;
  double target = 0;
  do {  // a global batch no larger than the largest published one
    mb = rng.pick(std::vector<int>{1, 2, 4, 8});
    gpus = rng.pick(std::vector<int>{8, 16, 32, 64, 128, 256});
    accum = rng.pick(std::vector<int>{1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32});
    seq = rng.pick(std::vector<int>{2048, 4096, 8192});
    target = 1.0 * mb * gpus * accum;
  } while (target * seq > kMaxBatchTokens);
  Exercise e;
  e.title = "Accumulation steps for a global batch";
  e.params = {{"micro_batch", mb}, {"gpus", gpus}, {"accumulation", accum}, {"seq", seq}};
  e.prompt = "A run's recipe asks for a global batch of " + format_int(target) + " sequences of " + format_int(seq) +
             " tokens (" + format_number(target * seq / 1e6, 4) + " M tokens) per optimizer step. You train on " +
             format_int(gpus) + " GPUs in pure data parallelism, and only " +
             (mb == 1 ? std::string("one sequence per GPU fits") : format_int(mb) + " sequences per GPU fit") +
             " in memory at once. How many gradient-accumulation steps (micro-batches per "
             "optimizer step) do you need?";
  e.unit = "";
  e.answer = accum;
  e.integer = true;
  e.hint = "Global batch = micro-batch per GPU × number of GPUs × accumulation steps. Solve for the last factor.";
  e.solution = "Accumulation = " + format_int(target) + " ÷ (" + format_int(mb) + " × " + format_int(gpus) + ") = " +
               format_int(accum) + ". The gradient all-reduce then runs once every " + format_int(accum) +
               " micro-batches.";
  require_whole(e, accum, "accumulation steps");
  require_between(e, target * seq, 1, kMaxBatchTokens, "global batch in tokens (Llama 3 405B: 16M)");
  return e;
}

// Two settings, so that both answers occur: a ring over NVLink inside one node, or one GPU
// per node on its own NIC (a plain ring over the network). The draw first decides whether the
// buckets queue (the all-reduce outlasts the backward pass) or only the last one shows, then
// redraws the numbers until they agree, so neither case dominates the seeds.
Exercise exposed_allreduce(Rng& rng) {
  const bool queue = rng.integer(0, 1) == 1;
  Gpu g{};
  double params_b = 0, mfu = 0, bw = 0, psi = 0, grad = 0, tokens = 0, tb = 0, ar = 0, compute = 0;
  int gpus = 0, buckets = 0;
  bool network = false;
  const InterconnectLink* nic = nullptr;
  const auto exposed_of = [&](double allreduce_s) {
    const double t = allreduce_s / buckets;
    return std::max(t, tb / buckets + buckets * t - tb);
  };
  for (int tries = 0; tries < 1000; ++tries) {
    g = pick_gpu(rng);
    network = rng.integer(0, 1) == 1;
    params_b = rng.pick(std::vector<double>{1, 1.3, 2.7, 3, 6.7, 7, 8, 13});
    // Over the network a plain ring of one GPU per node; inside a node 4 or 8 GPUs (with 2 a
    // ring's 2(p − 1)/p is 1 and the factor the lesson insists on disappears).
    gpus = network ? rng.pick(std::vector<int>{4, 8, 16, 32}) : rng.pick(std::vector<int>{4, 8});
    nic = &draw_nic(rng, g.hw->id);
    bw = network ? nic->bandwidth_Bps / 1e9 : g.nvlink_gbps;
    tokens = rng.pick(std::vector<double>{256, 512, 1024, 2048, 4096, 8192});
    mfu = rng.pick(std::vector<double>{0.3, 0.35, 0.4, 0.45, 0.5});
    buckets = rng.pick(std::vector<int>{4, 8, 16, 32, 64});
    psi = params_b * 1e9;
    grad = 2 * psi;
    compute = 6 * psi * tokens / (g.peak_tflops * 1e12 * mfu);
    tb = compute * 2 / 3;
    ar = 2.0 * (gpus - 1) / gpus * grad / (bw * 1e9);
    if (replica_bytes(psi) > g.hw->hbm_bytes) continue;  // plain data parallelism keeps a whole replica
    if (!tells_apart(exposed_of(ar), exposed_of(grad / (bw * 1e9)), 0.01)) continue;
    if ((ar > tb) == queue) break;  // n·t > T_b is when the buckets queue
  }
  const double t = ar / buckets;
  const double exposed = std::max(t, tb / buckets + buckets * t - tb);
  Exercise e;
  e.title = "How much of the all-reduce is exposed?";
  e.params = {{"params", psi}, {"peak_flops", g.peak_tflops * 1e12}, {"mfu", mfu}, {"seq", tokens}, {"micro_batch", 1},
              {"accumulation", 1}, {"gpus", gpus}, {"latency_s", 0}, {"grad_dtype", "bf16"},
              {"bucket_bytes", grad / buckets * (1 + 1e-9)}, {"overlap", true}};
  if (network) {
    e.params["gpus_per_node"] = 1;
    e.params["inter_bandwidth_Bps"] = bw * 1e9;
  } else {
    e.params["gpus_per_node"] = 8;
    e.params["intra_bandwidth_Bps"] = bw * 1e9;
  }
  const std::string where = network ? format_int(gpus) + " " + g.name + " GPUs, one per node, each with its own " +
                                          nic_words(*nic)
                                    : format_int(gpus) + " " + g.name + " GPUs in one node (NVLink " +
                                          format_number(bw, 3) + " GB/s per direction)";
  e.prompt = article(format_number(params_b, 3), true) + format_number(params_b, 3) +
             "B-parameter model trains data-parallel on " + where + "; each GPU runs at " +
             format_number(g.peak_tflops, 4) + " TFLOP/s bf16 and " + format_number(mfu * 100, 3) +
             "% MFU and processes " + format_int(tokens) +
             " tokens per step. The bf16 gradients are all-reduced with a ring (ignore latency) in " +
             format_int(buckets) +
             " equal buckets that become ready at an even pace during the backward pass (two thirds of the 6·Ψ·tokens FLOPs of a step, Ψ the parameter count) and "
             "run one after another. How many milliseconds of communication remain exposed after the backward pass ends?";
  e.unit = "ms";
  e.answer = exposed * 1e3;
  e.hint = "Backward T_b = (2/3)·6·Ψ·tokens / (peak·MFU). Ring all-reduce of S bytes: 2(p−1)/p · S / B; each bucket "
           "takes t = that / n. Bucket i is ready at i·T_b/n; the last one finishes at max(T_b + t, T_b/n + n·t).";
  e.solution = "Compute = 6 × " + format_number(psi, 3) + " × " + format_int(tokens) + " / (" +
               format_number(g.peak_tflops, 4) + "e12 × " + format_number(mfu, 3) + ") = " +
               format_number(compute * 1e3, 4) + " ms, backward T_b = " + format_number(tb * 1e3, 4) +
               " ms. All-reduce of " + format_number(grad / 1e9, 4) + " GB: 2 × " + format_int(gpus - 1) + "/" +
               format_int(gpus) + " × " + format_number(grad / 1e9, 4) + " GB / " + format_number(bw, 3) +
               " GB/s = " + format_number(ar * 1e3, 4) + " ms, so one bucket takes t = " + format_number(t * 1e3, 4) +
               " ms. Exposed = max(t, T_b/n + n·t − T_b) = " + format_number(e.answer, 4) + " ms" +
               (ar <= tb ? ": the all-reduce is shorter than the backward pass, so only the last bucket shows."
                         : ": the all-reduce outlasts the backward pass, so the buckets queue, and what shows is its "
                           "excess over the backward pass plus the wait for the first bucket, T_b/n.");
  if (network)
    require_nic_of(e, g.hw->id, bw * 1e9, "network port");
  else
    require_scaleup_of(e, g.hw->id, bw * 1e9, "NVLink");
  require_fits(e, replica_bytes(psi), g.hw->hbm_bytes, "a whole replica's model states (16 bytes per parameter)");
  require_whole(e, gpus, "GPUs");
  require_between(e, compute, 1e-3, 60, "step compute time in seconds");
  reject_mistake(e, exposed_of(grad / (bw * 1e9)) * 1e3, "left out the ring's 2(p − 1)/p: each GPU sends nearly twice the buffer");
  return e;
}

double zero_stage_bytes(double psi, int stage, int dp) {
  return stage == 0 ? 16 * psi : stage == 1 ? 4 * psi + 12 * psi / dp : stage == 2 ? 2 * psi + 14 * psi / dp : 16 * psi / dp;
}

Exercise zero_memory(Rng& rng) {
  double params_b = 0, psi = 0, bytes = 0;
  int dp = 0, stage = 0;
  do {  // states that fit an H100, the GPU the lessons size runs for
    params_b = rng.pick(std::vector<double>{1.5, 3, 7, 7.5, 13, 30, 65, 70, 175});
    dp = rng.pick(std::vector<int>{8, 16, 32, 64, 128, 256, 1024});
    stage = rng.integer(1, 3);
    psi = params_b * 1e9;
    bytes = zero_stage_bytes(psi, stage, dp);
  } while (bytes > hbm_of("h100-sxm"));
  Exercise e;
  e.title = "Model states per GPU under ZeRO";
  e.params = {{"params", psi}, {"dp", dp}, {"optimizer", "adam"}, {"zero_stage", stage}};
  e.prompt = article(format_number(params_b, 4), true) + format_number(params_b, 4) + "B-parameter model trains with mixed-precision Adam (2 bytes of bf16 "
             "weights, 2 of bf16 gradients and 12 of fp32 optimizer states per parameter) under ZeRO stage " +
             std::to_string(stage) + " over " + format_int(dp) +
             " data-parallel GPUs. How many GB (10^9 bytes) of model states does each GPU hold (no activations)?";
  e.unit = "GB";
  e.answer = bytes / 1e9;
  e.hint = "Stage 1 shards the 12 bytes of optimizer states over N_d, stage 2 also the 2 bytes of gradients, stage 3 "
           "also the 2 bytes of weights. Unsharded states stay whole on every GPU.";
  const std::string n = format_int(dp);
  e.solution = "Plain data parallelism would need 16·Ψ = " + format_number(16 * psi / 1e9, 4) +
               " GB per GPU. With ZeRO, bytes per GPU = " +
               (stage == 1 ? "(2 + 2)·Ψ + 12·Ψ/" + n : stage == 2 ? "2·Ψ + (2 + 12)·Ψ/" + n : "(2 + 2 + 12)·Ψ/" + n) +
               " with Ψ = " + format_number(psi, 4) + ": " + format_number(e.answer, 4) + " GB.";
  require_fits(e, bytes, hbm_of("h100-sxm"), "model states on one H100");
  reject_mistake(e, 16 * psi / 1e9, "kept all 16 bytes per parameter unsharded (plain data parallelism)");
  const int other = stage == 3 ? 2 : stage + 1;
  reject_mistake(e, zero_stage_bytes(psi, other, dp) / 1e9, "sharded as ZeRO stage " + std::to_string(other) + " does");
  return e;
}

Exercise zero3_comm(Rng& rng) {
  double params_b = 0, psi = 0;
  int dp = 0;
  const InterconnectLink* link = nullptr;
  do {  // ZeRO-3 shards that fit an H100
    params_b = rng.pick(std::vector<double>{1.3, 7, 13, 34, 70});
    dp = rng.pick(std::vector<int>{8, 16, 64, 256});
    link = &find_interconnect_link(rng.pick(std::vector<std::string>{"ib-hdr", "ib-ndr", "roce-400g", "ib-xdr"}));
    psi = params_b * 1e9;
  } while (16 * psi / dp > hbm_of("h100-sxm"));
  const double bw = link->bandwidth_Bps / 1e9;
  const double bytes = 3 * psi * 2 * (dp - 1.0) / dp;
  Exercise e;
  e.title = "ZeRO-3 traffic per GPU per step";
  e.params = {{"params", psi}, {"dp", dp}, {"comm_dtype", "bf16"}, {"gpus_per_node", 1},
              {"inter_bandwidth_Bps", bw * 1e9}, {"latency_s", 0}};
  e.prompt = article(format_number(params_b, 3), true) + format_number(params_b, 3) + "B-parameter model trains under ZeRO stage 3 over " + format_int(dp) +
             " GPUs, one per node, each with one " + nic_words(*link) + ". Parameters and gradients travel in bf16 with ring collectives "
             "(ignore latency). How many seconds does one step's communication take if nothing overlaps it?";
  e.unit = "s";
  e.answer = bytes / (bw * 1e9);
  e.hint = "Stage 3 all-gathers the parameters twice (forward and backward) and reduce-scatters the gradients once: "
           "3Ψ elements. A ring all-gather or reduce-scatter of S bytes sends (p−1)/p · S per GPU.";
  e.solution = "Bytes sent per GPU = 3 × " + format_number(psi, 3) + " × 2 B × " + format_int(dp - 1) + "/" +
               format_int(dp) + " = " + format_number(bytes / 1e9, 4) + " GB, 1.5× the 2Ψ of plain data parallelism; "
               "time = that / " + format_number(bw, 3) + " GB/s = " + format_number(e.answer, 4) + " s.";
  require_link_row(e, bw * 1e9, "scale-out", "network port");
  require_fits(e, 16 * psi / dp, hbm_of("h100-sxm"), "ZeRO-3 shard of the model states on an H100");
  require_between(e, e.answer, 1e-3, 60, "communication per step in seconds");
  reject_mistake(e, 2 * psi * 2 * (dp - 1.0) / dp / (bw * 1e9), "counted plain data parallelism's 2Ψ, not ZeRO-3's 3Ψ");
  return e;
}

// Across nodes of 8 GPUs: each collective runs its NVLink phase and its network phase one
// after the other (the hierarchical algorithm), so both bandwidths enter the threshold.
Exercise fsdp_tokens(Rng& rng) {
  Gpu g{};
  const InterconnectLink* nic = nullptr;
  int gpus = 0;
  double params_b = 0;
  do {  // FSDP shards that fit the GPU
    g = pick_gpu(rng);
    nic = &draw_nic(rng, g.hw->id);
    gpus = rng.pick(std::vector<int>{16, 32, 64, 128, 512});
    params_b = rng.pick(std::vector<double>{7, 13, 34, 70});
  } while (replica_bytes(params_b * 1e9) / gpus > g.hw->hbm_bytes);
  const double bw = nic->bandwidth_Bps / 1e9;
  const double mfu = rng.pick(std::vector<double>{0.35, 0.4, 0.45, 0.5});
  const double rate = g.peak_tflops * 1e12 * mfu, nodes = gpus / 8.0;
  const double intra = 7.0 / (8 * g.nvlink_gbps * 1e9), inter = (nodes - 1) / (8 * nodes * bw * 1e9);
  const double tokens = rate * (intra + inter);  // b/2 = 1 for bf16
  Exercise e;
  e.title = "Tokens per GPU that hide FSDP's communication";
  e.params = {{"params", params_b * 1e9}, {"peak_flops", g.peak_tflops * 1e12}, {"mfu", mfu}, {"gpus", gpus},
              {"gpus_per_node", 8}, {"intra_bandwidth_Bps", g.nvlink_gbps * 1e9}, {"inter_bandwidth_Bps", bw * 1e9},
              {"latency_s", 0}, {"param_dtype", "bf16"}, {"tokens_per_gpu", 1}};
  e.prompt = article(format_number(params_b, 3), true) + format_number(params_b, 3) +
             "B-parameter model is fully sharded (FSDP) over " + format_int(gpus) + " " + g.name + " GPUs in " +
             format_int(nodes) + " nodes of 8 (" + format_number(g.peak_tflops, 4) + " TFLOP/s bf16 at " +
             format_number(mfu * 100, 3) + "% MFU; NVLink " + format_number(g.nvlink_gbps, 3) +
             " GB/s per direction, and one " + nic_words(*nic) + ", per GPU). Each step all-gathers the bf16 parameters twice and "
             "reduce-scatters the bf16 gradients once, each collective running its network phase and its NVLink phase "
             "one after the other (ignore latency). How many tokens must each GPU process per step for compute "
             "(6·Ψ·tokens FLOPs) to take at least as long as that communication?";
  e.unit = "";
  e.answer = tokens;
  e.hint = "An all-gather of S bytes over N nodes of g GPUs: (N−1)/(g·N)·S/B_network + (g−1)/g·S/B_NVLink. Set "
           "6·Ψ·T / (peak·MFU) equal to three of them with S = 2Ψ bytes; Ψ cancels.";
  e.solution = "T_min = (b/2) × peak × MFU × [(g−1)/(g·B_NVLink) + (N−1)/(g·N·B_network)], and b/2 = 1 for the 2 "
               "bytes of bf16: " + format_number(rate / 1e12, 4) + "e12 × [7/(8 × " + format_number(g.nvlink_gbps, 3) +
               "e9) + " + format_int(nodes - 1) + "/(8 × " + format_int(nodes) + " × " + format_number(bw, 3) +
               "e9)] = " + format_number(tokens, 4) + " tokens per GPU per step, whatever the model size.";
  require_nic_of(e, g.hw->id, bw * 1e9, "network port");
  require_scaleup_of(e, g.hw->id, g.nvlink_gbps * 1e9, "NVLink");
  require_fits(e, replica_bytes(params_b * 1e9) / gpus, g.hw->hbm_bytes, "FSDP shard of the model states");
  require_whole(e, nodes, "nodes of 8");
  reject_mistake(e, tokens / 3, "priced one collective instead of three (two all-gathers and a reduce-scatter)");
  reject_mistake(e, rate * inter, "left out the NVLink phase");
  return e;
}

// Across nodes of 8 GPUs with the hierarchical all-reduce: NVLink reduce-scatter, a ring
// all-reduce of each GPU's shard across nodes, NVLink all-gather, one after the other.
Exercise scaling_efficiency(Rng& rng) {
  Gpu g{};
  const InterconnectLink* nic = nullptr;
  double params_b = 0;
  int gpus = 0, tokens_k = 0;
  const double mfu = 0.4;
  const auto efficiency = [&](double network_factor, bool nvlink) {
    const double psi = params_b * 1e9, tokens = tokens_k * 1024.0, nodes = gpus / 8.0, grad = 2 * psi;
    const double compute = 6 * psi * tokens / (g.peak_tflops * 1e12 * mfu);
    const double nv = nvlink ? 2 * 7.0 / 8 * grad / (g.nvlink_gbps * 1e9) : 0;
    const double net = network_factor * 2 * (nodes - 1) / (8 * nodes) * grad / (nic->bandwidth_Bps);
    return 100 * compute / (compute + nv + net);
  };
  // Redrawn until a whole replica fits the GPU (plain data parallelism) and the warned-against
  // slips give other answers.
  for (;;) {
    g = pick_gpu(rng);
    nic = &draw_nic(rng, g.hw->id);
    params_b = rng.pick(std::vector<double>{1.3, 3, 7, 13});
    gpus = rng.pick(std::vector<int>{16, 32, 64, 128, 256});
    tokens_k = rng.pick(std::vector<int>{1, 2, 4, 8});
    if (replica_bytes(params_b * 1e9) > g.hw->hbm_bytes) continue;
    const double right = efficiency(1, true);
    if (tells_apart(right, efficiency(1, false), 0.01) && tells_apart(right, efficiency(8, true), 0.01)) break;
  }
  const double bw = nic->bandwidth_Bps / 1e9;
  const double psi = params_b * 1e9, tokens = tokens_k * 1024.0, nodes = gpus / 8.0, grad = 2 * psi;
  const double compute = 6 * psi * tokens / (g.peak_tflops * 1e12 * mfu);
  const double nvlink = 2 * 7.0 / 8 * grad / (g.nvlink_gbps * 1e9);
  const double network = 2 * (nodes - 1) / (8 * nodes) * grad / (bw * 1e9);
  const double ar = nvlink + network;
  Exercise e;
  e.title = "Weak-scaling efficiency without overlap";
  e.params = {{"params", psi}, {"peak_flops", g.peak_tflops * 1e12}, {"mfu", mfu}, {"seq", tokens}, {"micro_batch", 1},
              {"accumulation", 1}, {"gpus", gpus}, {"gpus_per_node", 8}, {"intra_bandwidth_Bps", g.nvlink_gbps * 1e9},
              {"inter_bandwidth_Bps", bw * 1e9}, {"latency_s", 0}, {"grad_dtype", "bf16"}, {"overlap", false},
              {"phases", "sequential"}};
  e.prompt = "Each of " + format_int(gpus) + " " + g.name + " GPUs in nodes of 8 (" + format_number(g.peak_tflops, 4) +
             " TFLOP/s bf16 at 40% MFU; NVLink " + format_number(g.nvlink_gbps, 3) + " GB/s per direction, and one " +
             nic_words(*nic) + ", per GPU) processes " + format_int(tokens) +
             " tokens per step of " + article(format_number(params_b, 3), false) + format_number(params_b, 3) +
             "B-parameter model, then all-reduces the bf16 gradients hierarchically (an NVLink reduce-scatter, a ring "
             "all-reduce of each GPU's shard across the nodes, an NVLink all-gather, one after the other; ignore "
             "latency), with no overlap. What is the weak-scaling efficiency, the throughput per GPU relative to a "
             "single GPU, in percent?";
  e.unit = "%";
  e.answer = 100 * compute / (compute + ar);
  e.hint = "A single GPU needs no all-reduce, so efficiency = compute / (compute + all-reduce). NVLink phases: "
           "2·(g−1)/g · S / B_NVLink; network phase: 2·(N−1)/(g·N) · S / B_network, with S = 2Ψ bytes.";
  e.solution = "Compute = 6 × " + format_number(psi, 3) + " × " + format_int(tokens) + " / (" +
               format_number(g.peak_tflops, 4) + "e12 × 0.4) = " + format_number(compute * 1e3, 4) +
               " ms; NVLink phases = 2 × 7/8 × " + format_number(grad / 1e9, 4) + " GB / " +
               format_number(g.nvlink_gbps, 3) + " GB/s = " + format_number(nvlink * 1e3, 4) +
               " ms; network phase = 2 × " + format_int(nodes - 1) + "/(8 × " + format_int(nodes) + ") × " +
               format_number(grad / 1e9, 4) + " GB / " + format_number(bw, 3) + " GB/s = " +
               format_number(network * 1e3, 4) + " ms; efficiency = " + format_number(compute * 1e3, 4) + " / " +
               format_number((compute + ar) * 1e3, 4) + " = " + format_number(e.answer, 4) + "%.";
  require_nic_of(e, g.hw->id, bw * 1e9, "network port");
  require_scaleup_of(e, g.hw->id, g.nvlink_gbps * 1e9, "NVLink");
  require_fits(e, replica_bytes(psi), g.hw->hbm_bytes, "a whole replica's model states (16 bytes per parameter)");
  require_whole(e, nodes, "nodes of 8");
  reject_mistake(e, efficiency(1, false), "left out the NVLink reduce-scatter and all-gather");
  reject_mistake(e, efficiency(8, true), "sent the whole buffer across the nodes, not each GPU's 1/8 shard");
  return e;
}


// Across nodes of 8 GPUs with the hierarchical all-reduce and its two phases pipelined, as
// NCCL streams chunks through NVLink and the NICs at once: the slower phase sets the time.
// Nodes from 2 to 128, so that both the NVLink-bound case (few A100 or H100 nodes) and the
// network-bound one occur.
Exercise pipelined_allreduce(Rng& rng) {
  Gpu g{};
  const InterconnectLink* nic = nullptr;
  double params_b = 0, nv = 0, net = 0;
  int nodes = 0;
  for (;;) {
    g = pick_gpu(rng);
    nic = &draw_nic(rng, g.hw->id);
    nodes = rng.pick(std::vector<int>{2, 3, 4, 8, 16, 32, 128});
    params_b = rng.pick(std::vector<double>{1.3, 3, 7, 8, 13});
    const double grad = 2 * params_b * 1e9;
    nv = 2 * 7.0 / 8 * grad / (g.nvlink_gbps * 1e9);
    net = 2 * (nodes - 1.0) / (8 * nodes) * grad / nic->bandwidth_Bps;
    if (replica_bytes(params_b * 1e9) > g.hw->hbm_bytes) continue;  // plain data parallelism keeps a replica
    if (tells_apart(nv, net, 0.03)) break;  // the two phases differ, so the max is a choice
  }
  const double bw = nic->bandwidth_Bps / 1e9, grad = 2 * params_b * 1e9, gpus = 8.0 * nodes;
  Exercise e;
  e.title = "A pipelined all-reduce across nodes";
  e.params = {{"params", params_b * 1e9}, {"gpus", static_cast<int>(gpus)}, {"gpus_per_node", 8},
              {"intra_bandwidth_Bps", g.nvlink_gbps * 1e9}, {"inter_bandwidth_Bps", bw * 1e9}, {"latency_s", 0},
              {"grad_dtype", "bf16"}, {"phases", "pipelined"}};
  e.prompt = "The bf16 gradients of " + article(format_number(params_b, 3), false) + format_number(params_b, 3) +
             "B-parameter model are all-reduced over " + format_int(gpus) + " " + g.name + " GPUs in " +
             format_int(nodes) + " nodes of 8 (NVLink " + format_number(g.nvlink_gbps, 3) +
             " GB/s per direction, and one " + nic_words(*nic) +
             ", per GPU) with the hierarchical algorithm: an NVLink reduce-scatter, a ring all-reduce of each GPU's "
             "shard across the nodes, an NVLink all-gather. The library streams chunks through NVLink and the "
             "network at once, so the two kinds of phase overlap completely. Ignoring latency, how many "
             "milliseconds does the all-reduce take?";
  e.unit = "ms";
  e.answer = std::max(nv, net) * 1e3;
  e.hint = "NVLink phases together: 2·(g−1)/g · S / B_NVLink; network phase: 2·(N−1)/(g·N) · S / B_network, with "
           "S = 2Ψ bytes. Pipelined, the slower of the two sets the time.";
  e.solution = "S = " + format_number(grad / 1e9, 4) + " GB. NVLink phases = 2 × 7/8 × " + format_number(grad / 1e9, 4) +
               " GB / " + format_number(g.nvlink_gbps, 3) + " GB/s = " + format_number(nv * 1e3, 4) +
               " ms; network phase = 2 × " + format_int(nodes - 1) + "/(8 × " + format_int(nodes) + ") × " +
               format_number(grad / 1e9, 4) + " GB / " + format_number(bw, 3) + " GB/s = " +
               format_number(net * 1e3, 4) + " ms. One after the other they would take " +
               format_number((nv + net) * 1e3, 4) + " ms; pipelined, the slower phase, " +
               (nv > net ? "NVLink" : "the network") + ", sets the time: " + format_number(e.answer, 4) + " ms.";
  require_nic_of(e, g.hw->id, bw * 1e9, "network port");
  require_scaleup_of(e, g.hw->id, g.nvlink_gbps * 1e9, "NVLink");
  require_fits(e, replica_bytes(params_b * 1e9), g.hw->hbm_bytes, "a whole replica's model states (16 bytes per parameter)");
  require_between(e, e.answer, 1e-2, 1e4, "all-reduce time in ms");
  reject_mistake(e, (nv + net) * 1e3, "added the phases: one after the other is the conservative bound, not the pipelined time");
  reject_mistake(e, std::min(nv, net) * 1e3, "took the faster phase: the slower one sets the pace of a pipeline");
  reject_mistake(e, 2 * (gpus - 1) / gpus * grad / (bw * 1e9) * 1e3, "sent the whole gradient through one NIC (a flat ring)");
  return e;
}

}  // namespace

void add_data_parallel_exercises(std::vector<Generator>& out) {
  out.push_back({"dp-global-batch", global_batch});
  out.push_back({"dp-exposed-allreduce", exposed_allreduce});
  out.push_back({"dp-zero-memory", zero_memory});
  out.push_back({"dp-zero3-communication", zero3_comm});
  out.push_back({"dp-fsdp-tokens", fsdp_tokens});
  out.push_back({"dp-scaling-efficiency", scaling_efficiency});
  out.push_back({"dp-pipelined-allreduce", pipelined_allreduce});
}

}  // namespace mlsys::exercises
