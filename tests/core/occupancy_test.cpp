// The `occupancy` calculator against cases worked by hand from the CUDA occupancy rules.
// Sources: CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
// (cc 8.0 = A100: 64 warps, 32 blocks, 65,536 registers, 164 KiB shared memory per SM and
// 163 KiB per block; cc 9.0 = H100: the same but 228 KiB per SM and 227 KiB per block;
// 255 registers per thread; 1 KiB of shared memory reserved per block) and NVIDIA's CUDA
// Occupancy Calculator, cuda_occupancy.h (cudaOccMaxActiveBlocksPerMultiprocessor: registers
// allocated per warp in units of 256 inside 4 sub-partitions of 16,384 registers, shared memory
// in units of 128 bytes, the per-block hardware register check over warps rounded up to 4).
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/gpu/gpu_table.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/gpu/occupancy.hpp"

using mlsys::calc;
using mlsys::json;

namespace {

json occ(const std::string& hw, int threads, int regs, long long smem) {
  return calc("occupancy", {{"hardware", hw}, {"threads_per_block", threads}, {"registers_per_thread", regs},
                            {"smem_per_block_bytes", smem}});
}

void expect(const json& r, int blocks, int warps, double occupancy, const std::string& limiter) {
  EXPECT_EQ(r["blocks_per_sm"], blocks) << r.dump();
  EXPECT_EQ(r["active_warps"], warps) << r.dump();
  EXPECT_DOUBLE_EQ(r["occupancy"].get<double>(), occupancy) << r.dump();
  EXPECT_EQ(r["limiter"], limiter) << r.dump();
}

}  // namespace

TEST(Occupancy, ThreadsLimitH100) {
  // H100, 768 threads, 16 registers, no shared memory.
  // warps/block = 768/32 = 24. Warp slots: floor(64/24) = 2 blocks.
  // Registers: 16·32 = 512 per warp (a multiple of 256); 16384/512 = 32 warps per sub-partition,
  //   ×4 = 128 warps → floor(128/24) = 5 blocks.
  // Shared memory: 0 + 1024 reserve = 1024 B → floor(233472/1024) = 228 blocks. Block limit 32.
  // → 2 blocks, 48 warps, 48/64 = 75 %, limited by threads (warp slots).
  const json r = occ("h100-sxm", 768, 16, 0);
  expect(r, 2, 48, 0.75, "threads");
  EXPECT_EQ(r["blocks_by"]["threads"], 2);
  EXPECT_EQ(r["blocks_by"]["registers"], 5);
  EXPECT_EQ(r["blocks_by"]["smem"], 228);
  EXPECT_EQ(r["blocks_by"]["blocks"], 32);
}

TEST(Occupancy, RegistersLimitA100) {
  // A100, 256 threads, 128 registers, no shared memory.
  // warps/block = 8. Warp slots: 64/8 = 8 blocks.
  // Registers: 128·32 = 4096 per warp; 16384/4096 = 4 warps per sub-partition → 16 warps → 16/8 = 2.
  // Shared memory: 167936/1024 = 164. → 2 blocks, 16 warps, 25 %, registers.
  expect(occ("a100-sxm-80gb", 256, 128, 0), 2, 16, 0.25, "registers");
}

TEST(Occupancy, RegistersPerSubPartitionAndThreadRounding) {
  // A100, 90 threads (not a multiple of 32: rounds up to 3 warps, 6 idle lanes), 40 registers.
  // Registers: 40·32 = 1280 per warp (5 units of 256). Per sub-partition floor(16384/1280) = 12
  //   warps → 48 warps per SM → floor(48/3) = 16 blocks. (Dividing the whole file instead,
  //   floor(65536/1280) = 51 warps, would wrongly give 17 blocks.)
  // Warp slots: floor(64/3) = 21. Shared memory: 164. Blocks: 32.
  // → 16 blocks, 48 warps, 75 %, registers.
  const json r = occ("a100-sxm-80gb", 90, 40, 0);
  expect(r, 16, 48, 0.75, "registers");
  EXPECT_EQ(r["warps_per_block"], 3);
  EXPECT_EQ(r["idle_threads_per_block"], 6);
  EXPECT_EQ(r["registers_per_warp"], 1280);
  EXPECT_EQ(r["active_threads"], 16 * 90);
}

