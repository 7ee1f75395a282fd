// Latency hiding by Little's law (Little, Operations Research 9(3), 1961): bytes in flight =
// bandwidth × latency, achieved bandwidth = min(peak, SMs · warps · bytes per warp / latency).
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/gpu/gpu_table.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/gpu/latency_hiding.hpp"

using mlsys::calc;
using mlsys::json;

TEST(LatencyHiding, ClosedForm) {
  // 2 TB/s at 500 ns: 1 MB in flight; over 100 SMs 10 kB each; 512-B warps: 19.53 warps.
  const auto r = mlsys::latency_hiding(2e12, 500e-9, 100, 8, 512);
  EXPECT_DOUBLE_EQ(r.bytes_in_flight_needed, 1e6);
  EXPECT_DOUBLE_EQ(r.bytes_in_flight_needed_per_sm, 1e4);
  EXPECT_DOUBLE_EQ(r.warps_needed_per_sm, 1e4 / 512);
  // 8 warps × 512 B = 4096 B per SM; × 100 SMs / 500 ns = 819.2 GB/s.
  EXPECT_DOUBLE_EQ(r.achieved_bandwidth_Bps, 100 * 4096 / 500e-9);
  EXPECT_DOUBLE_EQ(r.fraction_of_peak, 0.4096);
  // Enough warps saturate the bus.
  EXPECT_DOUBLE_EQ(mlsys::latency_hiding(2e12, 500e-9, 100, 64, 512).achieved_bandwidth_Bps, 2e12);
}

TEST(LatencyHiding, H100FromTheTable) {
  // H100 SXM: 3.35 TB/s, 374 ns measured HBM latency, 132 SMs.
  // B·L = 3.35e12 × 374e-9 = 1,252,900 B; per SM 9,491.7 B; with float4 loads (512 B per warp)
  // 18.54 warps → 19 warps per SM, 30 % occupancy.
  const json r = calc("latency-hiding", {{"hardware", "h100-sxm"}, {"warps_per_sm", 8}});
  EXPECT_NEAR(r["needed_bytes_in_flight"].get<double>(), 1252900, 1e-6);
  EXPECT_NEAR(r["needed_bytes_in_flight_per_sm"].get<double>(), 1252900.0 / 132, 1e-6);
  EXPECT_EQ(r["warps_needed_per_sm"], 19);
  EXPECT_TRUE(r["feasible"].get<bool>());
  EXPECT_NEAR(r["achieved_bandwidth_Bps"].get<double>(), 132 * 8 * 512 / 374e-9, 1);
  ASSERT_EQ(r["curve"].size(), 64u);
  for (const auto& p : r["curve"]) {
    const double w = p["warps_per_sm"].get<double>();
    EXPECT_NEAR(p["achieved_bandwidth_Bps"].get<double>(), std::min(3.35e12, 132 * w * 512 / 374e-9), 1);
  }
  // 4-byte loads (128 B per warp) need 74.2 → 75 warps: more than the 64 an SM holds.
  const json narrow = calc("latency-hiding", {{"hardware", "h100-sxm"}, {"bytes_per_warp", 128}, {"warps_per_sm", 64}});
  EXPECT_EQ(narrow["warps_needed_per_sm"], 75);
  EXPECT_FALSE(narrow["feasible"].get<bool>());
  EXPECT_NEAR(narrow["fraction_of_peak"].get<double>(), 132 * 64 * 128 / 374e-9 / 3.35e12, 1e-12);
}

TEST(LatencyHiding, OverridesAndRejections) {
  const json r = calc("latency-hiding", {{"hardware", "b200"}, {"latency_s", 500e-9}, {"bytes_per_warp", 1024}});
  EXPECT_NEAR(r["needed_bytes_in_flight"].get<double>(), 8e12 * 500e-9, 1e-3);
  EXPECT_THROW(calc("latency-hiding", {{"hardware", "b200"}}), mlsys::InputError);  // no latency in the table
  EXPECT_THROW(calc("latency-hiding", {{"hardware", "tpu-v5e"}, {"latency_s", 1e-6}}), mlsys::InputError);
  EXPECT_THROW(calc("latency-hiding", {{"hardware", "l4"}, {"latency_s", 1e-6}, {"warps_per_sm", 49}}),
               mlsys::InputError);  // cc 8.9 holds 48 warps per SM
}

// The model on a table row with overrides (Little's law): 1 TB/s at 1 µs needs 1 MB in flight,
// 10 kB per SM on 100 SMs, 19.53 warps of 512 B, so 20 whole warps; w warps sustain
// min(1 TB/s, 100 · w · 512 B / 1 µs).
TEST(LatencyHiding, ModelOnTableRow) {
  const auto& h100 = *mlsys::find_accelerator("h100-sxm");
  const auto r = mlsys::latency_hiding_on(h100, 32, 512, 1e-6, 1e12, 100.0);
  EXPECT_DOUBLE_EQ(r.r.bytes_in_flight_needed, 1e6);
  EXPECT_DOUBLE_EQ(r.r.warps_needed_per_sm, 19.53125);
  EXPECT_DOUBLE_EQ(r.warps_needed_per_sm, 20.0);
  EXPECT_TRUE(r.feasible);
  ASSERT_EQ(r.curve.size(), 64u);
  EXPECT_DOUBLE_EQ(r.curve[0].achieved_bandwidth_Bps, 100 * 512 / 1e-6);
  EXPECT_DOUBLE_EQ(r.curve[63].fraction_of_peak, 1.0);
  const auto table = mlsys::latency_hiding_on(h100, 32, 512, std::nullopt, std::nullopt, std::nullopt);
  EXPECT_DOUBLE_EQ(table.bandwidth_Bps, h100.hbm_bandwidth_Bps);
  EXPECT_DOUBLE_EQ(table.latency_s, h100.json().at("hbm_latency_s").get<double>());
  EXPECT_THROW(mlsys::latency_hiding_on(h100, 65, 512, std::nullopt, std::nullopt, std::nullopt), mlsys::InputError);
}
