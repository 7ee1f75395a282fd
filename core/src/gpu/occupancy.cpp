// Occupancy by the rules of NVIDIA's CUDA Occupancy Calculator (cuda_occupancy.h:
// cudaOccMaxBlocksPerSMWarpsLimit, ...RegsLimit, ...SmemLimit, cudaOccMaxBlocksPerMultiprocessor)
// and the per-compute-capability limits of the CUDA C++ Programming Guide.
#include "mlsys/gpu/occupancy.hpp"

#include <algorithm>
#include <limits>

#include "mlsys/foundations/units.hpp"

namespace mlsys {

namespace {

long long div_up(long long x, long long y) { return (x + y - 1) / y; }
long long round_up(long long x, long long unit) { return div_up(x, unit) * unit; }

}  // namespace

Occupancy occupancy(const SmLimits& sm, const KernelResources& k) {
  Occupancy o{};
  constexpr int kUnlimited = std::numeric_limits<int>::max();
  o.warps_per_block = static_cast<int>(div_up(k.threads_per_block, sm.warp_size));

  // Warp slots: the SM holds max_warps_per_sm warps; a block takes whole warps.
  o.blocks_by_threads = sm.max_warps_per_sm / o.warps_per_block;

  // Registers are allocated per warp, rounded up to the allocation unit, inside each of the
  // SM's sub-partitions: the warps the register file holds are a multiple of sub_partitions.
  o.registers_per_warp = static_cast<int>(round_up(static_cast<long long>(k.registers_per_thread) * sm.warp_size,
                                                   sm.register_alloc_unit));
  o.registers_per_block = o.registers_per_warp * o.warps_per_block;
  // The hardware check assumes the block's warps are spread over all sub-partitions.
  const long long registers_assumed =
      static_cast<long long>(o.registers_per_warp) * round_up(o.warps_per_block, sm.sub_partitions);
  if (o.registers_per_warp == 0) {
    o.blocks_by_registers = kUnlimited;
  } else {
    const int warps_per_partition = (sm.registers_per_sm / sm.sub_partitions) / o.registers_per_warp;
    o.blocks_by_registers = warps_per_partition * sm.sub_partitions / o.warps_per_block;
  }

  // Shared memory: request plus the driver's per-block reserve, rounded up to the unit.
  o.smem_per_block_bytes = round_up(k.smem_per_block_bytes + sm.smem_reserved_per_block_bytes, sm.smem_alloc_unit_bytes);
  o.blocks_by_smem = o.smem_per_block_bytes == 0
                         ? kUnlimited
                         : static_cast<int>(std::min<long long>(sm.smem_per_sm_bytes / o.smem_per_block_bytes, kUnlimited));

  o.blocks_by_blocks = sm.max_blocks_per_sm;

  // Per-block limits: a block that breaks one cannot launch at all.
  std::string broken;  // the resource whose per-block limit is broken
  if (k.threads_per_block > sm.max_threads_per_block) {
    broken = "threads";
    o.launch_error = "A block of " + format_int(k.threads_per_block) + " threads exceeds the limit of " +
                     format_int(sm.max_threads_per_block) + " threads per block.";
  } else if (registers_assumed > sm.max_registers_per_block || o.registers_per_block > sm.max_registers_per_block) {
    broken = "registers";
    o.launch_error = "A block of " + format_int(k.threads_per_block) + " threads at " +
                     format_int(k.registers_per_thread) + " registers per thread needs " +
                     format_int(static_cast<double>(registers_assumed)) + " registers (" +
                     format_int(o.registers_per_warp) + " per warp), more than the " +
                     format_int(sm.max_registers_per_block) + " one block may use; the launch would fail.";
  } else if (o.smem_per_block_bytes > sm.max_smem_per_block_bytes + sm.smem_reserved_per_block_bytes) {
    broken = "smem";
    o.launch_error = "A block asking for " + format_int(static_cast<double>(k.smem_per_block_bytes)) +
                     " bytes of shared memory exceeds the " +
                     format_int(static_cast<double>(sm.max_smem_per_block_bytes)) + " bytes one block may use.";
  }

  const int limits[4] = {o.blocks_by_threads, o.blocks_by_registers, o.blocks_by_smem, o.blocks_by_blocks};
  static const char* const kNames[4] = {"threads", "registers", "smem", "blocks"};
  const int least = *std::min_element(limits, limits + 4);
  if (broken.empty()) {
    o.blocks_per_sm = least;
    for (int i = 0; i < 4; ++i)
      if (limits[i] == least) o.limiters.push_back(kNames[i]);
  } else {
    o.blocks_per_sm = 0;
    o.limiters = {broken};
  }
  o.limiter = o.limiters.front();
  o.active_warps = o.blocks_per_sm * o.warps_per_block;
  o.occupancy = static_cast<double>(o.active_warps) / sm.max_warps_per_sm;
  return o;
}

}  // namespace mlsys
