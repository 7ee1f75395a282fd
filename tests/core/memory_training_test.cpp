// Training memory: ZeRO's published per-device numbers, Korthikanti et al.'s activation
// formulas and stated savings, the step timeline, checkpointing strategies, exercises against
// the calculators, and bad inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/memory/training_memory.hpp"

using mlsys::json;

namespace {
double num(const json& j, const char* k) { return j.at(k).get<double>(); }
}  // namespace

TEST(ModelStates, ZeroFigure1SevenPointFiveB) {
  // Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054), Figure 1: Ψ = 7.5B, N_d = 64, K = 12:
  // baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB per device.
  const double expected[] = {120, 31.4, 16.6, 1.9};
  for (int stage = 0; stage <= 3; ++stage) {
    const json r = mlsys::calc("training-memory", {{"params", 7.5e9}, {"dp", 64}, {"zero_stage", stage}});
    EXPECT_NEAR(num(r, "model_states_bytes") / 1e9, expected[stage], 0.05) << "stage " << stage;
  }
  const json r = mlsys::calc("training-memory", {{"params", 7.5e9}, {"dp", 64}, {"zero_stage", 0}});
  EXPECT_DOUBLE_EQ(num(r, "weights_bytes"), 15e9);
  EXPECT_DOUBLE_EQ(num(r, "grads_bytes"), 15e9);
  EXPECT_DOUBLE_EQ(num(r, "optimizer_bytes"), 90e9);
}

TEST(ModelStates, OptimizersAndPrecision) {
  EXPECT_DOUBLE_EQ(mlsys::state_bytes_per_param(2, false).optimizer, 8);  // fp32 master + momentum
  EXPECT_DOUBLE_EQ(mlsys::state_bytes_per_param(4, true).optimizer, 8);   // momentum + variance
  EXPECT_DOUBLE_EQ(mlsys::state_bytes_per_param(4, false).optimizer, 4);  // momentum
  const json sgd = mlsys::calc("training-memory", {{"params", 1e9}, {"optimizer", "sgd"}});
  EXPECT_DOUBLE_EQ(num(sgd, "model_states_bytes"), 12e9);
  const json fp32 = mlsys::calc("training-memory", {{"params", 1e9}, {"dtype", "fp32"}});
  EXPECT_DOUBLE_EQ(num(fp32, "model_states_bytes"), 16e9);
}

TEST(ModelStates, TensorAndPipelineSplit) {
  // 8 layers, tp 2, pp 4: the first stage holds 2 layers and the embedding, split over 2 GPUs.
  const json base = {{"layers", 8}, {"hidden", 1024}, {"heads", 16}, {"vocab", 32000}};
  json in = base;
  in["tp"] = 2;
  in["pp"] = 4;
  const json r = mlsys::calc("training-memory", in);
  const json t = mlsys::calc("transformer", base);
  EXPECT_DOUBLE_EQ(num(r, "params_per_gpu"), (2 * num(t, "params_per_layer") + 32000.0 * 1024) / 2);
  EXPECT_DOUBLE_EQ(num(r, "model_states_bytes"), 16 * num(r, "params_per_gpu"));
}

TEST(Activations, KorthikantiTable2PerLayer) {
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8, sbh = s * b * h;
  using mlsys::Recompute;
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, 1, false, Recompute::None, false),
                   sbh * (34 + 5 * a * s / h));
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, t, false, Recompute::None, false),
                   sbh * (10 + 24 / t + 5 * a * s / (h * t)));
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, t, true, Recompute::None, false),
                   sbh * (34 / t + 5 * a * s / (h * t)));
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, t, false, Recompute::Selective, false),
                   sbh * (10 + 24 / t));
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, t, true, Recompute::Selective, false), sbh * 34 / t);
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, 1, false, Recompute::Full, false), 2 * sbh);
  // FlashAttention never stores the scores: same as selective.
  EXPECT_DOUBLE_EQ(mlsys::activation_bytes_per_layer(s, b, h, a, t, true, Recompute::None, true), sbh * 34 / t);
}

