// Per-op FLOPs and bytes of a transformer block against hand counts (Pope et al. 2022 conventions).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/transformer/block_ops.hpp"

using mlsys::json;

TEST(BlockOps, PrefillMatmulsByHand) {
  const double h = 1024, a = 16, f = 4096, s = 512, b = 2, e = 2;
  const auto ops = mlsys::block_ops({h, a, f, s, b, false, e});
  ASSERT_EQ(ops.size(), 12u);
  const double tokens = b * s;
  EXPECT_EQ(ops[1].name, "qkv");
  EXPECT_DOUBLE_EQ(ops[1].flops, 2 * tokens * h * 3 * h);
  EXPECT_DOUBLE_EQ(ops[1].bytes, (tokens * h + 3 * h * h + tokens * 3 * h) * e);
  EXPECT_EQ(ops[2].name, "scores");
  EXPECT_DOUBLE_EQ(ops[2].flops, 2 * b * s * s * h);  // 2·b·a·s²·(h/a)
  EXPECT_EQ(ops[8].name, "mlp_up");
  EXPECT_DOUBLE_EQ(ops[8].flops, 2 * tokens * h * f);
  // Dense matmul FLOPs per token = 2 × (dense parameters of the block) = 2(4h² + 2hf).
  double dense = 0;
  for (const auto& op : ops)
    if (op.name == "qkv" || op.name == "out_proj" || op.name == "mlp_up" || op.name == "mlp_down") dense += op.flops;
  EXPECT_DOUBLE_EQ(dense / tokens, 2 * (4 * h * h + 2 * h * f));
}

TEST(BlockOps, DecodeReadsTheKvCache) {
  const double h = 4096, a = 32, s = 4096, b = 1, e = 2;
  const auto ops = mlsys::block_ops({h, a, 4 * h, s, b, true, e});
  // Scores in decode read the whole K cache: s·h elements per sequence.
  EXPECT_GE(ops[2].bytes, s * h * e);
  EXPECT_DOUBLE_EQ(ops[2].flops, 2 * b * s * h);
}

TEST(TransformerOps, SharesSumToOneAndDecodeIsMemoryBound) {
  const json r = mlsys::calc("transformer-ops", {{"hidden", 4096}, {"heads", 32}, {"seq", 2048}, {"batch", 1},
                                                 {"phase", "decode"}, {"hardware", "h100-sxm"}});
  double share = 0;
  for (const auto& op : r["ops"]) {
    share += op["share"].get<double>();
    EXPECT_EQ(op["bound"], "memory") << op["name"];  // batch 1 decode: everything waits on HBM
  }
  EXPECT_NEAR(share, 1.0, 1e-12);
  const json p = mlsys::calc("transformer-ops", {{"hidden", 4096}, {"heads", 32}, {"seq", 2048}, {"batch", 1},
                                                 {"phase", "prefill"}, {"hardware", "h100-sxm"}});
  for (const auto& op : p["ops"])
    if (op["name"] == "qkv" || op["name"] == "mlp_up") {
      EXPECT_EQ(op["bound"], "compute");
    }
}

TEST(BlockOps, RooflineTotalsSharesAndVectorPeak) {
  const mlsys::BlockShape shape{1024, 16, 4096, 512, 2, false, 2};
  const double peak = 1e15, bw = 2e12;
  const auto r = mlsys::block_roofline(shape, peak, 5e13, bw);
  const auto ops = mlsys::block_ops(shape);
  ASSERT_EQ(r.ops.size(), ops.size());
  double flops = 0, time = 0, share = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    flops += ops[i].flops;
    time += r.ops[i].time_s;
    share += r.ops[i].share;
    // Roofline: time = max(flops / peak, bytes / bandwidth), matmuls at the tensor peak.
    const double p = ops[i].matmul ? peak : 5e13;
    EXPECT_DOUBLE_EQ(r.ops[i].peak_flops, p);
    EXPECT_DOUBLE_EQ(r.ops[i].time_s, std::max(ops[i].flops / p, ops[i].bytes / bw));
  }
  EXPECT_DOUBLE_EQ(r.total_flops, flops);
  EXPECT_DOUBLE_EQ(r.total_time_s, time);
  EXPECT_NEAR(share, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.ridge_intensity, peak / bw);
  // A vector peak above the tensor peak is capped at it; none means the tensor peak.
  for (const auto& op : mlsys::block_roofline(shape, peak, 2e15, bw).ops) EXPECT_DOUBLE_EQ(op.peak_flops, peak);
  for (const auto& op : mlsys::block_roofline(shape, peak, std::nullopt, bw).ops) EXPECT_DOUBLE_EQ(op.peak_flops, peak);
}
