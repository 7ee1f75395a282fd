// Attention backward: standard (stored P) and FlashAttention (recompute from logsumexp),
// executed with counted HBM traffic, plus the memory/FLOP model.
#include "mlsys/kernels/attention_backward.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/kernels/flash_attention.hpp"
#include "mlsys/kernels/online_softmax.hpp"

namespace mlsys {

namespace {
std::size_t at(int row, int col, int cols) { return static_cast<std::size_t>(row) * cols + col; }
// Largest |value| over dQ, dK and dV.
double largest_magnitude(const AttentionGrads& g) {
  double m = 0;
  for (const auto* v : {&g.dq, &g.dk, &g.dv})
    for (float x : *v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}
}  // namespace

std::vector<float> logsumexp_from(const std::vector<float>& m, const std::vector<float>& l) {
  std::vector<float> lse(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) lse[i] = static_cast<float>(m[i] + log_det(l[i]));
  return lse;
}

std::vector<float> make_output_grad(int n, int d, std::uint64_t seed) {
  // dO has the distribution of a fourth input matrix: reuse the seeded generator.
  return make_attention_inputs(n, d, seed ^ 0xD0D0D0D0ULL).q;
}

AttentionGrads attention_backward_standard(const AttentionInputs& in, const std::vector<float>& p,
                                           const std::vector<float>& d_o) {
  const int n = in.n, d = in.d;
  const double N = n, D = d;
  const float tau = attention_scale(d);
  AttentionGrads g;
  g.dq.assign(static_cast<std::size_t>(n) * d, 0.0f);
  g.dk = g.dq;
  g.dv = g.dq;
  std::vector<float> dp(static_cast<std::size_t>(n) * n), ds(dp.size());

  // 1: load P, dO; dV = Pᵀ·dO; write dV.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const float pij = p[at(i, j, n)];
      for (int t = 0; t < d; ++t) g.dv[at(j, t, d)] += pij * d_o[at(i, t, d)];
    }
  g.hbm.read_elements += N * N + N * D;
  g.hbm.write_elements += N * D;
  // 2: load dO, V; dP = dO·Vᵀ; write dP.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int t = 0; t < d; ++t) acc += d_o[at(i, t, d)] * in.v[at(j, t, d)];
      dp[at(i, j, n)] = acc;
    }
  g.hbm.read_elements += 2 * N * D;
  g.hbm.write_elements += N * N;
  // 3: read P, dP; dS_ij = P_ij·(dP_ij − Σ_l P_il·dP_il); write dS.
  for (int i = 0; i < n; ++i) {
    float row = 0;
    for (int j = 0; j < n; ++j) row += p[at(i, j, n)] * dp[at(i, j, n)];
    for (int j = 0; j < n; ++j) ds[at(i, j, n)] = p[at(i, j, n)] * (dp[at(i, j, n)] - row);
  }
  g.hbm.read_elements += 2 * N * N;
  g.hbm.write_elements += N * N;
  // 4: load dS, K; dQ = τ·dS·K; write dQ.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const float s = tau * ds[at(i, j, n)];
      for (int t = 0; t < d; ++t) g.dq[at(i, t, d)] += s * in.k[at(j, t, d)];
    }
  g.hbm.read_elements += N * N + N * D;
  g.hbm.write_elements += N * D;
  // 5: load dS, Q; dK = τ·dSᵀ·Q; write dK.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const float s = tau * ds[at(i, j, n)];
      for (int t = 0; t < d; ++t) g.dk[at(j, t, d)] += s * in.q[at(i, t, d)];
    }
  g.hbm.read_elements += N * N + N * D;
  g.hbm.write_elements += N * D;
  g.matmul_flops = 8 * N * N * D;
  return g;
}

HbmCount standard_backward_io(double n, double d) { return {5 * n * n + 5 * n * d, 2 * n * n + 3 * n * d}; }

