// One transformer workload timed on several accelerators by the roofline (see
// hardware/accelerator_compare.hpp for the counts and their sources).
#include "mlsys/hardware/accelerator_compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/gpu/roofline.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/hardware/datasheet.hpp"
#include "mlsys/memory/training_memory.hpp"
#include "mlsys/serving/decode.hpp"

namespace mlsys {

namespace {

// Mixed-precision Adam, bytes moved per parameter in one training step: the 16-bit weights read
// forward and backward (2 + 2), the 16-bit gradient written (2), then the optimizer reading the
// gradient (2) and the fp32 master, momentum and variance (12), writing those (12) and the new
// 16-bit copy (2).
constexpr double kTrainingBytesPerParam = 2 + 2 + 2 + 2 + 12 + 12 + 2;
// Held in HBM per parameter: 16-bit weights and gradients, fp32 master, momentum, variance.
constexpr double kTrainingStateBytesPerParam = 2 + 2 + 12;

}  // namespace

std::optional<double> compute_bound_batch(const WorkloadCost& cost, double ridge) {
  const double margin = cost.flops_per_sequence - ridge * cost.bytes_per_sequence;
  if (!(margin > 0)) return std::nullopt;
  const auto compute_bound = [&](double b) {
    return b * cost.flops_per_sequence >= ridge * (cost.fixed_bytes + b * cost.bytes_per_sequence);
  };
  double b = std::max(1.0, std::ceil(ridge * cost.fixed_bytes / margin));
  // The closed form may land one off in floating point: step to the exact smallest.
  while (b > 1 && compute_bound(b - 1)) b -= 1;
  while (!compute_bound(b)) b += 1;
  return b;
}

WorkloadCost workload_cost(const std::string& workload, const ModelConfig& config, double batch, double seq,
                           const std::string& dtype) {
  ModelConfig c = config;
  c.seq = seq;
  WorkloadCost w;
  w.workload = workload;
  w.dtype = dtype;
  if (workload == "training-step") {
    if (dtype != "bf16" && dtype != "fp16" && dtype != "fp8-e4m3")
      throw InputError("dtype", "A training step runs its matmuls in bf16, fp16 or fp8-e4m3 (mixed precision); '" +
                                    dtype + "' is for inference.");
    const ModelCounts n = model_counts(c);
    w.tokens = batch * seq;
    w.flops = w.tokens * n.flops_per_token_training;
    const double activations =
        c.layers * activation_bytes_per_layer(seq, batch, c.hidden, c.heads, 1, false, Recompute::None, true,
                                              mlp_activation_units(c));
    w.fixed_bytes = n.params * kTrainingBytesPerParam;
    w.bytes_per_sequence = 2 * activations / batch;  // activations written, then read; linear in batch
    w.flops_per_sequence = seq * n.flops_per_token_training;
    w.bytes = w.fixed_bytes + batch * w.bytes_per_sequence;
    w.memory_bytes = n.params * kTrainingStateBytesPerParam + activations;
  } else if (workload == "prefill" || workload == "decode-step") {
    if (dtype != "bf16" && dtype != "fp16" && dtype != "fp8-e4m3" && dtype != "int8")
      throw InputError("dtype", "Inference here runs in bf16, fp16, fp8-e4m3 or int8; '" + dtype + "' is not one.");
    const ServedModel served = served_model(c, std::nullopt);
    const ServingModel m = serving_model(served, dtype, dtype);
    // The rates are irrelevant here: only the FLOPs and bytes are kept.
    const PhaseCost p = workload == "prefill" ? prefill_cost(m, batch, seq, 1, 1) : decode_step_cost(m, batch, seq, 1, 1);
    w.flops = p.flops;
    w.bytes = p.bytes;
    // Both phases read the weights once and each sequence's KV cache (prefill: writes it).
    w.fixed_bytes = m.weight_bytes;
    w.bytes_per_sequence = seq * m.kv_bytes_per_token;
    w.flops_per_sequence = p.flops / batch;
    w.tokens = workload == "prefill" ? batch * seq : batch;
    w.memory_bytes = served.resident_params * dtype_bytes(dtype) + batch * seq * m.kv_bytes_per_token;
  } else {
    throw InputError("workload", "workload must be training-step, prefill or decode-step, not '" + workload + "'.");
  }
  w.intensity = w.flops / w.bytes;
  w.intensity_limit = w.flops_per_sequence / w.bytes_per_sequence;
  return w;
}

AcceleratorComparison compare_accelerators(const WorkloadCost& cost, const std::vector<std::string>& ids,
                                           const std::map<std::string, double>& prices, double chips) {
  if (!(chips >= 1)) throw InputError("chips", "chips must be at least 1.");
  std::vector<std::string> list = ids;
  if (list.empty())
    for (const auto& a : accelerators()) list.push_back(a.id);
  std::set<std::string> seen;
  for (const auto& id : list) {
    if (!find_accelerator(id)) throw InputError("ids", "'" + id + "' is not an accelerator of the hardware table.");
    if (!seen.insert(id).second) throw InputError("ids", "'" + id + "' is listed twice.");
  }
  for (const auto& [id, price] : prices) {
    if (!seen.count(id))
      throw InputError("price_per_hour", "'" + id + "' is not one of the accelerators compared.");
    if (!(price > 0)) throw InputError("price_per_hour", "The price of '" + id + "' must be above 0 dollars per hour.");
  }
  AcceleratorComparison out;
  out.cost = cost;
  out.chips = chips;
  for (const auto& id : list) {
    const Accelerator& a = *find_accelerator(id);
    const auto peak = a.peak_for(cost.dtype);
    if (!peak) {
      out.excluded.push_back({id, a.name + " has no dense " + cost.dtype + " rate in its datasheet"});
      continue;
    }
    const RooflineResult r = roofline(cost.flops / chips, cost.bytes / chips, *peak, a.hbm_bandwidth_Bps);
    AcceleratorRow row;
    row.id = a.id;
    row.name = a.name;
    row.peak_flops = *peak;
    row.bandwidth_Bps = a.hbm_bandwidth_Bps;
    row.ridge_intensity = r.ridge_intensity;
    row.compute_time_s = r.compute_time_s;
    row.memory_time_s = r.memory_time_s;
    row.time_s = r.time_s;
    row.bound = r.bound;
    row.tokens_per_s = cost.tokens / r.time_s;
    row.hbm_bytes = a.hbm_bytes;
    row.memory_per_chip_bytes = cost.memory_bytes / chips;
    row.fits = row.memory_per_chip_bytes <= a.hbm_bytes;
    row.compute_bound_batch = compute_bound_batch(cost, r.ridge_intensity);
    row.power_w = accelerator_entry(a).power_w;
    if (row.power_w) row.tokens_per_joule = row.tokens_per_s / (chips * *row.power_w);
    if (const auto it = prices.find(id); it != prices.end()) {
      row.price_per_hour = it->second;
      row.tokens_per_dollar = row.tokens_per_s * 3600 / (chips * it->second);
    }
    out.rows.push_back(row);
  }
  return out;
}

}  // namespace mlsys
