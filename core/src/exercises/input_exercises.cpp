// Exercises of the feeding-data lesson: data-loader workers a training step needs, the busy
// fraction of a device whose loader cannot keep up (the `input-pipeline` model with constant
// loads), the efficiency of packing fixed-length documents and the attention that crosses
// documents under a plain causal mask (`packing`), and the square-root learning-rate rule at a
// global batch (`batch-scaling`).
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/training/input_batch.hpp"
#include "mlsys/training/input_pipeline.hpp"
#include "mlsys/training/packing.hpp"

namespace mlsys::exercises {

namespace {

const std::vector<double> kSteps = {0.12, 0.15, 0.18, 0.2, 0.24, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5};

// A DGX H100 node has 112 CPU cores for its 8 GPUs (NVIDIA DGX BasePOD reference architecture:
// dual Xeon Platinum 8480C, 112 cores in total): 14 loader workers per GPU, each on its own core,
// is as many as the node can feed (the lesson's pitfall "Workers need cores").
constexpr int kMaxWorkersPerGpu = 14;

Exercise workers_needed(Rng& rng) {
  double step = 0, load = 0;
  int n = 0;
  do {  // a load that is not a whole number of steps, so rounding down is a different answer
    const int target = rng.integer(2, kMaxWorkersPerGpu);
    step = rng.pick(kSteps);
    const double frac = rng.pick(std::vector<double>{0.15, 0.3, 0.45, 0.6, 0.8, 0.95});
    load = round_sig(step * (target - 1 + frac), 3);
    n = static_cast<int>(std::ceil(load / step - 1e-12));
  } while (std::fabs(load / step - std::round(load / step)) < 1e-9);
  Exercise e;
  e.title = "Data-loader workers a step needs";
  e.params = {{"load_time_s", load}, {"step_time_s", step}, {"load_cv", 0}};
  e.prompt = "A data-loader worker takes " + format_number(load, 3) + " s to read, decode, augment and collate one "
             "batch, always the same, and builds whole batches one at a time. A training step takes " +
             format_number(step, 3) + " s. What is the fewest workers that keeps the GPU from waiting for data once "
             "the first batch has arrived?";
  e.unit = "";
  e.answer = n;
  e.integer = true;
  e.hint = "In steady state the workers together build workers / load_time batches per second; the step consumes "
           "1 / step_time. Supply must be at least demand.";
  e.solution = "Workers × step_time ≥ load_time: workers ≥ " + format_number(load, 3) + " / " + format_number(step, 3) +
               " = " + format_number(load / step, 4) + ", rounded up to a whole worker: " + format_int(n) + ".";
  require_whole(e, n, "workers");
  require_between(e, n, 1, kMaxWorkersPerGpu, "workers for one GPU, each on its own CPU core");
  require_between(e, step, 0.05, 2, "step time in seconds");
  require(e, n * step >= load && (n - 1) * step < load, "the answer is the fewest workers whose supply meets the demand");
  reject_mistake(e, std::floor(load / step), "rounded the workers down, so the GPU still waits");
  return e;
}

Exercise busy_fraction(Rng& rng) {
  const int workers = rng.integer(2, 6);
  const double step = rng.pick(kSteps);
  // A load between 1.2 and 3 times what the workers can cover.
  const double over = 1.15 + 1.85 * rng.uniform();
  const double load = round_sig(workers * step * over, 3);
  const double busy = workers * step / load;
  Exercise e;
  e.title = "A GPU waiting for its data";
  e.params = {{"workers", workers}, {"prefetch", 2}, {"load_time_s", load}, {"load_cv", 0},
              {"step_time_s", step}, {"steps", 5000}};
  e.prompt = counted(workers, "data-loader worker") + " each build one batch in " + format_number(load, 3) +
             " s (always the same); a training step takes " + format_number(step, 3) +
             " s. Over a long run, what percentage of the time is the GPU busy with training steps?";
  e.unit = "%";
  e.answer = 100 * busy;
  e.rel_tolerance = 0.01;
  e.hint = "The workers deliver workers / load_time batches per second, fewer than the 1 / step_time the GPU could "
           "take, so each step runs at the supply rate; busy = step time × steps per second.";
  e.solution = "Supply = " + format_int(workers) + " / " + format_number(load, 3) + " = " +
               format_number(workers / load, 4) + " batches/s, demand = 1 / " + format_number(step, 3) + " = " +
               format_number(1 / step, 4) + " steps/s; the loader is the bottleneck, so busy = " +
               format_number(workers / load, 4) + " × " + format_number(step, 3) + " = " + format_number(e.answer, 4) +
               "%.";
  require_between(e, workers, 1, kMaxWorkersPerGpu, "workers for one GPU, each on its own CPU core");
  require(e, load > workers * step, "the loader is the bottleneck (supply below demand), as the question says");
  require_between(e, e.answer, 0, 100, "busy percentage");
  reject_mistake(e, 100 * step / load, "counted one worker: the workers build batches in parallel");
  return e;
}

Exercise pack_efficiency(Rng& rng) {
  const int max_len = rng.pick(std::vector<int>{512, 1024, 2048, 4096, 8192});
  // A length that does not divide max_len, between a tenth and 45% of it: at least two documents
  // fit, so packing differs from padding one document per sequence.
  int len;
  do {
    len = static_cast<int>(round_sig(max_len * (0.1 + 0.35 * rng.uniform()), 3));
  } while (max_len % len == 0 || max_len / len < 2);
  const int k = max_len / len;
  Exercise e;
  e.title = "Packing documents of one length";
  e.params = {{"max_len", max_len}, {"length_distribution", "fixed"}, {"mean_len", len}, {"samples", 10 * k},
              {"method", "pack"}};
  e.prompt = "Every document of a fine-tuning set has " + format_int(len) + " tokens, and training sequences have " +
             format_int(max_len) + " tokens. The documents are packed whole (never split) into as few sequences as "
             "possible. What percentage of the sequences' token slots hold document tokens?";
  e.unit = "%";
  e.answer = 100.0 * k * len / max_len;
  e.rel_tolerance = 0.002;
  e.hint = "Only whole documents fit: ⌊max_len / length⌋ per sequence. The rest of each sequence is padding.";
  e.solution = "Padding one document per sequence would fill " + format_number(100.0 * len / max_len, 3) +
               "%. Packed: ⌊" + format_int(max_len) + " / " + format_int(len) + "⌋ = " + format_int(k) +
               " documents per sequence, " + format_int(static_cast<double>(k) * len) + " of " + format_int(max_len) +
               " slots: " + format_number(e.answer, 4) + "%.";
  require_whole(e, k, "documents per sequence");
  require(e, k >= 2, "at least two documents fit a sequence: " + format_int(k));
  require(e, len < max_len, "a document is shorter than a sequence");
  reject_mistake(e, 100.0 * len / max_len, "padded one document per sequence instead of packing");
  return e;
}

Exercise cross_document(Rng& rng) {
  const int k = rng.integer(2, 16);
  const int len = rng.pick(std::vector<int>{128, 256, 300, 512, 600, 1000, 1024, 2048});
  const double seq = static_cast<double>(k) * len;
  const double causal = seq * (seq + 1) / 2, doc = k * (len * (len + 1.0) / 2);
  Exercise e;
  e.title = "Attention across packed documents";
  e.params = {{"max_len", k * len}, {"length_distribution", "fixed"}, {"mean_len", len}, {"samples", k},
              {"method", "pack"}};
  e.prompt = counted(k, "document") + " of " + format_int(len) + " tokens each are packed into one sequence of " +
             format_int(seq) + " tokens and trained with a plain causal mask (every token attends to itself and every "
             "earlier token of the sequence). What percentage of the allowed query-key pairs connect tokens of "
             "different documents, to the nearest whole percent?";
  e.unit = "%";
  e.answer = 100 * (causal - doc) / causal;
  e.rel_tolerance = 0;  // whole numbers in: only the rounding the prompt asks for
  e.asked_decimals = 0;
  e.hint = "A causal mask over n tokens allows n(n+1)/2 pairs. A per-document mask allows L(L+1)/2 per document. "
           "The difference crosses documents.";
  e.solution = "Causal: " + format_int(seq) + " × " + format_int(seq + 1) + " / 2 = " + format_int(causal) +
               " pairs; within documents: " + format_int(k) + " × " + format_int(len) + " × " + format_int(len + 1) +
               " / 2 = " + format_int(doc) + "; crossing: " + format_int(causal - doc) + ", " +
               format_number(e.answer, 4) + "%.";
  require_whole(e, k, "documents in the sequence");
  require(e, k >= 2, "several documents share the sequence: " + format_int(k));
  require_between(e, seq, 256, 32768, "sequence length in tokens (contexts models train on)");
  require_between(e, e.answer, 0, 100, "crossing percentage");
  return e;
}

// The critical batch of the lesson's batch-scaling defaults (McCandlish et al.'s B_crit, 8M
// tokens): past it the square-root rule no longer says what the step size should be.
constexpr double kCriticalBatchTokens = 8388608;

Exercise sqrt_lr(Rng& rng) {
  int per_device = 0, devices = 0, accumulation = 0, seq = 0;
  double base_tokens = 0, tokens = 0;
  do {  // a batch 2 to 32 times the tuned one, and within the critical batch
    per_device = rng.pick(std::vector<int>{1, 2, 4, 8});
    devices = rng.pick(std::vector<int>{32, 64, 128, 256, 512, 1024});
    accumulation = rng.pick(std::vector<int>{1, 2, 4});
    seq = rng.pick(std::vector<int>{2048, 4096, 8192});
    base_tokens = rng.pick(std::vector<double>{262144, 524288, 1048576});
    tokens = 1.0 * per_device * devices * accumulation * seq;
  } while (tokens < 2 * base_tokens || tokens > 32 * base_tokens || tokens > kCriticalBatchTokens);
  const double base_lr = rng.pick(std::vector<double>{1e-4, 1.5e-4, 2e-4, 3e-4, 6e-4});
  const BatchScalingResult r = batch_scaling(per_device, devices, accumulation, seq, base_tokens, base_lr, kCriticalBatchTokens);
  Exercise e;
  e.title = "Learning rate at a larger global batch";
  e.params = {{"per_device_batch", per_device}, {"devices", devices}, {"accumulation", accumulation}, {"seq", seq},
              {"base_batch_tokens", base_tokens}, {"base_lr", base_lr}};
  e.prompt = "An Adam run was tuned at a batch of " + format_int(base_tokens) + " tokens with a learning rate of " +
             prose(base_lr, 2) + ". It moves to " + format_int(devices) + " data-parallel GPUs, each with a " +
             "micro-batch of " + counted(per_device, "sequence") + " of " + format_int(seq) + " tokens and " +
             counted(accumulation, "accumulation step") + " per optimizer step. By the square-root rule, what "
             "learning rate should it use, in units of 10⁻⁴?";
  e.unit = "10\u207B\u2074";
  e.answer = r.lr_sqrt / 1e-4;
  e.rel_tolerance = 0.005;
  e.hint = "Global batch in tokens = micro-batch × GPUs × accumulation × sequence length; lr = lr₀ · √(B / B₀).";
  e.solution = "B = " + format_int(per_device) + " × " + format_int(devices) + " × " + format_int(accumulation) + " × " +
               format_int(seq) + " = " + format_int(r.tokens) + " tokens, " + format_number(r.scale, 4) +
               " × B₀; √ of that = " + format_number(std::sqrt(r.scale), 4) + "; lr = " + prose(base_lr, 2) + " × " +
               format_number(std::sqrt(r.scale), 4) + " = " + prose(r.lr_sqrt, 4) + ", so the answer is " +
               format_number(e.answer, 4) + ".";
  require_between(e, r.tokens, 2 * base_tokens, kCriticalBatchTokens,
                  "global batch in tokens: larger than the tuned one, within the critical batch");
  require_between(e, r.lr_sqrt, 1e-5, 1e-2, "learning rate of an Adam run");
  reject_mistake(e, r.lr_linear / 1e-4, "used the linear rule, which is SGD's");
  return e;
}

}  // namespace

void add_input_exercises(std::vector<Generator>& out) {
  out.push_back({"fd-workers-needed", workers_needed});
  out.push_back({"fd-busy-fraction", busy_fraction});
  out.push_back({"fd-pack-efficiency", pack_efficiency});
  out.push_back({"fd-cross-document", cross_document});
  out.push_back({"fd-sqrt-lr", sqrt_lr});
}

}  // namespace mlsys::exercises
