// One workload of a decoder-only transformer (a training step, a prefill, a decode step) timed
// on several accelerators by the roofline (Williams, Waterman, Patterson 2009): time = max(FLOPs
// / peak, bytes / HBM bandwidth) with each chip's dense peak for the dtype and its datasheet
// bandwidth (content/data/hardware.json), then tokens per second, per joule (at the table's
// power_w) and per dollar (at prices the caller gives). Sources of the counts:
// - training step: FLOPs per token 6·N + 12·L·H·Q·T (PaLM, Chowdhery et al. 2022, appendix B;
//   transformer/model_config.hpp). HBM bytes, each tensor moved once: the weights read in the
//   forward and the backward pass and the gradients written (3 · 2 B per parameter, bf16), the
//   Adam step of mixed precision reading the gradient and the fp32 master, momentum and variance
//   and writing them back with the bf16 copy (2 + 12 + 12 + 2 B), and the stored activations
//   written in the forward pass and read in the backward pass (Korthikanti et al. 2022,
//   memory/training_memory.hpp, with FlashAttention so no s² scores are stored). Memory held:
//   16 B per parameter (Micikevicius et al. 2018) plus those activations.
// - prefill and decode step: serving/decode.hpp (Pope et al. 2023): prefill reads the weights
//   once and writes the prompt's KV cache; a decode step reads every weight and the whole KV
//   cache of the batch. Memory held: the weights and the KV cache of batch · seq tokens.
// A workload split over `chips` identical chips is divided evenly (ideal tensor parallelism:
// each chip does 1/chips of the FLOPs, moves 1/chips of the bytes and holds 1/chips of the
// memory); the communication between them is left out.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/transformer/model_config.hpp"

namespace mlsys {

// The work of one step, for the whole workload (not per chip).
struct WorkloadCost {
  std::string workload;  // "training-step", "prefill" or "decode-step"
  std::string dtype;     // the matmul format, whose dense peak each chip runs at
  double flops;          // FLOP
  double bytes;          // HBM bytes moved
  double tokens;         // tokens the step processes (training, prefill: batch·seq; decode: batch)
  double memory_bytes;   // bytes that must stay resident in HBM during the step
  double intensity;      // flops / bytes
  // The step is linear in the batch b: flops = b · flops_per_sequence and bytes = fixed_bytes +
  // b · bytes_per_sequence (weights and optimizer state once; each sequence's KV cache or
  // activations). So its intensity rises with b towards flops_per_sequence / bytes_per_sequence
  // and never passes it (the Scaling Book, "All about Transformer inference": every sequence
  // brings its own KV cache).
  double flops_per_sequence;  // FLOP
  double fixed_bytes;         // B, moved whatever the batch
  double bytes_per_sequence;  // B
  double intensity_limit;     // FLOP/B, the intensity as b grows without bound
};

// workload: "training-step" | "prefill" | "decode-step". config.seq is ignored: `seq` is the
// sequence length (training), the prompt (prefill) or the cached context (decode). dtype: the
// matmul format (training: bf16, fp16 or fp8-e4m3, with 16-bit weights, gradients and
// activations as in mixed precision; inference: bf16, fp16, fp8-e4m3 or int8, which is also the
// format of the weights and the KV cache). InputError on "workload" or "dtype".
WorkloadCost workload_cost(const std::string& workload, const ModelConfig& config, double batch, double seq,
                           const std::string& dtype);

// The smallest whole batch b ≥ 1 at which `cost` (its seq and dtype kept) reaches `ridge`
// FLOP/B: b · flops_per_sequence ≥ ridge · (fixed_bytes + b · bytes_per_sequence). Empty when
// intensity_limit ≤ ridge.
std::optional<double> compute_bound_batch(const WorkloadCost& cost, double ridge);

struct AcceleratorRow {
  std::string id, name;
  double peak_flops;       // FLOP/s, dense, of the dtype
  double bandwidth_Bps;    // HBM bytes/s
  double ridge_intensity;  // peak / bandwidth, FLOP/B
  double compute_time_s, memory_time_s;
  double time_s;           // roofline time of the step on `chips` chips
  std::string bound;       // "compute" or "memory"
  double tokens_per_s;     // tokens / time_s, all chips together
  double hbm_bytes;        // per chip
  double memory_per_chip_bytes;
  bool fits;               // memory_per_chip_bytes <= hbm_bytes
  // The smallest whole batch at which this step (same seq) is compute-bound on this chip:
  // b ≥ ridge · fixed_bytes / (flops_per_sequence − ridge · bytes_per_sequence); empty when
  // the intensity limit is at or below the ridge, so that no batch is compute-bound.
  std::optional<double> compute_bound_batch;
  std::optional<double> power_w;           // per chip; empty when the table has none
  std::optional<double> tokens_per_joule;  // tokens_per_s / (chips · power_w)
  std::optional<double> price_per_hour;    // dollars per chip-hour, as given
  std::optional<double> tokens_per_dollar; // tokens_per_s · 3600 / (chips · price_per_hour)
};

struct ExcludedAccelerator {
  std::string id, reason;
};

struct AcceleratorComparison {
  WorkloadCost cost;
  double chips;
  std::vector<AcceleratorRow> rows;          // in the order of `ids`
  std::vector<ExcludedAccelerator> excluded; // chips with no dense rate for the dtype
};

// ids: accelerator ids of the hardware table (empty: every row). prices: dollars per
// chip-hour by id (ids not compared are an InputError on "price_per_hour"). chips >= 1.
AcceleratorComparison compare_accelerators(const WorkloadCost& cost, const std::vector<std::string>& ids,
                                           const std::map<std::string, double>& prices, double chips);

}  // namespace mlsys
