// accelerator-compare: the datasheet columns the comparing-accelerators lesson reads (against
// the vendors' documents), ridge points, and the roofline time of each workload against a hand
// calculation from the model's configuration (Llama 2 7B, Touvron et al. 2023, Table 1 and the
// released config: 32 layers, width 4096, 32 heads, MLP 11008 gated, vocabulary 32000, untied).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/hardware/accelerator_compare.hpp"

using mlsys::json;

namespace {

const char* const kLesson[] = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x", "tpu-v4", "tpu-v5e", "tpu-v5p"};

json row(const json& r, const std::string& id) {
  for (const auto& x : r.at("rows"))
    if (x.at("id") == id) return x;
  ADD_FAILURE() << id << " not in rows";
  return json::object();
}

// Llama 2 7B by hand.
constexpr double L = 32, H = 4096, A = 32, Q = 128, F = 11008, V = 32000;
constexpr double kLayerParams = 4 * H * H + 3 * H * F + 2 * H;          // attention, gated MLP, two norms
constexpr double kParams = L * kLayerParams + H + 2 * V * H;             // + final norm, embedding, head
constexpr double kMatmulParams = kParams - V * H;                        // all but the input embedding
constexpr double kKvPerToken = 2 * L * A * Q * 2;                        // K and V, bf16

}  // namespace

TEST(AcceleratorCompare, DatasheetColumnsMatchTheirSources) {
  const json all = mlsys::calc("accelerator-compare", {{"workload", "decode-step"}});
  EXPECT_EQ(all.at("rows").size() + all.at("excluded").size(), 10u);  // every row of the table by default
  const json r = mlsys::calc("hardware", {{"id", "tpu-v4"}});
  // Google Cloud TPU v4 page: 275 TFLOPS bf16, 32 GiB HBM2 at 1200 GBps, measured max power 192 W.
  EXPECT_DOUBLE_EQ(r.at("peak_flops").at("bf16").get<double>(), 275e12);
  EXPECT_DOUBLE_EQ(r.at("hbm_bandwidth_Bps").get<double>(), 1.2e12);
  EXPECT_DOUBLE_EQ(r.at("power_w").get<double>(), 192);
  EXPECT_TRUE(r.at("tdp_w").is_null());  // a measured figure, not a rated TDP
  // Google publishes no power figure for v5e and v5p: null, with the reason in power_source.
  for (const char* id : {"tpu-v5e", "tpu-v5p"}) {
    const json t = mlsys::calc("hardware", {{"id", id}});
    EXPECT_TRUE(t.at("power_w").is_null()) << id;
    EXPECT_NE(t.at("power_source").get<std::string>().find("Not published"), std::string::npos) << id;
  }
  // The GPUs' power is their datasheet TDP: A100 SXM 400 W, H100/H200 SXM 700 W, HGX B200 1,000 W,
  // MI300X 750 W total board power.
  for (const auto& [id, w] : std::vector<std::pair<const char*, double>>{
           {"a100-sxm-80gb", 400}, {"h100-sxm", 700}, {"h200-sxm", 700}, {"b200", 1000}, {"mi300x", 750}}) {
    const json g = mlsys::calc("hardware", {{"id", id}});
    EXPECT_DOUBLE_EQ(g.at("power_w").get<double>(), w) << id;
    EXPECT_DOUBLE_EQ(g.at("tdp_w").get<double>(), w) << id;
  }
  for (const char* id : kLesson)
    EXPECT_FALSE(mlsys::calc("hardware", {{"id", id}}).at("power_source").get<std::string>().empty()) << id;
}

TEST(AcceleratorCompare, RidgePointsArePeakOverBandwidth) {
  // Dense bf16 peak / HBM bandwidth from the datasheets (TFLOP/s over TB/s).
  const std::vector<std::pair<const char*, double>> ridge = {
      {"a100-sxm-80gb", 312 / 2.039}, {"h100-sxm", 989.4 / 3.35}, {"h200-sxm", 989.4 / 4.8}, {"b200", 2250 / 8.0},
      {"mi300x", 1307.4 / 5.3},       {"tpu-v4", 275 / 1.2},      {"tpu-v5e", 197 / 0.819},  {"tpu-v5p", 459 / 2.765}};
  const json r = mlsys::calc("accelerator-compare", {{"workload", "decode-step"}, {"model", "llama-2-7b"}});
  for (const auto& [id, v] : ridge) EXPECT_NEAR(row(r, id).at("ridge_intensity").get<double>(), v, 1e-9 * v) << id;
  EXPECT_NEAR(row(r, "h100-sxm").at("ridge_intensity").get<double>(), 295.3, 0.05);
}

