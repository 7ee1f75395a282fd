// C[M,N] = A[M,K] · B[K,N] (row-major, fp32 values) by a shared-memory tiled kernel, executed
// on the CPU with the memory traffic of the GPU kernel it simulates counted as it runs, next
// to its naive reference (one thread per output element, every operand fetched from global
// memory at each use). Tiling as in Hwu, Kirk & El Hajj, "Programming Massively Parallel
// Processors", 4th ed., ch. 5: a block computes a BM × BN tile of C, stepping through K in
// slices of BK; each step loads a BM × BK tile of A and a BK × BN tile of B into shared
// memory once and every thread of the block reads them from there.
#pragma once
#include <cstdint>
#include <vector>

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

}  // namespace mlsys
