// Coalescing of one warp request, counted by enumerating the 32 lanes' addresses, against
// hand counts and the CUDA C++ Best Practices Guide ("Coalesced Access to Global Memory",
// compute capability 6.0+: a warp's accesses are served by as many 32-byte transactions as
// the sectors they touch; a misaligned sequential fp32 access needs five; stride 2 halves the
// efficiency). Shared-memory bank conflicts against the CUDA C++ Programming Guide (32 banks
// of 4-byte words; the padded tile[32][33] transpose is conflict-free).
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "test_support.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/kernels/coalescing.hpp"

using mlsys::calc;
using mlsys::json;
using mlsys::test::error_of;
using mlsys::warp_request;

TEST(Coalescing, HandCountsFp32) {
  const auto s1 = warp_request(4, 1, 0);  // 128 contiguous bytes
  EXPECT_EQ(s1.sectors, 4);
  EXPECT_EQ(s1.cache_lines, 1);
  EXPECT_DOUBLE_EQ(s1.bytes_used, 128);
  EXPECT_DOUBLE_EQ(s1.bytes_moved, 128);
  EXPECT_DOUBLE_EQ(s1.efficiency, 1.0);
  const auto s2 = warp_request(4, 2, 0);  // Best Practices Guide: stride 2 -> 50% efficiency
  EXPECT_EQ(s2.sectors, 8);
  EXPECT_EQ(s2.cache_lines, 2);
  EXPECT_DOUBLE_EQ(s2.efficiency, 0.5);
  EXPECT_EQ(warp_request(4, 4, 0).sectors, 16);
  for (int stride : {8, 9, 16, 32, 33, 1000}) {  // 32 bytes apart or more: one sector per lane
    const auto r = warp_request(4, stride, 0);
    EXPECT_EQ(r.sectors, 32) << stride;
    EXPECT_DOUBLE_EQ(r.efficiency, 0.125) << stride;
  }
  EXPECT_EQ(warp_request(4, 32, 0).cache_lines, 32);
  EXPECT_EQ(warp_request(4, 8, 0).cache_lines, 8);  // 32-byte stride: four lanes per 128-byte line
}

TEST(Coalescing, ElementSizes) {
  EXPECT_EQ(warp_request(2, 1, 0).sectors, 2);   // fp16/bf16: 64 bytes
  EXPECT_EQ(warp_request(1, 1, 0).sectors, 1);   // int8: 32 bytes
  EXPECT_EQ(warp_request(8, 1, 0).sectors, 8);   // fp64: 256 bytes
  EXPECT_EQ(warp_request(8, 1, 0).cache_lines, 2);
  EXPECT_EQ(warp_request(16, 1, 0).sectors, 16);  // float4: 512 bytes
  EXPECT_EQ(warp_request(16, 1, 0).cache_lines, 4);
  EXPECT_EQ(warp_request(2, 16, 0).sectors, 32);
  EXPECT_EQ(warp_request(2, 15, 0).sectors, 30);  // 30-byte stride: every sector up to byte 931 is touched
  EXPECT_EQ(warp_request(1, 32, 0).sectors, 32);
}

TEST(Coalescing, MisalignmentCostsOneMoreSector) {
  const auto r = warp_request(4, 1, 1);  // Best Practices Guide: five 32-byte segments
  EXPECT_EQ(r.sectors, 5);
  EXPECT_EQ(r.cache_lines, 2);
  EXPECT_DOUBLE_EQ(r.efficiency, 0.8);
  EXPECT_EQ(r.min_sectors, 4);
  EXPECT_EQ(warp_request(4, 1, 8).sectors, 4);   // a 32-byte-aligned offset costs nothing
  EXPECT_EQ(warp_request(4, 1, 8).cache_lines, 2);  // but straddles two lines
  EXPECT_EQ(warp_request(4, 1, 32).cache_lines, 1);
}

TEST(Coalescing, EnumerationMatchesClosedFormWhenAligned) {
  // Offset 0, element size e, stride s: lane t covers bytes [t·s·e, t·s·e + e). With s·e >= 32
  // every lane has its own sector; otherwise every sector up to the last byte is touched.
  for (int e : {1, 2, 4, 8, 16}) {
    for (int s = 1; s <= 64; ++s) {
      const auto r = warp_request(e, s, 0);
      const long long last = 31LL * s * e + e - 1;
      const long long expected = s * e >= 32 ? 32LL * ((e + 31) / 32) : last / 32 + 1;
      EXPECT_EQ(r.sectors, expected) << "e=" << e << " s=" << s;
      EXPECT_DOUBLE_EQ(r.bytes_used, 32.0 * e);
      EXPECT_DOUBLE_EQ(r.efficiency, 32.0 * e / (32.0 * r.sectors));
      EXPECT_LE(r.min_sectors, r.sectors);
      EXPECT_EQ(static_cast<int>(r.lane_sector.size()), 32);
      EXPECT_EQ(r.lane_address_bytes[31], 31LL * s * e);
    }
  }
}

