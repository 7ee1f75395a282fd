// The backward pass of attention two ways, following Dao et al. 2022 (FlashAttention,
// arXiv:2205.14135, Appendix B): the standard pass (their Algorithm 3) reads the N×N
// probabilities P that the forward pass stored in HBM; FlashAttention's pass (their
// Algorithm 4, here with the single logsumexp statistic L = m + ln l that FlashAttention-2
// keeps, Dao 2023, arXiv:2307.08691) stores only L, N numbers per head, and recomputes each
// tile P_ij = exp(τ·Q_i·K_jᵀ − L_i) on chip, at the cost of one extra N×N×d matmul.
// Both execute on small inputs (non-causal) with their HBM traffic counted; the model of
// memory and FLOPs below covers any size.
//
// Gradients, with S = τ·Q·Kᵀ, P = softmax(S), O = P·V and the upstream gradient dO:
//   dV = Pᵀ·dO,  dP = dO·Vᵀ,  dS = P ∘ (dP − rowsum(dO ∘ O)),  dQ = τ·dS·K,  dK = τ·dSᵀ·Q.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/kernels/attention_naive.hpp"

namespace mlsys {

struct AttentionGrads {
  std::vector<float> dq, dk, dv;  // N×d each
  HbmCount hbm;                   // counted while executing
  double matmul_flops = 0;
};

// L_i = m_i + ln l_i from FlashAttention's forward statistics.
std::vector<float> logsumexp_from(const std::vector<float>& m, const std::vector<float>& l);

// Seeded upstream gradient dO (N×d, uniform in [−1, 1)).
std::vector<float> make_output_grad(int n, int d, std::uint64_t seed);

// Algorithm 3: five kernels over the stored P (N×N), writing dP and dS (N×N) to HBM.
AttentionGrads attention_backward_standard(const AttentionInputs& in, const std::vector<float>& p,
                                           const std::vector<float>& d_o);
// Its traffic in elements: reads 5N² + 5Nd, writes 2N² + 3Nd.
HbmCount standard_backward_io(double n, double d);

// Algorithm 4 with L: K/V blocks outer, Q blocks inner, P recomputed per tile. Needs O and L
// from the forward pass. sram_elements >= 4·d (same block sizes as the forward pass).
AttentionGrads attention_backward_flash(const AttentionInputs& in, const std::vector<float>& o,
                                        const std::vector<float>& lse, const std::vector<float>& d_o,
                                        long long sram_elements);
// Its traffic in elements: initialize dQ (writes Nd); load K, V (reads 2Nd); per computed tile
// of h rows read Q_i, O_i, dO_i, dQ_i, L_i (4hd + h) and write dQ_i (hd); write dK, dV (2Nd).
// Total reads 2Nd + T_c·(4Nd + N), writes 3Nd + T_c·Nd.
HbmCount flash_backward_io(long long n, long long d, long long sram_elements);

// Reference gradients in double precision (from the definition, P recomputed exactly).
struct AttentionGradsFp64 {
  std::vector<double> dq, dk, dv;
};
AttentionGradsFp64 attention_backward_fp64(const AttentionInputs& in, const std::vector<float>& d_o);

// What each approach keeps for the backward pass and what it computes, for `layers` layers of
// `heads` heads over `batch` sequences of n tokens, head dimension d, elements of elem_bytes.
struct BackwardMemory {
  double store_p_bytes = 0;        // P kept in the dtype: layers·batch·heads·N²·s
  double logsumexp_bytes = 0;      // L kept in fp32: layers·batch·heads·N·4
  double saved_bytes = 0;          // store_p_bytes − logsumexp_bytes
  double memory_ratio = 0;         // store_p_bytes / logsumexp_bytes = N·s/4
  double qkvo_bytes = 0;           // Q, K, V, O kept by both: layers·batch·heads·4·N·d·s
  double forward_flops = 0;        // 4·N²·d per head and layer
  double backward_flops_standard = 0;   // 8·N²·d: dV, dP, dQ, dK
  double backward_flops_recompute = 0;  // 10·N²·d: plus S = Q·Kᵀ again
  double extra_flops = 0;               // 2·N²·d
  double extra_fraction = 0;            // extra / (forward + standard backward) = 1/6
};
BackwardMemory attention_backward_memory(double n, double d, double heads, double batch, double layers,
                                         double elem_bytes);

// The lesson's view of the backward pass: attention_backward_memory for `layers`·`batch`·`heads`
// copies, both passes' HBM traffic (closed forms) for all copies, the times of the extra FLOPs
// and of reading P on a machine, and both passes executed on one head when small (N <= 512,
// d <= 128, N²·(d + 8) <= 2^19).
struct BackwardMachine {
  double peak_flops = 0, bandwidth_Bps = 0;
  std::optional<double> hbm_bytes;  // capacity, when the accelerator is known
};
struct BackwardQuery {
  long long seq = 0, head_dim = 0, heads = 1, batch = 1, layers = 1, sram_bytes = 0;
  std::string dtype;
  std::optional<BackwardMachine> machine;
  bool execute = true;
  std::uint64_t seed = 1;
};
struct BackwardExecuted {
  double grad_max_abs_diff = 0;  // max |standard − flash| over dQ, dK, dV
  double grad_max_abs = 0;       // max |dQ|, |dK|, |dV| of the standard pass: the scale of the difference
  double counted_standard_backward_hbm_bytes_per_head = 0, counted_flash_backward_hbm_bytes_per_head = 0;
  double counted_flash_backward_flops_per_head = 0, counted_standard_backward_flops_per_head = 0;
};
struct BackwardReport {
  BackwardMemory memory;
  double standard_backward_hbm_bytes = 0, flash_backward_hbm_bytes = 0;
  std::optional<double> recompute_time_s, read_p_time_s;  // with a machine
  std::optional<double> hbm_capacity_bytes, store_p_fraction_of_hbm;  // with its capacity
  bool executed = false;
  std::optional<BackwardExecuted> run;
};
BackwardReport attention_backward_report(const BackwardQuery& q);

}  // namespace mlsys
