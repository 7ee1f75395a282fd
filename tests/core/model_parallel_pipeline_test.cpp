// Pipeline schedules: the executed GPipe, 1F1B and interleaved 1F1B match the bubble of
// Narayanan et al. 2021 (arXiv:2104.04473, section 2.2: (p−1)/m, and (p−1)/(v·m) interleaved)
// at zero communication, respect their dependencies, hold the activations the papers state,
// agree with the closed form, and reject configurations they cannot run.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>

#include "mlsys/api/calc.hpp"
#include "mlsys/parallel/pipeline_schedule.hpp"
#include "test_support.hpp"

using mlsys::json;
using mlsys::PipelineConfig;
using mlsys::PipelineSchedule;

namespace {

PipelineConfig config(PipelineSchedule s, int p, int m, int v, double f = 1.0, double b = 2.0, double p2p = 0) {
  PipelineConfig c;
  c.schedule = s;
  c.stages = p;
  c.microbatches = m;
  c.chunks = v;
  c.forward_s = f;
  c.backward_s = b;
  c.p2p_s = p2p;
  return c;
}

// Checks every dependency and the one-op-per-stage rule of an executed timeline.
void check_dependencies(const PipelineConfig& c, const mlsys::PipelineResult& r) {
  const int p = c.stages, V = c.stages * c.chunks;
  std::map<std::tuple<char, int, int>, std::pair<double, double>> when;  // (kind, virtual stage, mb) -> [start, end]
  ASSERT_EQ(r.timeline.size(), static_cast<std::size_t>(2 * p * c.microbatches * c.chunks));
  for (const auto& op : r.timeline) {
    const int vs = op.chunk * p + op.stage;
    const bool fresh = when.emplace(std::make_tuple(op.kind, vs, op.microbatch), std::make_pair(op.start_s, op.end_s)).second;
    EXPECT_TRUE(fresh) << "op run twice";
    const double dur = (op.kind == 'F' ? c.forward_s : c.backward_s) / c.chunks;
    EXPECT_NEAR(op.end_s - op.start_s, dur, 1e-12);
  }
  const double eps = 1e-9;
  const double msg = p > 1 ? c.p2p_s : 0.0;  // one GPU sends itself nothing
  for (const auto& [key, span] : when) {
    const auto [kind, vs, mb] = key;
    if (kind == 'F' && vs > 0) {
      EXPECT_GE(span.first + eps, when.at({'F', vs - 1, mb}).second + msg) << "F before the previous stage's F";
    }
    if (kind == 'B') {
      EXPECT_GE(span.first + eps, when.at({'F', vs, mb}).second) << "B before its own F";
      if (vs < V - 1) { EXPECT_GE(span.first + eps, when.at({'B', vs + 1, mb}).second + msg) << "B before the next B"; }
    }
  }
  // One op at a time per stage: the timeline is sorted by stage, then start.
  for (std::size_t i = 1; i < r.timeline.size(); ++i) {
    const auto &a = r.timeline[i - 1], &b = r.timeline[i];
    if (a.stage == b.stage) { EXPECT_GE(b.start_s + eps, a.end_s) << "overlap on stage " << a.stage; }
  }
}

}  // namespace

TEST(PipelineSchedule, BubbleMatchesNarayananAtZeroCommunication) {
  // Narayanan et al. 2021, section 2.2.1: bubble time fraction (p − 1)/m for GPipe and 1F1B;
  // section 2.2.2: (p − 1)/(v·m) for the interleaved schedule.
  for (int p : {1, 2, 3, 4, 5, 8}) {
    for (int m : {1, 2, 3, 4, 7, 8, 16, 24}) {
      for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
        const auto r = mlsys::simulate_pipeline(config(s, p, m, 1, 1.0, 2.0));
        ASSERT_TRUE(r.executed);
        EXPECT_NEAR(r.bubble_ratio, (p - 1.0) / m, 1e-12) << p << " " << m;
        EXPECT_NEAR(r.step_time_s, (m + p - 1.0) * 3.0, 1e-9);
        EXPECT_NEAR(r.bubble_fraction, (p - 1.0) / (m + p - 1.0), 1e-12);
      }
      for (int v : {2, 3, 4}) {
        if (m % p != 0) continue;
        const auto r = mlsys::simulate_pipeline(config(PipelineSchedule::Interleaved, p, m, v, 1.5, 2.5));
        EXPECT_NEAR(r.bubble_ratio, (p - 1.0) / (v * m), 1e-12) << p << " " << m << " " << v;
      }
    }
  }
}

