// Fine-tuning-lora lesson: `lora` (adapter parameters r·(d_in + d_out) per adapted matrix, memory
// of full fine-tuning, LoRA and QLoRA), `low-rank` (one-sided Jacobi SVD against a naive power
// iteration with deflation; Eckart–Young) and `lora-step` (4N FLOPs per token for a frozen base).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/finetune/lora.hpp"
#include "mlsys/finetune/low_rank.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/interconnect/links.hpp"

using mlsys::json;

namespace {
double num(const json& j, const char* k) { return j.at(k).get<double>(); }
}  // namespace

// Hu et al. 2021 (arXiv:2106.09685) on GPT-3 175B (d_model 12,288, 96 layers): Table 5's budget
// of "18M" trainable parameters is r = 8 on one attention matrix, r = 4 on two or r = 2 on all
// four, each 2·96·12,288·8 = 18,874,368; Table 4's "LoRA 37.7M" is W_Q and W_V at r = 8 and
// "LoRA 4.7M" the same at r = 1 (|Θ| = 2 · L_LoRA · d_model · r, section 5.2 and Table 4's notes).
TEST(Lora, Gpt3TrainableParametersAsHuEtAlReport) {
  const auto qv8 = mlsys::calc("lora", {{"model", "gpt-3-175b"}, {"rank", 8}, {"targets", "qv"}});
  EXPECT_DOUBLE_EQ(num(qv8, "trainable_params"), 37748736);  // "37.7M"
  EXPECT_DOUBLE_EQ(num(mlsys::calc("lora", {{"model", "gpt-3-175b"}, {"rank", 1}, {"targets", "qv"}}), "trainable_params"),
                   4718592);  // "4.7M"
  EXPECT_DOUBLE_EQ(num(mlsys::calc("lora", {{"model", "gpt-3-175b"}, {"rank", 4}, {"targets", "qv"}}), "trainable_params"),
                   18874368);  // "18M"
  EXPECT_DOUBLE_EQ(num(mlsys::calc("lora", {{"model", "gpt-3-175b"}, {"rank", 2}, {"targets", "qkvo"}}), "trainable_params"),
                   18874368);
  EXPECT_DOUBLE_EQ(num(qv8, "adapted_matrices"), 192);
  // About 10,000 times fewer trainable parameters than the 175B model at r = 4 on W_Q, W_V.
  EXPECT_GT(1 / num(mlsys::calc("lora", {{"model", "gpt-3-175b"}, {"rank", 4}, {"targets", "qv"}}), "trainable_fraction"), 9000);
}

// Hugging Face PEFT's print_trainable_parameters for Llama 2 7B with r = 16 on every linear layer
// of the blocks (q, k, v, o, gate, up, down): 39,976,960 trainable of 6,778,392,576 in all.
TEST(Lora, Llama2AllLinearRank16) {
  const auto r = mlsys::calc("lora", {{"model", "llama-2-7b"}, {"rank", 16}, {"targets", "all-linear"}});
  EXPECT_DOUBLE_EQ(num(r, "trainable_params"), 39976960);
  EXPECT_DOUBLE_EQ(num(r, "params") + num(r, "trainable_params"), 6778392576);
}

// Dettmers et al. 2023 (arXiv:2305.14314) section 3: NF4 in blocks of 64 with an fp32 absmax
// costs 32/64 = 0.5 bit per parameter; double quantization (8-bit constants, blocks of 256)
// 8/64 + 32/(64·256) = 0.127, so 4.127 bits.
TEST(Lora, QloraBitsPerParameter) {
  EXPECT_DOUBLE_EQ(mlsys::base_bits_per_param("nf4", false, 4096), 4.5);
  EXPECT_NEAR(mlsys::base_bits_per_param("nf4", true, 4096), 4.127, 5e-4);
  EXPECT_DOUBLE_EQ(mlsys::base_bits_per_param("nf4", true, 4096), 4 + 8.0 / 64 + 32.0 / 16384);
  EXPECT_DOUBLE_EQ(mlsys::base_bits_per_param("bf16", true, 4096), 16);
  const auto r = mlsys::calc("lora", json::object());
  EXPECT_NEAR(num(r, "bits_per_base_param"), 4.127, 5e-4);
  EXPECT_DOUBLE_EQ(num(r.at("qlora_breakdown"), "quantized_weights_bytes"),
                   num(r, "quantized_params") * num(r, "bits_per_base_param") / 8);
}

