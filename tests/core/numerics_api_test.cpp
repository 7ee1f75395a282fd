// The mixed-precision calculators and exercises: low-precision sums against exact sums and
// the closed-form stall point, loss-scaling fractions sampled vs closed form, the dynamic
// loss scaler's rules (PyTorch torch.amp.GradScaler: init 2^16, backoff 0.5, growth 2 after
// growth_interval clean steps), the recipe's bytes (Micikevicius et al. 2018), bad inputs,
// and the exercises against the calculators.
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/numerics/loss_scaling.hpp"
#include "mlsys/numerics/precision_recipe.hpp"
#include "mlsys/numerics/summation.hpp"

using mlsys::calc;
using mlsys::InputError;
using json = nlohmann::json;

namespace {
std::string error_field(const std::string& name, const json& in) {
  try {
    calc(name, in);
  } catch (const InputError& e) {
    return e.field;
  }
  return "<no error>";
}
}  // namespace

TEST(NumericsCalc, FloatFields) {
  const json r = calc("float", {{"format", "fp16"}, {"value", 1.0}});
  EXPECT_EQ(r["bits"], "0 01111 0000000000");
  EXPECT_EQ(r["rounded"], 1.0);
  EXPECT_EQ(r["special"], "none");
  EXPECT_EQ(r["max"], 65504.0);
  EXPECT_EQ(r["epsilon"], std::ldexp(1.0, -10));
  EXPECT_EQ(r["ulp"], std::ldexp(1.0, -10));
  const json o = calc("float", {{"format", "fp16"}, {"value", 70000.0}});
  EXPECT_TRUE(o["rounded"].is_null());
  EXPECT_EQ(o["special"], "inf");
  EXPECT_TRUE(o["overflow"].get<bool>());
  EXPECT_EQ(calc("float", {{"format", "fp8-e4m3"}, {"value", 1000.0}})["special"], "nan");
  EXPECT_EQ(calc("float", {{"format", "fp8-e4m3"}, {"value", 1000.0}, {"saturate", true}})["rounded"], 448.0);
  const json b = calc("float", {{"format", "bf16"}, {"value", 0.1}});
  EXPECT_NEAR(b["rel_error"].get<double>(), (0.10009765625 - 0.1) / 0.1, 1e-15);
  EXPECT_EQ(b["exponent_bits"], "01111011");
  EXPECT_EQ(b["mantissa_bits"], "1001101");
}

TEST(NumericsCalc, SumsAgainstExact) {
  // Adding 1 in bf16 stalls at 256 = 2^(7+1): 257 is a tie between 256 and 258, and goes to 256.
  const json r = calc("summation", {{"format", "bf16"}, {"value", 1.0}, {"count", 1000}});
  EXPECT_EQ(r["exact"], 1000.0);
  EXPECT_EQ(r["naive"], 256.0);
  EXPECT_EQ(r["stall_count"], 256);
  EXPECT_EQ(r["stall_sum"], 256.0);
  EXPECT_EQ(r["lost_additions"], 744);
  EXPECT_EQ(r["fp32"], 1000.0);
  EXPECT_EQ(r["kahan"], 1000.0);
  EXPECT_EQ(r["pairwise_recursive"], 1000.0);
  // fp16: stalls at 2048 = 2^(10+1).
  EXPECT_EQ(calc("summation", {{"format", "fp16"}, {"value", 1.0}, {"count", 5000}})["stall_sum"], 2048.0);
  // Random addends: fp32 accumulation, Kahan and pairwise stay near the exact sum; naive does not.
  const json u = calc("summation", {{"format", "bf16"}, {"value", 0.01}, {"count", 100000},
                                    {"distribution", "uniform"}, {"seed", 7}});
  const double exact = u["exact"].get<double>();
  EXPECT_NEAR(exact, 1000.0, 10.0);  // mean 0.01 × 1e5
  EXPECT_LT(u["rel_error_fp32"].get<double>(), 1e-5);
  EXPECT_LT(u["rel_error_kahan"].get<double>(), 1e-2);    // within bf16's epsilon
  EXPECT_LT(u["rel_error_pairwise"].get<double>(), 2e-2);
  EXPECT_GT(u["rel_error_naive"].get<double>(), 0.5);
  EXPECT_GT(u["series"].size(), 50u);
  EXPECT_EQ(u["series"].back()["step"], 100000);
  // The streaming pairwise equals the recursive one at a power of two.
  const json p = calc("summation", {{"format", "fp16"}, {"value", 0.3}, {"count", 4096}, {"distribution", "uniform"}});
  EXPECT_EQ(p["pairwise"], p["pairwise_recursive"]);
  // fp16 overflows past 65504 (exact sum 1e5): reported as null + overflow, never a NaN.
  const json o = calc("summation", {{"format", "fp16"}, {"value", 100.0}, {"count", 1000}});
  EXPECT_TRUE(o["naive"].is_null());
  EXPECT_TRUE(o["overflow"].get<bool>());
  EXPECT_TRUE(o["kahan"].is_null());
}

