// Training memory beyond the GPT baseline: activations that follow the model's MLP (width f,
// gated or not), Korthikanti et al.'s itemisation summing to its totals, the practitioners'
// options (fp32 gradient buffers, 8-bit Adam, ZeRO-Offload) and the step timeline with
// persistent gradient buffers, whose peak is the training-memory total.
#include <gtest/gtest.h>

#include "mlsys/api/calc.hpp"
#include "mlsys/memory/training_memory.hpp"

using mlsys::json;

namespace {
double num(const json& j, const char* k) { return j.at(k).get<double>(); }
const json kLlama7b = {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"ffn_hidden", 11008}, {"vocab", 32000},
                       {"gated_mlp", true}, {"tied_embeddings", false}, {"seq", 4096}};
json with(json in, const char* key, const json& value) {
  in[key] = value;
  return in;
}
}  // namespace

TEST(ActivationsMlp, KorthikantiItemsSumToTheirTotals) {
  // Korthikanti et al. 2022 (arXiv:2205.05198) section 4.1, per s·b·h: attention block =
  // QKV input 2 + Q and K 4 + V 2 + output-projection input 2 + dropout mask 1 = 11 (plus
  // 5·a·s²·b); MLP = first-matmul input 2 + GeLU input 8 + second-matmul input 8 + mask 1 = 19;
  // two layer norms 4; total 34.
  const double attention = 2 + 4 + 2 + 2 + 1, mlp = 2 + 8 + 8 + 1, norms = 2 + 2;
  EXPECT_EQ(attention, 11);
  EXPECT_EQ(mlp, 19);
  EXPECT_EQ(attention + mlp + norms, 34);
  // The MLP's width-dependent part of a 4h GeLU MLP is its 16 (8 + 8).
  EXPECT_DOUBLE_EQ(mlsys::mlp_activation_units(4096, 4 * 4096, false), 16);
}

TEST(ActivationsMlp, NonGatedFourHIsKorthikanti) {
  // f = 4h (the default ffn_hidden) non-gated: 34·s·b·h + 5·a·s²·b; with t = 4 Table 2's
  // s·b·h·(10 + 24/t + 5·a·s/(h·t)).
  const double s = 2048, b = 2, h = 2048, a = 16, sbh = s * b * h;
  const json in = {{"layers", 4}, {"hidden", h}, {"heads", a}, {"seq", s}, {"micro_batch", b}};
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", in), "activations_per_layer_bytes"), 34 * sbh + 5 * a * s * s * b);
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", with(in, "tp", 4)), "activations_per_layer_bytes"),
                   sbh * (10 + 24.0 / 4 + 5 * a * s / (h * 4)));
}

TEST(ActivationsMlp, GatedLlama2ByHand) {
  // Llama 2 7B, one sequence of 4,096 tokens: h = 4096, a = 32, SwiGLU of f = 11,008. By hand,
  // in bytes: attention 11·sbh + 5·a·s²·b, norms 4·sbh, MLP input 2·sbh + dropout mask sbh +
  // gate output 2·sbf + up output 2·sbf + their product (the down projection's input) 2·sbf.
  const double s = 4096, b = 1, h = 4096, a = 32, f = 11008, sbh = s * b * h, sbf = s * b * f;
  const double by_hand = 11 * sbh + 5 * a * s * s * b + 4 * sbh + 3 * sbh + 6 * sbf;
  const json r = mlsys::calc("training-memory", kLlama7b);
  EXPECT_DOUBLE_EQ(num(r, "activations_per_layer_bytes"), by_hand);
  EXPECT_DOUBLE_EQ(num(r, "activations_per_layer_bytes"), sbh * (34.125 + 160));
  // Tensor parallelism splits only the 8 of Q, K, V, output input and the MLP's 6·f/h.
  const json tp = mlsys::calc("training-memory", with(kLlama7b, "tp", 4));
  EXPECT_DOUBLE_EQ(num(tp, "activations_per_layer_bytes"), sbh * (10 + (8 + 6 * f / h) / 4) + 5 * a * s * s * b / 4);
  // FlashAttention and selective recomputation drop exactly the 5·a·s²·b, and sequence
  // parallelism then divides the rest by t.
  const json flash = mlsys::calc("training-memory", with(kLlama7b, "flash_attention", true));
  EXPECT_DOUBLE_EQ(num(flash, "activations_per_layer_bytes"), by_hand - 5 * a * s * s * b);
  const json sel = mlsys::calc("training-memory", with(with(with(kLlama7b, "recompute", "selective"), "tp", 4),
                                                       "sequence_parallel", true));
  EXPECT_DOUBLE_EQ(num(sel, "activations_per_layer_bytes"), (by_hand - 5 * a * s * s * b) / 4);
  // A non-gated MLP of width 2h stores 2·(2·sbf) = 8·sbh beyond its input and mask.
  const json narrow = {{"layers", 2}, {"hidden", 1024}, {"heads", 8}, {"ffn_hidden", 2048}, {"seq", 512}};
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", narrow), "activations_per_layer_bytes"),
                   512.0 * 1024 * (18 + 8 + 5.0 * 8 * 512 / 1024));
}

