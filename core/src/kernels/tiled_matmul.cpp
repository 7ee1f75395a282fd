// The shared-memory tiled matmul executed on the CPU (one loop nest per GPU level: blocks,
// K-steps, threads), its naive reference, and the closed forms their counted traffic must
// equal. Hwu, Kirk & El Hajj, "Programming Massively Parallel Processors", 4th ed., ch. 5.
#include "mlsys/kernels/tiled_matmul.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

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

TrafficBytes traffic_bytes(const MatmulTraffic& t, double s) {
  return {{t.global_reads * s, t.global_writes * s, (t.global_reads + t.global_writes) * s, t.a_reads * s,
           t.b_reads * s},
          t.smem_reads * s,
          t.smem_writes * s};
}

namespace {

// The register limits of the report: overrides first, then the hardware row.
RegisterBudget register_budget(const RegisterInputs& in, const Accelerator* hw) {
  RegisterBudget b;
  b.threads_per_block = in.threads_per_block;
  b.register_overhead = in.register_overhead;
  const auto row = [&](const char* key) -> std::optional<double> {
    if (hw && hw->json().contains(key) && hw->json().at(key).is_number()) return hw->json().at(key).get<double>();
    return std::nullopt;
  };
  if (const auto max_threads = row("max_threads_per_block"); max_threads && in.threads_per_block > *max_threads)
    throw InputError("threads_per_block", "A block holds at most " + format_int(*max_threads) + " threads on the " +
                                              hw->name + ".");
  const auto per_thread = in.max_registers_per_thread ? in.max_registers_per_thread : row("max_registers_per_thread");
  const auto per_block = in.max_registers_per_block ? in.max_registers_per_block : row("max_registers_per_block");
  if (!per_thread || !per_block)
    throw InputError("hardware", (hw ? hw->name : std::string("No hardware")) +
                                     " has no per-thread and per-block register limits in the hardware table; choose "
                                     "an NVIDIA GPU or give 'max_registers_per_thread' and 'max_registers_per_block'.");
  b.max_registers_per_thread = static_cast<long long>(*per_thread);
  b.max_registers_per_block = static_cast<long long>(*per_block);
  b.source = in.max_registers_per_thread || in.max_registers_per_block ? "input" : hw->id;
  // Blackwell's tcgen05 MMAs accumulate in Tensor Memory (tile_limits.hpp).
  if (const auto tmem = row("tensor_memory_per_sm_bytes")) b.tensor_memory_bytes = *tmem;
  return b;
}

bool same_traffic(const MatmulTraffic& a, const MatmulTraffic& b, bool with_smem) {
  return a.global_reads == b.global_reads && a.global_writes == b.global_writes && a.a_reads == b.a_reads &&
         a.b_reads == b.b_reads && (!with_smem || (a.smem_reads == b.smem_reads && a.smem_writes == b.smem_writes));
}

}  // namespace