TEST(NumericsCalc, LossScalingFractions) {
  const json r = calc("loss-scaling", {{"mu_log2", -26.0}, {"sigma_log2", 4.0}, {"samples", 200000}});
  // Sampled vs closed form: binomial standard error ≤ 0.0012 at 2e5 samples; allow 4σ.
  EXPECT_NEAR(r["zero_fraction"].get<double>(), r["model"]["zero"].get<double>(), 0.005);
  EXPECT_NEAR(r["subnormal_fraction"].get<double>(), r["model"]["subnormal"].get<double>(), 0.005);
  // Closed form: P(log2|g| < -25) = Phi((-25 + 26) / 4) = Phi(0.25) = 0.598706.
  EXPECT_NEAR(r["model"]["zero"].get<double>(), 0.598706, 1e-5);
  // Scaling by 2^16 moves the distribution up 16 binades: zero fraction Phi(-15/4) = 8.84e-5.
  const json s = calc("loss-scaling", {{"mu_log2", -26.0}, {"sigma_log2", 4.0}, {"loss_scale", 65536.0}});
  EXPECT_NEAR(s["model"]["zero"].get<double>(), 8.84e-5, 1e-6);
  // Now only P(log2 < -14) = Phi(-1) = 0.1587 stays below the normal range.
  EXPECT_NEAR(s["model"]["subnormal"].get<double>(), 0.158655 - 8.84e-5, 1e-5);
  EXPECT_GT(s["normal_fraction"].get<double>(), 0.83);
  // A scale too large overflows: mean at 2^14 with sigma 4: P(log2 > 16) = Phi(-0.5) ≈ 0.31.
  const json big = calc("loss-scaling", {{"mu_log2", -26.0}, {"sigma_log2", 4.0}, {"loss_scale", std::ldexp(1.0, 40)}});
  EXPECT_NEAR(big["model"]["overflow"].get<double>(), 0.3085, 0.003);
  const json g = calc("loss-scaling", {{"smallest_gradient", 1e-9}});
  EXPECT_EQ(g["required_scale_subnormal"], 64.0);    // 1e-9 × 64 = 6.4e-8 ≥ 2^-24 = 5.96e-8
  EXPECT_EQ(g["required_scale_normal"], 65536.0);    // 1e-9 × 2^16 = 6.55e-5 ≥ 2^-14
  EXPECT_NEAR(mlsys::normal_quantile(0.975), 1.959963985, 1e-8);
  EXPECT_NEAR(mlsys::normal_quantile(1e-10), -6.361340902, 1e-7);
}

TEST(NumericsCalc, DynamicLossScaler) {
  // Gradients far below the range: no overflow, the scale doubles every growth_interval steps.
  const json calm = calc("dynamic-loss-scale", {{"mu_log2", -60.0}, {"sigma_log2", 1.0}, {"steps", 1000},
                                                {"growth_interval", 100}});
  EXPECT_EQ(calm["skipped_steps"], 0);
  EXPECT_EQ(calm["final_scale"], std::ldexp(1.0, 16 + 10));
  // Gradients whose maximum always overflows at 2^16: every step is skipped and the scale halves.
  const json hot = calc("dynamic-loss-scale", {{"mu_log2", 4.0}, {"sigma_log2", 0.5}, {"steps", 5}});
  EXPECT_EQ(hot["skipped_steps"], 5);
  EXPECT_EQ(hot["final_scale"], std::ldexp(1.0, 11));
  // Equilibrium: the scale hovers where max|g|·S is near fp16's max (2^16) and some steps skip.
  const json eq = calc("dynamic-loss-scale", {{"steps", 5000}, {"growth_interval", 50}});
  EXPECT_GT(eq["skipped_steps"].get<long long>(), 0);
  EXPECT_LT(eq["skipped_fraction"].get<double>(), 0.1);
  for (const auto& s : eq["series"]) {
    if (s["overflow"].get<bool>()) {
      EXPECT_GT(s["log2_max_grad"].get<double>() + s["log2_scale"].get<double>(), 15.99);
    }
  }
  // Same seed, same run.
  EXPECT_EQ(calc("dynamic-loss-scale", {{"seed", 3}}), calc("dynamic-loss-scale", {{"seed", 3}}));
}

