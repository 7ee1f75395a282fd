// Calculators of the feeding-data lesson (shared/API.md): `input-pipeline` (a seeded
// simulation of PyTorch-style data-loader workers and the training step), `packing`
// (padding, packing and concatenate-and-split of random-length documents, with the attention
// pairs of a causal and a per-document mask), and, beyond API.md, `batch-scaling` (the
// global batch and the learning-rate rules of Goyal et al. 2017, Malladi et al. 2022 and
// McCandlish et al. 2018).
#include "mlsys/training/input_batch.hpp"
#include "mlsys/training/input_pipeline.hpp"
#include "mlsys/training/packing.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(PipelineStep, MLSYS_OUT(step, "", "Step k"),
               MLSYS_OUT(worker, "", "Worker that built its batch (k mod workers; −1: the training loop, workers = 0)"),
               MLSYS_OUT(issued_s, "s", "When the loader asked for the batch"),
               MLSYS_OUT(load_s, "s", "Its load time"), MLSYS_OUT(ready_s, "s", "When the batch was ready"),
               MLSYS_OUT(start_s, "s", "When the step began"),
               MLSYS_OUT(wait_s, "s", "Time the training loop waited for this batch"),
               MLSYS_OUT(end_s, "s", "When the step ended"));
MLSYS_DESCRIBE(InputPipelineResult, MLSYS_OUT(throughput_steps_per_s, "1/s", "Steps / makespan"),
               MLSYS_OUT(gpu_busy_fraction, "", "steps · step_time_s / makespan"),
               MLSYS_OUT(stall_s, "s", "Total time the training loop waited for data, first batch included"),
               MLSYS_OUT(warmup_s, "s", "Wait for the first batch"),
               MLSYS_OUT(steady_stall_s, "s", "stall_s − warmup_s: waits after the first step"),
               MLSYS_OUT(makespan_s, "s", "End of the last step"),
               MLSYS_OUT(supply_steps_per_s, "1/s", "workers / load_time_s: batches the workers build per second on average"),
               MLSYS_OUT(demand_steps_per_s, "1/s", "1 / step_time_s"),
               MLSYS_OUT(workers_needed, "", "⌈load_time_s / step_time_s⌉: fewest workers whose mean supply keeps up"),
               MLSYS_OUT(in_flight, "", "workers · prefetch: most batches asked for and not yet used"),
               MLSYS_OUT(timeline, "", "The first 50 steps"));
MLSYS_DESCRIBE(PackingResult, MLSYS_OUT(method, "", "pad, pack or concat"),
               MLSYS_OUT(useful_tokens, "tokens", "Document tokens trained on (after truncation)"),
               MLSYS_OUT(slot_tokens, "tokens", "sequences · max_len"),
               MLSYS_OUT(efficiency, "", "useful_tokens / slot_tokens"),
               MLSYS_OUT(sequences, "", "Training sequences of max_len"),
               MLSYS_OUT(padding_tokens, "tokens", "slot_tokens − useful_tokens"),
               MLSYS_OUT(truncated_tokens, "tokens", "Tokens dropped from documents longer than max_len (pad, pack)"),
               MLSYS_OUT(document_tokens, "tokens", "Σ document lengths as drawn"),
               MLSYS_OUT(mean_length, "tokens", "document_tokens / samples"),
               MLSYS_OUT(documents, "", "Documents drawn (samples)"),
               MLSYS_OUT(max_documents_per_sequence, "", "Most documents (or pieces of documents) in one sequence"),
               MLSYS_OUT(causal_pairs, "", "Query-key pairs a plain causal mask allows over real tokens, Σ u(u+1)/2 per sequence"),
               MLSYS_OUT(document_pairs, "", "Pairs a per-document causal mask allows, Σ d(d+1)/2 per document piece"),
               MLSYS_OUT(cross_document_share, "", "(causal_pairs − document_pairs) / causal_pairs: attention that crosses documents"));