TEST(PipelineSchedule, BubbleHoldsForUnequalForwardAndBackward) {
  for (double b : {0.5, 1.0, 2.0, 3.7}) {
    const auto r = mlsys::simulate_pipeline(config(PipelineSchedule::OneFOneB, 4, 12, 1, 1.0, b));
    EXPECT_NEAR(r.bubble_ratio, 3.0 / 12, 1e-12);
    const auto ri = mlsys::simulate_pipeline(config(PipelineSchedule::Interleaved, 4, 12, 3, 1.0, b));
    EXPECT_NEAR(ri.bubble_ratio, 3.0 / 36, 1e-12);
  }
}

TEST(PipelineSchedule, DependenciesAndOneOpPerStage) {
  for (int p : {1, 2, 3, 4, 6, 8}) {
    for (int m : {1, 2, 4, 6, 8, 12, 16}) {
      for (double p2p : {0.0, 0.3}) {
        for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
          const auto c = config(s, p, m, 1, 1.0, 2.0, p2p);
          check_dependencies(c, mlsys::simulate_pipeline(c));
        }
        for (int v : {2, 3, 4}) {
          if (m % p != 0) continue;
          const auto c = config(PipelineSchedule::Interleaved, p, m, v, 1.0, 2.0, p2p);
          check_dependencies(c, mlsys::simulate_pipeline(c));
        }
      }
    }
  }
}

TEST(PipelineSchedule, PeakInflightMicrobatches) {
  // GPipe holds every micro-batch; 1F1B holds p − s on stage s (Narayanan et al. 2021, 2.2.1);
  // interleaving holds more on stage 0 (Megatron's 2(p−1) + (v−1)p + 1 warm-up chunks).
  const int p = 4, m = 8;
  const auto g = mlsys::simulate_pipeline(config(PipelineSchedule::GPipe, p, m, 1));
  const auto o = mlsys::simulate_pipeline(config(PipelineSchedule::OneFOneB, p, m, 1));
  const auto i = mlsys::simulate_pipeline(config(PipelineSchedule::Interleaved, p, m, 2));
  for (int s = 0; s < p; ++s) {
    EXPECT_DOUBLE_EQ(g.peak_inflight_per_stage[s], m);
    EXPECT_DOUBLE_EQ(o.peak_inflight_per_stage[s], p - s);
  }
  EXPECT_EQ(i.peak_inflight_chunks_per_stage[0], 2 * (p - 1) + p + 1);
  EXPECT_DOUBLE_EQ(i.peak_inflight_per_stage[0], (2.0 * (p - 1) + p + 1) / 2);
  // Fewer micro-batches than stages: 1F1B cannot hold more than m.
  const auto few = mlsys::simulate_pipeline(config(PipelineSchedule::OneFOneB, 8, 3, 1));
  EXPECT_DOUBLE_EQ(few.peak_inflight_per_stage[0], 3);
}

TEST(PipelineSchedule, ClosedFormAgreesWithExecution) {
  for (int p : {2, 4, 8}) {
    for (int m : {8, 16, 32}) {
      for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved}) {
        const int v = s == PipelineSchedule::Interleaved ? 2 : 1;
        const auto c = config(s, p, m, v, 1.0, 2.0, 0);
        const auto a = mlsys::simulate_pipeline(c), b = mlsys::pipeline_closed_form(c);
        EXPECT_NEAR(a.step_time_s, b.step_time_s, 1e-9);
        for (int st = 0; st < p; ++st) { EXPECT_EQ(a.peak_inflight_chunks_per_stage[st], b.peak_inflight_chunks_per_stage[st]); }
      }
      // With communication the closed form counts only the first micro-batch's 2(p·v − 1)
      // messages: a lower bound on the executed step (which also waits in its steady state).
      for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved}) {
        const int v = s == PipelineSchedule::Interleaved ? 2 : 1;
        const auto c = config(s, p, m, v, 1.0, 2.0, 0.1);
        const double executed = mlsys::simulate_pipeline(c).step_time_s, closed = mlsys::pipeline_closed_form(c).step_time_s;
        EXPECT_GE(executed + 1e-9, closed);
        EXPECT_LE(executed, closed + 2.0 * m * v * 0.1);
      }
    }
  }
}

