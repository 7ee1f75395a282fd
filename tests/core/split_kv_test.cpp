// Split-KV decoding (Flash-Decoding, Dao, Haziza, Massa, Sizov 2023): partials merged by
// logsumexp equal the single pass for every split count; the latency model's closed forms,
// SM fill and wave quantization; the `split-kv` calculator and its bad inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/kernels/attention_naive.hpp"
#include "mlsys/kernels/split_kv.hpp"

using mlsys::calc;
using mlsys::json;

namespace {
std::string error_field(const json& input) {
  try {
    calc("split-kv", input);
  } catch (const mlsys::InputError& e) {
    return e.field;
  }
  ADD_FAILURE() << "accepted " << input.dump();
  return "<accepted>";
}
}  // namespace

TEST(SplitKv, MergeEqualsSinglePassForEverySplitCount) {
  // Tolerance 1e-6: fp32 partial sums over <= 1000 keys; the merge adds a few roundings.
  for (std::uint64_t seed : {1u, 2u, 99u}) {
    const int n = 1000, d = 64;
    const auto in = mlsys::make_attention_inputs(n, d, seed);
    const std::vector<float> q(in.q.begin(), in.q.begin() + d);
    for (int s : {1, 2, 3, 7, 16, 64, 100, 333, 999, 1000}) {
      const auto r = mlsys::split_kv_attention(q, in.k, in.v, n, d, s);
      ASSERT_EQ(static_cast<int>(r.partials.size()), s);
      EXPECT_LT(r.max_abs_diff, 1e-6) << "splits " << s;
      EXPECT_LT(r.merged_error, 1e-6) << "splits " << s;
      EXPECT_LT(r.single_error, 1e-6);
      // Chunks tile the keys without gaps.
      EXPECT_EQ(r.partials.front().begin, 0);
      EXPECT_EQ(r.partials.back().end, n);
      for (std::size_t c = 1; c < r.partials.size(); ++c) EXPECT_EQ(r.partials[c].begin, r.partials[c - 1].end);
    }
  }
  const auto in = mlsys::make_attention_inputs(8, 4, 3);
  EXPECT_THROW(mlsys::split_kv_attention({0, 0, 0, 0}, in.k, in.v, 8, 4, 9), std::invalid_argument);
}

TEST(SplitKvTime, ClosedForms) {
  // H100-like: 132 SMs, 3.35 TB/s. 8 heads, batch 1, N = 32768, d = 128, bf16.
  const double sms = 132, bw = 3.35e12, launch = 3e-6;
  const double block1 = 128 * 2.0 + 2.0 * 32768 * 128 * 2 + 128 * 2.0;  // q, K and V, output
  const auto one = mlsys::split_kv_time(32768, 128, 8, 1, 2, 1, sms, bw, launch);
  EXPECT_EQ(one.blocks, 8);
  EXPECT_EQ(one.waves, 1);
  EXPECT_EQ(one.active_sms, 8);
  EXPECT_DOUBLE_EQ(one.main_time_s, launch + block1 / (bw / sms));
  EXPECT_EQ(one.merge_time_s, 0);
  // 16 splits: 128 blocks in one wave; a merge kernel reads 16 partials of 129 fp32 per head.
  const auto s16 = mlsys::split_kv_time(32768, 128, 8, 1, 2, 16, sms, bw, launch);
  EXPECT_EQ(s16.blocks, 128);
  EXPECT_EQ(s16.waves, 1);
  EXPECT_DOUBLE_EQ(s16.main_time_s, launch + (128 * 2.0 + 2.0 * 2048 * 128 * 2 + 129 * 4.0) / (bw / sms));
  EXPECT_DOUBLE_EQ(s16.merge_time_s, launch + (16 * 129 * 4.0 + 128 * 2.0) / (bw / sms));
  EXPECT_GT(one.time_s / s16.time_s, 10);  // 8 busy SMs against 128
  // 17 splits: 136 blocks, two waves on 132 SMs: slower than 16 (wave quantization).
  const auto s17 = mlsys::split_kv_time(32768, 128, 8, 1, 2, 17, sms, bw, launch);
  EXPECT_EQ(s17.waves, 2);
  EXPECT_GT(s17.time_s, s16.time_s);
  // The ideal: all K and V once at full bandwidth.
  EXPECT_DOUBLE_EQ(mlsys::split_kv_ideal_time(32768, 128, 8, 1, 2, bw), 2.0 * 8 * 32768 * 128 * 2 / bw);
  EXPECT_GT(s16.time_s, mlsys::split_kv_ideal_time(32768, 128, 8, 1, 2, bw));
}