AttentionGrads attention_backward_flash(const AttentionInputs& in, const std::vector<float>& o,
                                        const std::vector<float>& lse, const std::vector<float>& d_o,
                                        long long sram_elements) {
  const int n = in.n, d = in.d;
  const double D = d;
  const FlashBlocks b = flash_blocks(n, d, sram_elements);
  const int br_max = static_cast<int>(b.block_rows);
  const int bc_max = static_cast<int>(std::min<long long>(b.block_cols, n));
  const float tau = attention_scale(d);
  AttentionGrads g;
  g.dq.assign(static_cast<std::size_t>(n) * d, 0.0f);  // initialized in HBM
  g.dk = g.dq;
  g.dv = g.dq;
  g.hbm.write_elements += static_cast<double>(n) * D;

  std::vector<float> kj(static_cast<std::size_t>(bc_max) * d), vj(kj.size()), dkj(kj.size()), dvj(kj.size());
  std::vector<float> qi(static_cast<std::size_t>(br_max) * d), oi(qi.size()), doi(qi.size()), dqi(qi.size());
  std::vector<float> li(br_max), di(br_max), p(static_cast<std::size_t>(br_max) * bc_max), ds(p.size());

  for (long long j = 0; j < b.col_blocks; ++j) {
    const int c0 = static_cast<int>(j * b.block_cols);
    const int bc = std::min(bc_max, n - c0);
    std::copy_n(&in.k[at(c0, 0, d)], static_cast<std::size_t>(bc) * d, kj.begin());
    std::copy_n(&in.v[at(c0, 0, d)], static_cast<std::size_t>(bc) * d, vj.begin());
    g.hbm.read_elements += 2.0 * bc * D;
    std::fill(dkj.begin(), dkj.end(), 0.0f);
    std::fill(dvj.begin(), dvj.end(), 0.0f);
    for (long long i = 0; i < b.row_blocks; ++i) {
      const int r0 = static_cast<int>(i * b.block_rows);
      const int br = std::min(br_max, n - r0);
      std::copy_n(&in.q[at(r0, 0, d)], static_cast<std::size_t>(br) * d, qi.begin());
      std::copy_n(&o[at(r0, 0, d)], static_cast<std::size_t>(br) * d, oi.begin());
      std::copy_n(&d_o[at(r0, 0, d)], static_cast<std::size_t>(br) * d, doi.begin());
      std::copy_n(&g.dq[at(r0, 0, d)], static_cast<std::size_t>(br) * d, dqi.begin());
      std::copy_n(&lse[static_cast<std::size_t>(r0)], br, li.begin());
      g.hbm.read_elements += 4.0 * br * D + br;

      // Recompute P_ij = exp(τ·Q_i·K_jᵀ − L_i): the probabilities, never stored.
      for (int a = 0; a < br; ++a)
        for (int c = 0; c < bc; ++c) {
          float acc = 0;
          for (int t = 0; t < d; ++t) acc += qi[at(a, t, d)] * kj[at(c, t, d)];
          p[at(a, c, bc)] = expf_det(acc * tau - li[a]);
        }
      // dV_j += P_ijᵀ·dO_i.
      for (int a = 0; a < br; ++a)
        for (int c = 0; c < bc; ++c) {
          const float pac = p[at(a, c, bc)];
          for (int t = 0; t < d; ++t) dvj[at(c, t, d)] += pac * doi[at(a, t, d)];
        }
      // D_i = rowsum(dO_i ∘ O_i); dP_ij = dO_i·V_jᵀ; dS_ij = P_ij ∘ (dP_ij − D_i).
      for (int a = 0; a < br; ++a) {
        float dsum = 0;
        for (int t = 0; t < d; ++t) dsum += doi[at(a, t, d)] * oi[at(a, t, d)];
        di[a] = dsum;
      }
      for (int a = 0; a < br; ++a)
        for (int c = 0; c < bc; ++c) {
          float acc = 0;
          for (int t = 0; t < d; ++t) acc += doi[at(a, t, d)] * vj[at(c, t, d)];
          ds[at(a, c, bc)] = p[at(a, c, bc)] * (acc - di[a]);
        }
      // dQ_i += τ·dS_ij·K_j (written back), dK_j += τ·dS_ijᵀ·Q_i (kept on chip).
      for (int a = 0; a < br; ++a)
        for (int c = 0; c < bc; ++c) {
          const float s = tau * ds[at(a, c, bc)];
          for (int t = 0; t < d; ++t) {
            dqi[at(a, t, d)] += s * kj[at(c, t, d)];
            dkj[at(c, t, d)] += s * qi[at(a, t, d)];
          }
        }
      std::copy_n(dqi.begin(), static_cast<std::size_t>(br) * d, &g.dq[at(r0, 0, d)]);
      g.hbm.write_elements += br * D;
      g.matmul_flops += 10.0 * br * bc * D;
    }
    std::copy_n(dkj.begin(), static_cast<std::size_t>(bc) * d, &g.dk[at(c0, 0, d)]);
    std::copy_n(dvj.begin(), static_cast<std::size_t>(bc) * d, &g.dv[at(c0, 0, d)]);
    g.hbm.write_elements += 2.0 * bc * D;
  }
  return g;
}

HbmCount flash_backward_io(long long n, long long d, long long sram_elements) {
  const FlashBlocks b = flash_blocks(n, d, sram_elements);
  const double N = static_cast<double>(n), D = static_cast<double>(d), tc = static_cast<double>(b.col_blocks);
  return {2 * N * D + tc * (4 * N * D + N), 3 * N * D + tc * N * D};
}

