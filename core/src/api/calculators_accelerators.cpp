// Calculator of the comparing-accelerators lesson (shared/API.md): `accelerator-compare`, one
// transformer workload (a training step, a prefill, a decode step) timed on each accelerator of
// the hardware table by the roofline, with tokens per second, per joule and per dollar. Beyond
// API.md: `chips` (the workload split evenly over that many chips of each kind), the step's
// FLOPs, bytes and memory, and per row the two roofline times, the memory per chip and whether
// it fits, the power and price used, and the accelerators left out for lack of a dtype rate.

#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/hardware/accelerator_compare.hpp"
#include "model_inputs.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(WorkloadCost, MLSYS_OUT(workload, "", "training-step, prefill or decode-step"),
               MLSYS_OUT(dtype, "", "Matmul format: each chip runs at its dense peak for it"),
               MLSYS_OUT(flops, "FLOP", "FLOPs of the whole step (training: tokens · (6N + 12·L·H·Q·T))"),
               MLSYS_OUT(bytes, "B", "HBM bytes of the whole step, each tensor moved once"),
               MLSYS_OUT(tokens, "tokens", "Tokens the step processes (decode: one per sequence)"),
               MLSYS_OUT(memory_bytes, "B", "Bytes resident in HBM during the step, all chips together"),
               MLSYS_OUT(intensity, "FLOP/B", "flops / bytes: the same on every chip"),
               MLSYS_OUT(flops_per_sequence, "FLOP", "FLOPs each sequence adds: flops = batch · this"),
               MLSYS_OUT(fixed_bytes, "B", "Bytes moved whatever the batch (weights; training: and optimizer state)"),
               MLSYS_OUT(bytes_per_sequence, "B", "Bytes each sequence adds (its KV cache; training: its activations)"),
               MLSYS_OUT(intensity_limit, "FLOP/B",
                         "flops_per_sequence / bytes_per_sequence: the intensity as the batch grows without bound"));
MLSYS_DESCRIBE(AcceleratorRow, MLSYS_OUT(id, "", "Accelerator id"), MLSYS_OUT(name, "", "Product name"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Dense peak of the dtype (datasheet)"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "HBM bandwidth (datasheet)"),
               MLSYS_OUT(ridge_intensity, "FLOP/B", "Ridge point: peak_flops / bandwidth_Bps"),
               MLSYS_OUT(compute_time_s, "s", "FLOPs per chip / peak_flops"),
               MLSYS_OUT(memory_time_s, "s", "Bytes per chip / bandwidth_Bps"),
               MLSYS_OUT(time_s, "s", "Roofline time of the step: the larger of the two"),
               MLSYS_OUT(bound, "", "compute or memory: the ceiling that sets the time"),
               MLSYS_OUT(tokens_per_s, "tokens/s", "tokens / time_s, all chips together"),
               MLSYS_OUT(hbm_bytes, "B", "HBM per chip (datasheet)"),
               MLSYS_OUT(memory_per_chip_bytes, "B", "memory_bytes / chips"),
               MLSYS_OUT(fits, "", "memory_per_chip_bytes <= hbm_bytes"),
               MLSYS_OUT_NULLABLE(compute_bound_batch, "",
                                  "Smallest batch at which this step (same seq) is compute-bound on this chip; null "
                                  "when intensity_limit <= ridge_intensity"),
               MLSYS_OUT_NULLABLE(power_w, "W", "Power per chip from the hardware table (power_w); null where none is published"),
               MLSYS_OUT_NULLABLE(tokens_per_joule, "tokens/J", "tokens_per_s / (chips · power_w); null without a power figure"),
               MLSYS_OUT_NULLABLE(price_per_hour, "$/h", "Price per chip-hour, as given"),
               MLSYS_OUT_NULLABLE(tokens_per_dollar, "tokens/$", "tokens_per_s · 3600 / (chips · price_per_hour); null without a price"));
MLSYS_DESCRIBE(ExcludedAccelerator, MLSYS_OUT(id, "", "Accelerator id"), MLSYS_OUT(reason, "", "Why it is not compared"));
MLSYS_DESCRIBE(AcceleratorComparison, MLSYS_FLAT(cost), MLSYS_OUT(chips, "", "Chips of each kind sharing the step"),
               MLSYS_OUT(rows, "", "One row per accelerator compared, in the order of ids"),
               MLSYS_OUT(excluded, "", "Accelerators left out: no dense rate for the dtype"));

void add_accelerators_calculators(Calculators& out) {
  std::vector<Field> f = {string_field("workload",
                                       "training-step (forward, backward and Adam update), prefill (a prompt of seq "
                                       "tokens per sequence) or decode-step (one token per sequence over seq cached)",
                                       "decode-step", {"training-step", "prefill", "decode-step"})};
  // Defaults: Llama 3 8B as published (grouped-query attention with 8 K/V heads); seq is ours.
  json defaults = model_defaults("llama-3-8b");
  defaults.erase("seq");
  for (auto& field : transformer_fields(defaults)) f.push_back(field);
  f.push_back(integer_field("batch", "", "Sequences in the step", 8, 1, 65536));
  f.push_back(integer_field("seq", "tokens",
                            "Tokens per sequence: trained (training-step), in the prompt (prefill) or cached "
                            "(decode-step)",
                            4096, 1, 1048576));
  f.push_back(string_field("dtype",
                           "Matmul format (training: bf16, fp16, fp8-e4m3 with 16-bit weights and activations; "
                           "inference: also the weights' and KV cache's format)",
                           "bf16", {"bf16", "fp16", "fp8-e4m3", "int8"}));
  std::vector<std::string> all_ids;
  for (const auto& a : accelerators()) all_ids.push_back(a.id);
  f.push_back(optional(string_list_field("ids", "Accelerator ids to compare (default: every accelerator of the hardware table)",
                                         json(), all_ids, 1, all_ids.size())));
  f.push_back(optional(number_map_field("price_per_hour",
                                        "Dollars per chip-hour by accelerator id (object: id → $/h); chips without "
                                        "a price get no tokens_per_dollar",
                                        json())));
  f.push_back(integer_field("chips", "",
                            "Chips of each kind sharing the step evenly (ideal split, communication left out)", 1, 1,
                            4096));
  out.add("accelerator-compare",
          "One transformer workload timed on each accelerator by the roofline: max(FLOPs / peak, bytes / HBM "
          "bandwidth) with the datasheet's dense peak for the dtype, then tokens/s, tokens per joule at the table's "
          "power_w and tokens per dollar at the prices given. Training step: tokens · (6N + 12·L·H·Q·T) FLOPs; bytes "
          "34 per parameter (weights read twice, gradients written, mixed-precision Adam) plus the activations written "
          "and read back. Prefill and decode step: as `decode`.",
          f, [](const Inputs& in) {
            const ModelConfig c = model_config_from(in);
            const WorkloadCost cost = workload_cost(in.str("workload"), c, static_cast<double>(in.integer("batch")),
                                                    static_cast<double>(in.integer("seq")), in.str("dtype"));
            const std::vector<std::string> ids = in.has("ids") ? in.strings("ids") : std::vector<std::string>{};
            const std::map<std::string, double> prices =
                in.has("price_per_hour") ? in.number_map("price_per_hour") : std::map<std::string, double>{};
            return compare_accelerators(cost, ids, prices, static_cast<double>(in.integer("chips")));
          });
}

}  // namespace mlsys::api
