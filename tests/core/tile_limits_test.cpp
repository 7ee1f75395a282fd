// The register budget of a tiled matmul's block tile beside its shared-memory budget
// (kernels/tile_limits.hpp). Limits: 255 registers per thread and 65,536 per block (the
// 256 KiB register file of an SM) on A100 and H100, CUDA C++ Programming Guide, "Compute
// Capabilities" (technical specifications per compute capability). CUTLASS's Hopper GEMMs use
// 128×128 and 128×256 CTA tiles (CUTLASS 3 "GEMM API 3.x" documentation, TileShape); a T×T
// fp32 accumulator of 4·T² bytes cannot exceed the register file, so T <= 256.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/kernels/tile_limits.hpp"
#include "test_support.hpp"

using mlsys::calc;
using mlsys::json;

namespace {

mlsys::RegisterBudget budget(long long threads, long long overhead) {
  mlsys::RegisterBudget b;
  b.threads_per_block = threads;
  b.register_overhead = overhead;
  return b;  // 255 per thread, 65,536 per block
}

}  // namespace

TEST(TileLimits, ClosedForms) {
  // Accumulators per thread: ceil(T²/threads).
  EXPECT_EQ(mlsys::accumulator_registers_per_thread(128, 128, 256, 1), 64);
  EXPECT_EQ(mlsys::accumulator_registers_per_thread(128, 256, 256, 1), 128);
  EXPECT_EQ(mlsys::accumulator_registers_per_thread(100, 100, 256, 2), 2 * 40);  // ceil(10,000/256) = 40
  // Shared memory: floor(limit / (stages · 2 · BK · s)). 232,448 / (1·2·32·2) = 1,816.
  EXPECT_EQ(mlsys::max_square_tile_smem(232448, 32, 1, 2), 1816);
  EXPECT_EQ(mlsys::max_square_tile_smem(232448, 64, 4, 2), 227);
  // Registers: 256 threads, 32 overhead: min(255, 65,536/256 = 256) − 32 = 223 accumulators per
  // thread, T² <= 256 · 223 = 57,088, T = 238 (238² = 56,644, 239² = 57,121).
  std::string which;
  EXPECT_EQ(mlsys::max_square_tile_registers(budget(256, 32), 1, &which), 238);
  EXPECT_EQ(which, "max_registers_per_thread");
  // 1,024 threads: 65,536/1,024 = 64 per thread binds, 32 accumulators, T² <= 32,768, T = 181.
  EXPECT_EQ(mlsys::max_square_tile_registers(budget(1024, 32), 1, &which), 181);
  EXPECT_EQ(which, "max_registers_per_block");
  // No overhead and one thread per register-file slot: T² <= 65,536, T = 256, the 256 KiB file.
  EXPECT_EQ(mlsys::max_square_tile_registers(budget(256, 0), 1, nullptr), 255);  // 255·256 = 65,280 < 65,536
  EXPECT_EQ(mlsys::max_square_tile_registers(budget(512, 0), 1, nullptr), 256);
  // fp64 accumulators take two registers: half as many, T = floor(sqrt(256 · 111)) = 168.
  EXPECT_EQ(mlsys::max_square_tile_registers(budget(256, 32), 2, nullptr), 168);
}

TEST(TileLimits, CutlassHopperTilesFitAndTheFiguresOldTileDoesNot) {
  // 128×256 bf16, BK 64, 4 stages, 256 threads: 128 accumulators + 32 = 160 registers per thread.
  const json cutlass = calc("tiled-matmul", {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"bm", 128}, {"bn", 256},
                                             {"bk", 64}, {"stages", 4}, {"dtype", "bf16"}, {"hardware", "h100-sxm"}});
  EXPECT_EQ(cutlass["registers_per_thread"], 160);
  EXPECT_EQ(cutlass["registers_per_block"], 160 * 256);
  EXPECT_TRUE(cutlass["fits_registers"]);
  EXPECT_TRUE(cutlass["fits"]);
  EXPECT_EQ(cutlass["max_tile_smem"], 227);
  EXPECT_EQ(cutlass["max_tile_registers"], 238);
  EXPECT_EQ(cutlass["max_tile"], 227);
  EXPECT_EQ(cutlass["limiter"], "smem");
  // Regression: a 1024×1024 tile fits shared memory at BK 32 in bf16 (T <= 1,816) but its fp32
  // accumulator is 4 MiB against the 256 KiB register file.
  const json huge = calc("tiled-matmul", {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"bm", 1024}, {"bn", 1024},
                                          {"bk", 32}, {"dtype", "bf16"}, {"hardware", "h100-sxm"}});
  EXPECT_TRUE(huge["fits_smem"]);
  EXPECT_EQ(huge["accumulator_bytes"].get<double>(), 4.0 * 1024 * 1024);
  EXPECT_EQ(huge["register_file_bytes"].get<double>(), 256.0 * 1024);
  EXPECT_FALSE(huge["fits_registers"]);
  EXPECT_FALSE(huge["fits"]);
  EXPECT_EQ(huge["max_tile"], 238);
  EXPECT_EQ(huge["limiter"], "registers");
  EXPECT_EQ(huge["register_limit_source"], "h100-sxm");
}

