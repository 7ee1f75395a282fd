// Bytes per parameter of training with an optimizer: weights, gradients, an fp32 master copy
// (mixed precision) and the optimizer's own state (always kept in fp32, except 8-bit Adam).
#pragma once
#include <string>

namespace mlsys {

// bitsandbytes' block size for 8-bit optimizer states (Dettmers et al. 2021, section 2.1).
inline constexpr double kAdam8bitBlock = 2048;

struct OptimizerStateBytes {
  double weights, grads, master, states;  // bytes per parameter
  double block_scales;  // 8-bit Adam's fp32 absmax per block of each state, not part of `states`
};

// weight_dtype: fp32, bf16 or fp16 (the gradients have the same). master_weights: an fp32
// copy when the weights are 16-bit (none for fp32 weights). States per parameter:
// sgd 0; momentum 4 (one fp32 buffer); adam 8 (m and v in fp32); adam-8bit 2 (m and v in
// 8 bits); adafactor 4·(r + c)/(r·c): the factored second moment of an r × c matrix keeps one
// fp32 value per row and per column (Shazeer & Stern 2018), without the first moment (its
// default beta1 = None).
OptimizerStateBytes optimizer_state_bytes(const std::string& optimizer, const std::string& weight_dtype,
                                          bool master_weights, double matrix_rows, double matrix_cols);

// HBM bytes one optimizer step moves per parameter, every byte read or written once (a fused,
// element-wise update): it reads the gradient (4 B from an fp32 accumulation buffer when
// `fp32_grad_buffer`, else b.grads), the weights it updates (the fp32 master when there is one)
// and the state, then writes those weights and the state back, plus the 16-bit working copy
// when a master is kept. Mixed-precision AdamW: (2 + 4 + 8) read + (4 + 8 + 2) written = 28 B.
double optimizer_step_bytes(const OptimizerStateBytes& b, bool fp32_grad_buffer);

}  // namespace mlsys
