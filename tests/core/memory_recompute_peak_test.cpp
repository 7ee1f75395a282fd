// One memory model for the training-memory total, the step timeline and the lesson's M(k):
// with recomputation the backward pass re-makes one layer on top of the stored activations,
// and the "Does it fit?" verdict is the timeline's peak (gradient buffers kept) against HBM,
// pipeline parallelism included.
#include <gtest/gtest.h>

#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/memory/training_memory.hpp"

using mlsys::json;

namespace {
double num(const json& j, const char* k) { return j.at(k).get<double>(); }
const json kLlama7b = {{"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"ffn_hidden", 11008}, {"vocab", 32000},
                       {"gated_mlp", true}, {"tied_embeddings", false}, {"seq", 4096}};
json merged(json in, const json& more) {
  for (auto it = more.begin(); it != more.end(); ++it) in[it.key()] = it.value();
  return in;
}
}  // namespace

TEST(RecomputePeak, FullRecomputeCountsTheRematerializedLayer) {
  // Llama 2 7B, s = 4096, b = 16, ZeRO-3 over 8, no FlashAttention, full recomputation: the
  // stored layer inputs (32 · 2sbh) plus the embedding mask plus one whole layer re-made,
  // sbh·(18 + 6f/h + 5as/h), exceed the end of the forward pass with its logits.
  const json in = merged(kLlama7b, {{"micro_batch", 16}, {"zero_stage", 3}, {"dp", 8}, {"recompute", "full"}});
  const json r = mlsys::calc("training-memory", merged(in, {{"hardware", "h100-sxm"}}));
  const double sbh = 4096.0 * 16 * 4096;
  const double layer = sbh * (18 + 6 * 11008.0 / 4096 + 5 * 32 * 4096.0 / 4096);
  EXPECT_DOUBLE_EQ(num(r, "recompute_bytes"), layer);
  EXPECT_NEAR(num(r, "activations_bytes"), 32 * 2 * sbh + sbh + layer, 1e-6 * layer);
  // The old count, stored activations only, said 40.4 GB; the step peaks at 83.0 GB.
  EXPECT_GT(num(r, "total_bytes"), 80e9);
  const json step = mlsys::calc("training-memory-timeline", merged(in, {{"persistent_grads", true}}));
  EXPECT_NEAR(num(step, "peak_bytes"), num(r, "total_bytes"), 1e-9 * num(r, "total_bytes"));
  EXPECT_EQ(step.at("peak_phase").get<std::string>(), "recompute");
  // The same count as activation-checkpointing's full strategy (M(1)) plus the embedding mask.
  const json ck = mlsys::calc("activation-checkpointing", merged(kLlama7b, {{"micro_batch", 16}, {"strategy", "full"}}));
  EXPECT_NEAR(num(r, "activations_bytes"), num(ck, "peak_bytes") + sbh, 1e-9 * num(ck, "peak_bytes"));
}

TEST(RecomputePeak, LargestMicroBatchThatFitsMatchesTheTimeline) {
  // The largest b whose training-memory verdict is "fits" is the largest whose timeline peak
  // is within the HBM; with the re-made layer left out it was 43 instead of 16.
  const double hbm = num(mlsys::calc("hardware", {{"id", "h100-sxm"}}), "hbm_bytes");
  int best_total = 0, best_peak = 0;
  for (int b = 1; b <= 64; ++b) {
    const json in = merged(kLlama7b, {{"micro_batch", b}, {"zero_stage", 3}, {"dp", 8}, {"recompute", "full"}});
    if (mlsys::calc("training-memory", merged(in, {{"hardware", "h100-sxm"}})).at("fits").get<bool>()) best_total = b;
    if (num(mlsys::calc("training-memory-timeline", merged(in, {{"persistent_grads", true}})), "peak_bytes") <= hbm)
      best_peak = b;
  }
  EXPECT_EQ(best_total, best_peak);
  EXPECT_LT(best_total, 43);
}

TEST(RecomputePeak, FitVerdictEqualsTimelinePeakAgainstHbm) {
  // Over recomputation, FlashAttention, tensor, sequence and pipeline parallelism, ZeRO and
  // micro-batch: the training-memory total is the timeline's peak with gradient buffers kept,
  // and "fits" is that peak against the HBM.
  const double hbm = num(mlsys::calc("hardware", {{"id", "h100-sxm"}}), "hbm_bytes");
  int checked = 0, fits = 0, overs = 0;
  for (const char* rc : {"none", "selective", "full"})
    for (bool flash : {false, true})
      for (int tp : {1, 4})
        for (bool sp : {false, true})
          for (int pp : {1, 2, 8})
            for (int zero : {0, 3})
              for (int b : {1, 8}) {
                if (sp && tp == 1) continue;
                const json in = merged(kLlama7b, {{"micro_batch", b}, {"zero_stage", zero}, {"dp", 8}, {"tp", tp},
                                                  {"pp", pp}, {"sequence_parallel", sp}, {"recompute", rc},
                                                  {"flash_attention", flash}});
                const json tm = mlsys::calc("training-memory", merged(in, {{"hardware", "h100-sxm"}}));
                const json step = mlsys::calc("training-memory-timeline", merged(in, {{"persistent_grads", true}}));
                const double total = num(tm, "total_bytes"), peak = num(step, "peak_bytes");
                EXPECT_NEAR(peak, total, 1e-9 * total) << rc << " flash " << flash << " tp " << tp << " sp " << sp
                                                       << " pp " << pp << " zero " << zero << " b " << b;
                EXPECT_EQ(tm.at("fits").get<bool>(), peak <= hbm);
                ++checked;
                (peak <= hbm ? fits : overs)++;
              }
  EXPECT_GT(checked, 100);
  EXPECT_GT(fits, 10);  // both verdicts occur in the sweep
  EXPECT_GT(overs, 10);
}

TEST(RecomputePeak, SelectiveRecomputeRemakesOnlyTheScores) {
  // Selective recomputation stores sbh·(18 + m) per layer and re-makes one layer's scores,
  // 5·a·s²·b, in the backward pass; with FlashAttention there is nothing to re-make.
  const json in = merged(kLlama7b, {{"recompute", "selective"}});
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", in), "recompute_bytes"), 5 * 32 * 4096.0 * 4096 * 1);
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", merged(in, {{"flash_attention", true}})), "recompute_bytes"), 0);
  EXPECT_DOUBLE_EQ(num(mlsys::calc("training-memory", kLlama7b), "recompute_bytes"), 0);
}

TEST(RecomputePeak, TimelineWalksTheFirstPipelineStage) {
  // With pp = 8 the timeline is the first stage: 4 layers, no logits spike, and the 7 earlier
  // micro-batches' activations held from the start, as training-memory counts them under 1F1B.
  const json in = merged(kLlama7b, {{"pp", 8}, {"flash_attention", true}, {"persistent_grads", true}});
  const json step = mlsys::calc("training-memory-timeline", in);
  const json tm = mlsys::calc("training-memory", merged(kLlama7b, {{"pp", 8}, {"flash_attention", true}}));
  const json& pts = step.at("points");
  int forward = 0;
  for (const auto& p : pts) forward += p.at("phase").get<std::string>() == "forward";
  EXPECT_EQ(forward, 4);  // no extra point for the output layer
  const double per_mb = num(tm, "activations_bytes") / 8;
  EXPECT_NEAR(num(pts.at(0), "activations_bytes"), 7 * per_mb, 1e-9 * per_mb);
  EXPECT_NEAR(num(step, "peak_bytes"), num(tm, "total_bytes"), 1e-9 * num(tm, "total_bytes"));
}

TEST(RecomputePeak, ModelStatesExerciseAlwaysShards) {
  // The ZeRO exercise draws a stage that shards (1–3): stage 0 would be the plain 16 bytes per
  // parameter with the GPU count playing no part.
  for (int seed = 1; seed <= 300; ++seed) {
    const json e = mlsys::exercise_json(mlsys::make_exercise("memory-model-states", static_cast<std::uint32_t>(seed)));
    const int stage = e.at("params").at("zero_stage").get<int>();
    EXPECT_GE(stage, 1) << "seed " << seed;
    EXPECT_LE(stage, 3) << "seed " << seed;
  }
}
