// Memory hierarchy and compute units against the datasheets and whitepapers they come from
// (NVIDIA A100 and H100 whitepapers; gpu-benches for measured latencies and L2 bandwidth).
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/gpu/gpu_table.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/gpu/compute_units.hpp"
#include "mlsys/gpu/memory_hierarchy.hpp"

using mlsys::calc;
using mlsys::json;

namespace {
const json& level(const json& r, const std::string& id) {
  for (const auto& l : r["levels"])
    if (l["id"] == id) return l;
  throw std::runtime_error("no level " + id);
}
}  // namespace

TEST(MemoryHierarchy, A100Levels) {
  const json r = calc("memory-hierarchy", {{"hardware", "a100-sxm-80gb"}});
  ASSERT_EQ(r["levels"].size(), 4u);
  // A100 whitepaper: 64K 32-bit registers (256 KiB) per SM × 108 SMs = 27 MiB.
  EXPECT_DOUBLE_EQ(level(r, "registers")["capacity_bytes"].get<double>(), 65536.0 * 4 * 108);
  // Register operand bandwidth at the FP32 peak: 19.5e12 FLOP/s × 6 B per FLOP = 117 TB/s.
  EXPECT_DOUBLE_EQ(level(r, "registers")["bandwidth_Bps"].get<double>(), 19.5e12 * 6);
  EXPECT_TRUE(level(r, "registers")["latency_s"].is_null());
  // 192 KiB L1/shared per SM; 128 B/clk/SM × 108 SMs × 1.41 GHz = 19.49 TB/s.
  EXPECT_DOUBLE_EQ(level(r, "l1")["capacity_per_sm_bytes"].get<double>(), 196608);
  EXPECT_DOUBLE_EQ(level(r, "l1")["bandwidth_Bps"].get<double>(), 128.0 * 108 * 1.41e9);
  // gpu-benches on an A100 80GB at 1410 MHz: L1 hit 36 cycles, L2 hit 211 cycles, DRAM 571 cycles.
  EXPECT_NEAR(level(r, "l1")["latency_cycles"].get<double>(), 36.0, 0.1);
  EXPECT_NEAR(level(r, "l2")["latency_cycles"].get<double>(), 211.0, 0.1);
  EXPECT_NEAR(level(r, "hbm")["latency_cycles"].get<double>(), 571.0, 0.2);
  EXPECT_DOUBLE_EQ(level(r, "l2")["capacity_bytes"].get<double>(), 40.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(level(r, "hbm")["bandwidth_Bps"].get<double>(), 2.039e12);
  // The hierarchy's shape: each level down has lower bandwidth and higher latency, and below
  // L1 more capacity. (The register file, 256 KiB per SM, is larger than the 192 KiB L1.)
  EXPECT_GT(level(r, "registers")["capacity_bytes"].get<double>(), level(r, "l1")["capacity_bytes"].get<double>());
  for (std::size_t i = 1; i < r["levels"].size(); ++i) {
    const auto& up = r["levels"][i - 1];
    const auto& down = r["levels"][i];
    EXPECT_LT(down["bandwidth_Bps"].get<double>(), up["bandwidth_Bps"].get<double>());
    if (i > 1) {
      EXPECT_GT(down["capacity_bytes"].get<double>(), up["capacity_bytes"].get<double>());
    }
    if (!up["latency_s"].is_null()) {
      EXPECT_GT(down["latency_s"].get<double>(), up["latency_s"].get<double>());
    }
  }
}

TEST(MemoryHierarchy, ClocksAgreeWithPublishedPeaks) {
  // FP32 peak = 2 FLOP × FP32 cores per SM × SMs × boost clock (A100 and H100 whitepapers).
  for (const char* id : {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "h100-pcie"}) {
    const json c = calc("compute-units", {{"hardware", id}});
    const double derived = 2 * c["fp32_cores_per_sm"].get<double>() * c["sms"].get<double>() *
                           c["boost_clock_hz"].get<double>();
    const json hw = calc("hardware", {{"id", id}});
    EXPECT_NEAR(derived / hw["peak_flops"]["fp32"].get<double>(), 1.0, 0.002) << id;
  }
}

TEST(MemoryHierarchy, RejectsChipsWithoutMeasurements) {
  for (const char* id : {"b200", "l4", "mi300x", "tpu-v4", "tpu-v5e", "tpu-v5p"}) {
    try {
      calc("memory-hierarchy", {{"hardware", id}});
      ADD_FAILURE() << id;
    } catch (const mlsys::InputError& e) {
      EXPECT_EQ(e.field, "hardware") << id;
    }
  }
}

TEST(ComputeUnits, TensorCoreSpeedupsFromTheWhitepapers) {
  // A100 whitepaper, dense: TF32 156 vs FP32 19.5 (8×); BF16 312 vs 39 non-tensor (8×);
  // FP16 312 vs 78 (4×); FP64 tensor 19.5 vs 9.7.
  const json a = calc("compute-units", {{"hardware", "a100-sxm-80gb"}});
  std::map<std::string, json> f;
  for (const auto& row : a["formats"]) f[row["format"].get<std::string>()] = row;
  EXPECT_DOUBLE_EQ(f["fp32"]["tensor_speedup"].get<double>(), 8.0);
  EXPECT_EQ(f["fp32"]["tensor_format"], "tf32");
  EXPECT_DOUBLE_EQ(f["bf16"]["tensor_speedup"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(f["fp16"]["tensor_speedup"].get<double>(), 4.0);
  EXPECT_NEAR(f["fp64"]["tensor_speedup"].get<double>(), 19.5 / 9.7, 1e-12);
  EXPECT_EQ(f.count("fp8"), 0u);          // the A100 has no FP8
  EXPECT_TRUE(f["int8"]["cuda_core_flops"].is_null());
  // H100 SXM whitepaper: BF16 989.4 dense tensor vs 133.8 non-tensor.
  const json h = calc("compute-units", {{"hardware", "h100-sxm"}});
  EXPECT_NEAR(h["formats"][3]["tensor_speedup"].get<double>(), 989.4 / 133.8, 1e-12);
  // Amdahl: 80 % of a 1 s step in fp32 matmuls moved to bf16 tensor cores on the H100.
  const json s = h["switch"];
  EXPECT_NEAR(s["new_step_time_s"].get<double>(), 0.2 + 0.8 * 66.9 / 989.4, 1e-12);
  EXPECT_NEAR(s["overall_speedup"].get<double>(), 1 / (0.2 + 0.8 * 66.9 / 989.4), 1e-12);
}

TEST(ComputeUnits, Rejections) {
  EXPECT_THROW(calc("compute-units", {{"hardware", "tpu-v4"}}), mlsys::InputError);
  EXPECT_THROW(calc("compute-units", {{"hardware", "a100-sxm-80gb"}, {"tensor_format", "fp8"}}), mlsys::InputError);
  EXPECT_THROW(calc("compute-units", {{"hardware", "l4"}, {"cuda_format", "bf16"}}), mlsys::InputError);
  EXPECT_THROW(calc("compute-units", {{"hardware", "h100-sxm"}, {"matmul_fraction", 1.5}}), mlsys::InputError);
}

// The models on a table row: latency in cycles = latency · boost clock (none for registers);
// the switch by Amdahl's law, new = t·(1 − f) + t·f / (tensor / CUDA-core rate).
TEST(MemoryHierarchy, ModelOnTableRow) {
  const auto& a100 = *mlsys::find_accelerator("a100-sxm-80gb");
  const auto h = mlsys::memory_hierarchy_on(a100);
  ASSERT_EQ(h.levels.size(), 4u);
  EXPECT_FALSE(h.levels[0].latency_cycles);
  EXPECT_DOUBLE_EQ(*h.levels[1].latency_cycles, a100.json().at("l1_latency_s").get<double>() * h.boost_clock_hz);
  EXPECT_THROW(mlsys::memory_hierarchy_on(*mlsys::find_accelerator("tpu-v4")), mlsys::InputError);
}

TEST(ComputeUnits, ModelOnTableRow) {
  const auto& h100 = *mlsys::find_accelerator("h100-sxm");
  const auto r = mlsys::compute_units_on(h100, "fp32", "bf16", 1.0, 0.8);
  const double speedup = h100.peak_flops.at("bf16") / h100.json().at("cuda_core_flops").at("fp32").get<double>();
  EXPECT_DOUBLE_EQ(r.change.matmul_speedup, speedup);
  EXPECT_DOUBLE_EQ(r.change.new_step_time_s, 0.2 + 0.8 / speedup);
  EXPECT_DOUBLE_EQ(r.change.overall_speedup, 1.0 / (0.2 + 0.8 / speedup));
  EXPECT_TRUE(r.sms);
  try {
    mlsys::compute_units_on(h100, "fp32", "fp32", 1.0, 0.8);
    ADD_FAILURE() << "fp32 is not a tensor-core format";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "tensor_format");
  }
}

TEST(MemoryHierarchy, EveryValueNamesItsSource) {
  // No row may pass one GPU's measurement off as another's: a latency or L2 bandwidth that was
  // not measured on the row's own GPU names the GPU it was measured on.
  for (const char* id : {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "h100-pcie"}) {
    const json h = calc("memory-hierarchy", {{"hardware", id}});
    for (const auto& l : h["levels"]) {
      EXPECT_FALSE(l["capacity_source"].get<std::string>().empty()) << id << " " << l["id"];
      EXPECT_FALSE(l["bandwidth_source"].get<std::string>().empty()) << id << " " << l["id"];
      if (!l["latency_s"].is_null()) {
        EXPECT_NE(l["latency_source"].get<std::string>().find("measured on"), std::string::npos) << id << l["id"];
      }
    }
  }
  const json h100 = calc("memory-hierarchy", {{"hardware", "h100-sxm"}});
  EXPECT_NE(h100["levels"][2]["bandwidth_source"].get<std::string>().find("H200"), std::string::npos);
  EXPECT_NE(h100["levels"][3]["latency_source"].get<std::string>().find("H100 PCIe"), std::string::npos);
}

// The lesson's worked example: a 4096 × 4096 bf16 matrix (32 MiB) streamed once through each
// level takes bytes / bandwidth (10.0 µs from HBM, 3.4 µs from L2 on the H100 SXM), fits the
// 50 MiB L2 but not the 256 KiB of one SM, and shared memory is about 10 times HBM's bandwidth.
TEST(MemoryHierarchy, StreamingTimePerLevel) {
  const json r = calc("memory-hierarchy", {{"hardware", "h100-sxm"}});
  EXPECT_DOUBLE_EQ(r["bytes"].get<double>(), 33554432.0);
  const auto& l = r["levels"];
  EXPECT_NEAR(l[3]["read_time_s"].get<double>(), 33554432.0 / 3.35e12, 1e-15);
  EXPECT_NEAR(l[3]["read_time_s"].get<double>() * 1e6, 10.0, 0.05);
  EXPECT_NEAR(l[2]["read_time_s"].get<double>() * 1e6, 3.42, 0.01);
  EXPECT_NEAR(l[1]["times_hbm"].get<double>(), 33.45408 / 3.35, 1e-6);
  EXPECT_DOUBLE_EQ(l[3]["times_hbm"].get<double>(), 1.0);
  EXPECT_TRUE(l[2]["holds_bytes"].get<bool>());
  EXPECT_TRUE(l[3]["holds_bytes"].get<bool>());
  const json big = calc("memory-hierarchy", {{"hardware", "h100-sxm"}, {"bytes", 2147483648.0}});
  EXPECT_NEAR(big["levels"][3]["read_time_s"].get<double>(), 64 * l[3]["read_time_s"].get<double>(), 1e-12);
  EXPECT_FALSE(big["levels"][2]["holds_bytes"].get<bool>());
  EXPECT_THROW(calc("memory-hierarchy", {{"hardware", "h100-sxm"}, {"bytes", 0}}), mlsys::InputError);
}
