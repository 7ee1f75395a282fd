// Exercises of the profiling-mfu lesson: MFU from throughput (PaLM's accounting), training
// days from 6ND, the attention share of FLOPs at long sequences, Chinchilla-optimal tokens
// (20 per parameter against approach 3), and exposed communication after the backward pass.
// Hardware numbers are shown rounded; answers are computed from the numbers shown.
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/profiling/step_profile.hpp"
#include "mlsys/profiling/training_compute.hpp"

namespace mlsys::exercises {

namespace {

struct Chip {
  const Accelerator* hw;
  double peak_tflops;  // bf16 dense, as shown (4 significant digits)
};

Chip pick_chip(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x", "tpu-v5p"};
  for (;;) {
    const Accelerator* hw = find_accelerator(rng.pick(ids));
    if (auto peak = hw->peak_for("bf16")) return {hw, round_sig(*peak / 1e12, 4)};
  }
}

struct Model {
  const char* name;
  double layers, hidden, heads, params;  // params: N as PaLM counts it, rounded as shown
};

// N = every parameter in a token's matmuls, the untied output head included (all but the
// 32000-token input embedding): Llama 2 7B and 13B, Code Llama 34B, Llama 2 70B.
const std::vector<Model>& models() {
  static const std::vector<Model> m = {{"a 7B model", 32, 4096, 32, 6.61e9},
                                       {"a 13B model", 40, 5120, 40, 12.9e9},
                                       {"a 34B model", 48, 8192, 64, 33.5e9},
                                       {"a 70B model", 80, 8192, 64, 68.7e9}};
  return m;
}

Exercise mfu_from_throughput(Rng& rng) {
  const Chip c = pick_chip(rng);
  const Model& m = rng.pick(models());
  const double seq = rng.pick(std::vector<double>{2048, 4096, 8192});
  const double devices = rng.pick(std::vector<double>{64, 128, 256, 512, 1024, 2048});
  const double target = 0.25 + 0.35 * rng.uniform();
  const double per_token = 6 * m.params + 12 * m.layers * m.hidden * seq;
  const double tps = round_sig(target * devices * c.peak_tflops * 1e12 / per_token, 3);
  const MfuResult r = mfu(m.params, m.layers, m.heads, m.hidden / m.heads, seq, tps, devices, c.peak_tflops * 1e12, 0);
  Exercise e;
  e.title = "MFU from throughput";
  e.params = {{"params", m.params}, {"layers", m.layers}, {"heads", m.heads}, {"head_dim", m.hidden / m.heads},
              {"hidden", m.hidden}, {"seq", seq}, {"tokens_per_s", tps}, {"devices", devices},
              {"peak_flops", c.peak_tflops * 1e12}};
  e.prompt = "A job trains " + std::string(m.name) + " (N = " + format_number(m.params / 1e9, 3) +
             "B parameters in its matmuls, the output head included, L = " + format_int(m.layers) + " layers, width H·Q = " + format_int(m.hidden) +
             ") on sequences of T = " + format_int(seq) + " tokens, on " + format_int(devices) + " " + c.hw->name +
             " with a dense bf16 peak of " + format_number(c.peak_tflops, 4) + " TFLOP/s each. It processes " +
             prose(tps, 3) +
             " tokens/s in total. With PaLM's accounting (6N + 12·L·H·Q·T FLOPs per token), what is its MFU, in percent?";
  e.unit = "%";
  e.answer = 100 * r.mfu;
  e.abs_tolerance = 0.3;
  e.rel_tolerance = 0.01;
  e.hint = "FLOPs per token = 6N + 12·L·(H·Q)·T. Multiply by tokens/s for the job's FLOP/s, divide by the number of "
           "devices, then by one device's peak.";
  e.solution = "FLOPs per token = 6 × " + format_number(m.params, 3) + " + 12 × " + format_int(m.layers) + " × " +
               format_int(m.hidden) + " × " + format_int(seq) + " = " + format_number(r.flops_per_token, 4) +
               "; the attention term is " + format_number(100 * r.attention_share, 2) + "% of it. Per device: " + format_number(tps, 3) + " × " + format_number(r.flops_per_token, 4) + " / " +
               format_int(devices) + " = " + format_number(r.achieved_flops_per_device / 1e12, 4) +
               " TFLOP/s; MFU = " + format_number(r.achieved_flops_per_device / 1e12, 4) + " / " +
               format_number(c.peak_tflops, 4) + " = " + format_number(e.answer, 3) + "%.";
  require_between(e, e.answer, 20, 65, "the MFU in percent (what large training runs reach)");
  require_from_table(e, c.peak_tflops * 1e12, *c.hw->peak_for("bf16"), "the bf16 peak shown");
  reject_mistake_where_distinct(e, 100 * tps * 6 * m.params / devices / (c.peak_tflops * 1e12),
                                "counted 6N alone, leaving out attention");
  reject_mistake(e, e.answer / 2, "divided by the sparse peak, twice the dense one");
  reject_mistake(e, e.answer * devices, "forgot to share the throughput among the devices");
  return e;
}

// A pre-training run someone would plan: between a week and about half a year of wall-clock
// time (a 7B model on 16,384 GPUs takes an hour, a 405B one on 512 GPUs decades), on a
// cluster sized to the model: at most 256 GPUs per billion parameters, so a 7B model gets
// at most 1,024 GPUs (Llama 3 405B trained on 16K H100s, about 40 per billion).
constexpr double kShortestRunDays = 7, kLongestRunDays = 200, kMaxDevicesPerBillion = 256;

Exercise training_days(Rng& rng) {
  Chip c{};
  double params = 0, tokens = 0, devices = 0, mfu_shown = 0;
  TrainingTime t{};
  do {
    c = pick_chip(rng);
    params = rng.pick(std::vector<double>{7e9, 13e9, 34e9, 70e9, 175e9, 405e9});
    tokens = rng.pick(std::vector<double>{1e12, 2e12, 4e12, 8e12, 15e12});
    devices = rng.pick(std::vector<double>{512, 1024, 2048, 4096, 8192, 16384});
    mfu_shown = rng.pick(std::vector<double>{0.3, 0.35, 0.4, 0.45, 0.5});
    t = training_time(params, tokens, devices, c.peak_tflops * 1e12, mfu_shown, 0);
  } while (t.time_days < kShortestRunDays || t.time_days > kLongestRunDays ||
           devices > kMaxDevicesPerBillion * params / 1e9);
  Exercise e;
  e.title = "Training days from 6ND";
  e.params = {{"params", params}, {"tokens", tokens}, {"devices", devices}, {"peak_flops", c.peak_tflops * 1e12},
              {"mfu", mfu_shown}};
  e.prompt = "You plan to train " + article(format_number(params / 1e9, 3)) + format_number(params / 1e9, 3) + "B-parameter model on " +
             format_number(tokens / 1e12, 3) + "T tokens using " + format_int(devices) + " " + c.hw->name +
             " (dense bf16 peak " + format_number(c.peak_tflops, 4) + " TFLOP/s each) at an MFU of " +
             format_number(100 * mfu_shown, 3) + "%. Using C = 6·N·D, how many days will the run take (no failures)?";
  e.unit = "days";
  e.answer = t.time_days;
  e.rel_tolerance = 0.02;
  e.hint = "Total FLOPs C = 6·N·D. The cluster sustains devices × peak × MFU FLOP/s. Divide, then divide the seconds "
           "by 86,400.";
  e.solution = "C = 6 × " + format_number(params, 3) + " × " + format_number(tokens, 3) + " = " +
               format_number(t.total_flops, 4) + " FLOP. Sustained rate = " + format_int(devices) + " × " +
               format_number(c.peak_tflops, 4) + "e12 × " + format_number(mfu_shown, 2) + " = " +
               format_number(t.cluster_flops, 4) + " FLOP/s. Time = " + format_number(t.time_s, 4) + " s (" +
               format_number(t.device_hours, 3) + " GPU-hours) = " + format_number(t.time_days, 4) + " days.";
  require_between(e, e.answer, kShortestRunDays, kLongestRunDays, "the run's length in days");
  require_between(e, devices, 1, kMaxDevicesPerBillion * params / 1e9, "the cluster for the model's size");
  require_from_table(e, c.peak_tflops * 1e12, *c.hw->peak_for("bf16"), "the bf16 peak shown");
  reject_mistake(e, e.answer * mfu_shown, "divided by the peak, not the sustained rate (MFU left out)");
  reject_mistake(e, e.answer / 3, "counted 2\u00B7N\u00B7D (the forward pass) instead of 6\u00B7N\u00B7D");
  reject_mistake(e, e.answer * 24, "gave hours, not days");
  return e;
}

Exercise attention_share(Rng& rng) {
  const double d = rng.pick(std::vector<double>{2048, 4096, 5120, 8192});
  const double layers = rng.pick(std::vector<double>{24, 32, 40, 48, 80});
  const double seq = rng.pick(std::vector<double>{8192, 16384, 32768, 65536, 131072});
  const double heads = d / 128;
  const double params = 12 * layers * d * d;
  const MfuResult r = mfu(params, layers, heads, 128, seq, 1, 1, 1, 0);
  Exercise e;
  e.title = "Attention's share of the FLOPs";
  e.params = {{"params", params}, {"layers", layers}, {"heads", heads}, {"head_dim", 128}, {"hidden", d}, {"seq", seq},
              {"tokens_per_s", 1}, {"devices", 1}, {"peak_flops", 1}};
  e.prompt = "A transformer has L = " + format_int(layers) + " layers of width d = " + format_int(d) + " (H·Q = d) and N = 12·L·d² = " +
             prose(params, 4) + " parameters. It is trained on sequences of T = " + format_int(seq) +
             " tokens. With PaLM's accounting, what percentage of the training FLOPs per token is the attention term "
             "12·L·d·T?";
  e.unit = "%";
  e.answer = 100 * r.attention_share;
  e.abs_tolerance = 0.2;
  e.hint = "Share = 12·L·d·T / (6N + 12·L·d·T). With N = 12·L·d², everything but T and d cancels: T / (6d + T).";
  e.solution = "At T = 6d the attention term equals the 6N term, and 6ND alone undercounts a run by this share. "
               "Share = T / (6d + T) = " + format_int(seq) + " / (" + format_int(6 * d) + " + " + format_int(seq) +
               ") = " + format_number(e.answer, 4) + "%.";
  require(e, heads * 128 == d, "H\u00B7Q = d with heads of 128");
  reject_mistake_where_distinct(e, 100 * seq / (6 * d), "gave the ratio of attention to 6N, not its share of the total");
  reject_mistake_where_distinct(e, 100 * seq / (12 * d + seq), "compared attention with 12N, not 6N");
  return e;
}

Exercise chinchilla_tokens(Rng& rng) {
  const double mant = rng.pick(std::vector<double>{1, 2, 3, 5, 6, 8});
  const double exp10 = rng.integer(21, 25);
  const double flops = mant * std::pow(10.0, exp10);
  const double n20 = std::sqrt(flops / 120);
  const ComputeOptimal o = chinchilla_optimal(flops);
  Exercise e;
  e.title = "Compute-optimal tokens for a budget";
  e.params = {{"compute_flops", flops}};
  e.prompt = "You have a training budget of C = " + prose(flops, 3) +
             " FLOP. Following the Chinchilla rule of thumb of 20 training tokens per parameter and C = 6·N·D, how "
             "many tokens should you train on? Answer in billions of tokens.";
  e.unit = "billion";
  e.answer = 20 * n20 / 1e9;
  e.rel_tolerance = 0.02;
  e.hint = "With D = 20·N, C = 6·N·20·N = 120·N², so N = sqrt(C/120) and D = 20·N.";
  e.solution = "The approach-3 fit of Hoffmann et al. with its published (rounded) constants gives N = " +
               format_number(o.params / 1e9, 3) + "B and D = " + format_number(o.tokens / 1e9, 3) + "B (" +
               format_number(o.tokens / o.params, 3) + " tokens per parameter): the rounding of those constants biases "
               "the split, which is why the rule of thumb is the number people use. With it, N = sqrt(" +
               format_number(flops, 3) + " / 120) = " + format_number(n20 / 1e9, 4) + "B parameters and D = 20·N = " +
               format_number(e.answer, 4) + "B tokens.";
  require_between(e, flops, 1e21, 1e26, "the budget C in FLOP");
  reject_mistake(e, e.answer / 20, "gave the parameters N, not the tokens D = 20\u00B7N");
  reject_mistake_where_distinct(e, o.tokens / 1e9, "used the approach-3 fit, not the rule of thumb the prompt names");
  reject_mistake(e, std::sqrt(flops / 6) / 1e9, "set D = N, leaving out the 20 tokens per parameter");
  return e;
}

Exercise exposed_comm(Rng& rng) {
  const int buckets = rng.pick(std::vector<int>{4, 5, 8, 10});
  const double backward_ms = rng.pick(std::vector<double>{40, 60, 80, 100, 120});
  // Total all-reduce time / backward time, above 1 so the stream falls behind: when it keeps
  // up, the exposed time is one all-reduce, a number the prompt already prints.
  const double ratio = 1.1 + 0.9 * rng.uniform();
  const double per_ms = round_sig(ratio * backward_ms / buckets, 2);
  const CommTail t = comm_tail(backward_ms * 1e-3, buckets, per_ms * 1e-3, true);
  Exercise e;
  e.title = "Exposed communication in a trace";
  e.params = {{"backward_s", backward_ms * 1e-3}, {"buckets", buckets}, {"allreduce_s", per_ms * 1e-3}, {"overlap", true}};
  e.prompt = "In a profiler trace of one data-parallel step, the backward pass lasts " + format_number(backward_ms, 3) +
             " ms. Its gradients form " + std::to_string(buckets) + " equal buckets, the i-th ready at i/" +
             std::to_string(buckets) + " of the backward pass (the last one when it ends). Each bucket's all-reduce takes " +
             format_number(per_ms, 2) +
             " ms on a single communication stream, starting as soon as its bucket is ready and the stream is free. "
             "The optimizer waits for the last all-reduce. How long is the communication exposed after the backward "
             "pass ends, in ms?";
  e.unit = "ms";
  e.answer = t.exposed_s * 1e3;
  e.abs_tolerance = 0.05;
  e.rel_tolerance = 0.01;
  e.hint = "Walk the buckets in order: each starts at the later of its ready time and the end of the previous "
           "all-reduce, and ends one all-reduce later. Exposed = end of the last one − end of the backward pass.";
  e.solution = "Buckets are ready every " + format_number(backward_ms / buckets, 3) + " ms. Even when the stream "
               "keeps up, the last bucket can only start when the backward pass ends, so at least one all-reduce is "
               "always exposed. Here " + format_number(t.hidden_s * 1e3, 4) + " ms of the " +
               format_number(buckets * per_ms, 4) + " ms of all-reduce run under the backward pass, and the last "
               "all-reduce ends at " + format_number(t.comm_end_s * 1e3, 4) + " ms, so " + format_number(e.answer, 4) +
               " ms are exposed.";
  require(e, ratio > 1 && e.answer >= per_ms - 1e-9 && e.answer <= buckets * per_ms + 1e-9,
          "at least one all-reduce and at most all of them are exposed");
  reject_mistake_where_distinct(e, buckets * per_ms, "exposed every all-reduce, as if none overlapped the backward pass");
  reject_mistake_where_distinct(e, buckets * per_ms - backward_ms, "subtracted the backward pass from the total all-reduce time");
  return e;
}

}  // namespace

void add_profiling_exercises(std::vector<Generator>& out) {
  out.push_back({"prof-mfu", mfu_from_throughput});
  out.push_back({"prof-training-days", training_days});
  out.push_back({"prof-attention-share", attention_share});
  out.push_back({"prof-chinchilla-tokens", chinchilla_tokens});
  out.push_back({"prof-exposed-comm", exposed_comm});
}

}  // namespace mlsys::exercises