MLSYS_DESCRIBE(BatchLrPoint, MLSYS_OUT(batch_tokens, "tokens", "Global batch B"),
               MLSYS_OUT(lr_linear, "", "base_lr · B/B₀"), MLSYS_OUT(lr_sqrt, "", "base_lr · √(B/B₀)"),
               MLSYS_OUT(lr_noise_scale, "", "base_lr · (1 + B_crit/B₀) / (1 + B_crit/B)"),
               MLSYS_OUT(steps_factor, "", "S / S_min = 1 + B_crit/B"),
               MLSYS_OUT(tokens_factor, "", "E / E_min = 1 + B/B_crit"));
MLSYS_DESCRIBE(BatchScalingResult, MLSYS_OUT(sequences, "", "per_device_batch · devices · accumulation"),
               MLSYS_OUT(tokens, "tokens", "sequences · seq: tokens per optimizer step"),
               MLSYS_OUT(scale, "", "tokens / base_batch_tokens"),
               MLSYS_OUT(lr_linear, "", "Linear rule (Goyal et al. 2017): base_lr · scale"),
               MLSYS_OUT(lr_sqrt, "", "Square-root rule (Malladi et al. 2022, Adam): base_lr · √scale"),
               MLSYS_OUT(lr_noise_scale, "", "McCandlish et al. 2018: base_lr · (1 + B_crit/B₀) / (1 + B_crit/B)"),
               MLSYS_OUT(steps_factor, "", "Steps to a given loss over the fewest possible: 1 + B_crit/B"),
               MLSYS_OUT(tokens_factor, "", "Tokens to a given loss over the fewest possible: 1 + B/B_crit"),
               MLSYS_OUT(steps_vs_base, "", "Steps at B over steps at B₀"),
               MLSYS_OUT(tokens_vs_base, "", "Tokens at B over tokens at B₀"),
               MLSYS_OUT(curve, "", "The rules at batches of 2^14 … 2^27 tokens"));