TEST(NumericsCalc, RecipeBytesAndThroughput) {
  const json r = calc("mixed-precision-recipe", {{"hardware", "h100-sxm"}, {"params", 7e9}});
  EXPECT_EQ(r["total_bytes_per_param"], 16.0);  // 2 + 2 + 4 + 8 (Micikevicius et al. 2018 + Adam)
  EXPECT_EQ(r["model_state_bytes"], 112e9);
  EXPECT_DOUBLE_EQ(r["step_time_s"].get<double>(), 6 * 7e9 * 4194304.0 / r["peak_flops"].get<double>());
  const json f = calc("mixed-precision-recipe", {{"compute_dtype", "fp32"}, {"optimizer", "sgd"}});
  EXPECT_EQ(f["total_bytes_per_param"], 12.0);  // 4 + 4 + 4, no master copy
  EXPECT_EQ(f["speedup_vs_fp32"], 1.0);
  EXPECT_EQ(r["formats"].size(), 5u);
}

TEST(NumericsCalc, BadInputs) {
  EXPECT_EQ(error_field("float", {{"format", "fp12"}, {"value", 1.0}}), "format");
  EXPECT_EQ(error_field("float", {{"format", "fp16"}, {"value", "1.0"}}), "value");
  EXPECT_EQ(error_field("float", {{"value", 1e301}}), "value");
  EXPECT_EQ(error_field("float", {{"value", 1.0}, {"typo", 1}}), "typo");
  EXPECT_EQ(error_field("float", {{"value", 1.0}, {"saturate", 1}}), "saturate");
  EXPECT_FALSE(mlsys::calc_text("float", R"({"value": NaN})").ok);
  EXPECT_EQ(error_field("summation", {{"value", -1.0}}), "value");
  EXPECT_EQ(error_field("summation", {{"value", 0.0}}), "value");
  EXPECT_EQ(error_field("summation", {{"count", 0}}), "count");
  EXPECT_EQ(error_field("summation", {{"count", 1e7}}), "count");
  EXPECT_EQ(error_field("summation", {{"format", "fp8-e4m3"}, {"value", 1000.0}}), "value");
  EXPECT_EQ(error_field("summation", {{"format", "fp16"}, {"value", 1e-12}}), "value");
  EXPECT_EQ(error_field("summation", {{"distribution", "normal"}}), "distribution");
  EXPECT_EQ(error_field("loss-scaling", {{"sigma_log2", 0.0}}), "sigma_log2");
  EXPECT_EQ(error_field("loss-scaling", {{"loss_scale", -1.0}}), "loss_scale");
  EXPECT_EQ(error_field("loss-scaling", {{"samples", 1e9}}), "samples");
  EXPECT_EQ(error_field("loss-scaling", {{"smallest_gradient", 0.0}}), "smallest_gradient");
  EXPECT_EQ(error_field("dynamic-loss-scale", {{"steps", 1e6}}), "steps");
  EXPECT_EQ(error_field("dynamic-loss-scale", {{"backoff_factor", 1.0}}), "backoff_factor");
  EXPECT_EQ(error_field("dynamic-loss-scale", {{"growth_interval", 0}}), "growth_interval");
  EXPECT_EQ(error_field("mixed-precision-recipe", {{"hardware", "h900"}}), "hardware");
  EXPECT_EQ(error_field("mixed-precision-recipe", {{"params", -5.0}}), "params");
  EXPECT_EQ(error_field("mixed-precision-recipe", {{"hardware", "a100-sxm-80gb"}, {"compute_dtype", "fp8-e4m3"}}),
            "compute_dtype");
  EXPECT_EQ(error_field("mixed-precision-recipe", {{"optimizer", "lion"}}), "optimizer");
}