TEST(PipelineSchedule, LargeConfigurationsFallBackToTheClosedForm) {
  const json r = mlsys::calc("pipeline", {{"stages", 64}, {"microbatches", 4096}});
  EXPECT_EQ(r["method"], "closed-form");
  EXPECT_TRUE(r["timeline"].empty());
  EXPECT_NEAR(r["bubble_ratio"].get<double>(), 63.0 / 4096, 1e-12);
  const json small = mlsys::calc("pipeline", {{"stages", 4}, {"microbatches", 8}});
  EXPECT_EQ(small["method"], "executed");
  EXPECT_EQ(small["timeline"].size(), 64u);
}

TEST(PipelineCalculator, ApiFields) {
  const json r = mlsys::calc("pipeline", {{"schedule", "interleaved-1f1b"}, {"stages", 4}, {"microbatches", 8},
                                          {"chunks", 2}, {"forward_s", 0.004}, {"backward_s", 0.008}});
  for (const char* k : {"step_time_s", "bubble_fraction", "bubble_ratio", "peak_inflight_microbatches", "timeline"})
    EXPECT_TRUE(r.contains(k)) << k;
  EXPECT_NEAR(r["bubble_ratio"].get<double>(), 3.0 / 16, 1e-12);
  EXPECT_NEAR(r["step_time_s"].get<double>(), (8 + 1.5) * 0.012, 1e-12);
  const json& op = r["timeline"][0];
  for (const char* k : {"stage", "microbatch", "chunk", "kind", "start_s", "end_s"}) { EXPECT_TRUE(op.contains(k)) << k; }
  EXPECT_EQ(op["kind"], "F");
}

TEST(PipelineCalculator, ImpossibleConfigurationsAreClearErrors) {
  using mlsys::test::error_of;
  EXPECT_EQ(error_of("pipeline", R"({"schedule":"interleaved-1f1b","stages":4,"microbatches":6,"chunks":2})")["field"],
            "microbatches");
  EXPECT_EQ(error_of("pipeline", R"({"schedule":"1f1b","chunks":2})")["field"], "chunks");
  EXPECT_EQ(error_of("pipeline", R"({"schedule":"zero-bubble"})")["field"], "schedule");
  EXPECT_EQ(error_of("pipeline", R"({"stages":0})")["field"], "stages");
  EXPECT_EQ(error_of("pipeline", R"({"microbatches":-3})")["field"], "microbatches");
  EXPECT_EQ(error_of("pipeline", R"({"forward_s":0})")["field"], "forward_s");
  EXPECT_EQ(error_of("pipeline", R"({"backward_s":-1})")["field"], "backward_s");
  EXPECT_EQ(error_of("pipeline", R"({"p2p_s":-1e-3})")["field"], "p2p_s");
  EXPECT_EQ(error_of("pipeline", R"({"stages":1e9})")["field"], "stages");
  EXPECT_EQ(error_of("pipeline", R"({"stages":2.5})")["field"], "stages");
  EXPECT_EQ(error_of("pipeline", R"({"stages":"4"})")["field"], "stages");
  error_of("pipeline", R"({"forward_s":1e400})");
  error_of("pipeline", R"({"forward_s":NaN})");
  error_of("pipeline", "{");
  EXPECT_EQ(error_of("pipeline", R"({"stage":4})")["field"], "stage");
  EXPECT_THROW(mlsys::parse_pipeline_schedule("GPIPE"), mlsys::InputError);
}

// The ideal step m·(F + B) and the bubble formula (p−1)/(v·m) (Narayanan et al. 2021,
// arXiv:2104.04473, section 2.2): with p2p = 0, 1F1B's step is (m + p − 1)(F + B).
TEST(PipelineBubble, IdealTimeAndFormula) {
  const auto r = mlsys::simulate_pipeline(config(PipelineSchedule::OneFOneB, 4, 8, 1, 1.0, 2.0));
  EXPECT_DOUBLE_EQ(r.busy_per_stage_s, 8 * 3.0);
  EXPECT_DOUBLE_EQ(r.bubble_time_s, 3 * 3.0);
  EXPECT_DOUBLE_EQ(r.bubble_ratio_formula, 3.0 / 8);
  EXPECT_DOUBLE_EQ(r.bubble_ratio, r.bubble_ratio_formula);
  EXPECT_EQ(r.method, "executed");
  EXPECT_DOUBLE_EQ(r.peak_inflight_microbatches, 4);
  const auto i = mlsys::pipeline_closed_form(config(PipelineSchedule::Interleaved, 4, 8, 2, 1.0, 2.0));
  EXPECT_DOUBLE_EQ(i.bubble_ratio_formula, 3.0 / 16);
  EXPECT_DOUBLE_EQ(i.bubble_time_s, 1.5 * 3.0);
  EXPECT_EQ(i.method, "closed-form");
}