TEST(AcceleratorCompare, DecodeStepByHand) {
  // batch 1, 4096 cached tokens: read every multiplied weight and the KV cache once.
  const json r = mlsys::calc("accelerator-compare", {{"workload", "decode-step"}, {"model", "llama-2-7b"},
                                                     {"batch", 1}, {"seq", 4096}, {"ids", "h100-sxm, a100-sxm-80gb"}});
  const double bytes = 2 * kMatmulParams + 4096 * kKvPerToken;
  const double flops = 2 * kMatmulParams + 4 * L * A * Q * 4096;
  EXPECT_NEAR(r.at("bytes").get<double>(), bytes, 1e-9 * bytes);
  EXPECT_NEAR(r.at("flops").get<double>(), flops, 1e-9 * flops);
  EXPECT_NEAR(bytes, 15.36e9, 0.01e9);
  ASSERT_EQ(r.at("rows").size(), 2u);
  EXPECT_EQ(r.at("rows")[0].at("id"), "h100-sxm");  // the order of ids
  const json h = row(r, "h100-sxm");
  EXPECT_EQ(h.at("bound"), "memory");
  EXPECT_NEAR(h.at("time_s").get<double>(), bytes / 3.35e12, 1e-12);
  EXPECT_NEAR(h.at("time_s").get<double>() * 1e3, 4.586, 0.001);
  EXPECT_NEAR(h.at("tokens_per_s").get<double>(), 3.35e12 / bytes, 1e-9);
  EXPECT_NEAR(h.at("tokens_per_joule").get<double>(), 3.35e12 / bytes / 700, 1e-12);
  EXPECT_TRUE(h.at("tokens_per_dollar").is_null());
  // Memory held: all weights (embedding too) and the KV cache.
  EXPECT_NEAR(r.at("memory_bytes").get<double>(), 2 * kParams + 4096 * kKvPerToken, 1);
}

TEST(AcceleratorCompare, PrefillByHand) {
  const double p = 2048;
  const json r = mlsys::calc("accelerator-compare", {{"workload", "prefill"}, {"model", "llama-2-7b"}, {"batch", 1},
                                                     {"seq", 2048}, {"ids", "a100-sxm-80gb"}});
  const double flops = 2 * kMatmulParams * p + 2 * L * A * Q * p * (p + 1);
  const double bytes = 2 * kMatmulParams + p * kKvPerToken;
  EXPECT_NEAR(r.at("flops").get<double>(), flops, 1e-9 * flops);
  EXPECT_NEAR(r.at("bytes").get<double>(), bytes, 1e-9 * bytes);
  const json a = row(r, "a100-sxm-80gb");
  EXPECT_EQ(a.at("bound"), "compute");
  EXPECT_NEAR(a.at("time_s").get<double>(), flops / 312e12, 1e-12);
  EXPECT_DOUBLE_EQ(r.at("tokens").get<double>(), 2048);
}

TEST(AcceleratorCompare, TrainingStepByHand) {
  // One sequence of 4096 tokens: PaLM's 6N + 12·L·H·Q·T per token; 34 bytes per parameter
  // plus the stored activations (Korthikanti: s·b·h·(18 + 6f/h) per layer with FlashAttention)
  // written and read back.
  const double s = 4096;
  const json r = mlsys::calc("accelerator-compare", {{"workload", "training-step"}, {"model", "llama-2-7b"},
                                                     {"batch", 1}, {"seq", 4096}, {"ids", "b200,tpu-v5p"},
                                                     {"price_per_hour", {{"b200", 6}}}, {"chips", 4}});
  const double flops = s * (6 * kMatmulParams + 12 * L * A * Q * s);
  const double act = L * s * H * (18 + 6 * F / H);
  const double bytes = 34 * kParams + 2 * act;
  EXPECT_NEAR(r.at("flops").get<double>(), flops, 1e-9 * flops);
  EXPECT_NEAR(r.at("bytes").get<double>(), bytes, 1e-9 * bytes);
  EXPECT_NEAR(r.at("memory_bytes").get<double>(), 16 * kParams + act, 1e-9 * bytes);
  const json b = row(r, "b200");
  EXPECT_EQ(b.at("bound"), "compute");
  EXPECT_NEAR(b.at("time_s").get<double>(), flops / 4 / 2.25e15, 1e-12);
  EXPECT_NEAR(b.at("memory_per_chip_bytes").get<double>(), (16 * kParams + act) / 4, 1);
  const double tps = s / (flops / 4 / 2.25e15);
  EXPECT_NEAR(b.at("tokens_per_s").get<double>(), tps, 1e-9 * tps);
  EXPECT_NEAR(b.at("tokens_per_joule").get<double>(), tps / (4 * 1000), 1e-9 * tps);
  EXPECT_NEAR(b.at("tokens_per_dollar").get<double>(), tps * 3600 / (4 * 6), 1e-9 * tps);
  // No published power for v5p: no per-watt number, never a guessed one.
  EXPECT_TRUE(row(r, "tpu-v5p").at("tokens_per_joule").is_null());
}