void add_input_calculators(Calculators& out) {
  out.add("input-pipeline",
          "Seeded discrete-event simulation of a PyTorch-style DataLoader feeding a training loop: batch k is built "
          "whole by worker k mod workers, each worker may have `prefetch` batches in flight (prefetch_factor; the loader "
          "asks for batch k + workers·prefetch when the loop takes batch k), the loop takes batches in order and runs a "
          "step of step_time_s. Load times are lognormal with mean load_time_s and coefficient of variation load_cv "
          "(0: constant). workers = 0: the loop loads each batch itself. Returns throughput, the device's busy fraction, "
          "the time stalled for data and the first 50 steps.",
          {integer_field("workers", "", "Data-loader worker processes (num_workers; 0: load in the training loop)", 4, 0,
                         kMaxPipelineWorkers),
           integer_field("prefetch", "", "Batches in flight per worker (PyTorch's prefetch_factor, default 2)", 2, 1,
                         kMaxPipelinePrefetch),
           number_field("load_time_s", "s", "Mean time one worker takes to build one batch", 1.0, 0.0, 1e6, true),
           number_field("load_cv", "", "Coefficient of variation of the load time (lognormal; 0: constant)", 0.5, 0.0, 4.0),
           number_field("step_time_s", "s", "Time of one training step", 0.3, 0.0, 1e6, true),
           integer_field("steps", "", "Training steps simulated", 200, 1, kMaxPipelineSteps), seed_field()},
          [](const Inputs& in) {
            return simulate_input_pipeline(static_cast<int>(in.integer("workers")), static_cast<int>(in.integer("prefetch")),
                                           in.num("load_time_s"), in.num("load_cv"), in.num("step_time_s"),
                                           static_cast<int>(in.integer("steps")),
                                           static_cast<std::uint64_t>(in.integer("seed")));
          });

  out.add("packing",
          "Padding versus packing of seeded random-length documents into sequences of max_len tokens. pad: one "
          "document per sequence, truncated to max_len; pack: truncated documents placed whole by best-fit "
          "decreasing; concat: concatenate and split every max_len tokens (nothing dropped, only the last sequence "
          "padded); dynamic: one document per row, each batch of batch_rows padded to its longest; bucket: the same "
          "after sorting by length. Lengths: fixed (mean_len), uniform on [1, 2·mean_len − 1], or lognormal with mean mean_len and "
          "log-standard-deviation sigma. efficiency = useful tokens / (sequences · max_len); attention pairs under a "
          "plain causal mask and a per-document causal mask.",
          {integer_field("max_len", "tokens", "Sequence length M", 2048, 1, kMaxPackingLen),
           string_field("length_distribution", "Document lengths: fixed, uniform or lognormal", "lognormal",
                        {"uniform", "lognormal", "fixed"}),
           number_field("mean_len", "tokens", "Mean document length", 600, 1.0, kMaxPackingLen),
           integer_field("samples", "", "Documents drawn", 1000, 1, kMaxPackingSamples),
           string_field("method", "pad (one document per sequence), pack (best-fit decreasing, no splitting), concat "
                                  "(concatenate and split), dynamic (pad to the batch's longest) or bucket (sorted by "
                                  "length, then dynamic)",
                        "pack", {"pad", "pack", "concat", "dynamic", "bucket"}),
           seed_field(),
           number_field("sigma", "", "Standard deviation of ln(length) for lognormal lengths", 1.0, 0.0, 3.0, true),
           integer_field("batch_rows", "", "Rows per batch (dynamic and bucket)", 16, 1, kMaxPackingSamples)},
          [](const Inputs& in) {
            return pack_sequences(static_cast<int>(in.integer("max_len")), in.str("length_distribution"),
                                  in.num("mean_len"), static_cast<int>(in.integer("samples")), in.str("method"),
                                  static_cast<std::uint64_t>(in.integer("seed")), in.num("sigma"),
                                  static_cast<int>(in.integer("batch_rows")));
          });

  out.add("batch-scaling",
          "Global batch (per_device_batch · devices · accumulation sequences of seq tokens) and the learning rate at "
          "it from a base_lr tuned at base_batch_tokens: linear rule lr₀·B/B₀ (Goyal et al. 2017), square-root rule "
          "lr₀·√(B/B₀) (Malladi et al. 2022, Adam), and McCandlish et al. 2018's ε_max/(1 + B_crit/B) anchored at B₀; "
          "with the steps S = S_min(1 + B_crit/B) and tokens E = E_min(1 + B/B_crit) to a given loss.",
          {integer_field("per_device_batch", "", "Micro-batch per device (sequences)", 2, 1, 1LL << 20),
           integer_field("devices", "", "Data-parallel devices (replicas)", 512, 1, 1LL << 24),
           integer_field("accumulation", "", "Gradient-accumulation steps", 1, 1, 1LL << 20),
           integer_field("seq", "tokens", "Tokens per sequence", 4096, 1, 1LL << 24),
           number_field("base_batch_tokens", "tokens", "Batch B₀ at which base_lr was tuned", 1048576, 1.0, 1e15),
           number_field("base_lr", "", "Learning rate tuned at B₀", 3e-4, 0.0, 10.0, true),
           number_field("critical_batch_tokens", "tokens", "Critical batch B_crit (McCandlish et al.)", 8388608, 1.0,
                        1e15)},
          [](const Inputs& in) {
            return batch_scaling(static_cast<double>(in.integer("per_device_batch")),
                                 static_cast<double>(in.integer("devices")),
                                 static_cast<double>(in.integer("accumulation")), static_cast<double>(in.integer("seq")),
                                 in.num("base_batch_tokens"), in.num("base_lr"), in.num("critical_batch_tokens"));
          });
}

}  // namespace mlsys::api
