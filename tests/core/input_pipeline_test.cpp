// Feeding-data lesson: the `input-pipeline` simulation (a PyTorch-style DataLoader, workers ×
// prefetch_factor batches in flight, feeding a training loop) against its closed forms, and
// `batch-scaling` (the global batch and the learning-rate rules of Goyal et al. 2017, Malladi
// et al. 2022 and McCandlish et al. 2018).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "mlsys/api/calc.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/training/input_batch.hpp"
#include "mlsys/training/input_pipeline.hpp"

using mlsys::json;


TEST(InputPipeline, ConstantLoadsWithEnoughWorkersNeverStallAfterWarmUp) {
  // workers · step_time_s ≥ load_time_s: the workers' mean supply keeps up; with constant
  // loads every wait after the first batch's is zero, for every prefetch depth.
  for (int workers = 1; workers <= 12; ++workers)
    for (int prefetch = 1; prefetch <= 4; ++prefetch)
      for (double load : {0.1, 0.35, 0.8, 1.0, 2.0, 3.0}) {
        const double step = 0.25;
        if (workers * step < load) continue;
        const auto r = mlsys::simulate_input_pipeline(workers, prefetch, load, 0.0, step, 300, 7);
        EXPECT_EQ(r.steady_stall_s, 0.0) << workers << " " << prefetch << " " << load;
        EXPECT_DOUBLE_EQ(r.warmup_s, load);
        EXPECT_DOUBLE_EQ(r.makespan_s, load + 300 * step);
        for (const auto& s : r.timeline)
          if (s.step > 0) {
            EXPECT_EQ(s.wait_s, 0.0);
          }
      }
}

TEST(InputPipeline, TooFewWorkersRunAtTheSupplyRate) {
  // Constant loads, workers · step < load: in steady state the loop takes W batches every
  // load_time_s, so the makespan grows as steps · load / W and the busy fraction tends to
  // W · step / load.
  for (int workers : {1, 2, 3}) {
    const double load = 1.0, step = 0.2;
    const auto r = mlsys::simulate_input_pipeline(workers, 2, load, 0.0, step, 3000, 1);
    EXPECT_NEAR(r.gpu_busy_fraction, workers * step / load, 2e-3) << workers;
    EXPECT_NEAR(r.throughput_steps_per_s, workers / load, 2e-3 * workers / load) << workers;
  }
}

TEST(InputPipeline, OneWorkerAtTwiceTheStepTimeKeepsTheDeviceBusyHalfTheTime) {
  // Load = 2 × step: batch k is ready at 2(k + 1)·step, the step ends at (2k + 3)·step, so the
  // makespan is (2S + 1)·step and the device is busy S / (2S + 1) of it: ½ as S grows, and it
  // stalls one step time before every step.
  for (int steps : {1, 10, 200, 5000}) {
    const auto r = mlsys::simulate_input_pipeline(1, 2, 2.0, 0.0, 1.0, steps, 3);
    EXPECT_DOUBLE_EQ(r.gpu_busy_fraction, steps / (2.0 * steps + 1)) << steps;
    EXPECT_DOUBLE_EQ(r.stall_s, steps + 1.0);
    EXPECT_DOUBLE_EQ(r.steady_stall_s, steps - 1.0);
  }
  const auto r = mlsys::simulate_input_pipeline(1, 2, 2.0, 0.0, 1.0, 5000, 3);
  EXPECT_NEAR(r.gpu_busy_fraction, 0.5, 1e-4);
  EXPECT_NEAR(r.stall_s / r.makespan_s, 0.5, 1e-4);
}

TEST(InputPipeline, NoWorkersLoadInTheLoop) {
  // num_workers = 0: every step waits its whole load; busy = step / (load + step).
  const auto r = mlsys::simulate_input_pipeline(0, 2, 0.3, 0.0, 0.1, 100, 1);
  EXPECT_NEAR(r.gpu_busy_fraction, 0.25, 1e-12);
  EXPECT_NEAR(r.stall_s, 30.0, 1e-9);
  EXPECT_EQ(r.timeline[5].worker, -1);
  EXPECT_EQ(r.in_flight, 0);
}

