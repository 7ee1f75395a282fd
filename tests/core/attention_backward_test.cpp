// Attention backward: FlashAttention's recomputation from the logsumexp (Algorithm 4 of Dao
// et al. 2022 with FlashAttention-2's single statistic) gives the gradients of the standard
// pass that reads the stored P (their Algorithm 3), both match fp64 and finite differences;
// counted HBM traffic equals the closed forms; the FLOP accounting matches FlashAttention-2's
// (backward = 2.5 × forward); the `attention-backward-memory` calculator and its bad inputs.
#include <gtest/gtest.h>

#include "mlsys/foundations/units.hpp"
#include "mlsys/exercises/exercise.hpp"

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/kernels/attention_backward.hpp"
#include "mlsys/kernels/flash_attention.hpp"

using mlsys::calc;
using mlsys::json;

namespace {
double max_diff(const std::vector<float>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}
std::string error_field(const json& input) {
  try {
    calc("attention-backward-memory", input);
  } catch (const mlsys::InputError& e) {
    return e.field;
  }
  ADD_FAILURE() << "accepted " << input.dump();
  return "<accepted>";
}
}  // namespace

TEST(AttentionBackward, RecomputeMatchesStoredPAndFp64) {
  // Tolerance 1e-5: fp32 accumulation over <= 200 keys of gradient terms of size <= ~1.
  struct Case {
    int n, d;
    long long m;
  };
  for (const Case c : {Case{1, 1, 4}, Case{9, 4, 20}, Case{64, 16, 1024}, Case{130, 32, 2048}, Case{200, 8, 100000}}) {
    const auto in = mlsys::make_attention_inputs(c.n, c.d, 7);
    const auto d_o = mlsys::make_output_grad(c.n, c.d, 7);
    const auto naive = mlsys::attention_naive(in, false);
    const auto fa = mlsys::flash_attention_forward(in, c.m, false, false);
    const auto standard = mlsys::attention_backward_standard(in, naive.p, d_o);
    const auto flash = mlsys::attention_backward_flash(in, fa.o, mlsys::logsumexp_from(fa.m, fa.l), d_o, c.m);
    const auto ref = mlsys::attention_backward_fp64(in, d_o);
    EXPECT_LT(max_diff(flash.dq, ref.dq), 1e-5) << c.n;
    EXPECT_LT(max_diff(flash.dk, ref.dk), 1e-5) << c.n;
    EXPECT_LT(max_diff(flash.dv, ref.dv), 1e-5) << c.n;
    EXPECT_LT(max_diff(standard.dq, ref.dq), 1e-5) << c.n;
    EXPECT_LT(max_diff(standard.dk, ref.dk), 1e-5) << c.n;
    EXPECT_LT(max_diff(standard.dv, ref.dv), 1e-5) << c.n;
    // Counted traffic equals the closed forms exactly.
    const auto std_io = mlsys::standard_backward_io(c.n, c.d);
    const auto fl_io = mlsys::flash_backward_io(c.n, c.d, c.m);
    EXPECT_EQ(standard.hbm.read_elements, std_io.read_elements);
    EXPECT_EQ(standard.hbm.write_elements, std_io.write_elements);
    EXPECT_EQ(flash.hbm.read_elements, fl_io.read_elements);
    EXPECT_EQ(flash.hbm.write_elements, fl_io.write_elements);
    EXPECT_EQ(standard.hbm.total(), 7.0 * c.n * c.n + 8.0 * c.n * c.d);
    // 8N²d for the standard pass; 10N²d with the recomputed S (FlashAttention-2 paper: the
    // backward pass has 2.5 times the forward's 4N²d matmul FLOPs).
    EXPECT_EQ(standard.matmul_flops, 8.0 * c.n * c.n * c.d);
    EXPECT_EQ(flash.matmul_flops, 10.0 * c.n * c.n * c.d);
    EXPECT_EQ(flash.matmul_flops / fa.counted.matmul_flops, 2.5);
  }
}

