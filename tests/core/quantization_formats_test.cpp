// Block-scaled float formats (OCP Microscaling Formats Specification v1.0, 2023: MXFP8/MXFP6/
// MXFP4 in blocks of 32 with an E8M0 scale; NVIDIA NVFP4: E2M1 in blocks of 16 with an E4M3
// scale and an fp32 tensor scale), the KV-cache formats priced with the serving models, and
// the plateau of the rounding model when an outlier's step rounds the ordinary values to zero.
#include <cmath>

#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/quantization/block_formats.hpp"
#include "mlsys/quantization/kv_quant.hpp"
#include "mlsys/quantization/sweeps.hpp"

using mlsys::calc;
using json = nlohmann::json;
using namespace mlsys::quant;

TEST(BlockFormats, E2M1GridRoundsToNearestEvenAndSaturates) {
  // OCP MX v1.0 table 5: FP4 E2M1 represents ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
  const MiniFloat f = e2m1();
  for (double v : {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}) {
    EXPECT_EQ(round_to_minifloat(f, v), v);
    EXPECT_EQ(round_to_minifloat(f, -v), -v);
  }
  EXPECT_EQ(round_to_minifloat(f, 0.25), 0.0);  // tie between 0 and 0.5: the even one
  EXPECT_EQ(round_to_minifloat(f, 0.75), 1.0);  // tie between 0.5 and 1
  EXPECT_EQ(round_to_minifloat(f, 2.5), 2.0);
  EXPECT_EQ(round_to_minifloat(f, 5.0), 4.0);
  EXPECT_EQ(round_to_minifloat(f, 2.6), 3.0);
  EXPECT_EQ(round_to_minifloat(f, 7.0), 6.0);  // saturates at the largest normal
  EXPECT_EQ(round_to_minifloat(f, -100.0), -6.0);
}

TEST(BlockFormats, OtherElementTypes) {
  // OCP MX v1.0: E4M3 max normal 448, smallest subnormal 2^-9; E3M2 max 28; E2M3 max 7.5.
  EXPECT_EQ(round_to_minifloat(e4m3(), 1000.0), 448.0);
  EXPECT_EQ(round_to_minifloat(e4m3(), std::ldexp(1.0, -9)), std::ldexp(1.0, -9));
  EXPECT_EQ(round_to_minifloat(e4m3(), 1.0625), 1.0);  // step 1/8 at 1: 1.0625 is a tie, 1.0 is even
  EXPECT_EQ(round_to_minifloat(e3m2(), 30.0), 28.0);
  EXPECT_EQ(round_to_minifloat(e2m3(), 7.3), 7.5);    // step 1/2 in [4, 8)
  EXPECT_EQ(round_to_minifloat(e2m3(), 7.2), 7.0);
  EXPECT_EQ(round_to_minifloat(e2m3(), 0.1), 0.125);   // subnormal step 1/8
  EXPECT_EQ(round_to_minifloat(e2m3(), 0.0625), 0.0);  // a tie between 0 and 1/8: the even one
}

TEST(BlockFormats, BitsPerValue) {
  // MX: element bits + 8/32 (one E8M0 scale per 32); NVFP4: 4 + 8/16 = 4.5.
  EXPECT_DOUBLE_EQ(block_format("mxfp8").bits_per_value(), 8.25);
  EXPECT_DOUBLE_EQ(block_format("mxfp6-e2m3").bits_per_value(), 6.25);
  EXPECT_DOUBLE_EQ(block_format("mxfp6-e3m2").bits_per_value(), 6.25);
  EXPECT_DOUBLE_EQ(block_format("mxfp4").bits_per_value(), 4.25);
  EXPECT_DOUBLE_EQ(block_format("nvfp4").bits_per_value(), 4.5);
  EXPECT_THROW(block_format("mxint8"), std::invalid_argument);
}

TEST(BlockFormats, SharedScaleIsThePowerOfTwoBelowTheMaximum) {
  // One block of 32: amax 1.75, floor(log2 1.75) = 0, X = 2^(0 − 2) = 0.25 for E2M1. 1.75/X = 7
  // saturates to 6 (x̂ = 1.5), 1.0/X = 4 is exact, 0.1/X = 0.4 rounds to 0.5 (x̂ = 0.125).
  Matrix m;
  m.rows = 1;
  m.cols = 32;
  m.v.assign(32, 1.0);
  m.v[0] = 1.75;
  m.v[1] = 0.1;
  const Measured r = quantize_block_format(m, block_format("mxfp4"));
  const double expected = ((1.75 - 1.5) * (1.75 - 1.5) + (0.1 - 0.125) * (0.1 - 0.125)) / 32;
  EXPECT_NEAR(r.mse, expected, 1e-15);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 0.25);
  EXPECT_DOUBLE_EQ(r.bits_per_value, 4.25);
}

