// Mixed-precision recipe bytes and step time (see the header for sources).
#include "mlsys/numerics/precision_recipe.hpp"

#include <stdexcept>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys {

PrecisionRecipe precision_recipe(const std::string& compute_dtype, const std::string& optimizer) {
  double opt = 0;
  if (optimizer == "adam") opt = 8;
  else if (optimizer == "sgd") opt = 4;
  else throw std::invalid_argument("unknown optimizer '" + optimizer + "'");
  PrecisionRecipe r;
  r.compute_dtype = compute_dtype;
  r.optimizer_bytes = opt;
  r.accumulate_dtype = "fp32";
  if (compute_dtype == "fp32" || compute_dtype == "tf32") {
    // tf32 is a tensor-core mode that reads fp32 storage: one fp32 copy, no master.
    r.weight_bytes = 4, r.grad_bytes = 4, r.master_bytes = 0, r.operand_bytes = 4;
  } else if (compute_dtype == "bf16" || compute_dtype == "fp16") {
    r.weight_bytes = 2, r.grad_bytes = 2, r.master_bytes = 4, r.operand_bytes = 2;
  } else if (compute_dtype == "fp8-e4m3" || compute_dtype == "fp8-e5m2") {
    // Transformer Engine: bf16 working weights and gradients, cast to fp8 per matmul.
    r.weight_bytes = 2, r.grad_bytes = 2, r.master_bytes = 4, r.operand_bytes = 1;
  } else {
    throw std::invalid_argument("unknown compute dtype '" + compute_dtype + "'");
  }
  r.total_bytes = r.weight_bytes + r.grad_bytes + r.master_bytes + r.optimizer_bytes;
  return r;
}

double training_step_time_s(double params, double tokens, double peak_flops) {
  return 6.0 * params * tokens / peak_flops;
}


const std::vector<std::string>& precision_recipe_dtypes() {
  static const std::vector<std::string> dtypes = {"fp32", "tf32", "bf16", "fp16", "fp8-e4m3"};
  return dtypes;
}

PrecisionReport precision_report(const std::string& hardware, const std::string& chosen, double params,
                                 double tokens, const std::string& optimizer) {
  const Accelerator* hw = find_accelerator(hardware);
  const auto fp32_peak = hw->peak_for("fp32");
  PrecisionReport out;
  for (const auto& d : precision_recipe_dtypes()) {
    PrecisionRow row;
    row.recipe = precision_recipe(d, optimizer);
    const auto peak = hw->peak_for(d);
    row.compute_dtype = d;
    row.available = peak.has_value();
    row.peak_flops = peak;
    if (peak && fp32_peak) row.speedup_vs_fp32 = *peak / *fp32_peak;
    if (peak) {
      row.step_time_s = training_step_time_s(params, tokens, *peak);
      row.tokens_per_s = tokens / training_step_time_s(params, tokens, *peak);
    }
    row.model_state_bytes = row.recipe.total_bytes * params;
    if (d == chosen) {
      if (!peak)
        throw InputError("compute_dtype", hw->name + " has no dense " + d +
                                              " rate in the hardware table; choose another compute_dtype.");
      out.selected = row;
    }
    out.formats.push_back(row);
  }
  out.hardware = hw->id;
  out.optimizer = optimizer;
  out.params = params;
  out.tokens = tokens;
  out.flops_per_step = 6.0 * params * tokens;
  return out;
}

}  // namespace mlsys