TEST(ActivationsMlp, CheckpointingFollowsTheMlp) {
  const double s = 4096, h = 4096, sbh = s * h;
  const json none = mlsys::calc("activation-checkpointing", with(with(kLlama7b, "strategy", "none"), "flash_attention", true));
  EXPECT_DOUBLE_EQ(num(none, "peak_bytes"), 32 * sbh * 34.125);
  const json full = mlsys::calc("activation-checkpointing", with(kLlama7b, "strategy", "full"));
  EXPECT_DOUBLE_EQ(num(full, "stored_bytes"), 32 * 2 * sbh);
  EXPECT_DOUBLE_EQ(num(full, "peak_bytes"), 32 * 2 * sbh + sbh * (34.125 + 160));
  // FlashAttention already re-makes the scores in its backward: selective adds nothing.
  const json sel = mlsys::calc("activation-checkpointing", with(with(kLlama7b, "strategy", "selective"), "flash_attention", true));
  EXPECT_DOUBLE_EQ(num(sel, "recompute_flops"), 0);
  EXPECT_DOUBLE_EQ(num(sel, "peak_bytes"), num(none, "peak_bytes"));
}

TEST(ModelStatesOptions, Fp32GradsMatchMegatronDistributedOptimizer) {
  // Megatron Core developer guide, "Distributed Optimizer": bf16 parameters with fp32
  // gradients take 18 bytes per parameter, and 6 + 12/d with the optimizer state sharded over
  // d data-parallel ranks (our ZeRO stage 1).
  const json base = {{"params", 1e9}, {"fp32_grads", true}};
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", base), "model_states_bytes"), 18e9);
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", with(with(base, "zero_stage", 1), "dp", 8)), "model_states_bytes"),
                   (6 + 12.0 / 8) * 1e9);
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", base), "grads_bytes"), 4e9);
}

TEST(ModelStatesOptions, EightBitAdamAndOffload) {
  // 8-bit Adam (Dettmers et al. 2022): momentum and variance 1 byte each, the fp32 master copy
  // stays: 2 + 2 + (4 + 2) = 10 bytes per parameter; pure fp32: 4 + 4 + 2.
  const json p = {{"params", 1e9}};
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", with(p, "optimizer", "adam-8bit")), "optimizer_bytes"), 6e9);
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", with(p, "optimizer", "adam-8bit")), "model_states_bytes"), 10e9);
  EXPECT_DOUBLE_EQ(
      num(mlsys::calc("training-memory", with(with(p, "optimizer", "adam-8bit"), "dtype", "fp32")), "model_states_bytes"),
      10e9);
  // ZeRO-Offload (Ren et al. 2021): the GPU keeps the 16-bit weights; 2 + 12 go to the CPU.
  const json off = mlsys::calc("training-memory", with(p, "cpu_offload", true));
  EXPECT_DOUBLE_EQ(num(off, "model_states_bytes"), 2e9);
  EXPECT_DOUBLE_EQ(num(off, "offloaded_bytes"), 14e9);
  EXPECT_DOUBLE_EQ(num(off, "grads_bytes") + num(off, "optimizer_bytes"), 0);
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", p), "offloaded_bytes"), 0);
}

TEST(TimelineGrads, PersistentBuffersPeakAtTheTrainingMemoryTotal) {
  const json in = with(kLlama7b, "flash_attention", true);
  const json tm = mlsys::calc("training-memory", in);
  // Buffers kept all step (DDP, Megatron-LM, DeepSpeed): the peak is all four states at once.
  const json kept = mlsys::calc("training-memory-timeline", with(in, "persistent_grads", true));
  EXPECT_NEAR(num(kept, "peak_bytes"), num(tm, "total_bytes"), 1e-9 * num(tm, "total_bytes"));
  EXPECT_DOUBLE_EQ(num(kept["points"].front(), "grads_bytes"), num(tm, "grads_bytes"));
  // set_to_none: no gradients before backward, so the end of the forward pass is 2 bytes per
  // parameter lower than the calculator's total (here the peak).
  const json freed = mlsys::calc("training-memory-timeline", in);
  EXPECT_NEAR(num(freed, "peak_bytes"), num(tm, "total_bytes") - num(tm, "grads_bytes"), 1e-9 * num(tm, "total_bytes"));
  EXPECT_DOUBLE_EQ(num(freed["points"].front(), "grads_bytes"), 0);
}