TEST(AttentionBackward, Fp64GradientsMatchFiniteDifferences) {
  // loss = Σ O ∘ dO; central differences in double with step 1e-4 (error O(h²) ≈ 1e-8).
  const int n = 5, d = 3;
  const auto in = mlsys::make_attention_inputs(n, d, 21);
  const auto d_o = mlsys::make_output_grad(n, d, 21);
  const auto g = mlsys::attention_backward_fp64(in, d_o);
  const auto loss = [&](const mlsys::AttentionInputs& x) {
    const auto o = mlsys::attention_reference_fp64(x, false);
    double l = 0;
    for (std::size_t i = 0; i < o.size(); ++i) l += o[i] * d_o[i];
    return l;
  };
  const float h = 1.0f / 1024;  // exactly representable, so x ± h is exact in float
  for (int which = 0; which < 3; ++which) {
    for (int idx = 0; idx < n * d; ++idx) {
      auto plus = in, minus = in;
      auto* p = which == 0 ? &plus.q : which == 1 ? &plus.k : &plus.v;
      auto* m = which == 0 ? &minus.q : which == 1 ? &minus.k : &minus.v;
      (*p)[idx] += h;
      (*m)[idx] -= h;
      const double numeric = (loss(plus) - loss(minus)) / (2.0 * h);
      const double analytic = (which == 0 ? g.dq : which == 1 ? g.dk : g.dv)[idx];
      EXPECT_NEAR(numeric, analytic, 1e-5) << which << " " << idx;
    }
  }
}

TEST(AttentionBackward, MemoryModel) {
  // N = 8192, d = 128, 32 heads, bf16: P is 8192²·2·32 = 4 GiB per layer; L is 1 MiB.
  const auto m = mlsys::attention_backward_memory(8192, 128, 32, 1, 1, 2);
  EXPECT_DOUBLE_EQ(m.store_p_bytes, 8192.0 * 8192 * 2 * 32);
  EXPECT_DOUBLE_EQ(m.logsumexp_bytes, 8192.0 * 4 * 32);
  EXPECT_DOUBLE_EQ(m.memory_ratio, 8192.0 * 2 / 4);
  EXPECT_DOUBLE_EQ(m.extra_flops, 2.0 * 8192 * 8192 * 128 * 32);
  EXPECT_DOUBLE_EQ(m.extra_fraction, 2.0 / 12.0);
  EXPECT_DOUBLE_EQ(m.backward_flops_recompute / m.forward_flops, 2.5);
  EXPECT_THROW(mlsys::attention_backward_memory(0, 1, 1, 1, 1, 2), std::invalid_argument);
}

TEST(AttentionBackwardCalc, Outputs) {
  const json r = calc("attention-backward-memory", {{"seq", 128}, {"head_dim", 16}, {"heads", 4}, {"layers", 2}});
  EXPECT_TRUE(r["executed"]);
  EXPECT_LT(r["grad_max_abs_diff"].get<double>(), 1e-5);
  EXPECT_DOUBLE_EQ(r["store_p_bytes"].get<double>(), 128.0 * 128 * 2 * 4 * 2);
  EXPECT_FALSE(calc("attention-backward-memory", {{"seq", 129}, {"head_dim", 24}})["executed"]);  // 129²·32 > 2^19
  // The counted per-head traffic times heads × layers is the calculator's closed form.
  EXPECT_DOUBLE_EQ(r["counted_flash_backward_hbm_bytes_per_head"].get<double>() * 8,
                   r["flash_backward_hbm_bytes"].get<double>());
  EXPECT_DOUBLE_EQ(r["counted_standard_backward_hbm_bytes_per_head"].get<double>() * 8,
                   r["standard_backward_hbm_bytes"].get<double>());
  // On the H100, recomputing S costs less time than reading the stored P once (d < ridge).
  const json h = calc("attention-backward-memory", {{"seq", 8192}, {"hardware", "h100-sxm"}});
  EXPECT_FALSE(h["executed"]);
  EXPECT_LT(h["recompute_time_s"].get<double>(), h["read_p_time_s"].get<double>());
  EXPECT_NEAR(h["recompute_time_s"].get<double>() / h["read_p_time_s"].get<double>(), 128.0 * 3.35e12 / 989.4e12, 1e-9);
  EXPECT_DOUBLE_EQ(h["hbm_capacity_bytes"].get<double>(), 80.0 * 1024 * 1024 * 1024);
}

