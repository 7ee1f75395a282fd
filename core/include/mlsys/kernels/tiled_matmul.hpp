// C[M,N] = A[M,K] · B[K,N] (row-major, fp32 values) by a shared-memory tiled kernel, executed
// on the CPU with the memory traffic of the GPU kernel it simulates counted as it runs, next
// to its naive reference (one thread per output element, every operand fetched from global
// memory at each use). Tiling as in Hwu, Kirk & El Hajj, "Programming Massively Parallel
// Processors", 4th ed., ch. 5: a block computes a BM × BN tile of C, stepping through K in
// slices of BK; each step loads a BM × BK tile of A and a BK × BN tile of B into shared
// memory once and every thread of the block reads them from there.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/kernels/tile_limits.hpp"

namespace mlsys {

// Element counts (multiply by the element size for bytes). Whole numbers, exact in a double
// up to 2^53.
struct MatmulTraffic {
  double global_reads = 0;   // elements loaded from global memory (A and B)
  double global_writes = 0;  // elements of C stored to global memory
  double smem_reads = 0;     // elements read from shared memory (tiled kernel only)
  double smem_writes = 0;    // elements written to shared memory (tiled kernel only)
  double a_reads = 0;        // part of global_reads that comes from A
  double b_reads = 0;        // part of global_reads that comes from B
};

struct MatmulRun {
  std::vector<float> c;  // M × N, row-major
  MatmulTraffic traffic;
};

// Deterministic inputs: rows × cols values in [-1, 1) from a SplitMix64 stream of `seed`.
std::vector<float> seeded_matrix(int rows, int cols, std::uint64_t seed);

// Naive kernel: thread (i, j) forms sum_k A[i,k]·B[k,j] with k ascending, reading A[i,k] and
// B[k,j] from global memory each time. Counted: 2·M·N·K reads, M·N writes.
MatmulRun naive_matmul(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k);

// Tiled kernel with block tile bm × bn and K-step bk (each >= 1). Edge tiles are bounds-
// checked: a partial tile loads only its in-range elements (no padding traffic), so the
// counts use ceil for the number of tile passes. Sums are formed with k ascending, the same
// order as the naive kernel.
MatmulRun tiled_matmul(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, int bm,
                       int bn, int bk);

// Closed forms of the two kernels' traffic (elements), for any size:
//   naive: reads 2·M·N·K, writes M·N
//   tiled: A read ceil(N/BN) times and B ceil(M/BM) times:
//          reads M·K·ceil(N/BN) + K·N·ceil(M/BM), writes M·N,
//          shared-memory writes = global reads, shared-memory reads 2·M·N·K.
// (BK sets the shared memory a block needs, not the traffic.)
MatmulTraffic naive_traffic(double m, double n, double k);
MatmulTraffic tiled_traffic(double m, double n, double k, double bm, double bn);

// Shared memory one block needs for its tiles: stages × (BM·BK + BK·BN) × element_bytes.
double tile_smem_bytes(double bm, double bn, double bk, double element_bytes, double stages);

struct Accelerator;

// Executed sizes: every matrix dimension at most 256, at most 2^16 tile steps (blocks ×
// K-steps) and at most 2^23 elements loaded from global memory by the tiled kernel, so one call
// (with its naive reference) stays under about 50 ms in the browser. Beyond, the closed form.
constexpr long long kExecMaxDim = 256;
constexpr long long kExecMaxTileSteps = 1LL << 16;
constexpr double kExecMaxLoads = 8388608;  // 2^23 elements

// Traffic in bytes (element counts × element size).
struct GlobalTrafficBytes {
  double global_read_bytes, global_write_bytes, global_bytes, a_read_bytes, b_read_bytes;
};
struct TrafficBytes {
  GlobalTrafficBytes global;
  double smem_read_bytes, smem_write_bytes;  // tiled kernel only
};
TrafficBytes traffic_bytes(const MatmulTraffic& t, double element_bytes);

struct TiledMatmulShape {
  long long m, n, k, bm, bn, bk, stages;
};

// The tiled kernel of one shape: its closed-form traffic and, at executed sizes, the kernel
// run on seeded inputs (seeds 2·seed and 2·seed + 1) with its counted traffic, optionally
// beside the naive reference.
struct TiledMatmulReport {
  bool executed;
  long long executed_max_dim = kExecMaxDim, executed_max_tile_steps = kExecMaxTileSteps;
  double executed_max_loads = kExecMaxLoads;
  double element_bytes, flops;                    // flops = 2·M·N·K
  long long blocks, tile_steps, a_passes, b_passes;  // a_passes = ceil(N/BN), b_passes = ceil(M/BM)
  double compulsory_bytes;                        // (M·K + K·N + M·N) · element size
  double smem_per_block_bytes, smem_limit_bytes;
  std::string smem_limit_source;                  // smem_limit_bytes | max_smem_per_block_bytes | smem_per_sm_bytes
  bool fits_smem;
  TileLimits limits;                              // registers and the largest square tile (tile_limits.hpp)
  TrafficBytes formula;                           // closed forms
  GlobalTrafficBytes naive_formula;
  // Executed only: checksum, first and last element of C, counted traffic equals the formula.
  std::optional<double> c_sum, c_first, c_last;
  std::optional<bool> counts_match_formula;
  // With the reference: largest |naive − tiled| against K·2^-23, naive counts equal their formula.
  std::optional<double> max_abs_error, tolerance;
  std::optional<bool> matches_reference, naive_counts_match_formula;
  TrafficBytes tiled;                             // counted when executed, else the formula
  double naive_global_read_bytes, naive_global_write_bytes, naive_global_bytes;
  double traffic_reduction;                       // naive / tiled global bytes
  double tiled_intensity, naive_intensity, compulsory_intensity;  // flops per global byte
  // With a hardware row that has them: the dtype's peak, the L2 bandwidth, and the rate the
  // tiled kernel could reach if L2 served every tile load at that bandwidth (intensity · L2).
  std::optional<double> peak_flops, l2_bandwidth_Bps, l2_bound_flops;
  // With a row that gives SMs, clock and shared-memory bytes per clock: the rate a CUDA-core
  // (fp32 FMA) kernel whose threads each own a thread_tile × thread_tile sub-tile of C can reach
  // when shared memory feeds every operand (tile_limits.hpp: smem_bound_flops), beside the fp32
  // CUDA-core peak.
  long long thread_tile = 1;
  std::optional<double> smem_bound_flops, cuda_core_fp32_flops;
};

// The register side of the tile: threads per block, the per-thread overhead, and optional
// overrides of the hardware row's per-thread and per-block register limits.
struct RegisterInputs {
  long long threads_per_block = 256, register_overhead = 32;
  std::optional<double> max_registers_per_thread, max_registers_per_block;
};

// smem_limit_bytes: shared memory one block may use; when not given, the row's per-block
// maximum (what one block can allocate, e.g. 227 KiB of the H100's 228) or, for rows without
// it, the per-SM size; InputError on "hardware" when there is neither. Register limits: the
// overrides, else the row's max_registers_per_thread and max_registers_per_block (NVIDIA rows);
// InputError on "hardware" when neither gives them, on threads_per_block above the row's
// max_threads_per_block.
TiledMatmulReport tiled_matmul_report(const TiledMatmulShape& shape, double element_bytes, const Accelerator* hw,
                                      std::optional<double> smem_limit_bytes, std::uint64_t seed, bool reference,
                                      const RegisterInputs& registers = {});

}  // namespace mlsys