TEST(NumericsExercises, AgreeWithCalculators) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    const auto r = mlsys::make_exercise("numerics-round-value", seed);
    EXPECT_EQ(r.answer, calc("float", r.params)["rounded"].get<double>());
    const auto l = mlsys::make_exercise("numerics-format-limit", seed);
    const json f = calc("float", l.params);
    const std::string t = l.title;
    const char* key = t.rfind("Largest", 0) == 0 ? "max"
                      : t.rfind("Smallest normal", 0) == 0 ? "min_normal"
                      : t.rfind("Smallest subnormal", 0) == 0 ? "min_subnormal" : "epsilon";
    EXPECT_EQ(l.answer, f[key].get<double>()) << t;
    const auto s = mlsys::make_exercise("numerics-sum-stall", seed);
    EXPECT_EQ(s.answer, calc("summation", s.params)["stall_sum"].get<double>());
    const auto g = mlsys::make_exercise("numerics-loss-scale", seed);
    const json lg = calc("loss-scaling", g.params);
    const bool normal = g.prompt.find("smallest normal value") != std::string::npos;
    EXPECT_EQ(g.answer, lg[normal ? "required_scale_normal" : "required_scale_subnormal"].get<double>());
    const auto b = mlsys::make_exercise("numerics-recipe-bytes", seed);
    EXPECT_NEAR(b.answer * 1e9, calc("mixed-precision-recipe", b.params)["model_state_bytes"].get<double>(), 1e-3);
    EXPECT_TRUE(mlsys::check_exercise("numerics-round-value", seed, mlsys::exercise_json(r)["answer"].dump())["correct"]);
  }
}

// Rounding a value to bf16 or fp16 must change it visibly: over seeds 0-199 the question's own
// number and the two neighbouring codes of the answer are rejected, the answer and its 6-digit
// form accepted (the unrounded input used to pass in about a third of the draws).
TEST(NumericsExercises, RoundValueRejectsTheUnroundedInput) {
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const auto e = mlsys::make_exercise("numerics-round-value", seed);
    const double x = e.params["value"].get<double>();
    const auto check = [&](double v) {
      char text[40];
      std::snprintf(text, sizeof text, "%.17g", v);
      return mlsys::check_exercise("numerics-round-value", seed, text)["correct"].get<bool>();
    };
    const auto six = [&](double v) {
      char text[40];
      std::snprintf(text, sizeof text, "%.6g", v);
      return mlsys::check_exercise("numerics-round-value", seed, text)["correct"].get<bool>();
    };
    EXPECT_FALSE(check(x)) << "seed " << seed << ": the input " << x << " is accepted for " << e.answer;
    EXPECT_TRUE(check(e.answer)) << "seed " << seed;
    EXPECT_TRUE(six(e.answer)) << "seed " << seed << ": 6 significant digits of " << e.answer;
    const json n = calc("float", e.params)["neighbours"];  // nearest first: below, above
    ASSERT_GE(n.size(), 2u);
    EXPECT_FALSE(check(n[0].get<double>())) << "seed " << seed << ": neighbour " << n[0];
    EXPECT_FALSE(check(n[1].get<double>())) << "seed " << seed << ": neighbour " << n[1];
  }
}

// A format's limit is one exact value: over seeds 0-199 its 6-digit form passes and the
// neighbouring values of the format do not (with the old 1e-3 tolerance fp16's 65472 passed
// for its max, 65504; IEEE 754 binary16 spacing 32 there).
TEST(NumericsExercises, FormatLimitRejectsNeighbouringValues) {
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    const auto e = mlsys::make_exercise("numerics-format-limit", seed);
    const auto check = [&](double v, const char* fmt) {
      char text[40];
      std::snprintf(text, sizeof text, fmt, v);
      return mlsys::check_exercise("numerics-format-limit", seed, text)["correct"].get<bool>();
    };
    EXPECT_TRUE(check(e.answer, "%.6g")) << "seed " << seed << ": " << e.answer;
    json in = e.params;
    in["value"] = e.answer;
    const json near = calc("float", in)["neighbours"];  // held: a loop over a temporary's member dangles
    ASSERT_FALSE(near.empty()) << "seed " << seed;
    for (const auto& n : near) {
      if (std::fabs(n.get<double>() - e.answer) > 4 * e.answer) continue;  // the nearest few only
      if (n.get<double>() <= 0) continue;
      EXPECT_FALSE(check(n.get<double>(), "%.17g")) << "seed " << seed << " " << e.title << ": neighbour " << n;
    }
  }
}

// Closed-form checks of the numerics reports. bf16 keeps 8 significant bits, so a naive bf16
// running sum of ones stalls at 2^8 = 256 (256 + 1 is a tie that rounds to even, 256); fp32
// accumulation is exact here.
TEST(NumericsReportModels, SummationStallsAtTwoToTheEight) {
  const auto r = mlsys::summation_report("bf16", 1.0, 4096, false, 1);
  EXPECT_EQ(r.exact, 4096.0);
  EXPECT_EQ(r.naive, 256.0);
  EXPECT_EQ(r.fp32, 4096.0);
  EXPECT_EQ(r.count, 4096);
  ASSERT_TRUE(r.rel_error_naive.has_value());
  EXPECT_DOUBLE_EQ(*r.rel_error_naive, (4096.0 - 256.0) / 4096.0);
  EXPECT_FALSE(r.overflow);
}