TiledMatmulReport tiled_matmul_report(const TiledMatmulShape& shape, double s, const Accelerator* hw,
                                      std::optional<double> smem_limit_bytes, std::uint64_t seed, bool reference,
                                      const RegisterInputs& registers) {
  const auto [m, n, k, bm, bn, bk, stages] = shape;
  TiledMatmulReport out{};
  if (smem_limit_bytes) {
    out.smem_limit_bytes = *smem_limit_bytes;
    out.smem_limit_source = "smem_limit_bytes";
  } else {
    if (!hw) throw InputError("hardware", "Give 'hardware' (an accelerator id) or 'smem_limit_bytes'.");
    for (const char* key : {"max_smem_per_block_bytes", "smem_per_sm_bytes"})
      if (out.smem_limit_source.empty() && hw->json().contains(key) && hw->json().at(key).is_number()) {
        out.smem_limit_bytes = hw->json().at(key).get<double>();
        out.smem_limit_source = key;
      }
    if (out.smem_limit_source.empty())
      throw InputError("hardware", hw->name + " has no shared-memory size in the hardware table; choose a GPU or give "
                                              "'smem_limit_bytes'.");
  }
  const double smem = tile_smem_bytes(static_cast<double>(bm), static_cast<double>(bn), static_cast<double>(bk), s,
                                      static_cast<double>(stages));
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  const auto ceil_div = [](long long a, long long b) { return (a + b - 1) / b; };
  const long long blocks = ceil_div(m, bm) * ceil_div(n, bn);
  const long long tile_steps = blocks * ceil_div(k, bk);

  const MatmulTraffic tiled_formula = tiled_traffic(md, nd, kd, static_cast<double>(bm), static_cast<double>(bn));
  const MatmulTraffic naive_formula = naive_traffic(md, nd, kd);
  const double flops = 2 * md * nd * kd;
  const double compulsory = (md * kd + kd * nd + md * nd) * s;
  out.executed = m <= kExecMaxDim && n <= kExecMaxDim && k <= kExecMaxDim && tile_steps <= kExecMaxTileSteps &&
                 tiled_formula.global_reads <= kExecMaxLoads;
  out.element_bytes = s;
  out.flops = flops;
  out.blocks = blocks;
  out.tile_steps = tile_steps;
  out.a_passes = ceil_div(n, bn);
  out.b_passes = ceil_div(m, bm);
  out.compulsory_bytes = compulsory;
  out.smem_per_block_bytes = smem;
  out.fits_smem = smem <= out.smem_limit_bytes;
  // Accumulators are fp32 (int32 for int8) whatever the operand type, fp64 for fp64: 1 or 2 registers.
  out.limits = tile_limits(bm, bn, bk, stages, s, s == 8 ? 2 : 1, out.smem_limit_bytes, out.fits_smem,
                           register_budget(registers, hw));
  out.formula = traffic_bytes(tiled_formula, s);
  out.naive_formula = traffic_bytes(naive_formula, s).global;
  MatmulTraffic tiled = tiled_formula, naive = naive_formula;
  if (out.executed) {
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    const auto a = seeded_matrix(mi, ki, 2 * seed), b = seeded_matrix(ki, ni, 2 * seed + 1);
    const MatmulRun run = tiled_matmul(a, b, mi, ni, ki, static_cast<int>(std::min(bm, m)),
                                       static_cast<int>(std::min(bn, n)), static_cast<int>(std::min(bk, k)));
    tiled = run.traffic;
    double checksum = 0;
    for (float x : run.c) checksum += x;
    out.c_sum = checksum;
    out.c_first = run.c.front();
    out.c_last = run.c.back();
    out.counts_match_formula = same_traffic(tiled, tiled_formula, true);
    if (reference) {
      const MatmulRun ref = naive_matmul(a, b, mi, ni, ki);
      naive = ref.traffic;
      double err = 0;
      for (std::size_t i = 0; i < ref.c.size(); ++i)
        err = std::max(err, std::fabs(static_cast<double>(ref.c[i]) - static_cast<double>(run.c[i])));
      // Inputs lie in [-1, 1), so |C| <= K; both kernels sum with k ascending, so they agree
      // to well within K·2^-23 (one unit in the last place per addition).
      const double tolerance = kd * 0x1.0p-23;
      out.max_abs_error = err;
      out.tolerance = tolerance;
      out.matches_reference = err <= tolerance;
      out.naive_counts_match_formula = same_traffic(naive, naive_formula, false);
    }
  }
  out.tiled = traffic_bytes(tiled, s);
  const GlobalTrafficBytes nv = traffic_bytes(naive, s).global;
  out.naive_global_read_bytes = nv.global_read_bytes;
  out.naive_global_write_bytes = nv.global_write_bytes;
  out.naive_global_bytes = nv.global_bytes;
  out.traffic_reduction = nv.global_bytes / out.tiled.global.global_bytes;
  out.tiled_intensity = flops / out.tiled.global.global_bytes;
  out.naive_intensity = flops / nv.global_bytes;
  out.compulsory_intensity = flops / compulsory;
  return out;
}

}  // namespace mlsys