TEST(InputPipeline, PrefetchBoundsBatchesInFlightAndAbsorbsJitter) {
  // The loader asks for batch k + W·P when the loop takes batch k: no batch is issued before
  // the one W·P earlier was taken.
  const int W = 3, P = 2;
  const auto r = mlsys::simulate_input_pipeline(W, P, 0.9, 1.0, 0.3, 200, 11);
  for (const auto& s : r.timeline) {
    if (s.step < W * P) {
      EXPECT_EQ(s.issued_s, 0.0);
    } else {
      EXPECT_DOUBLE_EQ(s.issued_s, r.timeline[static_cast<std::size_t>(s.step - W * P)].start_s);
    }
    EXPECT_EQ(s.worker, s.step % W);
    EXPECT_GE(s.ready_s, s.issued_s + s.load_s - 1e-12);
    EXPECT_GE(s.start_s, s.ready_s);
  }
  // With variable loads near the boundary, a deeper prefetch queue stalls less (averaged over seeds).
  double shallow = 0, deep = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    shallow += mlsys::simulate_input_pipeline(4, 1, 1.0, 0.8, 0.27, 400, seed).stall_s;
    deep += mlsys::simulate_input_pipeline(4, 8, 1.0, 0.8, 0.27, 400, seed).stall_s;
  }
  EXPECT_LT(deep, shallow * 0.8);
}

TEST(InputPipeline, LognormalLoadTimesHaveTheRequestedMeanAndCv) {
  const auto x = mlsys::pipeline_load_times(5000, 0.5, 0.7, 42);
  double s = 0, s2 = 0;
  for (double v : x) s += v;
  const double mean = s / x.size();
  for (double v : x) s2 += (v - mean) * (v - mean);
  const double cv = std::sqrt(s2 / (x.size() - 1)) / mean;
  EXPECT_NEAR(mean, 0.5, 0.02);
  EXPECT_NEAR(cv, 0.7, 0.07);
}

TEST(InputPipeline, SeededAndCapped) {
  const json in = {{"workers", 4}, {"load_cv", 1.2}, {"seed", 9}};
  EXPECT_EQ(mlsys::calc("input-pipeline", in).dump(), mlsys::calc("input-pipeline", in).dump());
  json other = in;
  other["seed"] = 10;
  EXPECT_NE(mlsys::calc("input-pipeline", in).dump(), mlsys::calc("input-pipeline", other).dump());
  const json r = mlsys::calc("input-pipeline", json::object());
  EXPECT_EQ(r["timeline"].size(), 50u);
  EXPECT_EQ(r["workers_needed"].get<int>(), 4);  // ⌈1.0 / 0.3⌉
  EXPECT_THROW(mlsys::simulate_input_pipeline(65, 2, 1, 0, 1, 10, 1), mlsys::InputError);
  EXPECT_THROW(mlsys::simulate_input_pipeline(4, 0, 1, 0, 1, 10, 1), mlsys::InputError);
  EXPECT_THROW(mlsys::simulate_input_pipeline(4, 2, 1, 0, 1, 5001, 1), mlsys::InputError);
}

// ---- batch-scaling -------------------------------------------------------------------------