TEST(BlockFormats, OnTheLessonsOutlierMatrix) {
  const json r = calc("block-formats", json::object());
  std::map<std::string, json> by;
  for (const auto& f : r["formats"]) by[f["format"].get<std::string>()] = f;
  // Precision is the mantissa: E4M3 and E2M3 both keep 3 bits, so MXFP8 and MXFP6 E2M3 agree
  // within 1 dB on blocks of 32 (the extra exponent bits only serve values far below the block's
  // maximum), E3M2 loses a mantissa bit (about 6 dB), E2M1 two more. NVFP4's blocks of 16 and
  // E4M3 scales beat MXFP4.
  EXPECT_NEAR(by["mxfp8"]["sqnr_db"].get<double>(), by["mxfp6-e2m3"]["sqnr_db"].get<double>(), 1);
  EXPECT_NEAR(by["mxfp6-e2m3"]["sqnr_db"].get<double>() - by["mxfp6-e3m2"]["sqnr_db"].get<double>(), 6, 1.5);
  EXPECT_GT(by["mxfp6-e3m2"]["sqnr_db"].get<double>(), by["mxfp4"]["sqnr_db"].get<double>());
  EXPECT_GT(by["nvfp4"]["sqnr_db"].get<double>(), by["mxfp4"]["sqnr_db"].get<double>());
  // MXFP4 (4.25 bits) is within 3 dB of int4 with fp16 scales per 32 values (4.5 bits).
  EXPECT_NEAR(by["mxfp4"]["sqnr_db"].get<double>(), by["int4-g32"]["sqnr_db"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(by["int4-g32"]["bits_per_value"].get<double>(), 4.5);
  EXPECT_THROW(calc("block-formats", {{"cols", 48}}), mlsys::InputError);
}

TEST(KvQuant, Llama3_8BOnH100) {
  // 2 · 32 layers · 8 KV heads · 128 · 2 bytes = 131,072 B per token in bf16 (128 KiB).
  const json r = calc("kv-quantization", {{"hardware", "h100-sxm"}});
  const json& f = r["formats"];
  EXPECT_DOUBLE_EQ(f[0]["bytes_per_token"].get<double>(), 131072);
  EXPECT_DOUBLE_EQ(f[1]["bytes_per_token"].get<double>(), 65536);                 // fp8
  EXPECT_DOUBLE_EQ(f[2]["bytes_per_token"].get<double>(), 131072 * (8 + 16.0 / 128) / 16);  // int8 + scale per head
  EXPECT_DOUBLE_EQ(f[3]["bytes_per_token"].get<double>(), 131072 * (4 + 32.0 / 64) / 16);   // int4 + scale, zero
  const mlsys::Accelerator* h = mlsys::find_accelerator("h100-sxm");
  const double kv16 = 16.0 * 32768 * 131072;
  EXPECT_NEAR(f[0]["decode_time_s"].get<double>(), (16e9 + kv16) / h->hbm_bandwidth_Bps, 1e-12);
  EXPECT_NEAR(f[1]["decode_speedup"].get<double>(), (16e9 + kv16) / (16e9 + kv16 / 2), 1e-12);
  EXPECT_EQ(f[0]["decode_bound"], "memory");
  const double free = 0.9 * h->hbm_bytes - 16e9;
  EXPECT_EQ(f[0]["max_sequences"].get<double>(), std::floor(free / (131072.0 * 32768)));
  EXPECT_EQ(f[1]["max_sequences"].get<double>(), std::floor(free / (65536.0 * 32768)));
  EXPECT_THROW(calc("kv-quantization", {{"kv_heads", 64}}), mlsys::InputError);
  EXPECT_THROW(kv_bits_per_value("int2", 128, 64), std::invalid_argument);
}

TEST(QuantPlateau, OrdinaryValuesRoundToZeroBelowSixBits) {
  // The lesson's outlier matrix at 2–5 bits per tensor: Δ/2 exceeds most ordinary values, they
  // dequantize to 0 and their error is their own power, so the MSE stays near 1 while Δ²/12 grows.
  const Matrix m = sample_matrix(Distribution::GaussianOutliers, 65536, 256, 1, 0.02, 20);
  Scheme s;
  const auto pts = mse_vs_bits(m, s, 2, 8);
  for (int b = 2; b <= 5; ++b) {
    const Measured& r = pts[static_cast<std::size_t>(b - 2)].measured;
    EXPECT_LT(pts[static_cast<std::size_t>(b - 2)].ratio_to_model, 0.6) << b;
    EXPECT_GT(r.zeroed_fraction, 0.5) << b;
    EXPECT_GT(r.mse_zeroed, 0.6 * r.mse) << b;
  }
  EXPECT_NEAR(pts[6].ratio_to_model, 1, 0.02);  // 8 bits: the model holds again
  // Values still round to 0 at 8 bits, but their error is now below Δ/2, as the model assumes:
  // N(0, 1) values in (−h, h), h = Δ/2, add about ∫x²φ(x)dx ≈ 0.8h³/3 to the MSE against the
  // model's Δ²/12 = h²/3, a ratio of about 0.8h. With Δ = 2·amax/255 and amax ≤ 20 × 4.5 (the
  // largest of 1,280 outlier normals is below 4.5 but for odds of about 1 in 200), h < 0.36 and
  // the ratio stays below 0.3.
  EXPECT_LT(pts[6].measured.mse_zeroed, 0.3 * pts[6].measured.mse_predicted);
}

TEST(KvQuantization, TheLessonsWorkedBatchFitsBesideTheWeights) {
  // The lesson prices decode at 12 sequences of 32,768 tokens: bf16 cache and weights must fit
  // in the 90% of an H100 the capacity model allows (14 sequences), which 16 would not.
  const json r = calc("kv-quantization", {{"batch", 12}});
  const json& bf16 = r.at("formats").at(0);
  EXPECT_EQ(bf16.at("max_sequences").get<double>(), 14);
  const double budget = 0.9 * mlsys::find_accelerator("h100-sxm")->hbm_bytes;
  EXPECT_LE(bf16.at("kv_bytes").get<double>() + r.at("weight_bytes").get<double>(), budget);
  const json r16 = calc("kv-quantization", {{"batch", 16}});
  EXPECT_GT(r16.at("formats").at(0).at("kv_bytes").get<double>() + r16.at("weight_bytes").get<double>(), budget);
}