TEST(Occupancy, SharedMemoryLimitH100) {
  // H100, 128 threads, 32 registers, 48 KiB shared memory.
  // Shared memory: 49152 + 1024 = 50176 B (= 392 × 128, already aligned) → floor(233472/50176) = 4.
  // Warp slots 64/4 = 16; registers 1024 per warp → 16 warps per sub-partition → 64 → 16 blocks.
  // → 4 blocks, 16 warps, 25 %, smem.
  const json r = occ("h100-sxm", 128, 32, 49152);
  expect(r, 4, 16, 0.25, "smem");
  EXPECT_EQ(r["smem_per_block_allocated_bytes"], 50176);
  // The same kernel on the A100: floor(167936/50176) = 3 blocks, 12 warps, 18.75 %.
  expect(occ("a100-sxm-80gb", 128, 32, 49152), 3, 12, 0.1875, "smem");
}

TEST(Occupancy, SharedMemoryRoundingA100) {
  // A100, 64 threads, 32 registers, 10,000 B of shared memory.
  // 10000 + 1024 = 11024 → rounded up to 128: 87 × 128 = 11136 B → floor(167936/11136) = 15.
  // Warp slots: 64/2 = 32; registers: 64 warps / 2 = 32; block limit 32.
  // → 15 blocks, 30 warps, 46.875 %, smem.
  const json r = occ("a100-sxm-80gb", 64, 32, 10000);
  expect(r, 15, 30, 0.46875, "smem");
  EXPECT_EQ(r["smem_per_block_allocated_bytes"], 11136);
}

TEST(Occupancy, BlockSlotsLimitH100) {
  // H100, 32 threads (1 warp), 32 registers, no shared memory.
  // Warp slots 64, registers 64 warps → 64 blocks, shared memory 228, block limit 32.
  // → 32 blocks, 32 warps, 50 %, blocks: small blocks cannot fill the SM.
  expect(occ("h100-sxm", 32, 32, 0), 32, 32, 0.5, "blocks");
}

TEST(Occupancy, TiesListEveryLimiter) {
  // A100, 64 threads, 32 registers: warp slots 32, registers 32, block limit 32 (shared memory 164).
  // The first in API order is the limiter; all three are listed.
  const json r = occ("a100-sxm-80gb", 64, 32, 0);
  expect(r, 32, 64, 1.0, "threads");
  EXPECT_EQ(r["limiters"], json({"threads", "registers", "blocks"}));
  // Full occupancy the classic way: 256 threads at 32 registers, 8 blocks, 64 warps.
  expect(occ("h100-sxm", 256, 32, 0), 8, 64, 1.0, "threads");
}

TEST(Occupancy, MaximumRegistersPerThread) {
  // 255 registers: 255·32 = 8160 → 8192 per warp → 2 warps per sub-partition → 8 warps per SM.
  // A 256-thread block (8 warps) fits once: 1 block, 12.5 %.
  expect(occ("h100-sxm", 256, 255, 0), 1, 8, 0.125, "registers");
}

TEST(Occupancy, LaunchFailuresAreErrors) {
  // 1024 threads at 72 registers: 72·32 = 2304 per warp × 32 warps = 73,728 > 65,536 per block.
  EXPECT_THROW(occ("h100-sxm", 1024, 72, 0), mlsys::InputError);
  try {
    occ("h100-sxm", 1024, 72, 0);
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "registers_per_thread");
  }
  // 800 threads = 25 warps at 80 registers: 2560 per warp × 25 = 64,000 fits the software check,
  // but the hardware check counts warps rounded up to 4: 2560 × 28 = 71,680 > 65,536.
  mlsys::SmLimits a100;
  a100.smem_per_sm_bytes = 167936;
  a100.max_smem_per_block_bytes = 166912;
  const auto o = mlsys::occupancy(a100, {800, 80, 0});
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_FALSE(o.launch_error.empty());
  EXPECT_EQ(mlsys::occupancy(a100, {800, 72, 0}).blocks_per_sm, 1);  // 2304 × 28 = 64,512 fits
  // Shared memory above the per-block maximum (163 KiB on A100, 227 KiB on H100).
  EXPECT_EQ(occ("a100-sxm-80gb", 128, 32, 166912)["blocks_per_sm"], 1);  // 166912 + 1024 = 167936: one block
  EXPECT_THROW(occ("a100-sxm-80gb", 128, 32, 166913), mlsys::InputError);
  EXPECT_EQ(occ("h100-sxm", 128, 32, 232448)["blocks_per_sm"], 1);
  EXPECT_THROW(occ("h100-sxm", 128, 32, 232449), mlsys::InputError);
}