TEST(Activations, Gpt3SavingsAsThePaperStates) {
  // Korthikanti et al. section 4.2: for GPT-3 (a = 96, s = 2048, h = 12288) 5as/h = 80, so the
  // attention term outweighs the 34 of everything else; section 5 / abstract: sequence
  // parallelism plus selective recomputation cut activation memory about 5x against the tensor-
  // parallel baseline (t = 8).
  EXPECT_DOUBLE_EQ(5.0 * 96 * 2048 / 12288, 80);
  const json base = {{"layers", 96}, {"hidden", 12288}, {"heads", 96}, {"seq", 2048}, {"vocab", 50257}, {"tp", 8}};
  json sp_sel = base;
  sp_sel["sequence_parallel"] = true;
  sp_sel["recompute"] = "selective";
  const double tp_only = num(mlsys::calc("training-memory", base), "activations_per_layer_bytes");
  const double best = num(mlsys::calc("training-memory", sp_sel), "activations_per_layer_bytes");
  EXPECT_NEAR(tp_only / best, 23.0 / 4.25, 1e-12);  // (10 + 3 + 10) / (34/8) = 5.4
  EXPECT_GT(tp_only / best, 5);
  // Sequence parallelism alone and selective recomputation alone each save roughly half.
  json sp = base;
  sp["sequence_parallel"] = true;
  json sel = base;
  sel["recompute"] = "selective";
  EXPECT_NEAR(num(mlsys::calc("training-memory", sp), "activations_per_layer_bytes") / tp_only, 14.25 / 23, 1e-12);
  EXPECT_NEAR(num(mlsys::calc("training-memory", sel), "activations_per_layer_bytes") / tp_only, 13.0 / 23, 1e-12);
}

TEST(Activations, FirstPipelineStageHoldsAllLayersWorth) {
  // Under 1F1B the first stage keeps pp micro-batches of L/pp layers: L layers' worth in total.
  json in = {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"seq", 4096}, {"micro_batch", 2}};
  const double one = num(mlsys::calc("training-memory", in), "activations_layers_bytes");
  in["pp"] = 4;
  const json r = mlsys::calc("training-memory", in);
  EXPECT_DOUBLE_EQ(num(r, "activations_layers_bytes"), one);
  EXPECT_DOUBLE_EQ(num(r, "inflight_microbatches"), 4);
  EXPECT_DOUBLE_EQ(num(r, "layers_per_stage"), 8);
  // The embedding dropout mask: s·b·h bytes per in-flight micro-batch.
  EXPECT_DOUBLE_EQ(num(r, "activations_embedding_bytes"), 4 * 4096.0 * 2 * 4096);
}

TEST(Fits, AgainstHbm) {
  // Llama 2 7B with Adam on one H100 (80 GB): 16 bytes × 6.74B = 108 GB, does not fit.
  const json llama = {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"ffn_hidden", 11008}, {"vocab", 32000},
                      {"gated_mlp", true}, {"tied_embeddings", false}, {"hardware", "h100-sxm"}};
  const json r = mlsys::calc("training-memory", llama);
  EXPECT_FALSE(r["fits"].get<bool>());
  EXPECT_NEAR(num(r, "model_states_bytes"), 16 * 6738415616.0, 1);
  json sharded = llama;
  sharded["zero_stage"] = 3;
  sharded["dp"] = 8;
  sharded["recompute"] = "full";
  const json s = mlsys::calc("training-memory", sharded);
  EXPECT_TRUE(s["fits"].get<bool>());
  EXPECT_DOUBLE_EQ(num(s, "total_bytes"), num(s, "model_states_bytes") + num(s, "activations_bytes"));
  EXPECT_FALSE(mlsys::calc("training-memory", {{"params", 7e9}}).contains("fits"));
}

TEST(Timeline, BuildsAndReleases) {
  const json in = {{"layers", 4}, {"hidden", 1024}, {"heads", 16}, {"seq", 1024}, {"micro_batch", 2}};
  const json tl = mlsys::calc("training-memory-timeline", in);
  const json tm = mlsys::calc("training-memory", in);
  const auto& pts = tl["points"];
  EXPECT_EQ(pts.front()["phase"], "start");
  EXPECT_DOUBLE_EQ(num(pts.front(), "activations_bytes"), 0);
  EXPECT_DOUBLE_EQ(num(pts.front(), "grads_bytes"), 0);
  // The peak is at the end of the forward pass: every layer's activations plus the output layer.
  EXPECT_DOUBLE_EQ(num(tl, "peak_bytes"), num(tm, "weights_bytes") + num(tm, "optimizer_bytes") + num(tm, "activations_bytes"));
  // At the optimizer step the gradients are complete and the activations gone.
  for (const auto& p : pts)
    if (p["phase"] == "optimizer") {
      EXPECT_NEAR(num(p, "grads_bytes"), num(tm, "grads_bytes"), 1e-6 * num(tm, "grads_bytes"));
      EXPECT_DOUBLE_EQ(num(p, "activations_bytes"), 0);
    }
  EXPECT_DOUBLE_EQ(num(pts.back(), "grads_bytes"), 0);
  // Activations rise monotonically during the forward pass.
  for (std::size_t i = 1; i <= 4; ++i) EXPECT_GT(num(pts[i], "activations_bytes"), num(pts[i - 1], "activations_bytes"));
  json full = in;
  full["recompute"] = "full";
  bool saw_recompute = false;
  const json full_tl = mlsys::calc("training-memory-timeline", full);
  for (const auto& p : full_tl["points"]) saw_recompute |= p["phase"] == "recompute";
  EXPECT_TRUE(saw_recompute);
}