TEST(Lora, BreakdownsAddUpAndMatchTrainingMemory) {
  const auto r = mlsys::calc("lora", {{"model", "llama-2-7b"}, {"paged_optimizer", true}});
  for (const char* k : {"full_finetune_breakdown", "lora_breakdown", "qlora_breakdown"}) {
    const auto& b = r.at(k);
    EXPECT_NEAR(num(b, "total_bytes"),
                num(b, "frozen_weights_bytes") + num(b, "quantized_weights_bytes") + num(b, "trainable_weights_bytes") +
                    num(b, "grads_bytes") + num(b, "optimizer_bytes") + num(b, "activations_bytes"),
                1.0);
    EXPECT_DOUBLE_EQ(num(b, "pageable_bytes"), num(b, "optimizer_bytes"));
  }
  // Full fine-tuning's model states are training-memory's 16 bytes per parameter.
  const double p = num(r, "params");
  const auto& f = r.at("full_finetune_breakdown");
  EXPECT_DOUBLE_EQ(num(f, "trainable_weights_bytes") + num(f, "grads_bytes") + num(f, "optimizer_bytes"), 16 * p);
  const auto tm = mlsys::calc("training-memory", {{"model", "llama-2-7b"}, {"seq", 4096}, {"flash_attention", true}});
  EXPECT_DOUBLE_EQ(num(f, "activations_bytes"), num(tm, "activations_bytes"));
  EXPECT_DOUBLE_EQ(num(r, "full_finetune_bytes") - num(f, "activations_bytes"), num(tm, "model_states_bytes"));
  // LoRA: the 16-bit base plus 16 bytes per adapter parameter.
  const auto& l = r.at("lora_breakdown");
  EXPECT_DOUBLE_EQ(num(l, "frozen_weights_bytes"), 2 * p);
  EXPECT_DOUBLE_EQ(num(l, "optimizer_bytes"), 12 * num(r, "trainable_params"));
  EXPECT_LT(num(r, "qlora_bytes"), num(r, "lora_bytes"));
  EXPECT_LT(num(r, "lora_bytes"), num(r, "full_finetune_bytes"));
}

TEST(Lora, BadInputsNameTheirField) {
  const auto field = [](const json& in) {
    try {
      mlsys::calc("lora", in);
    } catch (const mlsys::InputError& e) {
      return e.field;
    }
    return std::string("none");
  };
  EXPECT_EQ(field({{"targets", "mlp"}}), "targets");
  EXPECT_EQ(field({{"base_dtype", "fp8"}}), "base_dtype");
  EXPECT_EQ(field({{"rank", 0}}), "rank");
  EXPECT_EQ(field({{"layers", 2}, {"hidden", 64}, {"heads", 4}, {"rank", 100}}), "rank");
  EXPECT_EQ(field({{"optimizer", "lion"}}), "optimizer");
  EXPECT_EQ(field({{"host_link_Bps", 0}}), "host_link_Bps");
  EXPECT_EQ(field({{"batch_adapters", 0}}), "batch_adapters");
}

// Serving many adapters on one base (S-LoRA, arXiv:2311.03285; Punica, arXiv:2310.18547) and
// a paged optimizer's traffic (QLoRA section 3; bitsandbytes' cudaMallocManaged pages, fetched
// with cudaMemPrefetchAsync): closed forms over the host link, PCIe 5.0 x16 at 63.0 GB/s each
// way by default, the interconnect table's pcie5-x16 row.
TEST(Lora, ServingAndPagingOverTheHostLink) {
  const auto r = mlsys::calc("lora", {{"model", "llama-2-7b"}, {"seq", 2048}});
  const double link = mlsys::find_interconnect_link("pcie5-x16").bandwidth_Bps;
  EXPECT_DOUBLE_EQ(mlsys::LoraSetup{}.host_link_Bps, link);
  const double file = 2.0 * 39976960;  // the 16-bit adapters of Llama2AllLinearRank16
  EXPECT_DOUBLE_EQ(num(r, "adapter_file_bytes"), file);
  EXPECT_NEAR(num(r, "adapter_load_s"), file / link, 1e-15);
  EXPECT_NEAR(num(r, "adapters_per_base_copy"), 6738415616.0 / 39976960, 1e-9);  // 168.6
  EXPECT_DOUBLE_EQ(num(r, "batch_adapter_bytes"), 32 * file);
  EXPECT_NEAR(num(r, "batch_adapter_read_ratio"), 32 * file / (2 * 6738415616.0), 1e-12);
  EXPECT_NEAR(num(r, "optimizer_page_s"), 12 * 39976960 / link, 1e-15);
  // Every input moves what it should: a slower link, more adapters per batch.
  const auto slow = mlsys::calc("lora", {{"model", "llama-2-7b"}, {"host_link_Bps", link / 2}, {"batch_adapters", 64}});
  EXPECT_NEAR(num(slow, "adapter_load_s"), 2 * num(r, "adapter_load_s"), 1e-15);
  EXPECT_NEAR(num(slow, "batch_adapter_read_ratio"), 2 * num(r, "batch_adapter_read_ratio"), 1e-12);
}