TEST(AcceleratorCompare, FormatsAChipLacksAreExcludedWithTheReason) {
  const json r = mlsys::calc("accelerator-compare", {{"workload", "decode-step"}, {"dtype", "fp8-e4m3"}});
  std::vector<std::string> out;
  for (const auto& x : r.at("excluded")) out.push_back(x.at("id"));
  EXPECT_NE(std::find(out.begin(), out.end(), "a100-sxm-80gb"), out.end());
  EXPECT_NE(std::find(out.begin(), out.end(), "tpu-v5e"), out.end());
  for (const auto& x : r.at("rows")) EXPECT_NE(x.at("id"), "a100-sxm-80gb");
}

TEST(AcceleratorCompare, BadInputsNameTheirField) {
  const auto field = [](const json& in) {
    try {
      mlsys::calc("accelerator-compare", in);
    } catch (const mlsys::InputError& e) {
      return e.field;
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(field({{"workload", "inference"}}), "workload");
  EXPECT_EQ(field({{"workload", "training-step"}, {"dtype", "int8"}}), "dtype");
  EXPECT_EQ(field({{"ids", "h100-sxm, z9000"}}), "ids");
  EXPECT_EQ(field({{"ids", "h100-sxm, h100-sxm"}}), "ids");
  EXPECT_EQ(field({{"ids", " , "}}), "ids");
  EXPECT_EQ(field({{"ids", "h100-sxm"}, {"price_per_hour", {{"b200", 3}}}}), "price_per_hour");
  EXPECT_EQ(field({{"price_per_hour", {{"b200", 0}}}}), "price_per_hour");
  EXPECT_EQ(field({{"chips", 0}}), "chips");
}

TEST(AcceleratorCompare, DecodeIntensityStopsAtTheCeilingItsKvCacheSets) {
  // Llama 2 7B (32 heads, 32 K/V heads): each sequence adds 2N' + 4·L·A·Q·s FLOPs and s·k bytes
  // of cache, so the intensity tends to their ratio, 2N'/(s·k) + 1, whatever the batch.
  const json r = mlsys::calc("accelerator-compare", {{"workload", "decode-step"}, {"model", "llama-2-7b"}, {"batch", 8},
                                                     {"seq", 4096}, {"ids", "h100-sxm"}});
  const double per_seq_flops = 2 * kMatmulParams + 4 * L * A * Q * 4096, per_seq_bytes = 4096 * kKvPerToken;
  const double limit = per_seq_flops / per_seq_bytes;
  EXPECT_NEAR(r.at("intensity_limit").get<double>(), limit, 1e-9 * limit);
  EXPECT_NEAR(r.at("intensity_limit").get<double>(), 2 * kMatmulParams / per_seq_bytes + 1, 1e-9 * limit);
  EXPECT_NEAR(r.at("fixed_bytes").get<double>(), 2 * kMatmulParams, 1e-3);
  EXPECT_NEAR(r.at("bytes_per_sequence").get<double>(), per_seq_bytes, 1e-3);
  // Llama 3 8B at 4,096 cached tokens (the lesson's decode step): the intensity climbs with the
  // batch, 7.1, 22.2, 28.8, 31.1 at 8, 64, 256, 1,024, towards a ceiling of 32.0, below every
  // ridge point of the lesson's chips, so no batch is compute-bound on any of them.
  double last = 0;
  for (const auto& [batch, want] : std::vector<std::pair<int, double>>{{8, 7.11}, {64, 22.2}, {256, 28.8}, {1024, 31.1}}) {
    const json d = mlsys::calc("accelerator-compare", {{"model", "llama-3-8b"}, {"batch", batch}});
    const double i = d.at("intensity").get<double>();
    EXPECT_NEAR(i, want, 0.05) << batch;
    EXPECT_GT(i, last);
    EXPECT_LT(i, d.at("intensity_limit").get<double>());
    last = i;
    for (const auto& x : d.at("rows")) {
      EXPECT_EQ(x.at("bound"), "memory") << x.at("id") << " at batch " << batch;
      EXPECT_TRUE(x.at("compute_bound_batch").is_null()) << x.at("id");
    }
  }
  const json d8 = mlsys::calc("accelerator-compare", {{"model", "llama-3-8b"}});
  // 2N/(s·k) + H/K with 32 query heads over 8 K/V heads.
  EXPECT_NEAR(d8.at("intensity_limit").get<double>(),
              d8.at("fixed_bytes").get<double>() / d8.at("bytes_per_sequence").get<double>() + 4, 1e-9);
  EXPECT_NEAR(d8.at("intensity_limit").get<double>(), 31.96, 0.01);
  // A shorter cache lifts the ceiling: at 512 tokens it passes the A100's ridge (153), and the
  // smallest compute-bound batch is exact: compute-bound there, memory-bound one sequence fewer.
  const json s = mlsys::calc("accelerator-compare", {{"model", "llama-3-8b"}, {"seq", 512}, {"ids", "a100-sxm-80gb, h100-sxm"}});
  EXPECT_GT(s.at("intensity_limit").get<double>(), s.at("rows")[0].at("ridge_intensity").get<double>());
  EXPECT_LT(s.at("intensity_limit").get<double>(), s.at("rows")[1].at("ridge_intensity").get<double>());
  EXPECT_TRUE(s.at("rows")[1].at("compute_bound_batch").is_null());
  const double b = s.at("rows")[0].at("compute_bound_batch").get<double>();
  const auto bound_at = [&](double batch) {
    return mlsys::calc("accelerator-compare", {{"model", "llama-3-8b"}, {"seq", 512}, {"batch", batch}, {"ids", "a100-sxm-80gb"}})
        .at("rows")[0].at("bound").get<std::string>();
  };
  EXPECT_EQ(bound_at(b), "compute");
  EXPECT_EQ(bound_at(b - 1), "memory");
  // The lesson: at 512 tokens the A100, TPU v5p and H200 have a compute-bound batch, the other
  // five chips none; the H200's batch holds more caches than its HBM.
  const json all = mlsys::calc("accelerator-compare", {{"model", "llama-3-8b"}, {"seq", 512}});
  for (const char* id : kLesson) {
    const bool some = row(all, id).at("compute_bound_batch").is_number();
    EXPECT_EQ(some, std::string(id) == "a100-sxm-80gb" || std::string(id) == "tpu-v5p" || std::string(id) == "h200-sxm") << id;
  }
  const double h200 = row(all, "h200-sxm").at("compute_bound_batch").get<double>();
  const json at = mlsys::calc("accelerator-compare", {{"model", "llama-3-8b"}, {"seq", 512}, {"batch", h200}, {"ids", "h200-sxm"}});
  EXPECT_FALSE(at.at("rows")[0].at("fits").get<bool>());
  // Training: compute-bound from the first sequence on every chip of the lesson.
  const json t = mlsys::calc("accelerator-compare", {{"model", "llama-3-8b"}, {"workload", "training-step"}});
  for (const auto& x : t.at("rows")) EXPECT_EQ(x.at("compute_bound_batch").get<double>(), 1) << x.at("id");
}

TEST(AcceleratorCompareExercises, AnswersAreTheCalculatorsOnTheDrawnInputs) {
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    auto e = mlsys::make_exercise("ca-ridge-point", seed);
    json r = mlsys::calc("accelerator-compare", e.params);
    EXPECT_NEAR(e.answer, r.at("rows")[0].at("ridge_intensity").get<double>(), 1e-9 * e.answer) << seed;
    e = mlsys::make_exercise("ca-step-roofline", seed);
    r = mlsys::calc("accelerator-compare", e.params);
    EXPECT_NEAR(e.answer, 1e3 * r.at("rows")[0].at("time_s").get<double>(), 1e-9 * e.answer) << seed;
    EXPECT_TRUE(r.at("rows")[0].at("fits").get<bool>()) << seed;
    e = mlsys::make_exercise("ca-decode-tokens-per-joule", seed);
    r = mlsys::calc("accelerator-compare", e.params);
    EXPECT_NEAR(e.answer, r.at("rows")[0].at("tokens_per_joule").get<double>(), 1e-9 * e.answer) << seed;
    e = mlsys::make_exercise("ca-break-even-price", seed);
    r = mlsys::calc("accelerator-compare", e.params);
    const double tpd = r.at("rows")[0].at("tokens_per_dollar").get<double>();
    const double chips = r.at("chips").get<double>();
    EXPECT_NEAR(e.answer, r.at("rows")[1].at("tokens_per_s").get<double>() * 3600 / (chips * tpd), 1e-9 * e.answer);
    e = mlsys::make_exercise("ca-fewest-chips", seed);
    r = mlsys::calc("accelerator-compare", e.params);
    EXPECT_TRUE(r.at("rows")[0].at("fits").get<bool>()) << seed;  // the answer fits ...
    json fewer = e.params;
    fewer["chips"] = e.answer - 1;
    EXPECT_FALSE(mlsys::calc("accelerator-compare", fewer).at("rows")[0].at("fits").get<bool>()) << seed;  // ... one fewer does not
  }
}
