// Wave quantization: the closed form against the step-by-step dispatch reference, the
// utilization curve, and worked examples (NVIDIA, Matrix Multiplication Background User's
// Guide, "Wave Quantization": a grid of tiles runs in ceil(tiles / slots) waves).
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/gpu/gpu_table.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/gpu/waves.hpp"

using mlsys::calc;
using mlsys::json;

TEST(Waves, ClosedFormMatchesSimulation) {
  for (long long sms = 1; sms <= 17; sms += 4)
    for (long long per_sm = 1; per_sm <= 3; ++per_sm)
      for (long long blocks = 1; blocks <= 150; ++blocks) {
        const auto a = mlsys::waves(blocks, sms, per_sm);
        const auto b = mlsys::waves_simulated(blocks, sms, per_sm);
        ASSERT_EQ(a.waves, b.waves) << blocks << " " << sms << " " << per_sm;
        EXPECT_EQ(a.full_waves, b.full_waves);
        EXPECT_EQ(a.last_wave_blocks, b.last_wave_blocks);
        EXPECT_DOUBLE_EQ(a.utilization, b.utilization);
        EXPECT_EQ(a.blocks_high, b.blocks_high);
        EXPECT_EQ(a.sms_high, b.sms_high);
        EXPECT_EQ(a.sms_busy_last_wave, b.sms_busy_last_wave);
      }
}

TEST(Waves, OneBlockTooManyHalvesUtilization) {
  // H100 SXM, 132 SMs, one block per SM. 132 blocks: one full wave. 133 blocks: two waves, the
  // second running one block on one SM: utilization 133 / 264 = 50.38 %.
  const json full = calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 132}});
  EXPECT_EQ(full["waves"], 1);
  EXPECT_DOUBLE_EQ(full["utilization"].get<double>(), 1.0);
  const json r = calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 133}});
  EXPECT_EQ(r["slots"], 132);
  EXPECT_EQ(r["waves"], 2);
  EXPECT_EQ(r["full_waves"], 1);
  EXPECT_EQ(r["last_wave_blocks"], 1);
  EXPECT_EQ(r["sms_busy_last_wave"], 1);
  EXPECT_DOUBLE_EQ(r["utilization"].get<double>(), 133.0 / 264.0);
  EXPECT_DOUBLE_EQ(r["last_wave_utilization"].get<double>(), 1.0 / 132.0);
}

TEST(Waves, TiledMatmulOnA100AndH100) {
  // A 4096 × 4096 output in 128 × 128 tiles = 32 × 32 = 1024 blocks, one per SM at a time.
  // A100 (108 SMs): ceil(1024/108) = 10 waves, 1024 / 1080 = 94.8 %.
  const json a = calc("waves", {{"hardware", "a100-sxm-80gb"}, {"blocks", 1024}});
  EXPECT_EQ(a["waves"], 10);
  EXPECT_EQ(a["last_wave_blocks"], 1024 - 9 * 108);
  EXPECT_DOUBLE_EQ(a["utilization"].get<double>(), 1024.0 / 1080.0);
  // H100 (132 SMs): ceil(1024/132) = 8 waves, 1024 / 1056 = 97.0 %.
  const json h = calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 1024}});
  EXPECT_EQ(h["waves"], 8);
  EXPECT_DOUBLE_EQ(h["utilization"].get<double>(), 1024.0 / 1056.0);
  // Two blocks per SM on the H100: 264 slots, ceil(1024/264) = 4 waves, 1024 / 1056 again.
  const json h2 = calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 1024}, {"blocks_per_sm", 2}});
  EXPECT_EQ(h2["waves"], 4);
  EXPECT_EQ(h2["last_wave_blocks"], 232);
  EXPECT_EQ(h2["blocks_high"], 2);  // 232 = 132 + 100: 100 SMs run 2 blocks, 32 run 1
  EXPECT_EQ(h2["sms_high"], 100);
  EXPECT_EQ(h2["sms_busy_last_wave"], 132);
}

TEST(Waves, CurveBreakpoints) {
  const json r = calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 133}});
  EXPECT_EQ(r["curve_waves"], 4);  // at least 4 waves drawn
  const json& c = r["curve"];
  ASSERT_EQ(c.size(), 8u);
  EXPECT_EQ(c[0]["blocks"], 1);
  EXPECT_DOUBLE_EQ(c[0]["utilization"].get<double>(), 1.0 / 132);
  EXPECT_EQ(c[1]["blocks"], 132);
  EXPECT_EQ(c[2]["blocks"], 133);
  EXPECT_DOUBLE_EQ(c[2]["utilization"].get<double>(), 133.0 / 264);
  // Every breakpoint agrees with the closed form at that grid size.
  for (const auto& p : c) {
    const auto w = mlsys::waves(p["blocks"].get<long long>(), 132, 1);
    EXPECT_EQ(p["waves"], w.waves);
    EXPECT_DOUBLE_EQ(p["utilization"].get<double>(), w.utilization);
  }
  // A huge grid: closed form, the curve capped at 512 waves and flagged.
  const json big = calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 2147483647LL}});
  EXPECT_EQ(big["waves"], (2147483647LL + 131) / 132);
  EXPECT_EQ(big["curve_waves"], 512);
  EXPECT_TRUE(big["curve_truncated"].get<bool>());
  EXPECT_GT(big["utilization"].get<double>(), 0.9999);
}

