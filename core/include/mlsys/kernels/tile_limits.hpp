// How large a square output tile T × T one thread block can hold, by the two on-chip
// budgets a tiled matmul spends:
//   shared memory: stages × (T·BK + BK·T) × s bytes of operand tiles <= the per-block limit;
//   registers: the block's fp32 accumulators (one register each, two for fp64) spread over its
//     threads, ceil(T²/threads) per thread, plus a stated overhead per thread (operand fragments,
//     addresses, loop indices), at most max_registers_per_thread (255 on NVIDIA GPUs since
//     compute capability 3.5) per thread and max_registers_per_block (65,536, the 256 KiB register file of an
//     A100 or H100 SM) per block (CUDA C++ Programming Guide, "Compute Capabilities", table of
//     technical specifications). Register allocation granularity (256 per warp) is ignored.
// CUTLASS's Hopper GEMMs use 128×128 and 128×256 tiles per CTA; T² fp32 values take 4·T² bytes,
// so no T above 256 fits a 256 KiB register file, whatever shared memory allows.
#pragma once
#include <string>

namespace mlsys {

struct RegisterBudget {
  long long threads_per_block = 256;
  long long register_overhead = 32;          // registers per thread besides the accumulators
  long long max_registers_per_thread = 255;
  long long max_registers_per_block = 65536;
  std::string source;                        // where the two limits come from
};

struct TileLimits {
  long long threads_per_block, register_overhead;
  long long accumulator_registers;           // per accumulator: 2 for fp64, else 1 (fp32/int32)
  double accumulator_bytes;                  // BM·BN·accumulator_registers·4
  long long registers_per_thread;            // ceil(BM·BN/threads)·accumulator_registers + overhead
  long long registers_per_block;             // threads · registers_per_thread
  long long max_registers_per_thread, max_registers_per_block;
  std::string register_limit_source;
  double register_file_bytes;                // max_registers_per_block · 4
  bool fits_registers;                       // both register limits hold
  bool fits;                                 // fits_registers and fits_smem
  long long max_tile_smem;                   // largest square T whose operand tiles fit shared memory
  long long max_tile_registers;              // largest square T whose accumulators fit the registers
  std::string register_limiter;              // max_registers_per_thread | max_registers_per_block
  long long max_tile;                        // min of the two
  std::string limiter;                       // registers | smem (registers on a tie)
};

// Accumulators one thread holds: ceil(bm·bn / threads) · accumulator_registers.
long long accumulator_registers_per_thread(long long bm, long long bn, long long threads, long long acc_regs);

// Largest T with stages·2·T·bk·s <= smem_limit_bytes.
long long max_square_tile_smem(double smem_limit_bytes, long long bk, long long stages, double element_bytes);

// Largest T with ceil(T²/threads)·acc_regs + overhead <= per-thread limit and
// threads·(that) <= per-block limit; `which` names the limit that binds.
long long max_square_tile_registers(const RegisterBudget& b, long long acc_regs, std::string* which);

// All of the above for one BM × BN tile. InputError on register_overhead when the overhead
// leaves no register for a single accumulator.
TileLimits tile_limits(long long bm, long long bn, long long bk, long long stages, double element_bytes,
                       long long acc_regs, double smem_limit_bytes, bool fits_smem, const RegisterBudget& b);

}  // namespace mlsys
