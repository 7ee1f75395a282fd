#include "mlsys/optimizers/state.hpp"

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

OptimizerStateBytes optimizer_state_bytes(const std::string& optimizer, const std::string& weight_dtype,
                                          bool master_weights, double matrix_rows, double matrix_cols) {
  double w = 0;
  if (weight_dtype == "fp32") w = 4;
  else if (weight_dtype == "bf16" || weight_dtype == "fp16") w = 2;
  else throw InputError("weight_dtype", "weight_dtype must be fp32, bf16 or fp16.");
  if (!(matrix_rows >= 1) || !(matrix_cols >= 1))
    throw InputError("matrix_rows", "The matrix shape must be at least 1 × 1.");

  OptimizerStateBytes b{w, w, master_weights && w < 4 ? 4.0 : 0.0, 0, 0};
  if (optimizer == "sgd") b.states = 0;
  else if (optimizer == "momentum") b.states = 4;
  else if (optimizer == "adam") b.states = 8;
  else if (optimizer == "adam-8bit") {
    b.states = 2;
    b.block_scales = 2 * 4 / kAdam8bitBlock;
  } else if (optimizer == "adafactor") b.states = 4 * (matrix_rows + matrix_cols) / (matrix_rows * matrix_cols);
  else throw InputError("optimizer", "Unknown optimizer '" + optimizer + "'; use sgd, momentum, adam, adam-8bit or adafactor.");
  return b;
}

double optimizer_step_bytes(const OptimizerStateBytes& b, bool fp32_grad_buffer) {
  const double grad = fp32_grad_buffer ? 4.0 : b.grads;
  const double updated = b.master > 0 ? b.master : b.weights;
  const double copy = b.master > 0 ? b.weights : 0.0;
  return grad + 2 * updated + 2 * b.states + copy;
}

}  // namespace mlsys
