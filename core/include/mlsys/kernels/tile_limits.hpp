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
// Blackwell (compute capability 10.0) is different: its tcgen05 MMAs accumulate in Tensor Memory,
// 128 lanes × 512 columns of 32-bit cells (256 KiB) per SM, not in registers (PTX ISA, "Tensor
// Memory"; CUTLASS tcgen05 MMA programming guide). Where the budget gives a tensor memory, the
// accumulators must fit it instead, whatever the threads: T² · 4 B <= 256 KiB, T <= 256; the
// registers then hold only the per-thread overhead.
#pragma once
#include <string>

namespace mlsys {

struct RegisterBudget {
  long long threads_per_block = 256;
  long long register_overhead = 32;          // registers per thread besides the accumulators
  long long max_registers_per_thread = 255;
  long long max_registers_per_block = 65536;
  double tensor_memory_bytes = 0;            // accumulator storage per SM beside the registers (0: none)
  std::string source;                        // where the two limits come from
};

struct TileLimits {
  long long threads_per_block, register_overhead;
  long long accumulator_registers;           // per accumulator: 2 for fp64, else 1 (fp32/int32)
  double accumulator_bytes;                  // BM·BN·accumulator_registers·4
  std::string accumulator_storage;           // registers | tensor_memory
  double tensor_memory_bytes;                // 0 where the accumulators live in registers
  long long registers_per_thread;            // ceil(BM·BN/threads)·accumulator_registers + overhead
                                             // (the overhead alone with tensor memory)
  long long registers_per_block;             // threads · registers_per_thread
  long long max_registers_per_thread, max_registers_per_block;
  std::string register_limit_source;
  double register_file_bytes;                // max_registers_per_block · 4
  bool fits_registers;                       // both register limits hold
  bool fits_accumulators;                    // the accumulators fit their storage
  bool fits;                                 // fits_registers, fits_accumulators and fits_smem
  long long max_tile_smem;                   // largest square T whose operand tiles fit shared memory
  long long max_tile_registers;              // largest square T whose accumulators would fit the registers
  std::string register_limiter;              // max_registers_per_thread | max_registers_per_block
  long long max_tile_accumulators;           // largest square T whose accumulators fit their storage
  long long max_tile;                        // min(max_tile_smem, max_tile_accumulators)
  std::string limiter;                       // registers | tensor_memory | smem (the accumulators on a tie)
};

// Accumulators one thread holds: ceil(bm·bn / threads) · accumulator_registers.
long long accumulator_registers_per_thread(long long bm, long long bn, long long threads, long long acc_regs);

// Largest T with stages·2·T·bk·s <= smem_limit_bytes.
long long max_square_tile_smem(double smem_limit_bytes, long long bk, long long stages, double element_bytes);

// Largest T with ceil(T²/threads)·acc_regs + overhead <= per-thread limit and
// threads·(that) <= per-block limit; `which` names the limit that binds.
long long max_square_tile_registers(const RegisterBudget& b, long long acc_regs, std::string* which);

// Largest T with T² · acc_regs · 4 B <= tensor_memory_bytes.
long long max_square_tile_tensor_memory(double tensor_memory_bytes, long long acc_regs);

// The shared-memory bound of a CUDA-core (fp32 FMA) tiled matmul whose threads each compute a
// tt × tt sub-tile of C from shared-memory operands (tt = 1: the one-thread-per-output kernel).
// Per step of k a thread loads tt values of A and tt of B, one 4-byte word per load, and does
// tt² FMAs. A warp-wide load that is conflict-free (or a broadcast) is one pass of the banks, and
// an SM serves smem_bytes_per_clock / 128 passes per clock (32 banks × 4 B = 128 B a pass), so a
// warp's 2·tt passes feed 32·tt² FMAs: 32·tt FLOP per pass, and
//   FLOP/s <= sms · clock · (smem_bytes_per_clock / 128) · 32 · tt.
double smem_bound_flops(double sms, double clock_hz, double smem_bytes_per_clock, long long thread_tile);

// All of the above for one BM × BN tile. InputError on register_overhead when the overhead
// leaves no register for a single accumulator.
TileLimits tile_limits(long long bm, long long bn, long long bk, long long stages, double element_bytes,
                       long long acc_regs, double smem_limit_bytes, bool fits_smem, const RegisterBudget& b);

}  // namespace mlsys