// The executed SVD: reconstruction, orthogonality and the planted spectrum.
TEST(LowRank, JacobiSvdReconstructsTheMatrix) {
  for (auto [rows, cols] : {std::pair{40LL, 24LL}, std::pair{24LL, 40LL}, std::pair{30LL, 30LL}}) {
    const auto m = mlsys::low_rank_matrix(rows, cols, 6, 0.6, 0.01, 3);
    const auto s = mlsys::svd_jacobi(m);
    ASSERT_EQ(static_cast<long long>(s.sigma.size()), std::min(rows, cols));
    EXPECT_NEAR(mlsys::truncation_error(m, s, std::min(rows, cols)), 0, 1e-12);
    for (std::size_t i = 1; i < s.sigma.size(); ++i) EXPECT_GE(s.sigma[i - 1], s.sigma[i]);
    for (long long a = 0; a < 3; ++a)
      for (long long b = 0; b < 3; ++b) {
        double du = 0, dv = 0;
        for (long long i = 0; i < s.u.rows; ++i) du += s.u.at(i, a) * s.u.at(i, b);
        for (long long i = 0; i < s.v.rows; ++i) dv += s.v.at(i, a) * s.v.at(i, b);
        EXPECT_NEAR(du, a == b ? 1 : 0, 1e-12);
        EXPECT_NEAR(dv, a == b ? 1 : 0, 1e-12);
      }
  }
  // Without noise the planted values come back: 1, 0.6, 0.36, ... and then zeros.
  const auto s = mlsys::svd_jacobi(mlsys::low_rank_matrix(32, 20, 5, 0.6, 0, 7));
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(s.sigma[static_cast<std::size_t>(i)], std::pow(0.6, i), 1e-12);
  EXPECT_NEAR(s.sigma[5], 0, 1e-12);
}

// Eckart–Young on executed SVDs against the naive reference: the top singular values agree, and
// the error of the truncated SVD (formed entry by entry) equals both √(Σ dropped σ²) and the
// residual left by deflating the top r power-iteration triplets.
TEST(LowRank, EckartYoungAgainstPowerIterationWithDeflation) {
  const auto m = mlsys::low_rank_matrix(48, 32, 8, 0.7, 0.01, 11);
  const auto s = mlsys::svd_jacobi(m);
  for (int r : {1, 2, 4, 6}) {
    const auto p = mlsys::svd_power_deflation(m, r, 2000);
    for (int i = 0; i < r; ++i) EXPECT_NEAR(p.sigma[static_cast<std::size_t>(i)], s.sigma[static_cast<std::size_t>(i)], 1e-9);
    double dropped = 0;
    for (std::size_t i = static_cast<std::size_t>(r); i < s.sigma.size(); ++i) dropped += s.sigma[i] * s.sigma[i];
    EXPECT_NEAR(mlsys::truncation_error(m, s, r), std::sqrt(dropped), 1e-10);
    EXPECT_NEAR(p.residual_frobenius, std::sqrt(dropped), 1e-8);
  }
  const auto rep = mlsys::low_rank(96, 64, 8, 0.7, 0.02, 4, 1);
  EXPECT_NEAR(rep.error_frobenius, rep.eckart_young_error, 1e-10);
  EXPECT_NEAR(rep.by_rank[4].relative_error, rep.relative_error, 1e-10);
  EXPECT_DOUBLE_EQ(rep.by_rank[0].relative_error, 1.0 * rep.by_rank[0].relative_error);
  EXPECT_NEAR(rep.by_rank[0].relative_error, 1, 1e-12);
  EXPECT_NEAR(rep.by_rank.back().relative_error, 0, 1e-12);
  // Any other rank-4 matrix does worse: the truncation of a perturbed SVD.
  auto worse = mlsys::svd_jacobi(mlsys::low_rank_matrix(96, 64, 8, 0.7, 0.02, 1));
  worse.sigma[0] *= 1.01;
  EXPECT_GT(mlsys::truncation_error(mlsys::low_rank_matrix(96, 64, 8, 0.7, 0.02, 1), worse, 4), rep.error_frobenius);
}

TEST(LowRank, BadInputsNameTheirField) {
  EXPECT_THROW(mlsys::low_rank(300, 10, 2, 0.5, 0, 1, 1), mlsys::InputError);
  try {
    mlsys::calc("low-rank", {{"rows", 10}, {"cols", 8}, {"true_rank", 9}});
    FAIL();
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "true_rank");
  }
  try {
    mlsys::calc("low-rank", {{"rows", 10}, {"cols", 8}, {"rank", 9}, {"true_rank", 2}});
    FAIL();
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "rank");
  }
}