TEST(Occupancy, ModelAgreesWithCalculatorOverASweep) {
  // The calculator is the model plus validation: for every launchable configuration of a grid of
  // inputs they agree, and occupancy never exceeds 1 or the warps the SM holds.
  mlsys::SmLimits h100;
  for (int threads : {1, 31, 32, 33, 100, 128, 192, 256, 500, 512, 640, 1000, 1024})
    for (int regs : {1, 8, 9, 16, 32, 33, 64, 65, 96, 128, 200, 255})
      for (long long smem : {0LL, 1LL, 4096LL, 30000LL, 100000LL, 232448LL}) {
        const auto o = mlsys::occupancy(h100, {threads, regs, smem});
        EXPECT_LE(o.active_warps, 64);
        EXPECT_LE(o.blocks_per_sm, 32);
        if (!o.launch_error.empty()) {
          EXPECT_THROW(occ("h100-sxm", threads, regs, smem), mlsys::InputError);
          continue;
        }
        const json r = occ("h100-sxm", threads, regs, smem);
        EXPECT_EQ(r["blocks_per_sm"], o.blocks_per_sm);
        EXPECT_GE(o.blocks_per_sm, 1);
        // Each resource really fits: registers and shared memory used stay within the SM.
        EXPECT_LE(r["registers_used_per_sm"].get<long long>(), 65536);
        EXPECT_LE(r["smem_used_per_sm_bytes"].get<long long>(), 233472);
      }
}

TEST(Occupancy, CurveSweepsOneInput) {
  const json c = calc("occupancy-curve", {{"hardware", "a100-sxm-80gb"}, {"threads_per_block", 256},
                                          {"registers_per_thread", 48}, {"smem_per_block_bytes", 0},
                                          {"vary", "registers_per_thread"}});
  ASSERT_EQ(c["points"].size(), 255u);
  EXPECT_EQ(c["current"]["x"], 48);
  // Full occupancy up to 32 registers (1,024 per warp: 16 warps per sub-partition), then it steps down.
  EXPECT_DOUBLE_EQ(c["points"][31]["occupancy"].get<double>(), 1.0);   // 32 registers
  EXPECT_DOUBLE_EQ(c["points"][32]["occupancy"].get<double>(), 0.75);  // 33 → 1280 per warp → 48 warps → 6 blocks
  EXPECT_DOUBLE_EQ(c["points"][254]["occupancy"].get<double>(), 0.125);
  // Never increases as registers grow.
  for (std::size_t i = 1; i < c["points"].size(); ++i)
    EXPECT_LE(c["points"][i]["occupancy"].get<double>(), c["points"][i - 1]["occupancy"].get<double>());
  // 1024-thread blocks cannot launch beyond 64 registers.
  const json big = calc("occupancy-curve", {{"threads_per_block", 1024}, {"registers_per_thread", 32},
                                            {"vary", "registers_per_thread"}});
  EXPECT_TRUE(big["points"][63]["launchable"].get<bool>());
  EXPECT_FALSE(big["points"][64]["launchable"].get<bool>());
  EXPECT_EQ(big["points"][64]["blocks_per_sm"], 0);
  // Threads in steps of 32 (plus the current value), shared memory in steps of 1 KiB.
  const json t = calc("occupancy-curve", {{"threads_per_block", 100}, {"vary", "threads_per_block"}});
  EXPECT_EQ(t["points"].size(), 33u);
  EXPECT_EQ(t["current"]["x"], 100);
  const json s = calc("occupancy-curve", {{"hardware", "h100-sxm"}, {"vary", "smem_per_block_bytes"}});
  EXPECT_EQ(s["points"].size(), 228u);  // 0, 1 KiB, ..., 227 KiB
}

