// Pipeline messages hold their sender's link: each stage sends one activation or gradient at a
// time, so interleaving's v times as many messages, sent after chunk ops 1/v as long, queue once
// a message takes longer than the gap between them. Also: no rounding residue in the bubble of
// a pipeline without one, and the interleaving error reads as a sentence.
#include <gtest/gtest.h>

#include <string>

#include "mlsys/parallel/pipeline_schedule.hpp"
#include "test_support.hpp"

using mlsys::PipelineConfig;
using mlsys::PipelineSchedule;

namespace {

PipelineConfig config(PipelineSchedule s, int p, int m, int v, double p2p) {
  PipelineConfig c;
  c.schedule = s;
  c.stages = p;
  c.microbatches = m;
  c.chunks = v;
  c.forward_s = 1.0;
  c.backward_s = 2.0;
  c.p2p_s = p2p;
  return c;
}

double step(PipelineSchedule s, int p, int m, int v, double p2p) {
  return mlsys::simulate_pipeline(config(s, p, m, v, p2p)).step_time_s;
}

}  // namespace

// p = 8, m = 16, forward 1 and backward 2 per stage, messages of 0, 0.5 and 1.
TEST(PipelineLinks, MessagesRankTheSchedules) {
  const auto one = PipelineSchedule::OneFOneB, inter = PipelineSchedule::Interleaved;
  // No messages: interleaving divides the bubble by v.
  EXPECT_NEAR(step(one, 8, 16, 1, 0), 69.0, 1e-9);
  EXPECT_NEAR(step(inter, 8, 16, 2, 0), 58.5, 1e-9);
  EXPECT_NEAR(step(inter, 8, 16, 4, 0), 53.25, 1e-9);
  // Half a forward pass per message: 1F1B waits for a round trip in every steady-state cycle,
  // interleaving with v = 2 hides it (its lead grows), with v = 4 its messages queue.
  EXPECT_NEAR(step(one, 8, 16, 1, 0.5), 89.0, 1e-9);
  EXPECT_NEAR(step(inter, 8, 16, 2, 0.5), 73.5, 1e-9);
  EXPECT_NEAR(step(inter, 8, 16, 4, 0.5), 93.75, 1e-9);  // a pure delay would give 92
  EXPECT_GT(step(inter, 8, 16, 4, 0.5), step(one, 8, 16, 1, 0.5));
  // A whole forward pass per message: v = 2's lead shrinks below its no-message lead.
  EXPECT_NEAR(step(one, 8, 16, 1, 1.0), 109.0, 1e-9);
  EXPECT_NEAR(step(inter, 8, 16, 2, 1.0), 99.5, 1e-9);  // a pure delay would give 96
  EXPECT_LT(step(one, 8, 16, 1, 1.0) - step(inter, 8, 16, 2, 1.0), 69.0 - 58.5);
}

// A stage sends 2·m·v messages per step (one per forward and per backward op that has a
// neighbour), so its link alone needs 2·m·v·p2p; the step can never be shorter.
TEST(PipelineLinks, TheLinkBoundsTheStep) {
  for (int v : {2, 3, 4}) {
    for (double p2p : {0.25, 0.5, 1.0, 2.0}) {
      const auto c = config(PipelineSchedule::Interleaved, 4, 8, v, p2p);
      const auto r = mlsys::simulate_pipeline(c);
      const double link = (2.0 * c.microbatches * v - 1) * p2p;  // stage 0's first forward waits for nothing
      EXPECT_GE(r.step_time_s + 1e-9, link) << v << " " << p2p;
    }
  }
  // When a message is shorter than every gap between a stage's ops, nothing queues and the
  // step is the same as with a pure delay: 1F1B, forward 1 and messages of 0.5.
  EXPECT_NEAR(step(PipelineSchedule::OneFOneB, 4, 8, 1, 0.5), 41.0, 1e-9);
}

TEST(PipelineLinks, NoBubbleMeansExactlyZero) {
  for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
    PipelineConfig c = config(s, 1, 7, 1, 0);
    c.forward_s = 0.1;
    c.backward_s = 0.2;
    const auto r = mlsys::simulate_pipeline(c);
    EXPECT_EQ(r.bubble_fraction, 0.0);
    EXPECT_EQ(r.bubble_ratio, 0.0);
    EXPECT_EQ(r.bubble_time_s, 0.0);
  }
}

TEST(PipelineLinks, InterleavingErrorNamesEachFieldOnce) {
  const auto e = mlsys::test::error_of("pipeline", R"({"schedule":"interleaved-1f1b","stages":4,"microbatches":6,"chunks":2})");
  const std::string msg = e["message"].get<std::string>();
  EXPECT_EQ(msg.find("groups of 'stages'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'microbatches' (6) must be a multiple of 'stages' (4)"), std::string::npos) << msg;
}