// A frozen base costs 4N per token (forward 2N, activation gradients 2N) instead of 6N.
TEST(LoraStep, FrozenBaseCostsFourNotSixN) {
  const auto r = mlsys::calc("lora-step", {{"model", "llama-2-7b"}, {"seq", 2048}});
  const auto& rows = r.at("rows");
  const double n = num(r, "params_flops"), att = num(r, "attention_flops_per_token"), a = num(r, "adapter_params");
  EXPECT_DOUBLE_EQ(num(rows[0], "flops_per_token"), 6 * n + att);
  EXPECT_DOUBLE_EQ(num(rows[1], "flops_per_token"), 4 * n + att + 6 * a);
  EXPECT_DOUBLE_EQ(num(rows[2], "flops_per_token"), num(rows[1], "flops_per_token"));
  EXPECT_GT(num(rows[2], "dequant_s"), 0);
  EXPECT_DOUBLE_EQ(num(rows[0], "compute_s"), num(rows[0], "flops_per_step") / (989.4e12 * 0.4));
  EXPECT_NEAR(num(r, "lora_speedup"), num(rows[0], "time_s") / num(rows[1], "time_s"), 1e-12);
}

TEST(LoraExercises, AnswersAreTheCalculatorsOnTheDrawnInputs) {
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    const auto e = mlsys::make_exercise("fl-adapter-params", seed);
    EXPECT_DOUBLE_EQ(e.answer * 1e6, num(mlsys::calc("lora", e.params), "trainable_params")) << seed;
    const auto q = mlsys::make_exercise("fl-qlora-base", seed);
    EXPECT_NEAR(q.answer,
                q.params.at("linear_params").get<double>() *
                    mlsys::base_bits_per_param("nf4", q.params.at("double_quant").get<bool>(), 4096) / 8e9,
                1e-9);
    const auto k = mlsys::make_exercise("fl-rank-error", seed);
    double total = 0, dropped = 0;
    const auto sig = k.params.at("singular_values").get<std::vector<double>>();
    for (std::size_t i = 0; i < sig.size(); ++i) {
      total += sig[i] * sig[i];
      if (static_cast<long long>(i) >= k.params.at("rank").get<long long>()) dropped += sig[i] * sig[i];
    }
    EXPECT_NEAR(k.answer, 100 * std::sqrt(dropped / total), 1e-9);
  }
}

// fl-lora-states: the base alone (2 bytes per parameter, no adapter states) is wrong on every
// seed (the adapters are at least 1.6% of the answer, the tolerance 0.5%), the answer is right,
// and draws do not repeat.
TEST(LoraExercises, LoraStatesRejectsTheBaseAlone) {
  std::set<std::string> prompts;
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    const auto e = mlsys::make_exercise("fl-lora-states", seed);
    const double n = e.params.at("params").get<double>(), a = e.params.at("adapter_params").get<double>();
    EXPECT_NEAR(e.answer, (2 * n + 16 * a) / 1e9, 1e-9) << seed;
    const double base = 2 * n / 1e9;
    EXPECT_FALSE(mlsys::check_exercise("fl-lora-states", seed, mlsys::format_number(base, 6) + " GB").at("correct").get<bool>())
        << seed << ": " << e.prompt;
    EXPECT_TRUE(mlsys::check_exercise("fl-lora-states", seed, mlsys::format_number(e.answer, 6)).at("correct").get<bool>())
        << seed;
    prompts.insert(e.prompt);
  }
  EXPECT_GE(prompts.size(), 280u);
}

// fl-rank-error: summing the singular values themselves instead of their squares is wrong on
// every seed. Seed 23 once drew σ = 20, 8, 4, 2, 1, 1 at rank 3, where (2 + 1 + 1)/36 and
// √(6/486) are both 1/9, so that mistake was judged right.
TEST(LoraExercises, RankErrorRejectsTheUnsquaredRatio) {
  for (std::uint32_t seed = 0; seed < 500; ++seed) {
    const auto e = mlsys::make_exercise("fl-rank-error", seed);
    const auto sig = e.params.at("singular_values").get<std::vector<double>>();
    const auto rank = static_cast<std::size_t>(e.params.at("rank").get<long long>());
    double sum = 0, dropped = 0;
    for (std::size_t i = 0; i < sig.size(); ++i) sum += sig[i], dropped += i >= rank ? sig[i] : 0;
    EXPECT_FALSE(mlsys::check_exercise("fl-rank-error", seed, mlsys::format_number(100 * dropped / sum, 6)).at("correct").get<bool>())
        << seed << ": " << e.prompt;
    EXPECT_TRUE(mlsys::check_exercise("fl-rank-error", seed, mlsys::format_number(e.answer, 6)).at("correct").get<bool>()) << seed;
  }
}