TEST(Occupancy, MatchesNvidiasOccupancyHeader) {
  // Reference values from NVIDIA's own calculator: cudaOccMaxActiveBlocksPerMultiprocessor of
  // cuda_occupancy.h (CUDA 13.0), run on an H200 with its cudaGetDeviceProperties (cc 9.0) and
  // with the same properties changed to A100 limits (cc 8.0, 167,936 B shared memory per SM,
  // 166,912 B per block). limitingFactors bits: 1 warps, 2 registers, 4 shared memory, 8 blocks.
  // A sweep of 149,940 such configurations (28 block sizes × 255 register counts × 11 shared
  // memory sizes, for both) matched the engine exactly in blocks and limiters; these rows are a
  // sample covering every combination of limiters, and launches that cannot run (0 blocks).
  struct Row { bool a100; int threads, regs; long long smem; int blocks, factors; };
  const Row rows[] = {
      {true, 448, 21, 1000, 4, 1},
      {true, 192, 23, 4096, 10, 1},
      {true, 32, 57, 1, 32, 10},
      {true, 33, 26, 0, 32, 11},
      {true, 32, 50, 4096, 32, 12},
      {true, 33, 7, 4096, 32, 13},
      {true, 1, 58, 4096, 32, 14},
      {true, 33, 31, 4096, 32, 15},
      {true, 33, 246, 1, 4, 2},
      {true, 256, 147, 0, 1, 2},
      {true, 800, 133, 1000, 0, 2},
      {true, 384, 223, 166912, 0, 2},
      {true, 512, 25, 10000, 4, 3},
      {true, 128, 93, 101376, 1, 4},
      {true, 448, 8, 36864, 4, 5},
      {true, 224, 63, 36864, 4, 6},
      {true, 640, 30, 49152, 3, 7},
      {true, 32, 43, 1, 32, 8},
      {true, 64, 10, 1000, 32, 9},
      {false, 256, 23, 4096, 8, 1},
      {false, 96, 24, 1000, 21, 1},
      {false, 1, 61, 1, 32, 10},
      {false, 33, 29, 1000, 32, 11},
      {false, 320, 37, 4096, 4, 2},
      {false, 896, 97, 100000, 0, 2},
      {false, 640, 214, 232448, 0, 2},
      {false, 960, 26, 10000, 2, 3},
      {false, 32, 212, 232448, 1, 4},
      {false, 32, 12, 36864, 6, 4},
      {false, 896, 5, 101376, 2, 5},
      {false, 384, 75, 100000, 2, 6},
      {false, 896, 31, 100000, 2, 7},
      {false, 1, 9, 0, 32, 8},
      {false, 33, 4, 4096, 32, 9}};
  for (const auto& r : rows) {
    mlsys::SmLimits sm;  // cc 9.0 (H100 / H200)
    if (r.a100) {
      sm.smem_per_sm_bytes = 167936;
      sm.max_smem_per_block_bytes = 166912;
    }
    const auto o = mlsys::occupancy(sm, {r.threads, r.regs, r.smem});
    EXPECT_EQ(o.blocks_per_sm, r.blocks) << r.a100 << " " << r.threads << " " << r.regs << " " << r.smem;
    if (r.blocks == 0) {
      EXPECT_FALSE(o.launch_error.empty());
      continue;
    }
    int mask = 0;
    for (const auto& l : o.limiters) mask |= l == "threads" ? 1 : l == "registers" ? 2 : l == "smem" ? 4 : 8;
    EXPECT_EQ(mask, r.factors) << r.a100 << " " << r.threads << " " << r.regs << " " << r.smem;
  }
}

// The model on a table row (gpu_table.hpp). H100 (cc 9.0): 256 threads = 8 warps and 32
// registers per thread = 8,192 registers per block: 8 blocks fill the 64 warp slots and the
// 65,536 registers; each block holds the 1 KiB shared-memory reserve.
TEST(Occupancy, ModelOnTableRow) {
  const auto& h100 = *mlsys::find_accelerator("h100-sxm");
  const auto r = mlsys::occupancy_on(h100, {256, 32, 0});
  EXPECT_EQ(r.o.blocks_per_sm, 8);
  EXPECT_EQ(r.active_threads, 2048);
  EXPECT_EQ(r.idle_threads_per_block, 0);
  EXPECT_EQ(r.registers_used_per_sm, 65536);
  EXPECT_EQ(r.smem_used_per_sm_bytes, 8 * 1024);
  EXPECT_EQ(r.blocks_by.blocks, 32);
  EXPECT_EQ(mlsys::occupancy_on(h100, {48, 32, 0}).idle_threads_per_block, 16);  // 2 warps, 64 slots
  try {
    mlsys::sm_limits_of(*mlsys::find_accelerator("tpu-v4"));
    ADD_FAILURE() << "a TPU has no CUDA occupancy limits";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "hardware");
  }
  EXPECT_THROW(mlsys::occupancy_on(h100, {256, 32, 300000}), mlsys::InputError);
}

TEST(Occupancy, ModelCurveOnTableRow) {
  const auto& h100 = *mlsys::find_accelerator("h100-sxm");
  const auto t = mlsys::occupancy_curve_on(h100, {256, 32, 0}, "threads_per_block");
  EXPECT_EQ(t.points.size(), 32u);  // 32, 64, ..., 1024
  EXPECT_EQ(t.current.x, 256);
  EXPECT_EQ(t.current.blocks_per_sm, 8);
  EXPECT_EQ(t.max_warps_per_sm, 64);
  // 1000 bytes is not on the 1 KiB grid: it is added as its own point, in order.
  const auto s = mlsys::occupancy_curve_on(h100, {256, 32, 1000}, "smem_per_block_bytes");
  EXPECT_EQ(s.points.size(), static_cast<std::size_t>(232448 / 1024 + 2));
  EXPECT_EQ(s.points[1].x, 1000);
  EXPECT_EQ(s.current.x, 1000);
}