TEST(SplitKvCalc, BestSplitFillsTheSms) {
  const json r = calc("split-kv", {{"context", 32768}, {"heads", 8}, {"batch", 1}, {"hardware", "h100-sxm"}, {"execute", false}});
  EXPECT_EQ(r["sms"], 132);
  EXPECT_EQ(r["series"].size(), 64u);
  // 8 heads fill 132 SMs from 17 splits on (8·16 = 128 blocks); finer splits only trim the
  // last wave, so the best is at least 16 and barely better than 16.
  EXPECT_GE(r["best_splits"].get<double>(), 16);
  const auto time_at = [&](int s) { return r["series"][s - 1]["time_s"].get<double>(); };
  EXPECT_LT(r["best_time_s"].get<double>(), time_at(16));
  EXPECT_GT(r["best_time_s"].get<double>(), 0.95 * time_at(16));
  EXPECT_GT(time_at(1) / time_at(16), 10);
  EXPECT_GT(time_at(17), time_at(16));  // 136 blocks: a second wave
  for (int s = 2; s <= 16; ++s) EXPECT_LT(time_at(s), time_at(s - 1)) << s;
  EXPECT_EQ(r["series"][0]["time_s"], r["no_split_time_s"]);
  EXPECT_FALSE(r["executed"]);
  // A large batch already fills the GPU: splitting gains little (only the last wave's tail).
  const json busy = calc("split-kv", {{"context", 4096}, {"heads", 8}, {"batch", 64}, {"execute", false}});
  EXPECT_LT(busy["no_split_time_s"].get<double>() / busy["best_time_s"].get<double>(), 1.1);
  // Far too many splits: the merge kernel's reads of the partials dominate.
  const json many = calc("split-kv", {{"context", 4096}, {"heads", 8}, {"splits", 1024}, {"execute", false}});
  EXPECT_GT(many["time_s"].get<double>(), many["best_time_s"].get<double>() * 1.5);
  EXPECT_GT(many["merge_time_s"].get<double>(), many["main_time_s"].get<double>());
}

TEST(SplitKvCalc, ExecutedMergeMatches) {
  for (int s : {1, 2, 5, 16, 64, 1024}) {
    const json r = calc("split-kv", {{"context", 4096}, {"head_dim", 128}, {"splits", s}});
    EXPECT_TRUE(r["executed"]);
    EXPECT_LT(r["merge_max_abs_diff"].get<double>(), 1e-6) << s;
    EXPECT_LT(r["merged_error_fp64"].get<double>(), 1e-6) << s;
    EXPECT_EQ(r["partials"].size(), s <= 64 ? static_cast<std::size_t>(s) : 0u);
  }
  EXPECT_TRUE(calc("split-kv", {{"context", 8192}, {"head_dim", 128}})["executed"]);
  EXPECT_FALSE(calc("split-kv", {{"context", 8193}, {"head_dim", 128}})["executed"]);
  EXPECT_TRUE(calc("split-kv", {{"context", 65536}, {"head_dim", 16}})["executed"]);
  EXPECT_FALSE(calc("split-kv", {{"context", 65537}, {"head_dim", 1}})["executed"]);
}

TEST(SplitKvCalc, BadInputs) {
  EXPECT_EQ(error_field({{"context", 0}}), "context");
  EXPECT_EQ(error_field({{"context", 10}, {"splits", 11}}), "splits");
  EXPECT_EQ(error_field({{"splits", 0}}), "splits");
  EXPECT_EQ(error_field({{"splits", -2}}), "splits");
  EXPECT_EQ(error_field({{"heads", 1e9}}), "heads");
  EXPECT_EQ(error_field({{"hardware", "h900"}}), "hardware");
  EXPECT_EQ(error_field({{"dtype", "fp7"}}), "dtype");
  EXPECT_EQ(error_field({{"launch_s", -1e-6}}), "launch_s");
  EXPECT_EQ(error_field({{"bandwidth_Bps", 0}}), "bandwidth_Bps");
  EXPECT_EQ(error_field({{"sms", 0}}), "sms");
  EXPECT_EQ(error_field({{"batch", "1"}}), "batch");
  EXPECT_EQ(error_field({{"split", 4}}), "split");
  EXPECT_FALSE(mlsys::calc_text("split-kv", "{\"launch_s\": NaN}").ok);
  // Overrides replace the table.
  const json r = calc("split-kv", {{"sms", 10}, {"bandwidth_Bps", 1e12}, {"execute", false}});
  EXPECT_EQ(r["sms"], 10);
  EXPECT_EQ(r["bandwidth_Bps"], 1e12);
}

// The lesson's report: K and V are 2·batch·heads·N·d elements; the speedup is the one-split
// latency over the chosen one; the series runs over 1..min(max_splits, N).
TEST(SplitKvReportModel, SeriesBestAndSpeedup) {
  mlsys::SplitKvQuery q{8192, 128, 8, 2, "bf16", 16, 64, "h100-sxm", 132.0, 3e12, 3e-6, false, 1};
  const auto r = mlsys::split_kv_report(q);
  EXPECT_DOUBLE_EQ(r.kv_bytes, 2.0 * 2 * 8 * 8192 * 128 * 2);
  EXPECT_EQ(r.series.size(), 64u);
  EXPECT_DOUBLE_EQ(r.speedup, r.no_split_time_s / r.chosen.time_s);
  for (const auto& t : r.series) EXPECT_GE(t.time_s, r.best_time_s);
  EXPECT_FALSE(r.executed);
  q.context = 8, q.max_splits = 64, q.splits = 4, q.execute = true;
  const auto small = mlsys::split_kv_report(q);
  EXPECT_EQ(small.series.size(), 8u);
  ASSERT_TRUE(small.run.has_value());
  EXPECT_EQ(small.run->partials.size(), 4u);
  q.splits = 9;
  try {
    mlsys::split_kv_report(q);
    ADD_FAILURE() << "accepted more splits than keys";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "splits");
  }
}
