// Standard attention (Algorithm 0 of Dao et al. 2022), executed with its HBM traffic counted.
#include "mlsys/kernels/attention_naive.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "mlsys/kernels/online_softmax.hpp"

#include "mlsys/foundations/deterministic.hpp"

namespace mlsys {

AttentionInputs make_attention_inputs(int n, int d, std::uint64_t seed) {
  if (n < 1 || d < 1) throw std::invalid_argument("make_attention_inputs: n and d must be >= 1");
  AttentionInputs in;
  in.n = n;
  in.d = d;
  SeededStream rng(mix_seed(seed, 0x632BE59BD9B4E019ULL));
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(d);
  for (auto* m : {&in.q, &in.k, &in.v}) {
    m->resize(count);
    for (auto& x : *m) x = rng.uniform_pm1_float();  // [−1, 1), exact in float
  }
  return in;
}

float attention_scale(int d) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))); }

NaiveAttentionResult attention_naive(const AttentionInputs& in, bool causal) {
  const int n = in.n, d = in.d;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const float tau = attention_scale(d);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  NaiveAttentionResult r;
  const double N = n, D = d;

  // Kernel 1: load Q and K, compute S = τ·Q·Kᵀ, write S (N×N) to HBM.
  std::vector<float> s(nn);
  r.hbm.read_elements += 2 * N * D;
  for (int i = 0; i < n; ++i) {
    const float* qi = &in.q[static_cast<std::size_t>(i) * d];
    for (int j = 0; j < n; ++j) {
      const float* kj = &in.k[static_cast<std::size_t>(j) * d];
      float acc = 0;
      for (int t = 0; t < d; ++t) acc += qi[t] * kj[t];
      s[static_cast<std::size_t>(i) * n + j] = acc * tau;
    }
  }
  r.hbm.write_elements += N * N;
  r.matmul_flops += 2 * N * N * D;

  // Kernel 2: read S, P = softmax(S) row by row (mask applied here), write P.
  r.hbm.read_elements += N * N;
  r.p.resize(nn);
  for (int i = 0; i < n; ++i) {
    float* row = &s[static_cast<std::size_t>(i) * n];
    if (causal)
      for (int j = i + 1; j < n; ++j) row[j] = neg_inf;
    float m = neg_inf;
    for (int j = 0; j < n; ++j) m = std::max(m, row[j]);
    float sum = 0;
    float* prow = &r.p[static_cast<std::size_t>(i) * n];
    for (int j = 0; j < n; ++j) sum += prow[j] = (row[j] == neg_inf ? 0.0f : expf_det(row[j] - m));
    for (int j = 0; j < n; ++j) prow[j] /= sum;
  }
  r.hbm.write_elements += N * N;

  // Kernel 3: load P and V, O = P·V, write O.
  r.hbm.read_elements += N * N + N * D;
  r.o.assign(static_cast<std::size_t>(n) * d, 0.0f);
  for (int i = 0; i < n; ++i) {
    float* oi = &r.o[static_cast<std::size_t>(i) * d];
    const float* prow = &r.p[static_cast<std::size_t>(i) * n];
    for (int j = 0; j < n; ++j) {
      const float pij = prow[j];
      const float* vj = &in.v[static_cast<std::size_t>(j) * d];
      for (int t = 0; t < d; ++t) oi[t] += pij * vj[t];
    }
  }
  r.hbm.write_elements += N * D;
  r.matmul_flops += 2 * N * N * D;
  return r;
}

HbmCount standard_attention_io(double n, double d) {
  return {3 * n * d + 2 * n * n, n * d + 2 * n * n};
}

std::vector<double> attention_reference_fp64(const AttentionInputs& in, bool causal) {
  const int n = in.n, d = in.d;
  const double tau = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> o(static_cast<std::size_t>(n) * d, 0.0), row;
  for (int i = 0; i < n; ++i) {
    const int keys = causal ? i + 1 : n;
    row.assign(static_cast<std::size_t>(keys), 0.0);
    for (int j = 0; j < keys; ++j) {
      double acc = 0;
      for (int t = 0; t < d; ++t)
        acc += static_cast<double>(in.q[static_cast<std::size_t>(i) * d + t]) * in.k[static_cast<std::size_t>(j) * d + t];
      row[j] = acc * tau;
    }
    const auto p = softmax_fp64(row);
    for (int j = 0; j < keys; ++j)
      for (int t = 0; t < d; ++t)
        o[static_cast<std::size_t>(i) * d + t] += p[j] * in.v[static_cast<std::size_t>(j) * d + t];
  }
  return o;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(static_cast<double>(a[i]) - b[i]));
  return m;
}

}  // namespace mlsys
