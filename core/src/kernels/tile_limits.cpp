// The two on-chip budgets of a square block tile: shared memory for the operand tiles and
// registers for the accumulators (kernels/tile_limits.hpp).
#include "mlsys/kernels/tile_limits.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys {

namespace {

// Largest t with t² <= x (x >= 0), exact for the sizes here (x < 2^40).
long long isqrt(long long x) {
  long long t = static_cast<long long>(std::sqrt(static_cast<double>(x)));
  while (t * t > x) --t;
  while ((t + 1) * (t + 1) <= x) ++t;
  return t;
}

}  // namespace

long long accumulator_registers_per_thread(long long bm, long long bn, long long threads, long long acc_regs) {
  return (bm * bn + threads - 1) / threads * acc_regs;
}

long long max_square_tile_smem(double smem_limit_bytes, long long bk, long long stages, double element_bytes) {
  return static_cast<long long>(std::floor(smem_limit_bytes / (static_cast<double>(stages) * 2 * bk * element_bytes)));
}

long long max_square_tile_registers(const RegisterBudget& b, long long acc_regs, std::string* which) {
  // Registers one thread may hold: the per-thread limit, or its share of the block's.
  const long long per_block_share = b.max_registers_per_block / b.threads_per_block;
  const bool thread_binds = b.max_registers_per_thread <= per_block_share;
  if (which) *which = thread_binds ? "max_registers_per_thread" : "max_registers_per_block";
  const long long usable = std::min(b.max_registers_per_thread, per_block_share) - b.register_overhead;
  const long long accumulators = usable / acc_regs;  // per thread
  // ceil(T²/threads) <= accumulators  <=>  T² <= threads · accumulators.
  return accumulators > 0 ? isqrt(b.threads_per_block * accumulators) : 0;
}

long long max_square_tile_tensor_memory(double tensor_memory_bytes, long long acc_regs) {
  return isqrt(static_cast<long long>(std::floor(tensor_memory_bytes / (4.0 * static_cast<double>(acc_regs)))));
}

double smem_bound_flops(double sms, double clock_hz, double smem_bytes_per_clock, long long thread_tile) {
  return sms * clock_hz * (smem_bytes_per_clock / 128) * 32 * static_cast<double>(thread_tile);
}

TileLimits tile_limits(long long bm, long long bn, long long bk, long long stages, double element_bytes,
                       long long acc_regs, double smem_limit_bytes, bool fits_smem, const RegisterBudget& b) {
  const long long share = std::min(b.max_registers_per_thread, b.max_registers_per_block / b.threads_per_block);
  if (b.register_overhead + acc_regs > share)
    throw InputError("register_overhead",
                     "With " + format_int(static_cast<double>(b.threads_per_block)) + " threads a thread may hold " +
                         format_int(static_cast<double>(share)) + " registers; an overhead of " +
                         format_int(static_cast<double>(b.register_overhead)) +
                         " leaves none for the accumulators. Lower the overhead or the threads per block.");
  TileLimits t{};
  t.threads_per_block = b.threads_per_block;
  t.register_overhead = b.register_overhead;
  t.accumulator_registers = acc_regs;
  t.accumulator_bytes = static_cast<double>(bm) * static_cast<double>(bn) * static_cast<double>(acc_regs) * 4;
  const bool tmem = b.tensor_memory_bytes > 0;
  t.accumulator_storage = tmem ? "tensor_memory" : "registers";
  t.tensor_memory_bytes = tmem ? b.tensor_memory_bytes : 0;
  t.registers_per_thread =
      (tmem ? 0 : accumulator_registers_per_thread(bm, bn, b.threads_per_block, acc_regs)) + b.register_overhead;
  t.registers_per_block = b.threads_per_block * t.registers_per_thread;
  t.max_registers_per_thread = b.max_registers_per_thread;
  t.max_registers_per_block = b.max_registers_per_block;
  t.register_limit_source = b.source;
  t.register_file_bytes = static_cast<double>(b.max_registers_per_block) * 4;
  t.fits_registers =
      t.registers_per_thread <= b.max_registers_per_thread && t.registers_per_block <= b.max_registers_per_block;
  t.fits_accumulators = tmem ? t.accumulator_bytes <= b.tensor_memory_bytes : t.fits_registers;
  t.fits = t.fits_registers && t.fits_accumulators && fits_smem;
  t.max_tile_smem = max_square_tile_smem(smem_limit_bytes, bk, stages, element_bytes);
  t.max_tile_registers = max_square_tile_registers(b, acc_regs, &t.register_limiter);
  t.max_tile_accumulators = tmem ? max_square_tile_tensor_memory(b.tensor_memory_bytes, acc_regs) : t.max_tile_registers;
  t.max_tile = std::min(t.max_tile_smem, t.max_tile_accumulators);
  t.limiter = t.max_tile_accumulators <= t.max_tile_smem ? t.accumulator_storage : "smem";
  return t;
}

}  // namespace mlsys