TEST(Checkpointing, StrategiesTradeMemoryForCompute) {
  const json base = {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"seq", 2048}};
  auto run = [&](const char* strategy, int k = 4) {
    json in = base;
    in["strategy"] = strategy;
    in["k"] = k;
    return mlsys::calc("activation-checkpointing", in);
  };
  const double sbh = 2048.0 * 4096, full_layer = sbh * (34 + 5.0 * 32 * 2048 / 4096);
  EXPECT_DOUBLE_EQ(num(run("none"), "stored_bytes"), 32 * full_layer);
  EXPECT_DOUBLE_EQ(num(run("none"), "recompute_flops"), 0);
  EXPECT_DOUBLE_EQ(num(run("full"), "stored_bytes"), 32 * 2 * sbh);
  EXPECT_DOUBLE_EQ(num(run("full"), "peak_bytes"), 32 * 2 * sbh + full_layer);
  EXPECT_DOUBLE_EQ(num(run("every-k", 1), "peak_bytes"), num(run("full"), "peak_bytes"));
  EXPECT_DOUBLE_EQ(num(run("every-k", 4), "peak_bytes"), 8 * 2 * sbh + 4 * full_layer);
  // Recomputing every layer's forward costs a third of the layers' training FLOPs.
  EXPECT_NEAR(num(run("full"), "recompute_fraction"), 1.0 / 3, 1e-12);
  // Selective recomputation re-runs only QKᵀ and the weighted sum: 4·s·h per token of 72h² + 12sh.
  // fraction = 4·s·h / (3·(2·(12h² + 2h) + 4·s·h)) = 4s / (3·(24h + 4 + 4s)).
  EXPECT_NEAR(num(run("selective"), "recompute_fraction"), 4.0 * 2048 / (3 * (24.0 * 4096 + 4 + 4 * 2048)), 1e-12);
  EXPECT_LT(num(run("selective"), "stored_bytes"), num(run("none"), "stored_bytes"));
  // Chen et al. 2016: the peak L/k·2sbh + k·(full layer) falls and then rises with k.
  EXPECT_LT(num(run("every-k", 2), "peak_bytes"), num(run("every-k", 32), "peak_bytes"));
}

// The layer-activations prompt asks for the count the lesson derives without spelling out its
// formula (the hint gives it), no prompt writes powers with a caret, and the draws vary widely
// enough that New numbers rarely repeats a problem.
TEST(MemoryExercises, PromptsAskWithoutTheFormulaAndVary) {
  std::set<std::string> layer, states;
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    const auto la = mlsys::make_exercise("memory-layer-activations", seed);
    EXPECT_EQ(la.prompt.find("18 + m"), std::string::npos) << la.prompt;
    EXPECT_NE(la.hint.find("18 + m + 5·a·s/h"), std::string::npos) << la.hint;
    layer.insert(la.prompt);
    const auto ms = mlsys::make_exercise("memory-model-states", seed);
    states.insert(ms.prompt);
    for (const auto* e : {&la, &ms}) EXPECT_EQ(e->prompt.find('^'), std::string::npos) << e->prompt;
  }
  EXPECT_GE(layer.size(), 125u);  // the old draws had 120 prompts in all
  EXPECT_GE(states.size(), 103u);  // and 100
}

