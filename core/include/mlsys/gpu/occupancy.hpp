// Occupancy of one kernel on one NVIDIA SM: how many blocks and warps of a launch
// configuration can be resident at once, and which resource limits them. The rules are those
// of NVIDIA's CUDA Occupancy Calculator (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor)
// with the per-compute-capability limits of the CUDA C++ Programming Guide.
#pragma once
#include <string>
#include <vector>

namespace mlsys {

// Per-SM resources and allocation rules of one compute capability.
struct SmLimits {
  int warp_size = 32;                    // threads per warp
  int max_threads_per_block = 1024;      // threads
  int max_warps_per_sm = 64;             // warps resident at once
  int max_blocks_per_sm = 32;            // blocks resident at once
  int registers_per_sm = 65536;          // 32-bit registers
  int max_registers_per_block = 65536;   // 32-bit registers
  int max_registers_per_thread = 255;    // 32-bit registers
  int register_alloc_unit = 256;         // registers; allocated per warp in these units
  int sub_partitions = 4;                // SM quadrants (warp schedulers) sharing the register file
  long long smem_per_sm_bytes = 233472;  // shared memory per SM at the largest carveout
  long long max_smem_per_block_bytes = 232448;   // what one block may request
  long long smem_alloc_unit_bytes = 128;         // shared memory granularity
  long long smem_reserved_per_block_bytes = 1024;  // driver reserve per block (cc >= 8.0)
};

// What one block of the kernel asks for.
struct KernelResources {
  int threads_per_block;            // 1 .. max_threads_per_block
  int registers_per_thread;         // 1 .. max_registers_per_thread
  long long smem_per_block_bytes;   // static + dynamic shared memory, 0 .. max_smem_per_block_bytes
};

struct Occupancy {
  int warps_per_block;               // ceil(threads / warp size)
  int registers_per_warp;            // registers_per_thread · 32 rounded up to the allocation unit
  int registers_per_block;           // registers_per_warp · warps_per_block
  long long smem_per_block_bytes;    // (request + reserve) rounded up to the allocation unit
  // Blocks per SM each limit would allow on its own (a large number when it does not bind).
  int blocks_by_threads;             // warp slots: floor(max warps / warps per block)
  int blocks_by_registers;           // 4 · floor((regs / 4) / regs per warp) warps, in blocks
  int blocks_by_smem;                // floor(smem per SM / smem per block)
  int blocks_by_blocks;              // the hardware's block slots
  int blocks_per_sm;                 // the smallest of the four; 0 when a block cannot launch
  int active_warps;                  // blocks_per_sm · warps_per_block
  double occupancy;                  // active_warps / max_warps_per_sm, in [0, 1]
  std::string limiter;               // "threads" | "registers" | "smem" | "blocks" (first of ties)
  std::vector<std::string> limiters; // every limit that equals the minimum
  std::string launch_error;          // non-empty when one block exceeds a per-block limit
};

// Precondition: 1 <= threads_per_block, 1 <= registers_per_thread <= max_registers_per_thread,
// 0 <= smem_per_block_bytes <= max_smem_per_block_bytes. A block that still cannot launch (its
// registers exceed the per-block register file, or its threads the block limit) gets
// blocks_per_sm = 0 and a launch_error sentence.
Occupancy occupancy(const SmLimits& sm, const KernelResources& k);

}  // namespace mlsys