TEST(Coalescing, SharedMemoryBankConflicts) {
  EXPECT_EQ(warp_request(4, 1, 0).smem_wavefronts, 1);
  EXPECT_EQ(warp_request(4, 2, 0).smem_wavefronts, 2);
  EXPECT_EQ(warp_request(4, 4, 0).smem_wavefronts, 4);
  EXPECT_EQ(warp_request(4, 32, 0).smem_wavefronts, 32);  // a column of a [32][32] tile: 32-way
  EXPECT_EQ(warp_request(4, 33, 0).smem_wavefronts, 1);   // a column of the padded [32][33] tile
  EXPECT_EQ(warp_request(4, 3, 0).smem_wavefronts, 1);    // odd strides are conflict-free
  EXPECT_EQ(warp_request(8, 1, 0).smem_wavefronts, 2);    // 256 bytes need two passes over 32 banks
}

TEST(Coalescing, Calculator) {
  const json r = calc("coalescing", {{"element_bytes", 4}, {"stride", 3}, {"hardware", "h100-sxm"}});
  EXPECT_EQ(r["sectors"], 12);
  EXPECT_DOUBLE_EQ(r["bytes_moved"].get<double>(), 384);
  EXPECT_DOUBLE_EQ(r["peak_bandwidth_Bps"].get<double>(), 3.35e12);  // H100 SXM datasheet: 3.35 TB/s
  EXPECT_DOUBLE_EQ(r["effective_bandwidth_Bps"].get<double>(), 3.35e12 * 128 / 384);
  EXPECT_EQ(r["lane_sector"].size(), 32u);
  EXPECT_EQ(r["lanes"], 32);
  const json d = calc("coalescing", json::object());
  EXPECT_EQ(d["sectors"], 4);
  EXPECT_DOUBLE_EQ(d["efficiency"].get<double>(), 1.0);
  const json o = calc("coalescing", {{"stride", 32}, {"bandwidth_Bps", 1e12}});
  EXPECT_DOUBLE_EQ(o["effective_bandwidth_Bps"].get<double>(), 1.25e11);
}

TEST(Coalescing, BadInputs) {
  EXPECT_EQ(error_of("coalescing", R"({"element_bytes": 3})")["field"], "element_bytes");
  EXPECT_EQ(error_of("coalescing", R"({"element_bytes": 32})")["field"], "element_bytes");
  EXPECT_EQ(error_of("coalescing", R"({"element_bytes": 0})")["field"], "element_bytes");
  EXPECT_EQ(error_of("coalescing", R"({"stride": 0})")["field"], "stride");
  EXPECT_EQ(error_of("coalescing", R"({"stride": -2})")["field"], "stride");
  EXPECT_EQ(error_of("coalescing", R"({"stride": 1.5})")["field"], "stride");
  EXPECT_EQ(error_of("coalescing", R"({"stride": 1e30})")["field"], "stride");
  EXPECT_EQ(error_of("coalescing", R"({"stride": "2"})")["field"], "stride");
  EXPECT_EQ(error_of("coalescing", R"({"offset": -1})")["field"], "offset");
  EXPECT_EQ(error_of("coalescing", R"({"hardware": "h900"})")["field"], "hardware");
  EXPECT_EQ(error_of("coalescing", R"({"bandwidth_Bps": 0})")["field"], "bandwidth_Bps");
  EXPECT_EQ(error_of("coalescing", R"({"strides": 2})")["field"], "strides");
  EXPECT_EQ(error_of("coalescing", R"({"stride": NaN})")["field"], "");
}

TEST(Coalescing, ExerciseAgreesWithCalculator) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    const auto e = mlsys::make_exercise("kernels-coalescing-bandwidth", seed);
    const json r = calc("coalescing", e.params);
    EXPECT_NEAR(r["effective_bandwidth_Bps"].get<double>() / 1e9, e.answer, 1e-9 * e.answer) << seed;
  }
}

// The load's bandwidth: effective = peak · bytes used / bytes moved (CUDA C++ Best Practices
// Guide, "Coalesced Access to Global Memory": a stride of 2 fp32 elements uses half of each sector).
TEST(Coalescing, ModelBandwidth) {
  const auto unit = mlsys::coalesced_load(4, 1, 0, nullptr, 1e12);
  EXPECT_DOUBLE_EQ(unit.effective_bandwidth_Bps, 1e12);
  EXPECT_EQ(unit.lanes, 32);
  const auto strided = mlsys::coalesced_load(4, 2, 0, nullptr, 1e12);
  EXPECT_DOUBLE_EQ(strided.effective_bandwidth_Bps, 0.5e12);
  const auto& h100 = *mlsys::find_accelerator("h100-sxm");
  EXPECT_DOUBLE_EQ(mlsys::coalesced_load(4, 1, 0, &h100, std::nullopt).peak_bandwidth_Bps, h100.hbm_bandwidth_Bps);
  EXPECT_THROW(mlsys::coalesced_load(3, 1, 0, nullptr, 1e12), mlsys::InputError);
  EXPECT_THROW(mlsys::coalesced_load(4, 1, 0, nullptr, std::nullopt), mlsys::InputError);
}
