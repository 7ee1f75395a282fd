// Exercises of the fine-tuning-lora lesson: the adapter parameters of LoRA on a model (`lora`'s
// trainable_params), the memory of a QLoRA base in NF4 with double quantization (4.127 bits per
// parameter), LoRA's model-state memory against full fine-tuning's, the error of the best rank-r
// approximation from given singular values (Eckart–Young, `low-rank`), and LoRA's step time
// with 4N FLOPs per token on an accelerator of the hardware table (`lora-step`).
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/finetune/lora.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/transformer/model_config.hpp"

namespace mlsys::exercises {

namespace {

Exercise adapter_params(Rng& rng) {
  const int hidden = rng.pick(std::vector<int>{2048, 2560, 3072, 4096, 5120, 6144, 8192});
  const int layers = rng.pick(std::vector<int>{24, 28, 32, 36, 40, 48, 60, 64, 80});
  const int rank = rng.pick(std::vector<int>{4, 8, 16, 32, 64});
  const bool four = rng.integer(0, 1) == 1;
  ModelConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = hidden / 128;
  c.kv_heads = c.heads;
  c.head_dim = 128;
  c.ffn_hidden = 4.0 * hidden;
  LoraSetup s;
  s.rank = rank;
  s.targets = four ? "qkvo" : "qv";
  const LoraReport r = lora_report(c, 0, s);
  Exercise e;
  e.title = "Trainable parameters of LoRA";
  e.params = {{"layers", layers}, {"hidden", hidden}, {"heads", hidden / 128}, {"kv_heads", hidden / 128},
              {"head_dim", 128}, {"ffn_hidden", 4 * hidden}, {"gated_mlp", false}, {"rank", rank},
              {"targets", s.targets}};
  e.prompt = "A transformer has " + format_int(layers) + " layers of width " + format_int(hidden) +
             " with multi-head attention, so each of W_Q, W_K, W_V and W_O is " + format_int(hidden) + " × " +
             format_int(hidden) + ". LoRA of rank " + format_int(rank) + " is applied to " +
             (four ? "all four attention matrices" : "W_Q and W_V only") +
             " in every layer. How many parameters does training update, in millions?";
  e.unit = "million";
  e.answer = r.trainable_params / 1e6;
  e.rel_tolerance = 0.002;
  e.hint = "Each adapted d_in × d_out matrix gains A (r × d_in) and B (d_out × r): r·(d_in + d_out) parameters.";
  e.solution = "Per matrix: " + format_int(rank) + " × (" + format_int(hidden) + " + " + format_int(hidden) + ") = " +
               format_int(2.0 * rank * hidden) + "; × " + std::string(four ? "4" : "2") + " matrices × " +
               format_int(layers) + " layers = " + format_int(r.trainable_params) + ", that is " +
               format_number(e.answer, 5) + " million.";
  require(e, hidden % 128 == 0, "heads of dimension 128 fill the width");
  require(e, r.trainable_params < 0.05 * model_counts(c).params, "the adapters are a small share of the model");
  reject_mistake(e, r.trainable_params / 2e6, "counted r·d per matrix, only one of A and B");
  return e;
}

Exercise qlora_base(Rng& rng) {
  const double billions = rng.pick(std::vector<double>{6.5, 7, 8, 12.5, 13, 32, 33, 34, 46, 64, 65, 70, 72});
  const bool dq = rng.integer(0, 3) != 0;
  const double bits = base_bits_per_param("nf4", dq, 4096);
  Exercise e;
  e.title = "A 4-bit base model's memory";
  e.params = {{"linear_params", billions * 1e9}, {"double_quant", dq}};
  e.prompt = "QLoRA stores the " + format_number(billions, 3) + " billion parameters of a model's linear layers in "
             "4-bit NormalFloat, in blocks of 64 values that share one absmax constant. " +
             std::string(dq ? "With double quantization each constant is stored in 8 bits, and each group of 256 "
                              "constants shares one more 32-bit constant."
                            : "Each constant is a 32-bit float.") +
             " How many gigabytes (10^9 bytes) do these weights take, constants included?";
  e.unit = "GB";
  e.answer = billions * 1e9 * bits / 8 / 1e9;
  e.rel_tolerance = 0.005;
  e.hint = dq ? "Spread each constant's bits over the values it serves: an 8-bit constant per block of 64 weights, "
                "and one 32-bit constant per 256 of those constants."
             : "Spread the constant's bits over the values it serves: one 32-bit constant per block of 64 weights.";
  e.solution = std::string("Bits per parameter: ") +
               (dq ? "4 + 8/64 + 32/(64 × 256) = 4.127" : "4 + 32/64 = 4.5") + "; " + format_number(billions, 3) +
               " × 10^9 × " + format_number(bits, 4) + " / 8 = " + format_number(e.answer, 4) + " GB.";
  require_fits(e, e.answer * 1e9, hbm_of("h100-sxm"), "the 4-bit base on one H100");
  reject_mistake(e, billions / 2, "counted 4 bits per parameter and left out the constants");
  reject_mistake(e, 2 * billions, "gave the bf16 size, 2 bytes per parameter");
  return e;
}

Exercise lora_states(Rng& rng) {
  double billions = 0, adapter_m = 0, lora_gb = 0;
  // The adapters are drawn as 0.2% to 3% of the model (what LoRA adds at ranks 8 to 64), so that
  // the base alone is at least 1.6% off the answer (three times the tolerance), and the whole fits
  // one H100. A share drawn on a continuous scale keeps different seeds from repeating a prompt.
  for (;;) {
    billions = rng.pick(std::vector<double>{1.3, 2.7, 3, 6.7, 7, 8, 9, 12, 13, 14, 22, 27, 30, 32, 34});
    const double share = 0.002 + 0.028 * rng.uniform();
    const double raw = billions * 1e3 * share;  // millions, rounded to the 3 figures the prompt prints
    const double unit = std::pow(10.0, std::floor(std::log10(raw)) - 2);
    adapter_m = std::round(raw / unit) * unit;
    lora_gb = (2 * billions * 1e9 + 16 * adapter_m * 1e6) / 1e9;
    const double drawn = adapter_m * 1e6 / (billions * 1e9);
    if (drawn >= 0.002 && drawn <= 0.03 && lora_gb * 1e9 <= hbm_of("h100-sxm")) break;
  }
  Exercise e;
  e.title = "Model states of LoRA";
  e.params = {{"params", billions * 1e9}, {"adapter_params", adapter_m * 1e6}};
  e.prompt = article(format_number(billions, 3), true) + format_number(billions, 3) + "-billion-parameter model is fine-tuned with LoRA: the base stays "
             "frozen in bf16, and " + format_number(adapter_m, 3) + " million adapter parameters are trained with "
             "mixed-precision Adam (bf16 weights and gradients, fp32 master copy and two fp32 moments). Leaving "
             "activations out, how many gigabytes (10^9 bytes) of weights, gradients and optimizer states does the "
             "GPU hold?";
  e.unit = "GB";
  e.answer = lora_gb;
  e.rel_tolerance = 0.005;
  e.hint = "The frozen base costs 2 bytes per parameter and nothing else; each trained parameter costs 2 + 2 + 12 = 16 bytes.";
  e.solution = "Full fine-tuning would need 16 × " + format_number(billions, 3) + " = " +
               format_number(16 * billions, 4) + " GB. LoRA: base 2 × " + format_number(billions, 3) + " × 10^9 = " +
               format_number(2 * billions, 4) + " GB; adapters 16 × " + format_number(adapter_m, 3) + " × 10^6 = " +
               format_number(16 * adapter_m / 1e3, 4) + " GB; total " + format_number(e.answer, 4) + " GB.";
  require_fits(e, lora_gb * 1e9, hbm_of("h100-sxm"), "LoRA's model states on one H100");
  require_between(e, adapter_m * 1e6 / (billions * 1e9), 0.002, 0.03, "the adapters' share of the parameters");
  reject_mistake(e, 2 * billions, "counted the frozen base only");
  reject_mistake(e, 16 * billions, "counted full fine-tuning's 16 bytes per parameter");
  return e;
}

Exercise rank_error(Rng& rng) {
  const int n = 6;
  std::vector<double> sigma;
  int rank = 0;
  double total = 0, dropped = 0, linear = 0;
  // Redrawn while the σ themselves, not their squares, would give the same ratio to within twice
  // the tolerance (σ = 20, 8, 4, 2, 1, 1 at rank 3 gives 1/9 both ways), so that mistake is told wrong.
  do {
    sigma.clear();
    double s = rng.integer(8, 20);
    for (int i = 0; i < n; ++i) {
      sigma.push_back(s);
      s = std::max(1.0, std::round(s * (0.35 + 0.4 * rng.uniform())));
    }
    rank = rng.integer(1, 3);
    total = dropped = 0;
    double sum = 0, sum_dropped = 0;
    for (int i = 0; i < n; ++i) {
      const double v = sigma[static_cast<std::size_t>(i)];
      total += v * v;
      sum += v;
      if (i >= rank) dropped += v * v, sum_dropped += v;
    }
    linear = 100 * sum_dropped / sum;
  } while (std::fabs(linear - 100 * std::sqrt(dropped / total)) <= 0.02 * 100 * std::sqrt(dropped / total));
  std::string list, dropped_terms;
  for (int i = 0; i < n; ++i) {
    list += (i ? ", " : "") + format_int(sigma[static_cast<std::size_t>(i)]);
    if (i >= rank) dropped_terms += std::string(i > rank ? " + " : "") + format_int(sigma[static_cast<std::size_t>(i)]) + "²";
  }
  Exercise e;
  e.title = "Error of the best rank-r approximation";
  e.params = {{"singular_values", sigma}, {"rank", rank}};
  e.prompt = "A weight update ΔW has singular values " + list + " (all the others are 0). What is the relative "
             "Frobenius error ‖ΔW − ΔW_r‖_F / ‖ΔW‖_F of the best rank-" + format_int(rank) +
             " approximation, in percent?";
  e.unit = "%";
  e.answer = 100 * std::sqrt(dropped / total);
  e.rel_tolerance = 0.01;
  e.hint = "Eckart–Young: the best rank-r approximation keeps the r largest singular values; its error is the root "
           "of the sum of the squares of the others, and ‖ΔW‖_F is the root of the sum of all squares.";
  e.solution = "Dropped: √(" + dropped_terms + ") = " + format_number(std::sqrt(dropped), 4) + "; ‖ΔW‖_F = √" +
               format_int(total) + " = " + format_number(std::sqrt(total), 4) + "; ratio " +
               format_number(e.answer, 4) + "%.";
  bool sorted = true;
  for (int i = 1; i < n; ++i) sorted = sorted && sigma[static_cast<std::size_t>(i)] <= sigma[static_cast<std::size_t>(i - 1)];
  require(e, sorted && sigma.back() >= 1, "singular values are positive and in decreasing order");
  require(e, rank < n, "the rank leaves some singular values out");
  reject_mistake(e, 100 * dropped / total, "left out the square root");
  reject_mistake(e, linear, "summed the singular values instead of their squares");
  return e;
}

Exercise step_time(Rng& rng) {
  std::string hw;
  const Accelerator* a = nullptr;
  double billions = 0;
  do {  // the frozen bf16 base must fit the one GPU
    hw = rng.pick(std::vector<std::string>{"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"});
    a = find_accelerator(hw);
    billions = rng.pick(std::vector<double>{1.5, 3, 7, 8, 13, 14, 32, 70});
  } while (2 * billions * 1e9 > a->hbm_bytes);
  const double peak = *a->peak_for("bf16");
  const int tokens = rng.pick(std::vector<int>{8192, 16384, 32768, 65536, 131072});
  const double mfu = rng.pick(std::vector<double>{0.3, 0.35, 0.4, 0.45, 0.5});
  Exercise e;
  e.title = "Time of a LoRA step";
  e.params = {{"hardware", hw}, {"params", billions * 1e9}, {"tokens", tokens}, {"mfu", mfu}};
  e.answer = 4 * billions * 1e9 * tokens / (peak * mfu);
  e.prompt = "LoRA fine-tunes " + article(format_number(billions, 3)) + format_number(billions, 3) + "-billion-parameter model on one " +
             a->name + " (" + format_number(peak / 1e12, 4) + " dense bf16 TFLOP/s) at " +
             format_number(100 * mfu, 2) + "% of that peak. A step processes " + format_int(tokens) +
             " tokens. Counting only the frozen base's matmuls (ignore attention over the context and the small "
             "adapters), how many seconds does a step take?";
  e.unit = "s";
  e.rel_tolerance = 0.01;
  e.hint = "The frozen base runs its forward pass (2N FLOPs per token) and the backward pass through the activations "
           "(2N), but computes no weight gradients: 4N, not 6N.";
  e.solution = "4 × " + format_number(billions, 3) + " × 10^9 × " + format_int(tokens) + " = " +
               prose(4 * billions * 1e9 * tokens, 4) + " FLOP; / (" + format_number(peak / 1e12, 4) + " × 10^12 × " +
               format_number(mfu, 2) + ") = " + format_number(e.answer, 4) + " s.";
  require_fits(e, 2 * billions * 1e9, a->hbm_bytes, "the frozen bf16 base on the " + hw);
  require_between(e, e.answer, 0.01, 600, "the step's length in seconds");
  reject_mistake(e, 1.5 * e.answer, "counted full training's 6N; the frozen base computes no weight gradients");
  return e;
}

}  // namespace

void add_lora_exercises(std::vector<Generator>& out) {
  out.push_back({"fl-adapter-params", adapter_params});
  out.push_back({"fl-qlora-base", qlora_base});
  out.push_back({"fl-lora-states", lora_states});
  out.push_back({"fl-rank-error", rank_error});
  out.push_back({"fl-step-time", step_time});
}

}  // namespace mlsys::exercises