TEST(Waves, SmsOverrideAndLimits) {
  const json r = calc("waves", {{"hardware", "tpu-v4"}, {"sms", 10}, {"blocks", 25}});
  EXPECT_EQ(r["waves"], 3);
  EXPECT_THROW(calc("waves", {{"hardware", "tpu-v4"}, {"blocks", 25}}), mlsys::InputError);
  EXPECT_THROW(calc("waves", {{"hardware", "mi300x"}, {"blocks", 25}}), mlsys::InputError);
  EXPECT_THROW(calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 25}, {"blocks_per_sm", 33}}), mlsys::InputError);
  EXPECT_THROW(calc("waves", {{"hardware", "l4"}, {"blocks", 25}, {"blocks_per_sm", 25}}), mlsys::InputError);
}

// The model on a table row: the H100 SXM's 132 SMs take 264 one-per-SM blocks in two full waves;
// the curve covers max(waves + 1, 4) waves, two breakpoints each, and at most 512.
TEST(Waves, ModelOnTableRow) {
  const auto& h100 = *mlsys::find_accelerator("h100-sxm");
  const auto r = mlsys::waves_on(h100, 264, 1, std::nullopt);
  EXPECT_EQ(r.sms, 132);
  EXPECT_EQ(r.r.waves, 2);
  EXPECT_DOUBLE_EQ(r.idle_fraction, 0.0);
  EXPECT_EQ(r.curve_waves, 4);
  EXPECT_EQ(r.curve.size(), 8u);
  EXPECT_FALSE(r.curve_truncated);
  const auto big = mlsys::waves_on(h100, 1000000, 1, 100);  // 10,000 waves on 100 SMs
  EXPECT_EQ(big.r.waves, 10000);
  EXPECT_EQ(big.curve_waves, mlsys::kMaxCurveWaves);
  EXPECT_TRUE(big.curve_truncated);
  EXPECT_THROW(mlsys::waves_on(*mlsys::find_accelerator("tpu-v4"), 10, 1, std::nullopt), mlsys::InputError);
}

// Stream-K (Osama, Merrill, Cecka, Garland, Owens, PPoPP 2023, arXiv:2301.03598): "partitioning
// an even share of the aggregate inner loop iterations among physical processing elements".
TEST(StreamK, ClosedForm) {
  // 133 tiles of 32 MAC iterations on 132 workers: data-parallel (and a persistent kernel
  // looping over whole tiles) needs ceil(133 / 132) = 2 tile-times; Stream-K gives each worker
  // ceil(133 · 32 / 132) = 33 iterations, one tile is split, so one fix-up: (33 + 1) / 32.
  const auto s = mlsys::stream_k(133, 132, 32, 1.0);
  EXPECT_EQ(s.total_iters, 4256);
  EXPECT_EQ(s.iters_per_worker, 33);
  EXPECT_TRUE(s.split);
  EXPECT_EQ(s.fixups, 1);
  EXPECT_DOUBLE_EQ(s.data_parallel_tiles, 2.0);
  EXPECT_DOUBLE_EQ(s.stream_k_tiles, 34.0 / 32.0);
  EXPECT_DOUBLE_EQ(s.ideal_tiles, 133.0 / 132.0);
  EXPECT_DOUBLE_EQ(s.speedup, 2.0 / (34.0 / 32.0));
  // Whole waves: nothing is split and Stream-K equals data-parallel.
  const auto w = mlsys::stream_k(264, 132, 32, 5.0);
  EXPECT_FALSE(w.split);
  EXPECT_DOUBLE_EQ(w.stream_k_tiles, 2.0);
  EXPECT_DOUBLE_EQ(w.speedup, 1.0);
  // Fewer tiles than workers: each share (ceil(10 · 32 / 132) = 3 iterations) is a slice of a
  // tile, and the worker finishing a tile adds ceil(32 / 3) = 11 partials.
  const auto f = mlsys::stream_k(10, 132, 32, 1.0);
  EXPECT_EQ(f.iters_per_worker, 3);
  EXPECT_EQ(f.fixups, 11);
  EXPECT_DOUBLE_EQ(f.stream_k_tiles, 14.0 / 32.0);
  EXPECT_DOUBLE_EQ(f.data_parallel_tiles, 1.0);
}

TEST(StreamK, NeverWorseThanDataParallelWithoutFixupCost) {
  // With a free fix-up, an even split of the iterations can only shorten the busiest worker.
  for (long long tiles = 1; tiles <= 300; ++tiles)
    for (long long iters : {1LL, 4LL, 32LL}) {
      const auto s = mlsys::stream_k(tiles, 132, iters, 0.0);
      EXPECT_LE(s.stream_k_tiles, s.data_parallel_tiles + 1e-12) << tiles << " " << iters;
      EXPECT_GE(s.stream_k_tiles, s.ideal_tiles - 1e-12);
    }
}

TEST(StreamK, InTheWavesCalculator) {
  const json r = calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 133}});
  EXPECT_EQ(r["stream_k"]["iters_per_tile"], 32);
  EXPECT_DOUBLE_EQ(r["stream_k"]["data_parallel_tiles"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(r["stream_k"]["stream_k_tiles"].get<double>(), 34.0 / 32.0);
  for (const auto& q : r["curve"]) {
    const auto s = mlsys::stream_k(q["blocks"].get<long long>(), 132, 32, 1.0);
    EXPECT_DOUBLE_EQ(q["stream_k_tiles"].get<double>(), s.stream_k_tiles);
    EXPECT_DOUBLE_EQ(q["data_parallel_tiles"].get<double>(), static_cast<double>(q["waves"].get<long long>()));
  }
  EXPECT_THROW(calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 2000000000}, {"iters_per_tile", 1000000}}),
               mlsys::InputError);
  EXPECT_THROW(calc("waves", {{"hardware", "h100-sxm"}, {"blocks", 133}, {"fixup_iters", -1}}), mlsys::InputError);
}