// Varying addends stall too: uniform on [0, 0.02) in bf16 (8 significant bits) stops once the
// largest addend is at most half an ulp of the sum; at 8 the ulp is 2^(3−7) = 1/16, half of it
// 0.03125 > 0.02, so nothing gets through. Kahan in bf16 is not free of n: its error bound is
// (2u + O(n·u²))·Σ|x| with u = 2^-8 (Higham 1993; Goldberg 1991, Theorem 8), so its error grows
// from 4,096 to 100,000 addends, and a bf16 Kahan sum of ones stalls at 2^16 = 1/u², where its
// compensation, itself bf16, stalls at 256.
TEST(NumericsReportModels, UniformAddendsStallAndKahanGrowsWithN) {
  const auto u = mlsys::summation_report("bf16", 0.01, 4096, true, 1);
  EXPECT_EQ(u.naive, 8.0);
  EXPECT_GT(u.last_growth_step, 0);
  EXPECT_EQ(u.frozen_additions, 4096 - u.last_growth_step);
  EXPECT_FALSE(u.stall_count.has_value());
  const auto big = mlsys::summation_report("bf16", 0.01, 100000, true, 1);
  EXPECT_EQ(big.naive, 8.0);
  // Seeds 1–6 give 0.02–0.31% at 4,096 and 0.77–0.85% at 100,000 addends.
  EXPECT_GT(*big.rel_error_kahan, 2 * *u.rel_error_kahan);
  const auto ones = mlsys::summation_report("bf16", 1, 100000, false, 1);
  EXPECT_EQ(ones.kahan, 65536.0);
  EXPECT_EQ(ones.last_growth_step, 256);
}

// fp16: min_subnormal 2^-24, min_normal 2^-14 (IEEE 754 binary16), so g = 2^-30 needs S = 2^6
// and S = 2^16.
TEST(NumericsReportModels, LossScalingRequiredScales) {
  const auto& f = mlsys::float_format("fp16");
  const auto r = mlsys::loss_scaling_report(f, -26, 4, 1, 2000, 1, 0x1.0p-30);
  ASSERT_TRUE(r.required.has_value());
  EXPECT_EQ(r.required->subnormal, 64.0);
  EXPECT_EQ(r.required->normal, 65536.0);
  EXPECT_NEAR(r.model.zero + r.model.subnormal + r.model.normal + r.model.overflow, 1.0, 1e-9);
  EXPECT_EQ(r.sweep.size(), 51u);  // S = 2^-10 .. 2^40
  EXPECT_EQ(r.log2_max, 15.999295387);  // log2(65504), 12 significant digits
  EXPECT_FALSE(mlsys::loss_scaling_report(f, -26, 4, 1, 2000, 1, std::nullopt).required.has_value());
}

TEST(NumericsReportModels, DynamicScaleAndRecipe) {
  const auto d = mlsys::dynamic_loss_scale_report(mlsys::float_format("fp16"), -20, 3, 1e8, 3000, 65536, 2000, 2,
                                                  0.5, 1);
  EXPECT_EQ(d.steps, 3000);
  EXPECT_NEAR(d.skipped_fraction, static_cast<double>(d.skipped_steps) / 3000, 1e-12);  // 12 digits
  EXPECT_LE(d.series.size(), 1200u);
  // Mixed precision with Adam: 2 (bf16 weights) + 2 (grads) + 4 (master) + 8 (m, v) = 16 B per
  // parameter (Micikevicius et al. 2018); 6·params·tokens FLOPs per step (Kaplan et al. 2020).
  const auto r = mlsys::precision_report("h100-sxm", "bf16", 7e9, 4194304, "adam");
  EXPECT_EQ(r.selected.recipe.total_bytes, 16.0);
  EXPECT_DOUBLE_EQ(r.flops_per_step, 6.0 * 7e9 * 4194304);
  EXPECT_EQ(r.formats.size(), mlsys::precision_recipe_dtypes().size());
  EXPECT_DOUBLE_EQ(*r.selected.step_time_s, r.flops_per_step / *r.selected.peak_flops);
}