TEST(AttentionBackwardCalc, BadInputs) {
  EXPECT_EQ(error_field({{"seq", 0}}), "seq");
  EXPECT_EQ(error_field({{"heads", -1}}), "heads");
  EXPECT_EQ(error_field({{"layers", 1e6}}), "layers");
  EXPECT_EQ(error_field({{"batch", 0.5}}), "batch");
  EXPECT_EQ(error_field({{"dtype", "bf17"}}), "dtype");
  EXPECT_EQ(error_field({{"hardware", "x"}}), "hardware");
  EXPECT_EQ(error_field({{"hardware", "a100-sxm-80gb"}, {"dtype", "fp8-e4m3"}}), "dtype");
  EXPECT_EQ(error_field({{"sram_bytes", 300}, {"head_dim", 128}}), "sram_bytes");
  EXPECT_EQ(error_field({{"peak_flops", 0}}), "peak_flops");
  EXPECT_EQ(error_field({{"seq_len", 4}}), "seq_len");
  EXPECT_FALSE(mlsys::calc_text("attention-backward-memory", "{\"seq\": NaN}").ok);
}

// Standard attention's traffic: the answer that forgets the 4Nd terms (only 4N²) is wrong, even
// where they are 0.26% of the total (N = 24,576, d = 64).
TEST(AttentionExercises, StandardHbmRejectsTheN2OnlyCount) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    const auto e = mlsys::make_exercise("attention-standard-hbm", seed);
    const double n = e.params["seq"].get<double>();
    const double s = e.params["dtype"] == "fp32" ? 4 : 2;
    const double n2_only = 4 * n * n * s / 1e6;
    EXPECT_FALSE(mlsys::check_exercise("attention-standard-hbm", seed, mlsys::format_number(n2_only, 6))["correct"])
        << seed << ": " << n2_only << " for " << e.answer;
    EXPECT_TRUE(mlsys::check_exercise("attention-standard-hbm", seed, mlsys::format_number(e.answer, 5))["correct"]) << seed;
  }
}

TEST(AttentionExercises, AnswersAgreeWithTheCalculators) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    {
      const auto e = mlsys::make_exercise("attention-online-rescale", seed);
      EXPECT_NEAR(calc("softmax-merge", e.params)["l"].get<double>(), e.answer, 1e-12 * e.answer) << seed;
    }
    {
      const auto e = mlsys::make_exercise("attention-standard-hbm", seed);
      EXPECT_NEAR(calc("flash-attention", e.params)["standard_hbm_bytes"].get<double>() / 1e6, e.answer, 1e-9 * e.answer);
    }
    {
      const auto e = mlsys::make_exercise("attention-flash-passes", seed);
      EXPECT_EQ(calc("flash-attention", e.params)["col_blocks"].get<double>(), e.answer) << seed;
    }
    {
      const auto e = mlsys::make_exercise("attention-backward-saving", seed);
      EXPECT_NEAR(calc("attention-backward-memory", e.params)["saved_bytes"].get<double>() / 1e9, e.answer, 1e-9 * e.answer);
    }
    {
      const auto e = mlsys::make_exercise("attention-lse-merge", seed);
      EXPECT_NEAR(calc("softmax-merge", e.params)["o"].get<double>(), e.answer, 1e-12) << seed;
    }
    {
      const auto e = mlsys::make_exercise("attention-split-count", seed);
      // The answer is the engine's saturating split count: at s the first wave runs at the full
      // HBM bandwidth, at s − 1 it does not.
      const json r = calc("split-kv", e.params);
      EXPECT_EQ(r["saturating_splits"].get<double>(), e.answer) << seed;
      EXPECT_EQ(r["fraction_of_peak"].get<double>(), 1) << seed;
      json fewer = e.params;
      fewer["splits"] = e.answer - 1;
      if (e.answer > 1) {
        EXPECT_LT(calc("split-kv", fewer)["fraction_of_peak"].get<double>(), 1) << seed;
      }
    }
  }
}