TEST(MemoryExercises, AnswersAgreeWithCalculators) {
  for (std::uint32_t seed = 0; seed < 25; ++seed) {
    const auto ms = mlsys::make_exercise("memory-model-states", seed);
    EXPECT_NEAR(ms.answer * 1e9, num(mlsys::calc("training-memory", ms.params), "model_states_bytes"), 1e-6 * ms.answer * 1e9);

    const auto la = mlsys::make_exercise("memory-layer-activations", seed);
    EXPECT_NEAR(la.answer * 1e6, num(mlsys::calc("training-memory", la.params), "activations_per_layer_bytes"), 1);

    const auto tf = mlsys::make_exercise("memory-training-flops", seed);
    EXPECT_NEAR(tf.answer * 1e9, num(mlsys::calc("transformer", tf.params), "flops_per_token_training"), 1e-9 * tf.answer * 1e9);

    const auto rc = mlsys::make_exercise("memory-recompute-flops", seed);
    EXPECT_NEAR(rc.answer * 1e12, num(mlsys::calc("activation-checkpointing", rc.params), "recompute_flops"), 1e-9 * rc.answer * 1e12);

    // The largest micro-batch fits by the calculator's whole total (states, every layer, the
    // embedding's mask and the output layer's logits and loss); one more does not.
    const auto mb = mlsys::make_exercise("memory-max-micro-batch", seed);
    json in = mb.params;
    in["micro_batch"] = mb.answer;
    const json r = mlsys::calc("training-memory", in);
    EXPECT_LE(num(r, "total_bytes"), num(r, "hbm_bytes")) << seed;
    in["micro_batch"] = mb.answer + 1;
    const json r2 = mlsys::calc("training-memory", in);
    EXPECT_GT(num(r2, "total_bytes"), num(r2, "hbm_bytes")) << seed;
  }
}

TEST(TrainingMemory, BadInputs) {
  const auto field_of = [](const char* name, const json& in) {
    try {
      mlsys::calc(name, in);
    } catch (const mlsys::InputError& e) {
      return e.field;
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(field_of("training-memory", {{"params", -1}}), "params");
  EXPECT_EQ(field_of("training-memory", {{"params", 0}}), "params");
  EXPECT_EQ(field_of("training-memory", {{"params", 1e300}}), "params");
  EXPECT_EQ(field_of("training-memory", {{"zero_stage", 4}}), "zero_stage");
  EXPECT_EQ(field_of("training-memory", {{"dp", 0}}), "dp");
  EXPECT_EQ(field_of("training-memory", {{"tp", 3}}), "tp");  // 32 heads
  EXPECT_EQ(field_of("training-memory", {{"pp", 64}}), "pp");  // 32 layers
  EXPECT_EQ(field_of("training-memory", {{"dtype", "fp8-e4m3"}}), "dtype");
  EXPECT_EQ(field_of("training-memory", {{"optimizer", "lion"}}), "optimizer");
  EXPECT_EQ(field_of("training-memory", {{"recompute", "some"}}), "recompute");
  EXPECT_EQ(field_of("training-memory", {{"hardware", "h900"}}), "hardware");
  EXPECT_EQ(field_of("training-memory", {{"micro_batch", "2"}}), "micro_batch");
  EXPECT_EQ(field_of("training-memory", {{"sequence_parallel", "yes"}}), "sequence_parallel");
  EXPECT_EQ(field_of("training-memory", {{"zero", 1}}), "zero");
  EXPECT_EQ(field_of("training-memory-timeline", {{"layers", 1000}}), "layers");
  EXPECT_EQ(field_of("training-memory-timeline", {{"pp", 1000}}), "pp");  // more stages than layers
  EXPECT_EQ(field_of("activation-checkpointing", {{"strategy", "half"}}), "strategy");
  EXPECT_EQ(field_of("activation-checkpointing", {{"k", 0}}), "k");
  EXPECT_EQ(field_of("activation-checkpointing", {{"tp", 5}}), "tp");
}

TEST(MemoryModels, StepPeakAndHbmFit) {
  // The step's peak is the largest total of the timeline, first reached at the end of the
  // forward pass (no recomputation: every layer's activations held).
  mlsys::ModelConfig c;
  c.layers = 4, c.hidden = 1024, c.heads = 16, c.head_dim = 64, c.kv_heads = 16, c.ffn_hidden = 4096, c.seq = 1024;
  const mlsys::TrainingSetup st;
  const auto step = mlsys::memory_step(c, 0, st);
  double peak = 0;
  for (const auto& p : step.points) peak = std::max(peak, p.total_bytes);
  EXPECT_DOUBLE_EQ(step.peak_bytes, peak);
  EXPECT_EQ(step.peak_phase, "forward");
  // 60 GiB in 80 GiB fits with 20 GiB left; 90 GiB does not.
  const double gib = 1024.0 * 1024 * 1024;
  const auto fit = mlsys::hbm_fit(60 * gib, 80 * gib);
  EXPECT_TRUE(fit.fits);
  EXPECT_DOUBLE_EQ(fit.headroom_bytes, 20 * gib);
  EXPECT_FALSE(mlsys::hbm_fit(90 * gib, 80 * gib).fits);
  EXPECT_DOUBLE_EQ(mlsys::hbm_fit(90 * gib, 80 * gib).headroom_bytes, -10 * gib);
}
