// The quantization models and calculators: the rounding-noise model Δ²/12 against measured
// MSE on uniform data (Widrow; Gray & Neuhoff 1998), the Δ/2 bound inside the range, the
// affine quantizer of Jacob et al. 2018 (arXiv:1712.05877), granularity on outlier
// channels, the clipping search, SmoothQuant (Xiao et al. 2022, arXiv:2211.10438), the
// phase model against the roofline, bad inputs, and the exercises against the calculators.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/quantization/phase_speedup.hpp"
#include "mlsys/quantization/quantizer.hpp"
#include "mlsys/quantization/smoothquant.hpp"
#include "mlsys/quantization/sweeps.hpp"
#include "test_support.hpp"

using mlsys::calc;
using mlsys::InputError;
using json = nlohmann::json;
using namespace mlsys::quant;

namespace {
std::string error_field(const std::string& name, const json& in) {
  try {
    calc(name, in);
  } catch (const InputError& e) {
    EXPECT_FALSE(std::string(e.what()).empty());
    return e.field;
  }
  return "<no error>";
}
}  // namespace

// log_det and exp_det themselves: tests/core/deterministic_test.cpp.
TEST(QuantModel, Decibels) { EXPECT_NEAR(decibels(1000), 30, 1e-12); }

TEST(QuantModel, ClosedFormStepAndBounds) {
  const ClosedForm c = closed_form(8, -1, 1);
  EXPECT_DOUBLE_EQ(c.step, 2.0 / 255);
  EXPECT_DOUBLE_EQ(c.max_error, 1.0 / 255);
  EXPECT_DOUBLE_EQ(c.mse_uniform, (2.0 / 255) * (2.0 / 255) / 12);
  EXPECT_EQ(c.levels, 256);
  EXPECT_EQ(c.zero_point, std::round(1.0 / (2.0 / 255)));  // the code of 0
}