// The split count uses FlashAttention-2's split-KV tiles (flash_fwd_launch_template.h,
// run_mha_fwd_splitkv_dispatch: kBlockN = 256 for d <= 64, 128 for d <= 128), so a tile of
// K or V is 32 KiB of bf16 at both head dimensions the exercise draws.
TEST(AttentionExercises, SplitCountTilesAreFlashAttention2s) {
  for (std::uint32_t seed = 0; seed < 60; ++seed) {
    const auto e = mlsys::make_exercise("attention-split-count", seed);
    const int d = e.params["head_dim"].get<int>();
    const int keys = e.params["tile_keys"].get<int>();
    EXPECT_EQ(keys, d <= 64 ? 256 : 128) << seed;
    EXPECT_EQ(keys * d * 2, 32768) << seed;
    EXPECT_NE(e.prompt.find("one tile of " + std::to_string(keys) + " keys"), std::string::npos) << e.prompt;
  }
}

// The lesson's report: the standard backward moves 7N² + 8Nd elements per head (reads 5N² + 5Nd,
// writes 2N² + 3Nd; Dao et al. 2022, Algorithm 3), the stored P is N² elements per head, and the
// times divide by the machine's rates.
TEST(AttentionBackwardReportModel, TrafficAndTimes) {
  const double N = 4096, d = 128, s = 2, copies = 2 * 3 * 4;
  mlsys::BackwardQuery q{4096, 128, 4, 3, 2, 196608, "bf16", mlsys::BackwardMachine{1e15, 2e12, 8e10}, true, 1};
  const auto r = mlsys::attention_backward_report(q);
  EXPECT_FALSE(r.executed);  // N > 512
  EXPECT_FALSE(r.run.has_value());
  EXPECT_DOUBLE_EQ(r.standard_backward_hbm_bytes, (7 * N * N + 8 * N * d) * s * copies);
  EXPECT_DOUBLE_EQ(r.memory.store_p_bytes, copies * N * N * s);
  ASSERT_TRUE(r.recompute_time_s && r.read_p_time_s && r.store_p_fraction_of_hbm);
  EXPECT_DOUBLE_EQ(*r.recompute_time_s, r.memory.extra_flops / 1e15);
  EXPECT_DOUBLE_EQ(*r.read_p_time_s, r.memory.store_p_bytes / 2e12);
  EXPECT_DOUBLE_EQ(*r.store_p_fraction_of_hbm, r.memory.store_p_bytes / 8e10);

  q.seq = 64, q.head_dim = 16, q.machine.reset();
  const auto small = mlsys::attention_backward_report(q);
  EXPECT_TRUE(small.executed);
  EXPECT_FALSE(small.recompute_time_s.has_value());
  ASSERT_TRUE(small.run.has_value());
  EXPECT_LT(small.run->grad_max_abs_diff, 1e-4);
}

// The online-rescale exercise teaches the rescale e^(m − m') of the old sum: every draw's block
// raises the running maximum (before, most draws kept it and the step was skipped).
TEST(AttentionExercises, OnlineRescaleAlwaysRaisesTheMaximum) {
  for (std::uint32_t seed = 0; seed < 2000; ++seed) {
    const auto e = mlsys::make_exercise("attention-online-rescale", seed);
    EXPECT_GT(e.params["m_b"].get<double>(), e.params["m_a"].get<double>()) << seed;
    const double no_rescale_l = e.params["l_a"].get<double>() + e.params["l_b"].get<double>() *
        std::exp(e.params["m_b"].get<double>() - std::max(e.params["m_a"].get<double>(), e.params["m_b"].get<double>()));
    EXPECT_FALSE(mlsys::check_exercise("attention-online-rescale", seed, mlsys::format_number(no_rescale_l, 6))["correct"])
        << seed << ": " << no_rescale_l << " for " << e.answer;
  }
}