TEST(TileLimits, BlockLimitBindsWithManyThreads) {
  // 1,024 threads at 32 overhead: 128×128 needs 16 + 32 = 48 per thread, 49,152 per block: fits;
  // 192×192 needs 36 + 32 = 68 per thread, 69,632 per block > 65,536, though 68 < 255.
  const json ok = calc("tiled-matmul", {{"bm", 128}, {"bn", 128}, {"threads_per_block", 1024}});
  EXPECT_TRUE(ok["fits_registers"]);
  const json over = calc("tiled-matmul", {{"bm", 192}, {"bn", 192}, {"threads_per_block", 1024}});
  EXPECT_EQ(over["registers_per_thread"], 68);
  EXPECT_FALSE(over["fits_registers"]);
  EXPECT_EQ(over["register_limiter"], "max_registers_per_block");
  // The limits can be given instead of read from the table.
  const json given = calc("tiled-matmul", {{"max_registers_per_thread", 128}, {"max_registers_per_block", 32768}});
  EXPECT_EQ(given["register_limit_source"], "input");
  EXPECT_EQ(given["max_tile_registers"], 156);  // min(128, 32,768/256) − 32 = 96; floor(sqrt(256 · 96)) = 156
}

// Blackwell's tcgen05 MMAs accumulate in Tensor Memory, 128 lanes × 512 columns of 32-bit cells
// = 262,144 B per SM (PTX ISA, "Tensor Memory"; CUTLASS tcgen05 MMA programming guide), not in
// registers: on the B200 the register file no longer bounds the tile (it gave 113 at 512 threads
// with 56 registers of overhead, and 181 at 1,024 threads), the tensor memory does, T <= 256
// whatever the threads, and the registers hold only the overhead.
TEST(TileLimits, BlackwellAccumulatesInTensorMemory) {
  EXPECT_EQ(mlsys::max_square_tile_tensor_memory(262144, 1), 256);
  EXPECT_EQ(mlsys::max_square_tile_tensor_memory(262144, 2), 181);  // fp64: 2 cells each, 181² ≤ 32,768
  for (const int threads : {128, 256, 512, 1024}) {
    const json b200 = calc("tiled-matmul", {{"hardware", "b200"}, {"threads_per_block", threads}});
    EXPECT_EQ(b200["accumulator_storage"], "tensor_memory");
    EXPECT_DOUBLE_EQ(b200["tensor_memory_bytes"].get<double>(), 262144);
    EXPECT_EQ(b200["max_tile_accumulators"], 256) << threads;
    EXPECT_EQ(b200["max_tile"], 256) << threads;
    EXPECT_EQ(b200["limiter"], "tensor_memory");
    EXPECT_EQ(b200["registers_per_thread"], 32);  // the overhead alone
  }
  const json big = calc("tiled-matmul", {{"hardware", "b200"}, {"m", 4096}, {"n", 4096}, {"k", 4096}, {"bm", 512},
                                         {"bn", 512}, {"dtype", "bf16"}});
  EXPECT_FALSE(big["fits_accumulators"]);  // 1 MiB of accumulators against 256 KiB
  EXPECT_TRUE(big["fits_registers"]);
  EXPECT_FALSE(big["fits"]);
  // Deep pipelines still let shared memory bind: 4 stages, BK 64, fp32: 232,448 / 2,048 = 113.
  const json deep = calc("tiled-matmul", {{"hardware", "b200"}, {"bk", 64}, {"stages", 4}});
  EXPECT_EQ(deep["max_tile"], 113);
  EXPECT_EQ(deep["limiter"], "smem");
  // Hopper keeps its accumulators in registers.
  const json h100 = calc("tiled-matmul", {{"hardware", "h100-sxm"}});
  EXPECT_EQ(h100["accumulator_storage"], "registers");
  EXPECT_EQ(h100["max_tile_accumulators"], 238);
  EXPECT_EQ(h100["limiter"], "registers");
}

// The one-thread-per-output kernel is bound by shared memory: each warp-wide k-step issues two
// shared-memory passes (the broadcast As[ty][k] and the row Bs[k][tx]) for 32 FMAs, and an SM
// serves one 128-B pass per clock (H100 whitepaper: 128 B per clock per SM). On an H100 SXM,
// 132 SMs × 1.98 GHz × 32 FLOP = 8.36 TFLOP/s, an eighth of the 66.9 TFLOP/s fp32 CUDA-core
// peak; an 8 × 8 register tile per thread feeds 8 times as many FMAs per pass and reaches it.
TEST(TileLimits, SharedMemoryBoundsTheOneThreadPerOutputKernel) {
  EXPECT_DOUBLE_EQ(mlsys::smem_bound_flops(132, 1.98e9, 128, 1), 132 * 1.98e9 * 32);
  const json one = calc("tiled-matmul", {{"hardware", "h100-sxm"}});
  EXPECT_NEAR(one["smem_bound_flops"].get<double>(), 8.36352e12, 1e6);
  EXPECT_NEAR(one["cuda_core_fp32_flops"].get<double>() / one["smem_bound_flops"].get<double>(), 8.0, 0.01);
  const json eight = calc("tiled-matmul", {{"hardware", "h100-sxm"}, {"thread_tile", 8}});
  EXPECT_NEAR(eight["smem_bound_flops"].get<double>(), 66.90816e12, 1e6);
  EXPECT_GE(eight["smem_bound_flops"].get<double>(), eight["cuda_core_fp32_flops"].get<double>());
  // No clock in the B200 row: no bound is claimed.
  EXPECT_FALSE(calc("tiled-matmul", {{"hardware", "b200"}}).contains("smem_bound_flops"));
}