TEST(QuantModel, SymmetricAndAffineCodes) {
  const Quantizer s = symmetric_quantizer(8, 2.54);  // scale 0.02, codes −127 … 127
  EXPECT_DOUBLE_EQ(s.qmax, 127);
  EXPECT_DOUBLE_EQ(s.qmin, -127);
  EXPECT_DOUBLE_EQ(quantize_code(s, 1.0), 50);
  EXPECT_DOUBLE_EQ(quantize_code(s, 100.0), 127);  // clamped
  EXPECT_DOUBLE_EQ(quantize_code(s, -100.0), -127);
  // Asymmetric [−0.5, 2.05]: scale 0.01, zero point 50 (Jacob et al.'s x = s(q − z)).
  const Quantizer a = affine_quantizer(8, -0.5, 2.05);
  EXPECT_NEAR(a.scale, 0.01, 1e-15);
  EXPECT_DOUBLE_EQ(a.zero_point, 50);
  EXPECT_DOUBLE_EQ(quantize_code(a, 0.0), 50);  // zero is exactly representable
  EXPECT_DOUBLE_EQ(fake_quantize(a, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(quantize_code(a, 1.234), 173);
  EXPECT_DOUBLE_EQ(quantize_code(a, -9.0), 0);
  EXPECT_DOUBLE_EQ(quantize_code(a, 9.0), 255);
}

// quantize→dequantize error ≤ Δ/2 (+ rounding slack) everywhere inside the range, for
// symmetric and asymmetric quantizers and awkward ranges.
TEST(QuantModel, ErrorInsideRangeAtMostHalfStep) {
  for (int bits : {2, 3, 4, 8}) {
    for (auto [lo, hi] : {std::pair{-1.0, 1.0}, std::pair{-0.37, 2.9}, std::pair{0.5, 3.0}, std::pair{-7.0, -1.0}}) {
      const Quantizer a = affine_quantizer(bits, lo, hi);
      for (int i = 0; i <= 10000; ++i) {
        const double x = lo + (hi - lo) * i / 10000.0;
        EXPECT_LE(std::fabs(fake_quantize(a, x) - x), a.scale / 2 * (1 + 1e-9)) << bits << " " << lo << " " << x;
      }
      const double amax = std::max(std::fabs(lo), std::fabs(hi));
      const Quantizer s = symmetric_quantizer(bits, amax);
      for (int i = 0; i <= 10000; ++i) {
        const double x = -amax + 2 * amax * i / 10000.0;
        EXPECT_LE(std::fabs(fake_quantize(s, x) - x), s.scale / 2 * (1 + 1e-9));
      }
    }
  }
  // The staircase calculator reports the same bound, measured.
  const json r = calc("quantizer-staircase", {{"bits", 3}, {"range_min", -0.3}, {"range_max", 1.1}});
  EXPECT_LE(r["max_abs_error_in_range"].get<double>(), r["max_error"].get<double>() * (1 + 1e-9));
  EXPECT_GT(r["max_abs_error_in_range"].get<double>(), 0.95 * r["max_error"].get<double>());
  EXPECT_EQ(r["x"].size(), 401u);
}

// Required by the lesson: on uniform data without clipping the measured MSE approaches
// Δ²/12. 2^18 samples, seed 7: the sampling error of the mean of e² is about
// sqrt(4/5)/sqrt(n) ≈ 0.2 %, so 2 % is a generous but meaningful tolerance for 4–16 bits.
TEST(QuantModel, MeasuredMseApproachesDeltaSquaredOver12) {
  const Matrix m = generate(Distribution::Uniform, 1024, 256, 7, 0, 1);
  for (const auto& p : mse_vs_bits(m, Scheme{}, 4, 16)) {
    EXPECT_NEAR(p.measured.mse / p.measured.mse_predicted, 1.0, 0.02) << p.bits;
    // Δ for symmetric per-tensor over max|x| ≈ √3: √3 / (2^(b−1) − 1).
    const double delta = std::sqrt(3.0) / (std::ldexp(1.0, p.bits - 1) - 1);
    EXPECT_NEAR(p.measured.mse_predicted, delta * delta / 12, 1e-3 * delta * delta / 12);
  }
  // The same through the API's measured form, asymmetric this time.
  const json r = calc("quantize", {{"bits", 8}, {"distribution", "uniform"}, {"samples", 262144}, {"symmetric", false}});
  const double delta = 2 * std::sqrt(3.0) / 255;
  EXPECT_NEAR(r["mse"].get<double>() / (delta * delta / 12), 1.0, 0.02);
  EXPECT_EQ(r["form"], "measured");
  // SQNR of a b-bit quantizer on a full-scale uniform signal ≈ 6.02·b dB.
  EXPECT_NEAR(r["sqnr_db"].get<double>(), 6.02 * 8, 0.3);
}

TEST(QuantModel, PerChannelBeatsPerTensorOnOutlierChannels) {
  const Matrix m = generate(Distribution::GaussianOutliers, 256, 256, 3, 0.02, 20);
  EXPECT_EQ(m.outlier_rows.size(), 5u);  // round(0.02 · 256)
  for (int bits : {4, 8}) {
    Scheme s;
    s.bits = bits;
    const Measured t = quantize_matrix(m, s);
    s.granularity = Granularity::Channel;
    const Measured c = quantize_matrix(m, s);
    s.granularity = Granularity::Group;
    s.group_size = 64;
    const Measured g = quantize_matrix(m, s);
    EXPECT_LT(c.mse, t.mse / 5) << bits;
    EXPECT_LE(g.mse, c.mse) << bits;  // groups are sub-blocks of rows: never a larger range
    // Scale overhead: one fp16 scale per block.
    EXPECT_EQ(t.scale_overhead_bytes, 2);
    EXPECT_EQ(c.scale_overhead_bytes, 2 * 256);
    EXPECT_EQ(g.scale_overhead_bytes, 2 * 256 * 4);
    EXPECT_DOUBLE_EQ(g.bits_per_value, bits + 16.0 / 64);
  }
}

TEST(QuantModel, ClipSearchFindsClipBelowMaxWithOutliers) {
  const Matrix m = generate(Distribution::GaussianOutliers, 64, 256, 1, 0.01, 5);
  Scheme s;
  s.bits = 4;
  const ClipSearch cs = clip_search(m, s, 0.05, 40);
  EXPECT_LT(cs.best_clip, 0.9);
  EXPECT_GT(cs.best_clip, 0.05);
  EXPECT_LT(cs.best.mse, cs.no_clip.mse / 2);
  EXPECT_GT(cs.best.clipped_fraction, 0);
  for (const auto& p : cs.points) EXPECT_GE(p.measured.mse, cs.best.mse * (1 - 1e-12));
  // Clipping more raises the clipping part and lowers the rounding part.
  EXPECT_GT(cs.points.front().measured.mse_clipping, cs.points.back().measured.mse_clipping);
  EXPECT_LT(cs.points.front().measured.mse_rounding, cs.points.back().measured.mse_rounding);
  EXPECT_EQ(cs.no_clip.mse_clipping, 0);
  // At 8 bits rounding noise is small and the best clip sits much closer to the max.
  s.bits = 8;
  EXPECT_GT(clip_search(m, s, 0.05, 40).best_clip, 2 * cs.best_clip);
}

TEST(QuantModel, SmoothQuantMigration) {
  SmoothQuantSetup st;
  const SmoothQuantResult r = smoothquant(st, {0.0, 0.25, 0.5, 0.75, 1.0});
  // Without smoothing (s = 1) is plain W8A8: the smoothing factors at α where both maxima
  // are 1 are 1, and the baseline equals running with s = 1 (checked by identical spreads).
  EXPECT_EQ(smoothing_factors({1.0, 1.0}, {1.0, 1.0}, 0.3), (std::vector<double>{1.0, 1.0}));
  EXPECT_NEAR(smoothing_factors({8.0}, {2.0}, 0.5)[0], 2.0, 1e-15);  // √8 / √2
  EXPECT_NEAR(smoothing_factors({8.0}, {2.0}, 1.0)[0], 8.0, 1e-14);
  EXPECT_NEAR(smoothing_factors({8.0}, {2.0}, 0.0)[0], 0.5, 1e-15);
  // The outlier channels make the activations hard: a wide spread of channel maxima.
  EXPECT_GT(r.baseline.activation_channel_spread, 10);
  EXPECT_LT(r.baseline.weight_channel_spread, 2);
  // Migration: activation error falls and weight error rises with α; at α = 0.5 both
  // spreads are equal (s_j balances max|X_j|/s_j = max|W_j|·s_j).
  for (std::size_t i = 1; i < r.sweep.size(); ++i) {
    EXPECT_LT(r.sweep[i].activation_rel_mse, r.sweep[i - 1].activation_rel_mse);
    EXPECT_GT(r.sweep[i].weight_rel_mse, r.sweep[i - 1].weight_rel_mse);
  }
  EXPECT_NEAR(r.sweep[2].activation_channel_spread, r.sweep[2].weight_channel_spread,
              1e-9 * r.sweep[2].weight_channel_spread);
  EXPECT_LT(r.sweep[2].activation_rel_mse, r.baseline.activation_rel_mse);
  // The paper's point: a middle α gives a much smaller output error than plain W8A8.
  EXPECT_LT(r.sweep[2].output_rel_mse, r.baseline.output_rel_mse / 5);
  EXPECT_LT(r.sweep[2].output_rel_mse, r.sweep[0].output_rel_mse);
  EXPECT_LT(r.sweep[2].output_rel_mse, r.sweep[4].output_rel_mse);
  // With no outlier channels smoothing has little to fix.
  st.outlier_channels = 0;
  const SmoothQuantResult flat = smoothquant(st, {0.5});
  EXPECT_LT(flat.baseline.activation_channel_spread, 2);
  EXPECT_LT(flat.baseline.output_rel_mse, r.baseline.output_rel_mse / 3);
}

TEST(QuantModel, PhaseCostsFollowTheRoofline) {
  const json r = calc("quantization-speedup", {{"hardware", "h100-sxm"}, {"params", 8e9}});
  const auto& s = r["schemes"];
  ASSERT_EQ(s.size(), 5u);
  const double bw = 3.35e12, bf16 = 989.4e12;
  // Decode at batch 1 is memory-bound: time = weight bytes / bandwidth.
  EXPECT_NEAR(s[0]["decode_time_s"].get<double>(), 8e9 * 2 / bw, 1e-12);
  EXPECT_EQ(s[0]["decode_bound"], "memory");
  EXPECT_NEAR(s[2]["decode_speedup"].get<double>(), 16 / (4 + 16.0 / 128), 1e-9);
  EXPECT_NEAR(s[1]["decode_speedup"].get<double>(), 2, 1e-9);
  // Prefill of 4096 tokens is compute-bound: weight-only schemes gain nothing, W8A8 gains
  // the int8/fp8 peak over bf16 (2× on H100).
  EXPECT_EQ(s[0]["prefill_bound"], "compute");
  EXPECT_NEAR(s[0]["prefill_time_s"].get<double>(), 2 * 8e9 * 4096 / bf16, 1e-6 * 2 * 8e9 * 4096 / bf16);
  EXPECT_NEAR(s[2]["prefill_speedup"].get<double>(), 1, 1e-9);
  EXPECT_NEAR(s[3]["prefill_speedup"].get<double>(), 2, 1e-3);
  EXPECT_NEAR(s[4]["prefill_speedup"].get<double>(), 2, 1e-3);
  // The A100 has no fp8: that scheme is marked unavailable, without times.
  const json a = calc("quantization-speedup", {{"hardware", "a100-sxm-80gb"}});
  EXPECT_FALSE(a["schemes"][4]["available"].get<bool>());
  EXPECT_FALSE(a["schemes"][4].contains("decode_time_s"));
}

TEST(QuantCalc, ClosedFormFields) {
  const json r = calc("quantize", {{"bits", 4}, {"range_min", -1.5}, {"range_max", 1.5}});
  EXPECT_EQ(r["form"], "closed");
  EXPECT_DOUBLE_EQ(r["step"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(r["max_error"].get<double>(), 0.1);
  EXPECT_NEAR(r["mse_uniform"].get<double>(), 0.04 / 12, 1e-15);
  EXPECT_EQ(r["levels"], 16);
}

TEST(QuantCalc, ClosedFormQuantizesOneValue) {
  // 8 bits on [-1, 1]: s = 2/255, z = round(1/s) = round(127.5) = 128 (half away from zero);
  // x = 0.3: round(0.3/s) = round(38.25) = 38, q = 38 + 128 = 166, x̂ = s·(166 − 128) = 76/255
  // = 0.298039..., error x − x̂ = 0.3 − 76/255 = 0.5/255 = 0.001960...
  const json r = calc("quantize", {{"bits", 8}, {"range_min", -1}, {"range_max", 1}, {"value", 0.3}});
  EXPECT_DOUBLE_EQ(r["scale"].get<double>(), 2.0 / 255);
  EXPECT_EQ(r["zero_point"], 128);
  EXPECT_EQ(r["q"], 166);
  EXPECT_FALSE(r.contains("error"));  // the key of a rejection in the API's JSON
  EXPECT_NEAR(r["dequantized"].get<double>(), 76.0 / 255, 1e-15);
  EXPECT_NEAR(r["reconstruction_error"].get<double>(), 0.5 / 255, 1e-15);
  // Beyond the range the code clamps to qmax = 255: x̂ = s·(255 − 128) = 254/255.
  const json c = calc("quantize", {{"bits", 8}, {"range_min", -1}, {"range_max", 1}, {"value", 5}});
  EXPECT_EQ(c["q"], 255);
  EXPECT_NEAR(c["dequantized"].get<double>(), 254.0 / 255, 1e-15);
  // Without value the closed form has no q; value without a range names the field.
  EXPECT_FALSE(calc("quantize", {{"bits", 8}, {"range_min", -1}, {"range_max", 1}}).contains("q"));
  EXPECT_EQ(error_field("quantize", {{"value", 0.3}}), "value");
}

TEST(QuantCalc, MeasuredFormIsSeededAndReportsOverhead) {
  const json in = {{"bits", 4}, {"granularity", "group"}, {"group_size", 32}, {"distribution", "laplace"}, {"seed", 9}};
  const json a = calc("quantize", in), b = calc("quantize", in);
  EXPECT_EQ(a.dump(), b.dump());
  EXPECT_EQ(a["elements"], 65536);
  EXPECT_EQ(a["scale_overhead_bytes"], 65536 / 32 * 2);
  EXPECT_DOUBLE_EQ(a["bits_per_value"].get<double>(), 4.5);
  json c = in;
  c["seed"] = 10;
  EXPECT_NE(calc("quantize", c)["mse"], a["mse"]);
  c["symmetric"] = false;
  EXPECT_EQ(calc("quantize", c)["scale_overhead_bytes"], 65536 / 32 * 4);
  // Per tensor at 4 bits, clipping Laplace data to half its max helps; within groups of 32,
  // whose maxima are already small, the same clip hurts.
  const json t = {{"bits", 4}, {"distribution", "laplace"}, {"seed", 9}};
  json tc = t;
  tc["clip"] = 0.5;
  EXPECT_LT(calc("quantize", tc)["mse"].get<double>(), calc("quantize", t)["mse"].get<double>() / 2);
  json d = in;
  d["clip"] = 0.5;
  EXPECT_GT(calc("quantize", d)["mse"].get<double>(), a["mse"].get<double>());
}

TEST(QuantCalc, BadInputs) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_field("quantize", {{"bits", 1}, {"range_min", 0}, {"range_max", 1}}), "bits");
  EXPECT_EQ(error_field("quantize", {{"bits", 17}}), "bits");
  EXPECT_EQ(error_field("quantize", {{"bits", 4.5}}), "bits");
  EXPECT_EQ(error_field("quantize", {{"bits", 8}, {"range_min", 1}, {"range_max", 1}}), "range_max");
  EXPECT_EQ(error_field("quantize", {{"bits", 8}, {"range_min", 2}, {"range_max", -1}}), "range_max");
  EXPECT_EQ(error_field("quantize", {{"range_min", 0}}), "range_max");
  EXPECT_EQ(error_field("quantize", {{"range_max", 1}}), "range_min");
  EXPECT_EQ(error_field("quantize", {{"range_min", -1}, {"range_max", 1}, {"granularity", "tensor"}}), "granularity");
  EXPECT_EQ(error_field("quantize", {{"range_min", -1}, {"range_max", 1}, {"samples", 8192}}), "samples");
  EXPECT_EQ(error_field("quantize", {{"granularity", "group"}, {"group_size", 100}}), "group_size");
  EXPECT_EQ(error_field("quantize", {{"granularity", "group"}, {"group_size", 512}, {"cols", 256}}), "group_size");
  EXPECT_EQ(error_field("quantize", {{"distribution", "cauchy"}}), "distribution");
  EXPECT_EQ(error_field("quantize", {{"granularity", "block"}}), "granularity");
  EXPECT_EQ(error_field("quantize", {{"clip", 0}}), "clip");
  EXPECT_EQ(error_field("quantize", {{"clip", 1.5}}), "clip");
  EXPECT_EQ(error_field("quantize", {{"samples", 1e9}}), "samples");
  EXPECT_EQ(error_field("quantize", {{"samples", -5}}), "samples");
  EXPECT_EQ(error_field("quantize", {{"symmetric", "yes"}}), "symmetric");
  EXPECT_EQ(error_field("quantize", {{"bits", 8}, {"typo", 1}}), "typo");
  error_of("quantize", R"({"bits": 8, "range_min": NaN, "range_max": 1})");
  error_of("quantize", R"({"bits": 8, "range_min": -1e400, "range_max": 1})");
  error_of("quantize", R"({"bits": 8, "range_min": "low", "range_max": 1})");
  EXPECT_EQ(error_field("quantize", {{"range_min", -1e31}, {"range_max", 1}}), "range_min");
  EXPECT_EQ(error_field("quantizer-staircase", {{"range_min", 1}, {"range_max", 0}}), "range_max");
  EXPECT_EQ(error_field("quantizer-staircase", {{"bits", 9}}), "bits");
  EXPECT_EQ(error_field("quantization-mse-vs-bits", {{"bits_min", 8}, {"bits_max", 4}}), "bits_max");
  EXPECT_EQ(error_field("quantization-mse-vs-bits", {{"samples", 524288}}), "samples");
  EXPECT_EQ(error_field("clip-search", {{"samples", 262144}, {"points", 200}}), "samples");
  EXPECT_EQ(error_field("clip-search", {{"clip_min", 1}}), "clip_min");
  EXPECT_EQ(error_field("smoothquant", {{"tokens", 512}, {"channels", 1024}, {"out_features", 1024}}), "tokens");
  EXPECT_EQ(error_field("smoothquant", {{"alpha", 1.5}}), "alpha");
  EXPECT_EQ(error_field("smoothquant", {{"channels", 16}, {"outlier_channels", 32}}), "outlier_channels");
  EXPECT_EQ(error_field("quantization-speedup", {{"hardware", "h900"}}), "hardware");
  EXPECT_EQ(error_field("quantization-speedup", {{"params", 0}}), "params");
  EXPECT_EQ(error_field("quantization-speedup", {{"bandwidth_Bps", 0}}), "bandwidth_Bps");
}

TEST(QuantExercises, AnswersAgreeWithCalculators) {
  for (std::uint32_t seed = 1; seed <= 25; ++seed) {
    auto e = mlsys::make_exercise("quant-max-error", seed);
    // The worst weight of the row, quantized by the staircase: its error is the answer, and it
    // is not the bound Δ/2 (the generator keeps it below 95% of it).
    const json st = calc("quantizer-staircase", e.params);
    EXPECT_NEAR(std::fabs(st["value_error"].get<double>()), e.answer, 1e-12);
    EXPECT_LT(e.answer, 0.95 * st["max_error"].get<double>());
    e = mlsys::make_exercise("quant-mse", seed);
    // SQNR = 10·log10((a²/3) / (Δ²/12)), a the data's half-range printed first in the prompt.
    const double a = -std::stod(e.prompt.substr(e.prompt.find("[") + 1));
    const double noise = calc("quantize", e.params)["mse_uniform"].get<double>();
    EXPECT_NEAR(10 * std::log10(a * a / 3 / noise), e.answer, 1e-9 * e.answer);
    e = mlsys::make_exercise("quant-zero-point-code", seed);
    EXPECT_EQ(calc("quantizer-staircase", e.params)["value_code"].get<double>(), e.answer);
    e = mlsys::make_exercise("quant-group-memory", seed);
    const double billions = std::stod(e.prompt.substr(e.prompt.find("with ") + 5));
    EXPECT_NEAR(calc("quantize", e.params)["bits_per_value"].get<double>() * billions / 8, e.answer, 1e-9 * e.answer);
    e = mlsys::make_exercise("quant-int4-decode", seed);
    const json kv = calc("kv-quantization", e.params)["formats"][0];  // the KV cache stays bf16
    EXPECT_EQ(kv["format"], "bf16");
    EXPECT_EQ(kv["decode_bound"], "memory");
    EXPECT_NEAR(kv["decode_time_s"].get<double>() * 1e3, e.answer, 1e-9 * e.answer);
  }
}

// The int4 decode exercise used to have one answer per group size (16 / (4 + 16/g)): now the
// batch and the bf16 KV cache change it from draw to draw.
TEST(QuantExercises, Int4DecodeDependsOnTheDrawnNumbers) {
  std::set<long long> answers;
  for (std::uint32_t seed = 0; seed < 60; ++seed)
    answers.insert(std::llround(mlsys::make_exercise("quant-int4-decode", seed).answer * 1000));
  EXPECT_GT(answers.size(), 40u);
}

// Every draw leaves 10% of the chip's memory free, the serving budget the lesson uses: seed 277
// used to put 80.1 GB of int4 weights and bf16 cache on an 80 GB H100.
TEST(QuantExercises, Int4DecodeFitsNinetyPercentOfMemory) {
  for (std::uint32_t seed = 0; seed < 500; ++seed) {
    const mlsys::Exercise e = mlsys::make_exercise("quant-int4-decode", seed);
    const json& p = e.params;
    const double kv_token = 2 * p["layers"].get<double>() * p["kv_heads"].get<double>() * 128 * 2;
    const double bytes = p["params"].get<double>() * p["weight_bits"].get<double>() / 8 +
                         p["batch"].get<double>() * p["context"].get<double>() * kv_token;
    const auto* hw = mlsys::find_accelerator(p["hardware"].get<std::string>());
    ASSERT_NE(hw, nullptr);
    EXPECT_LE(bytes, 0.9 * hw->hbm_bytes) << "seed " << seed;
  }
}

// --- The quantization models behind the calculators ----------------------------------------

TEST(QuantModel, StaircaseOfAThreeBitAffineQuantizer) {
  // Jacob et al. 2018: 3 bits over [-1, 1] give Δ = 2/7, codes 0..7, zero point round(3.5) = 4.
  const Staircase s = quantizer_staircase(3, -1, 1, false, 11, 0.0, 0.3);
  EXPECT_DOUBLE_EQ(s.step, 2.0 / 7);
  EXPECT_EQ(s.qmin, 0);
  EXPECT_EQ(s.qmax, 7);
  EXPECT_EQ(s.x.size(), 11u);
  EXPECT_EQ(s.x.front(), -1.0);
  EXPECT_EQ(s.x.back(), 1.0);
  EXPECT_LE(s.max_abs_error_in_range, s.step / 2 + 1e-15);  // Δ/2 inside the range
  EXPECT_EQ(*s.value_error, *s.value_dequantized - 0.3);
  EXPECT_FALSE(quantizer_staircase(3, -1, 1, true, 11, 0.25, std::nullopt).value_code);
  EXPECT_THROW(quantizer_staircase(3, 1, 1, false, 11, 0, std::nullopt), InputError);
}

TEST(QuantModel, SampleMatrixSummaryAndGroupCheck) {
  const Matrix m = sample_matrix(Distribution::Uniform, 5000, 256, 1, 0, 1);
  const MatrixSummary s = summarize(m);
  EXPECT_EQ(s.rows, 19);  // floor(5000 / 256)
  EXPECT_EQ(s.elements, 19 * 256);
  EXPECT_LE(s.max_abs, std::sqrt(3.0));  // uniform on [-√3, √3]
  EXPECT_EQ(summarize(sample_matrix(Distribution::Uniform, 100, 256, 1, 0, 1)).rows, 1);
  Scheme g;
  g.granularity = Granularity::Group;
  g.group_size = 96;
  EXPECT_THROW(check_group_size(g, 256), InputError);
  g.group_size = 64;
  EXPECT_NO_THROW(check_group_size(g, 256));
}

TEST(QuantModel, SweepRatiosAndSmoothQuantBest) {
  const Matrix m = generate(Distribution::Uniform, 64, 256, 1, 0, 1);
  Scheme s;
  for (const auto& p : mse_vs_bits(m, s, 4, 6)) EXPECT_EQ(p.ratio_to_model, p.measured.mse / p.measured.mse_predicted);
  const ClipSearch cs = clip_search(m, s, 0.5, 5);
  EXPECT_EQ(cs.mse_gain, cs.no_clip.mse / cs.best.mse);
  const std::vector<double> alphas = smoothquant_alphas(5, 0.6);
  EXPECT_EQ(alphas, (std::vector<double>{0, 0.25, 0.5, 0.75, 1, 0.6}));
  SmoothQuantSetup st;
  st.tokens = 16, st.channels = 32, st.out_features = 16;
  const SmoothQuantSweep sw = smoothquant_sweep(st, alphas);
  EXPECT_EQ(sw.alpha, 0.6);
  ASSERT_EQ(sw.points.size(), 5u);
  for (const auto& p : sw.points) EXPECT_GE(p.errors.output_rel_mse, sw.best_output_rel_mse);
}

TEST(QuantModel, SpeedupOfWeightOnlyInt4AtBatchOne) {
  const auto* hw = mlsys::find_accelerator("h100-sxm");
  ASSERT_NE(hw, nullptr);
  const QuantizationSpeedup q = quantization_speedup(*hw, 8e9, 1, 4096, 128, std::nullopt);
  EXPECT_EQ(q.hardware, "h100-sxm");
  ASSERT_EQ(q.schemes.size(), 5u);
  EXPECT_EQ(q.schemes[0].weight_bytes, 16e9);
  // W4A16 with one fp16 scale per 128 weights: 4.125 bits; decode is bandwidth-bound, so the
  // speedup is the byte ratio 16 / 4.125.
  EXPECT_EQ(q.schemes[2].bits_per_weight, 4.125);
  EXPECT_NEAR(*q.schemes[2].decode_speedup, 16 / 4.125, 1e-12);
  EXPECT_EQ(*q.schemes[2].decode_bound, "memory");
}