TEST(BatchScaling, GlobalBatchAndTheRules) {
  // Llama 3 405B's first stage (Llama Team 2024, arXiv:2407.21783, section 3.4.1): 4M tokens
  // per step in sequences of 4,096 tokens = 1,024 sequences; here 2 per device × 512 replicas.
  const auto r = mlsys::batch_scaling(2, 512, 1, 4096, 1 << 20, 3e-4, 8 << 20);
  EXPECT_EQ(r.sequences, 1024);
  EXPECT_EQ(r.tokens, 4194304);
  EXPECT_DOUBLE_EQ(r.lr_linear, 4 * 3e-4);
  EXPECT_DOUBLE_EQ(r.lr_sqrt, 2 * 3e-4);
  EXPECT_DOUBLE_EQ(r.lr_noise_scale, 3e-4 * 9 / 3.0);  // (1 + 8) / (1 + 2)
  EXPECT_DOUBLE_EQ(r.steps_factor, 3);
  EXPECT_DOUBLE_EQ(r.tokens_factor, 1.5);
  // Gradient accumulation multiplies the batch like devices do.
  EXPECT_EQ(mlsys::batch_scaling(2, 256, 2, 4096, 1, 1, 1).tokens, r.tokens);
  // GPT-3 175B (Brown et al. 2020, Table 2.1): 3.2M tokens per batch at n_ctx 2,048, about
  // 1,563 sequences.
  EXPECT_NEAR(3.2e6 / 2048, 1562.5, 1e-9);
  // McCandlish et al. 2018: (S/S_min − 1)(E/E_min − 1) = 1 at every batch.
  for (const auto& p : r.curve) EXPECT_NEAR((p.steps_factor - 1) * (p.tokens_factor - 1), 1.0, 1e-12);
  EXPECT_EQ(r.curve.size(), 14u);
  EXPECT_EQ(r.curve.front().batch_tokens, 16384);
  // The noise-scale rule is linear far below B_crit and flat far above it.
  const auto small = mlsys::batch_lr_point(1e3, 1e3, 1, 1e9), small2 = mlsys::batch_lr_point(2e3, 1e3, 1, 1e9);
  EXPECT_NEAR(small2.lr_noise_scale / small.lr_noise_scale, 2, 1e-5);
  const auto big = mlsys::batch_lr_point(1e12, 1e3, 1, 1e6), big2 = mlsys::batch_lr_point(2e12, 1e3, 1, 1e6);
  EXPECT_NEAR(big2.lr_noise_scale / big.lr_noise_scale, 1, 1e-6);
  EXPECT_THROW(mlsys::batch_scaling(1, 1, 1, 1, 0, 1, 1), mlsys::InputError);
}

// ---- exercises against the calculators -----------------------------------------------------

#include "mlsys/exercises/exercise.hpp"

TEST(InputExercises, AnswersAreTheCalculatorsOnTheDrawnInputs) {
  const auto get = [](const json& j, const char* k) { return j.at(k).get<double>(); };
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    auto e = mlsys::make_exercise("fd-workers-needed", seed);
    EXPECT_EQ(e.answer, get(mlsys::calc("input-pipeline", e.params), "workers_needed")) << seed;
    json in = e.params;
    in["workers"] = e.answer;
    in["steps"] = 500;
    EXPECT_EQ(get(mlsys::calc("input-pipeline", in), "steady_stall_s"), 0.0) << seed;
    in["workers"] = e.answer - 1;
    EXPECT_GT(get(mlsys::calc("input-pipeline", in), "steady_stall_s"), 0.0) << seed;
    e = mlsys::make_exercise("fd-busy-fraction", seed);
    EXPECT_NEAR(e.answer, 100 * get(mlsys::calc("input-pipeline", e.params), "gpu_busy_fraction"), e.answer * 2e-3) << seed;
    e = mlsys::make_exercise("fd-pack-efficiency", seed);
    EXPECT_NEAR(e.answer, 100 * get(mlsys::calc("packing", e.params), "efficiency"), 1e-9) << seed;
    e = mlsys::make_exercise("fd-cross-document", seed);
    EXPECT_NEAR(e.answer, 100 * get(mlsys::calc("packing", e.params), "cross_document_share"), 1e-9) << seed;
    e = mlsys::make_exercise("fd-sqrt-lr", seed);
    EXPECT_NEAR(e.answer, get(mlsys::calc("batch-scaling", e.params), "lr_sqrt") / 1e-4, 1e-9) << seed;
  }
}
