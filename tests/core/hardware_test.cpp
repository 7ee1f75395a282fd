// The hardware table: every id API.md names, a source per row, dense (not sparse) peaks.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/hardware/datasheet.hpp"

using mlsys::json;

TEST(Hardware, EveryApiIdWithSourceAndFields) {
  for (const char* id : {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x", "tpu-v5e", "tpu-v5p", "tpu-v4"}) {
    const json a = mlsys::calc("hardware", {{"id", id}});
    EXPECT_EQ(a["id"], id);
    EXPECT_FALSE(a["source"].get<std::string>().empty()) << id;
    for (const char* f : {"name", "vendor", "peak_flops", "hbm_bytes", "hbm_bandwidth_Bps", "l2_bytes", "sms",
                          "smem_per_sm_bytes", "registers_per_sm", "max_threads_per_sm", "max_blocks_per_sm",
                          "scaleup_bandwidth_Bps", "tdp_w"})
      EXPECT_TRUE(a.contains(f)) << id << " lacks " << f;
    EXPECT_GT(a["hbm_bytes"].get<double>(), 1e9) << id;
    EXPECT_GT(a["hbm_bandwidth_Bps"].get<double>(), 1e11) << id;
    EXPECT_GT(a["peak_flops"]["bf16"].get<double>(), 1e13) << id;
  }
  EXPECT_EQ(mlsys::calc("hardware", json::object())["accelerators"].size(), mlsys::accelerators().size());
}

TEST(Hardware, CompiledColumnsEqualTheStoredTable) {
  // The columns compiled in at build time (core/cmake/hardware_rows.cmake) hold exactly the
  // values of content/data/hardware.json, row by row and in its order.
  const auto& rows = mlsys::accelerators();
  const json table = mlsys::calc("hardware", json::object())["accelerators"];
  ASSERT_EQ(rows.size(), table.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& a = rows[i];
    EXPECT_EQ(a.row, i);
    EXPECT_EQ(&a.json(), &a.json());  // parsed once
    EXPECT_EQ(a.json(), table[i]);
    EXPECT_EQ(a.id, table[i]["id"]);
    EXPECT_EQ(a.name, table[i]["name"]);
    EXPECT_EQ(a.vendor, table[i]["vendor"]);
    EXPECT_EQ(a.hbm_bytes, table[i]["hbm_bytes"].get<double>()) << a.id;
    EXPECT_EQ(a.hbm_bandwidth_Bps, table[i]["hbm_bandwidth_Bps"].get<double>()) << a.id;
    ASSERT_EQ(a.peak_flops.size(), table[i]["peak_flops"].size()) << a.id;
    for (const auto& [format, value] : table[i]["peak_flops"].items())
      EXPECT_EQ(a.peak_flops.at(format), value.get<double>()) << a.id << " " << format;
  }
}

TEST(Hardware, DatasheetValuesAreDense) {
  // NVIDIA H100 SXM datasheet: BF16 1,979 TFLOPS "with sparsity", i.e. 989.4 dense; FP8 3,958 -> 1,979.
  const auto* h100 = mlsys::find_accelerator("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_NEAR(*h100->peak_for("bf16"), 989.4e12, 1e12);
  EXPECT_NEAR(*h100->peak_for("fp8-e4m3"), 1978.9e12, 2e12);
  EXPECT_NEAR(h100->hbm_bandwidth_Bps, 3.35e12, 0.01e12);
  // NVIDIA A100 datasheet: 312 TFLOPS BF16 dense (624 sparse), 2,039 GB/s (80GB SXM), no FP8.
  const auto* a100 = mlsys::find_accelerator("a100-sxm-80gb");
  EXPECT_NEAR(*a100->peak_for("bf16"), 312e12, 1e12);
  EXPECT_NEAR(a100->hbm_bandwidth_Bps, 2.039e12, 0.001e12);
  EXPECT_FALSE(a100->peak_for("fp8-e5m2").has_value());
  // H200 has H100's compute and 4.8 TB/s of HBM3e.
  const auto* h200 = mlsys::find_accelerator("h200-sxm");
  EXPECT_DOUBLE_EQ(*h200->peak_for("bf16"), *h100->peak_for("bf16"));
  EXPECT_NEAR(h200->hbm_bandwidth_Bps, 4.8e12, 0.01e12);
}

TEST(Hardware, DenseNeverAboveSparseRatios) {
  // Tensor-core formats halve in width and double in rate: fp8 = 2·bf16 where both exist.
  for (const auto& a : mlsys::accelerators()) {
    const auto bf16 = a.peak_for("bf16"), fp8 = a.peak_for("fp8-e4m3");
    if (bf16 && fp8 && a.vendor != "Google") {
      EXPECT_NEAR(*fp8 / *bf16, 2.0, 0.05) << a.id;
    }
  }
}

TEST(Hardware, EntryHasEveryColumnOfTheRow) {
  for (const auto& a : mlsys::accelerators()) {
    const auto e = mlsys::accelerator_entry(a);
    const auto& row = a.json();
    EXPECT_EQ(e.id, a.id);
    EXPECT_EQ(e.peak_flops, a.peak_flops);
    EXPECT_EQ(static_cast<double>(e.hbm_bytes), a.hbm_bytes);
    EXPECT_EQ(e.l2_bytes.has_value(), !row.at("l2_bytes").is_null());
    EXPECT_EQ(e.cuda_core_flops.has_value(), !row.at("cuda_core_flops").is_null());
    EXPECT_EQ(e.tensor_memory_per_sm_bytes.has_value(), a.id == "b200");  // Blackwell only
    EXPECT_EQ(row.size(), 41u);  // every column is a member of AcceleratorEntry
  }
  EXPECT_EQ(mlsys::accelerator_entries().size(), mlsys::accelerators().size());
}
