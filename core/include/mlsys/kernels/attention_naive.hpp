// Standard (unfused) attention O = softmax(Q·Kᵀ/√d)·V as "Algorithm 0" of Dao et al. 2022
// (FlashAttention, arXiv:2205.14135): three kernels that write the N×N scores S and
// probabilities P to HBM and read them back. It executes on small inputs and counts every
// element it reads from or writes to HBM: 4·N·d + 4·N² in all, Θ(Nd + N²) (their Theorem 2).
// It is the naive reference of the tiled kernel in flash_attention.hpp.
#pragma once
#include <cstdint>
#include <vector>

namespace mlsys {

// One attention head: Q, K, V of N rows and d columns, row-major float (the "HBM" arrays).
struct AttentionInputs {
  int n = 0, d = 0;
  std::vector<float> q, k, v;
};

// Seeded deterministic inputs with entries uniform in [−1, 1) (SplitMix64, same bits in
// native code and WebAssembly). n >= 1, d >= 1.
AttentionInputs make_attention_inputs(int n, int d, std::uint64_t seed);

// HBM traffic counted in elements (multiply by the element size for bytes).
struct HbmCount {
  double read_elements = 0;
  double write_elements = 0;
  double total() const { return read_elements + write_elements; }
};

// The softmax scale τ = 1/√d as a float.
float attention_scale(int d);

struct NaiveAttentionResult {
  std::vector<float> o;    // N×d output
  std::vector<float> p;    // N×N probabilities, as stored in HBM for the backward pass
  HbmCount hbm;            // counted while executing
  double matmul_flops = 0; // 2·N²·d for S plus 2·N²·d for P·V
};

// Executes Algorithm 0 in float. With `causal`, scores of keys after the query are masked to
// −∞ inside the softmax kernel (same traffic: the mask is applied while S is read).
NaiveAttentionResult attention_naive(const AttentionInputs& in, bool causal);

// Closed form of Algorithm 0's traffic in elements: reads 3Nd + 2N², writes Nd + 2N².
HbmCount standard_attention_io(double n, double d);

// max_i |a_i − b_i| in double (a and b of the same size).
double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b);

// Reference output in double precision (softmax with max subtraction), N×d.
std::vector<double> attention_reference_fp64(const AttentionInputs& in, bool causal);

}  // namespace mlsys
