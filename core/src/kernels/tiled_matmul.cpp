// The shared-memory tiled matmul executed on the CPU (one loop nest per GPU level: blocks,
// K-steps, threads), its naive reference, and the closed forms their counted traffic must
// equal. Hwu, Kirk & El Hajj, "Programming Massively Parallel Processors", 4th ed., ch. 5.
#include "mlsys/kernels/tiled_matmul.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"

namespace mlsys {

namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

}  // namespace

std::vector<float> seeded_matrix(int rows, int cols, std::uint64_t seed) {
  // SplitMix64 (foundations/deterministic.hpp): the same stream on every platform.
  SeededStream rng(mix_seed(seed, 0x2545F4914F6CDD1DULL));
  std::vector<float> out(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (auto& x : out) x = rng.uniform_pm1_float();  // 24 random bits: a float in [-1, 1), exact
  return out;
}

MatmulRun naive_matmul(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  MatmulRun run;
  run.c.assign(static_cast<std::size_t>(m) * n, 0.0f);
  std::uint64_t a_reads = 0, b_reads = 0, writes = 0;
  // GPU thread (i, j) reads A[i,k] and B[k,j] from global memory for every k and adds the
  // product into its running sum. The CPU visits the same (i, j, k) triples in i-k-j order,
  // so each sum is still formed with k ascending while the innermost loop vectorizes.
  for (int i = 0; i < m; ++i) {
    float* ci = &run.c[static_cast<std::size_t>(i) * n];
    for (int kk = 0; kk < k; ++kk) {
      const float aik = a[static_cast<std::size_t>(i) * k + kk];
      const float* bk = &b[static_cast<std::size_t>(kk) * n];
      for (int j = 0; j < n; ++j) ci[j] += aik * bk[j];
      a_reads += static_cast<std::uint64_t>(n);  // thread (i, j) fetches A[i,k] for each of the n values of j
      b_reads += static_cast<std::uint64_t>(n);  // and B[k,j]
    }
    writes += static_cast<std::uint64_t>(n);  // each thread stores its C[i,j] once
  }
  run.traffic.a_reads = static_cast<double>(a_reads);
  run.traffic.b_reads = static_cast<double>(b_reads);
  run.traffic.global_reads = static_cast<double>(a_reads + b_reads);
  run.traffic.global_writes = static_cast<double>(writes);
  return run;
}

MatmulRun tiled_matmul(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, int bm,
                       int bn, int bk) {
  MatmulRun run;
  run.c.assign(static_cast<std::size_t>(m) * n, 0.0f);
  std::uint64_t a_reads = 0, b_reads = 0, writes = 0, smem_reads = 0, smem_writes = 0;
  // The block's shared-memory buffers and its threads' accumulators (one per output). A tile
  // larger than the matrix is only ever filled up to the matrix's size, so the buffers are
  // allocated at min(tile, size).
  const int ebm = std::min(bm, m), ebn = std::min(bn, n), ebk = std::min(bk, k);
  std::vector<float> as(static_cast<std::size_t>(ebm) * ebk), bs(static_cast<std::size_t>(ebk) * ebn);
  std::vector<float> acc(static_cast<std::size_t>(ebm) * ebn);

  for (int i0 = 0; i0 < m; i0 += bm) {      // blockIdx.y
    for (int j0 = 0; j0 < n; j0 += bn) {    // blockIdx.x
      const int tm = std::min(bm, m - i0), tn = std::min(bn, n - j0);  // in-range part of the tile
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int k0 = 0; k0 < k; k0 += bk) {  // K-steps
        const int tk = std::min(bk, k - k0);
        // Cooperative load of the A tile (tm × tk) and the B tile (tk × tn) into shared memory.
        for (int i = 0; i < tm; ++i)
          for (int kk = 0; kk < tk; ++kk)
            as[static_cast<std::size_t>(i) * ebk + kk] = a[static_cast<std::size_t>(i0 + i) * k + (k0 + kk)];
        for (int kk = 0; kk < tk; ++kk)
          for (int j = 0; j < tn; ++j)
            bs[static_cast<std::size_t>(kk) * ebn + j] = b[static_cast<std::size_t>(k0 + kk) * n + (j0 + j)];
        a_reads += static_cast<std::uint64_t>(tm) * tk;
        b_reads += static_cast<std::uint64_t>(tk) * tn;
        smem_writes += static_cast<std::uint64_t>(tm) * tk + static_cast<std::uint64_t>(tk) * tn;
        // __syncthreads(); then thread (i, j) reads As[i,kk] and Bs[kk,j] from shared memory for
        // each kk of the step and adds the product to its sum, kk ascending. The CPU visits the
        // threads in whichever order keeps its inner loop long; the sums are the same.
        if (tn >= 16) {
          for (int kk = 0; kk < tk; ++kk) {
            const float* bsk = &bs[static_cast<std::size_t>(kk) * ebn];
            for (int i = 0; i < tm; ++i) {
              const float aik = as[static_cast<std::size_t>(i) * ebk + kk];
              float* ai = &acc[static_cast<std::size_t>(i) * ebn];
              for (int j = 0; j < tn; ++j) ai[j] += aik * bsk[j];
            }
          }
        } else {
          for (int i = 0; i < tm; ++i) {
            const float* ai = &as[static_cast<std::size_t>(i) * ebk];
            for (int j = 0; j < tn; ++j) {
              float sum = acc[static_cast<std::size_t>(i) * ebn + j];
              for (int kk = 0; kk < tk; ++kk) sum += ai[kk] * bs[static_cast<std::size_t>(kk) * ebn + j];
              acc[static_cast<std::size_t>(i) * ebn + j] = sum;
            }
          }
        }
        smem_reads += 2 * static_cast<std::uint64_t>(tm) * tn * tk;  // one As and one Bs read per thread per kk
        // __syncthreads() before the next step overwrites the tiles.
      }
      for (int i = 0; i < tm; ++i)
        for (int j = 0; j < tn; ++j)
          run.c[static_cast<std::size_t>(i0 + i) * n + (j0 + j)] = acc[static_cast<std::size_t>(i) * ebn + j];
      writes += static_cast<std::uint64_t>(tm) * tn;
    }
  }
  run.traffic.a_reads = static_cast<double>(a_reads);
  run.traffic.b_reads = static_cast<double>(b_reads);
  run.traffic.global_reads = static_cast<double>(a_reads + b_reads);
  run.traffic.global_writes = static_cast<double>(writes);
  run.traffic.smem_reads = static_cast<double>(smem_reads);
  run.traffic.smem_writes = static_cast<double>(smem_writes);
  return run;
}

MatmulTraffic naive_traffic(double m, double n, double k) {
  MatmulTraffic t;
  t.a_reads = m * n * k;
  t.b_reads = m * n * k;
  t.global_reads = 2 * m * n * k;
  t.global_writes = m * n;
  return t;
}

MatmulTraffic tiled_traffic(double m, double n, double k, double bm, double bn) {
  MatmulTraffic t;
  t.a_reads = m * k * ceil_div(n, bn);  // every column of blocks streams all of A
  t.b_reads = k * n * ceil_div(m, bm);  // every row of blocks streams all of B
  t.global_reads = t.a_reads + t.b_reads;
  t.global_writes = m * n;
  t.smem_writes = t.global_reads;
  t.smem_reads = 2 * m * n * k;
  return t;
}

double tile_smem_bytes(double bm, double bn, double bk, double element_bytes, double stages) {
  return stages * (bm * bk + bk * bn) * element_bytes;
}

}  // namespace mlsys
