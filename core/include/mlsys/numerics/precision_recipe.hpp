// Bytes per parameter and peak throughput of the mixed-precision training recipe
// (Micikevicius et al., ICLR 2018; NVIDIA Transformer Engine for fp8): fp32 master weights and
// fp32 optimizer state, working weights and gradients in the 16-bit compute format, matmuls
// accumulated in fp32 on tensor cores. Pure fp32/tf32 training keeps one fp32 copy.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

struct PrecisionRecipe {
  std::string compute_dtype;       // fp32 tf32 bf16 fp16 fp8-e4m3
  double weight_bytes;             // working copy used by forward and backward, per parameter
  double grad_bytes;               // gradient, per parameter
  double master_bytes;             // fp32 master copy (0 when the working copy is fp32)
  double optimizer_bytes;          // fp32 optimizer state: Adam m and v (8), SGD momentum (4)
  double total_bytes;              // sum, per parameter
  double operand_bytes;            // bytes per element of the matmul inputs (activations)
  std::string accumulate_dtype;    // the matmul accumulator
};

// optimizer: "adam" or "sgd" (with momentum). Throws std::invalid_argument otherwise.
PrecisionRecipe precision_recipe(const std::string& compute_dtype, const std::string& optimizer);

// Compute-bound step time of training `params` parameters on `tokens` tokens at `peak_flops`:
// 6·params·tokens FLOPs (forward 2, backward 4 per parameter per token; Kaplan et al. 2020).
double training_step_time_s(double params, double tokens, double peak_flops);


// The compute formats of the recipe table: fp32 tf32 bf16 fp16 fp8-e4m3.
const std::vector<std::string>& precision_recipe_dtypes();

// One row of the `mixed-precision-recipe` table: the recipe in `compute_dtype` on an
// accelerator (the rates are empty where the table has no dense rate for it).
struct PrecisionRow {
  std::string compute_dtype;
  bool available = false;
  std::optional<double> peak_flops, speedup_vs_fp32, step_time_s, tokens_per_s;
  PrecisionRecipe recipe;
  double model_state_bytes = 0;  // total_bytes · params
};
struct PrecisionReport {
  PrecisionRow selected;  // the row of the chosen compute_dtype
  std::string hardware, optimizer;
  double params = 0, tokens = 0, flops_per_step = 0;  // 6·params·tokens
  std::vector<PrecisionRow> formats;  // every format of precision_recipe_dtypes()
};
// `hardware`: an accelerator id. InputError on "compute_dtype" when it has no dense rate for it.
PrecisionReport precision_report(const std::string& hardware, const std::string& compute_dtype, double params,
                                 double tokens, const std::string& optimizer);

}  // namespace mlsys