AttentionGradsFp64 attention_backward_fp64(const AttentionInputs& in, const std::vector<float>& d_o) {
  const int n = in.n, d = in.d;
  const double tau = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> p(static_cast<std::size_t>(n) * n), o(static_cast<std::size_t>(n) * d, 0.0), row(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int t = 0; t < d; ++t) acc += static_cast<double>(in.q[at(i, t, d)]) * in.k[at(j, t, d)];
      row[j] = acc * tau;
    }
    const auto pr = softmax_fp64(row);
    for (int j = 0; j < n; ++j) {
      p[at(i, j, n)] = pr[j];
      for (int t = 0; t < d; ++t) o[at(i, t, d)] += pr[j] * in.v[at(j, t, d)];
    }
  }
  AttentionGradsFp64 g;
  g.dq.assign(static_cast<std::size_t>(n) * d, 0.0);
  g.dk = g.dq;
  g.dv = g.dq;
  for (int i = 0; i < n; ++i) {
    double di = 0;
    for (int t = 0; t < d; ++t) di += static_cast<double>(d_o[at(i, t, d)]) * o[at(i, t, d)];
    for (int j = 0; j < n; ++j) {
      double dpij = 0;
      for (int t = 0; t < d; ++t) dpij += static_cast<double>(d_o[at(i, t, d)]) * in.v[at(j, t, d)];
      const double pij = p[at(i, j, n)];
      const double dsij = pij * (dpij - di);
      for (int t = 0; t < d; ++t) {
        g.dv[at(j, t, d)] += pij * d_o[at(i, t, d)];
        g.dq[at(i, t, d)] += tau * dsij * in.k[at(j, t, d)];
        g.dk[at(j, t, d)] += tau * dsij * in.q[at(i, t, d)];
      }
    }
  }
  return g;
}

BackwardMemory attention_backward_memory(double n, double d, double heads, double batch, double layers,
                                         double elem_bytes) {
  if (!(n >= 1 && d >= 1 && heads >= 1 && batch >= 1 && layers >= 1 && elem_bytes > 0))
    throw std::invalid_argument("attention_backward_memory: sizes must be positive");
  const double copies = layers * batch * heads;
  BackwardMemory m;
  m.store_p_bytes = copies * n * n * elem_bytes;
  m.logsumexp_bytes = copies * n * 4.0;
  m.saved_bytes = m.store_p_bytes - m.logsumexp_bytes;
  m.memory_ratio = m.store_p_bytes / m.logsumexp_bytes;
  m.qkvo_bytes = copies * 4.0 * n * d * elem_bytes;
  m.forward_flops = copies * 4.0 * n * n * d;
  m.backward_flops_standard = copies * 8.0 * n * n * d;
  m.backward_flops_recompute = copies * 10.0 * n * n * d;
  m.extra_flops = copies * 2.0 * n * n * d;
  m.extra_fraction = m.extra_flops / (m.forward_flops + m.backward_flops_standard);
  return m;
}

BackwardReport attention_backward_report(const BackwardQuery& q) {
  constexpr long long kBackwardMaxSeq = 512, kFlashMaxHeadDim = 128;
  constexpr double kBackwardMaxWork = 524288;
  const long long n = q.seq, d = q.head_dim;
  const double s = dtype_bytes(q.dtype);
  const long long m = sram_elements_for(q.sram_bytes, q.dtype, d);
  const double copies = static_cast<double>(q.layers * q.batch * q.heads);
  BackwardReport r;
  r.memory = attention_backward_memory(static_cast<double>(n), static_cast<double>(d), static_cast<double>(q.heads),
                                       static_cast<double>(q.batch), static_cast<double>(q.layers), s);
  const auto& mem = r.memory;
  const HbmCount std_io = standard_backward_io(static_cast<double>(n), static_cast<double>(d));
  const HbmCount flash_io = flash_backward_io(n, d, m);
  r.standard_backward_hbm_bytes = std_io.total() * s * copies;
  r.flash_backward_hbm_bytes = flash_io.total() * s * copies;
  if (q.machine) {
    r.recompute_time_s = mem.extra_flops / q.machine->peak_flops;
    r.read_p_time_s = mem.store_p_bytes / q.machine->bandwidth_Bps;
    if (q.machine->hbm_bytes) {
      const double hbm = *q.machine->hbm_bytes;
      r.hbm_capacity_bytes = hbm;
      r.store_p_fraction_of_hbm = mem.store_p_bytes / hbm;
    }
  }
  const double N = static_cast<double>(n), D = static_cast<double>(d);
  r.executed = q.execute && n <= kBackwardMaxSeq && d <= kFlashMaxHeadDim && N * N * (D + 8) <= kBackwardMaxWork;
  if (r.executed) {
    const auto inputs = make_attention_inputs(static_cast<int>(n), static_cast<int>(d), q.seed);
    const auto d_o = make_output_grad(static_cast<int>(n), static_cast<int>(d), q.seed);
    const auto naive = attention_naive(inputs, false);
    const auto fa = flash_attention_forward(inputs, m, false, false);
    const auto standard = attention_backward_standard(inputs, naive.p, d_o);
    const auto flash = attention_backward_flash(inputs, fa.o, logsumexp_from(fa.m, fa.l), d_o, m);
    r.run = BackwardExecuted{std::max({max_abs_diff(standard.dq, flash.dq), max_abs_diff(standard.dk, flash.dk),
                                       max_abs_diff(standard.dv, flash.dv)}),
                             largest_magnitude(standard),
                             standard.hbm.total() * s, flash.hbm.total() * s, flash.matmul_flops,
                             standard.matmul_flops};
  }
  return r;
}

}  // namespace mlsys
