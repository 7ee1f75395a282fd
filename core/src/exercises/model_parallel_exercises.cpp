// Exercises of the tensor-pipeline-parallel lesson: pipeline bubble and step time (GPipe/1F1B
// and interleaved 1F1B, Narayanan et al. 2021), Megatron all-reduce bytes per layer, activations
// in flight under 1F1B vs GPipe, model states of a layout under ZeRO-1, and the smallest
// pipeline degree that fits. Answers are computed from the numbers shown.
#include <algorithm>
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys::exercises {

namespace {

struct Pipe {
  int p, m, v;
  bool interleaved;
};

Pipe draw_pipe(Rng& rng) {
  Pipe d{};
  d.p = rng.pick(std::vector<int>{2, 4, 8, 16});
  d.interleaved = rng.integer(0, 1) == 1;
  d.v = d.interleaved ? rng.integer(2, 4) : 1;
  d.m = d.p * rng.integer(1, 8);  // a multiple of p, as interleaving requires
  return d;
}

std::string pipe_text(const Pipe& d) {
  std::string t = "A pipeline of p = " + format_int(d.p) + " stages runs m = " + format_int(d.m) + " micro-batches per step";
  if (d.interleaved)
    t += " with the interleaved 1F1B schedule, v = " + format_int(d.v) + " model chunks per stage";
  else
    t += " with the 1F1B schedule";
  return t + ", and the stages exchange activations in no time.";
}

nlohmann::json pipe_params(const Pipe& d, double f, double b) {
  return {{"schedule", d.interleaved ? "interleaved-1f1b" : "1f1b"}, {"stages", d.p}, {"microbatches", d.m},
          {"chunks", d.v}, {"forward_s", f}, {"backward_s", b}, {"p2p_s", 0}};
}

Exercise bubble_fraction(Rng& rng) {
  const Pipe d = draw_pipe(rng);
  Exercise e;
  e.title = "Size of the pipeline bubble";
  e.params = pipe_params(d, 1e-3, 2e-3);
  e.prompt = pipe_text(d) + " What fraction of the step does each GPU sit idle? Give a number between 0 and 1, to "
                            "three significant digits.";
  e.unit = "";
  const double ratio = (d.p - 1.0) / (d.v * d.m);
  e.answer = ratio / (1 + ratio);
  // Proportional to the answer: the bubble ratio (p − 1)/(v·m), idle over useful time, is
  // (1 + ratio) times the answer, at least 1.6 % more (p = 2, v = 4, m = 16), and must be
  // rejected. A fixed absolute tolerance of 0.0005 accepted it for the smallest bubbles.
  e.rel_tolerance = 0.001;
  e.asked_significant = 3;  // the prompt's three digits: ±0.5 in the third, at most 0.5 %
  e.hint = "The bubble adds (p − 1)/v micro-batch slots to the m slots of useful work on every stage. Idle share = "
           "bubble ÷ (work + bubble).";
  e.solution = "Bubble over ideal = (p − 1)/(v·m) = " + format_int(d.p - 1) + " / (" + format_int(d.v) + " × " +
               format_int(d.m) + ") = " + format_number(ratio, 4) + ". Idle fraction = " + format_number(ratio, 4) +
               " / (1 + " + format_number(ratio, 4) + ") = " + format_number(e.answer, 4) + ".";
  require(e, d.m >= d.p, "at least as many micro-batches as stages, so the pipeline fills");
  require(e, d.m % d.p == 0, "m is a multiple of p, as interleaving requires");
  reject_mistake(e, ratio, "gave the bubble ratio (idle over useful time), not the idle fraction");
  if (d.interleaved) {
    const double plain = (d.p - 1.0) / d.m;
    reject_mistake(e, plain / (1 + plain), "ignored the v model chunks that shrink the bubble");
  }
  return e;
}

Exercise step_time(Rng& rng) {
  // The pass times are drawn before the pipeline so that a seed gives a different pipeline here
  // than in pp-bubble-fraction, which draws the pipeline first.
  const double f = round_sig(1 + 9 * rng.uniform(), 2);  // ms, one micro-batch, whole stage
  const double b = round_sig(f * (1.8 + 0.4 * rng.uniform()), 2);
  const Pipe d = draw_pipe(rng);
  Exercise e;
  e.title = "Step time of a pipeline";
  e.params = pipe_params(d, f * 1e-3, b * 1e-3);
  e.prompt = pipe_text(d) + " One micro-batch takes " + format_number(f, 2) + " ms forward and " + format_number(b, 2) +
             " ms backward on one stage (all its chunks together). How long is the step, in ms?";
  e.unit = "ms";
  e.answer = (d.m + (d.p - 1.0) / d.v) * (f + b);
  e.hint = "Every stage does m·(F + B) of work and waits for the pipeline to fill and drain: (p − 1)/v extra "
           "micro-batch slots of (F + B).";
  e.solution = "Step = (m + (p − 1)/v)·(F + B) = (" + format_int(d.m) + " + " + format_int(d.p - 1) + "/" +
               format_int(d.v) + ") × (" + format_number(f, 2) + " + " + format_number(b, 2) + ") ms = " +
               format_number(e.answer, 4) + " ms.";
  require(e, d.m >= d.p && d.m % d.p == 0, "m is a multiple of p, at least p");
  require(e, b > f, "the backward pass takes longer than the forward pass");
  require_between(e, e.answer / 1e3, 0.01, 60, "the step's length in seconds");
  reject_mistake(e, d.m * (f + b), "left out the bubble: the pipeline fills and drains");
  return e;
}

Exercise allreduce_bytes(Rng& rng) {
  const int h = rng.pick(std::vector<int>{2048, 4096, 5120, 8192, 12288, 16384});
  const int s = rng.pick(std::vector<int>{1024, 2048, 4096, 8192});
  const int b = rng.pick(std::vector<int>{1, 2, 4});
  // 4 or 8 GPUs of one node (at t = 2 the ring's 2(t − 1)/t is 1 and hides the factor).
  const int t = rng.pick(std::vector<int>{4, 8});
  const double buffer_mb = 2.0 * b * s * h / 1e6;
  Exercise e;
  e.title = "Tensor-parallel traffic of one layer";
  e.params = {{"hidden", h}, {"seq", s}, {"micro_batch", b}, {"tp", t}};
  e.prompt = "A transformer layer of width h = " + format_int(h) + " is split Megatron-style over t = " + format_int(t) +
             " GPUs. A micro-batch holds b = " + counted(b, "sequence") + " of s = " + format_int(s) +
             " tokens in bf16. With ring all-reduces, how many MB does each GPU send for this layer in one forward and "
             "backward pass?";
  e.unit = "MB";
  e.answer = 4 * 2.0 * (t - 1) / t * buffer_mb;
  e.hint = "Two all-reduces forward and two backward, each of the s·b·h activations (2 bytes each). A ring all-reduce "
           "of S bytes makes every GPU send 2(t − 1)/t · S.";
  e.solution = "S = 2 × " + format_int(b) + " × " + format_int(s) + " × " + format_int(h) + " B = " +
               format_number(buffer_mb, 4) + " MB. Four all-reduces × 2(t − 1)/t = " + format_number(2.0 * (t - 1) / t, 4) +
               " × S each: 4 × " + format_number(2.0 * (t - 1) / t, 4) + " × " + format_number(buffer_mb, 4) + " = " +
               format_number(e.answer, 4) + " MB.";
  require_between(e, t, 2, 8, "tensor-parallel degree within one 8-GPU node");
  require(e, h % t == 0, "the width divides over the GPUs");
  reject_mistake(e, 4 * buffer_mb, "left out the ring's 2(t − 1)/t");
  reject_mistake(e, 2 * 2.0 * (t - 1) / t * buffer_mb, "counted the forward pass's two all-reduces only");
  return e;
}

Exercise inflight_saving(Rng& rng) {
  int p = 0, m = 0, s = 0;
  double a = 0;
  do {  // GPipe's m micro-batches must fit the stage's GPU, an H100, beside nothing else
    p = rng.pick(std::vector<int>{4, 8, 16});
    m = p * rng.integer(2, 8);
    s = rng.integer(1, p - 1);  // past the first stage, where 1F1B holds p − s, not p
    a = round_sig(0.5 + 4 * rng.uniform(), 2);  // GB per micro-batch on one stage
  } while (m * a * 1e9 > hbm_of("h100-sxm"));
  Exercise e;
  e.title = "Activations in flight: GPipe vs 1F1B";
  e.params = {{"stages", p}, {"microbatches", m}, {"stage", s}, {"activation_gb", a}};
  e.prompt = "A pipeline has p = " + format_int(p) + " stages and runs m = " + format_int(m) +
             " micro-batches per step. One micro-batch leaves " + format_number(a, 2) +
             " GB of activations on a stage until its backward pass. How many GB less does stage " + format_int(s) +
             " (counting from 0) need at its peak under 1F1B than under GPipe?";
  e.unit = "GB";
  const int gpipe = m, one_f = std::min(p - s, m);
  e.answer = (gpipe - one_f) * a;
  e.hint = "GPipe runs every forward before any backward: all m micro-batches are held. Under 1F1B stage s runs p − s "
           "− 1 warm-up forwards, then one more forward before its first backward.";
  e.solution = "GPipe holds m = " + format_int(gpipe) + " micro-batches; 1F1B holds p − s = " + format_int(one_f) +
               ". Saving = (" + format_int(gpipe) + " − " + format_int(one_f) + ") × " + format_number(a, 2) + " GB = " +
               format_number(e.answer, 4) + " GB.";
  require_fits(e, gpipe * a * 1e9, hbm_of("h100-sxm"), "GPipe's activations on the stage's H100");
  require(e, m >= p, "at least as many micro-batches as stages");
  reject_mistake(e, (gpipe - p) * a, "gave every stage 1F1B's p in-flight micro-batches, not p − s");
  reject_mistake(e, gpipe * a, "gave GPipe's total, not the saving");
  return e;
}

Exercise layout_states(Rng& rng) {
  double params_b = 0;
  int t = 0, p = 0, d = 0;
  do {  // a layout that splits the model (tp·pp > 1) and whose states fit an H100
    params_b = rng.pick(std::vector<double>{7, 13, 34, 70, 175, 405});
    t = rng.pick(std::vector<int>{1, 2, 4, 8});
    p = rng.pick(std::vector<int>{1, 2, 4, 8, 16});
    d = rng.pick(std::vector<int>{2, 4, 8, 16, 32});
  } while (t * p == 1 || params_b * 1e9 / (t * p) * (4 + 12.0 / d) > hbm_of("h100-sxm"));
  Exercise e;
  e.title = "Model states of a layout";
  e.params = {{"params", params_b * 1e9}, {"tp", t}, {"pp", p}, {"dp", d}, {"zero_stage", 1}};
  e.prompt = article(format_number(params_b, 4), true) + format_number(params_b, 4) + "B-parameter model trains with mixed-precision Adam (2 + 2 + 12 bytes per "
             "parameter) on a layout of tp = " + format_int(t) + ", pp = " + format_int(p) + ", dp = " + format_int(d) +
             " with ZeRO stage 1 over the data-parallel group. Assuming tp and pp split the parameters evenly, how many "
             "GB of weights, gradients and optimizer states does each GPU hold?";
  e.unit = "GB";
  const double per_gpu = params_b * 1e9 / (t * p);
  e.answer = per_gpu * (2 + 2 + 12.0 / d) / 1e9;
  e.hint = "Tensor and pipeline parallelism each split the parameters; ZeRO-1 then splits only the 12 optimizer bytes "
           "over dp.";
  e.solution = "Parameters per GPU = " + format_number(params_b, 4) + "e9 / (" + format_int(t) + " × " + format_int(p) +
               ") = " + format_number(per_gpu, 4) + "; bytes = " + format_number(per_gpu, 4) + " × (2 + 2 + 12/" +
               format_int(d) + ") = " + format_number(e.answer, 4) + " GB.";
  require(e, t * p > 1, "tensor or pipeline parallelism splits the model");
  require_fits(e, e.answer * 1e9, hbm_of("h100-sxm"), "model states per GPU on an H100");
  require_whole(e, t * p * d, "GPUs of the layout");
  reject_mistake(e, per_gpu * 16 / d / 1e9, "sharded all 16 bytes over dp, as ZeRO-3 would");
  reject_mistake(e, per_gpu * 4 / 1e9, "forgot the optimizer states");
  return e;
}

// Model states per GPU with tp = 8, pp = p and dp = gpus / (8p) under ZeRO-1: P/(8p)·(4 + 12/dp),
// which is P/(2p) + 12P/gpus (the optimizer states are sharded over all the GPUs whatever p is).
double layout_states_gb(double params_b, int gpus, int p) {
  const double d = gpus / (8.0 * p);
  return params_b / (8.0 * p) * (4 + 12 / d);
}

Exercise smallest_pp(Rng& rng) {
  // The answer is drawn first, evenly over 2, 4, 8 and 16 (never 1, where no pipeline is needed
  // and the first line of the working is the answer), then a budget that pp fits and pp/2 does
  // not, of 10 to 64 GB (what an 80 GB GPU can spare for model states beside activations).
  constexpr double kMinBudget = 10, kMaxBudget = 64;
  const int answer = rng.pick(std::vector<int>{2, 4, 8, 16});
  for (;;) {
    const double params_b = rng.pick(std::vector<double>{34, 70, 175, 405});
    const int gpus = rng.pick(std::vector<int>{128, 256, 512});
    const int t = 8;
    // Strictly between the two, clear of both by 3 % so that no rounding decides it.
    const double lo = std::max(kMinBudget, 1.03 * layout_states_gb(params_b, gpus, answer));
    const double hi = std::min(kMaxBudget, 0.97 * layout_states_gb(params_b, gpus, answer / 2));
    if (hi - lo < 1) continue;
    const double budget = std::floor(lo + 1 + rng.uniform() * (hi - lo - 1));  // a whole number of GB in (lo, hi]
    Exercise e;
    e.title = "Which pipeline depth fits?";
    e.params = {{"params", params_b * 1e9}, {"tp", t}, {"gpus", gpus}, {"budget_gb", budget}, {"zero_stage", 1}};
    e.prompt = "You train " + article(format_number(params_b, 4)) + format_number(params_b, 4) + "B-parameter model on " + format_int(gpus) +
               " GPUs with tensor parallelism tp across the eight GPUs of each node, mixed-precision Adam (bf16 "
               "weights and gradients, fp32 master weights and two fp32 moments) and ZeRO-1 over the data-parallel "
               "group dp = GPUs / (tp·pp). You can spare " + format_number(budget, 3) +
               " GB per GPU for model states. What is the smallest power-of-two pipeline degree pp that fits?";
    e.unit = "";
    e.answer = answer;
    e.integer = true;
    e.small_answer_set = true;  // the answer is one of four powers of two
    e.hint = "For each pp: parameters per GPU = P/(8·pp), dp = N/(8·pp), bytes = P/(8·pp) × (4 + 12/dp). Deeper pipelines "
             "shrink the share but also shrink dp.";
    std::string steps;
    for (int p = 1; p <= answer; p *= 2) {
      steps += "pp = " + format_int(p) + ": dp = " + format_int(gpus / (t * p)) + ", " +
               format_number(layout_states_gb(params_b, gpus, p), 4) + " GB; ";
    }
    e.solution = steps + "the first within " + format_number(budget, 3) + " GB is pp = " + format_int(answer) + ".";
    require_whole(e, gpus / (t * answer), "data-parallel degree at the answer");
    require(e, layout_states_gb(params_b, gpus, answer) <= budget && layout_states_gb(params_b, gpus, answer / 2) > budget,
            "pp = " + format_int(answer) + " fits the budget and pp = " + format_int(answer / 2) + " does not");
    require_between(e, budget, kMinBudget, kMaxBudget, "the budget in GB (what an 80 GB GPU spares beside activations)");
    return e;
  }
}

}  // namespace

void add_model_parallel_exercises(std::vector<Generator>& out) {
  out.push_back({"pp-bubble-fraction", bubble_fraction});
  out.push_back({"pp-step-time", step_time});
  out.push_back({"tp-allreduce-bytes", allreduce_bytes});
  out.push_back({"pp-inflight-saving", inflight_saving});
  out.push_back({"pp-layout-states", layout_states});
  out.push_back({"pp-smallest-depth", smallest_pp});
}

}  // namespace mlsys::exercises
