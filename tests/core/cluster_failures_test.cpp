// Surviving-failures lesson: `cluster-failures` (M_cluster = M_gpu / N for independent
// exponential failures, with checkpoint-interval's Young/Daly interval and goodput) and
// `checkpoint-goodput` (first-order and Daly's exponential-failure model at chosen intervals).
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/profiling/training_compute.hpp"
#include "mlsys/training/cluster_failures.hpp"

using mlsys::json;

TEST(ClusterFailures, MtbfDividesByTheGpuCount) {
  for (double n : {1.0, 8.0, 1000.0, 16384.0, 1e6}) {
    const auto r = mlsys::cluster_failures(n, 5e7, {}, {}, {}, {}, {});
    EXPECT_DOUBLE_EQ(r.cluster_mtbf_s, 5e7 / n);
    EXPECT_DOUBLE_EQ(r.failures_per_day, 86400 * n / 5e7);
    EXPECT_NEAR(r.failure_free_day_probability, std::exp(-r.failures_per_day), 1e-15);
    EXPECT_DOUBLE_EQ(r.cluster_mtbf_h, r.cluster_mtbf_s / 3600);
  }
  // One failure per GPU per year: M_gpu is a year of 365.25 days; the three ways agree.
  const auto a = mlsys::cluster_failures(1000, {}, 1.0, {}, {}, {}, {});
  EXPECT_DOUBLE_EQ(a.gpu_mtbf_s, 365.25 * 86400);
  const auto b = mlsys::cluster_failures(1000, 365.25 * 86400, {}, {}, {}, {}, {});
  const auto c = mlsys::cluster_failures(1000, {}, {}, 1000.0, 365.25, {}, {});
  EXPECT_DOUBLE_EQ(a.cluster_mtbf_s, b.cluster_mtbf_s);
  EXPECT_NEAR(a.cluster_mtbf_s, c.cluster_mtbf_s, 1e-9);
  EXPECT_NEAR(c.failures_per_gpu_per_year, 1.0, 1e-12);
}

TEST(ClusterFailures, Llama3Snapshot) {
  // Llama Team 2024, "The Llama 3 Herd of Models", arXiv:2407.21783, section 3.3.4: 419
  // unexpected interruptions in a 54-day snapshot of pre-training on 16,384 H100 GPUs (466 in
  // all, 47 planned): one every 3.09 hours, 7.76 a day, about 0.17 per GPU per year.
  const auto r = mlsys::cluster_failures(16384, {}, {}, 419.0, 54.0, {}, {});
  EXPECT_NEAR(r.cluster_mtbf_s, 54 * 86400.0 / 419, 1e-9);
  EXPECT_NEAR(r.cluster_mtbf_h, 3.093, 1e-3);
  EXPECT_NEAR(r.failures_per_day, 7.759, 1e-3);
  EXPECT_NEAR(r.failures_per_gpu_per_year, 419 / 54.0 / 16384 * 365.25, 1e-12);
  EXPECT_NEAR(r.failures_per_gpu_per_year, 0.173, 1e-3);
  EXPECT_NEAR(r.gpu_mtbf_s / (365.25 * 86400), 5.78, 0.01);  // years
  // With every interruption counted (466), one every 2.78 hours.
  EXPECT_NEAR(mlsys::cluster_failures(16384, {}, {}, 466.0, 54.0, {}, {}).cluster_mtbf_h, 2.781, 1e-3);
}

TEST(ClusterFailures, CheckpointFieldsAreCheckpointIntervals) {
  const auto r = mlsys::cluster_failures(16384, {}, {}, 419.0, 54.0, 60.0, 600.0);
  const auto c = mlsys::checkpoint_interval(54 * 86400.0 / 419, 60, 600);
  ASSERT_TRUE(r.goodput && r.young_interval_s && r.daly_interval_s && r.waste_fraction);
  EXPECT_DOUBLE_EQ(*r.young_interval_s, c.young_interval_s);
  EXPECT_DOUBLE_EQ(*r.daly_interval_s, c.daly_interval_s);
  EXPECT_DOUBLE_EQ(*r.goodput, c.goodput);
  EXPECT_DOUBLE_EQ(*r.waste_fraction, c.waste_fraction);
  EXPECT_NEAR(*r.young_interval_s, std::sqrt(2 * 60 * 54 * 86400.0 / 419), 1e-9);
  EXPECT_FALSE(mlsys::cluster_failures(8, 1e6, {}, {}, {}, {}, {}).goodput.has_value());
  // restart_s defaults to 0.
  EXPECT_DOUBLE_EQ(*mlsys::cluster_failures(8, 1e6, {}, {}, {}, 10.0, {}).goodput,
                   mlsys::checkpoint_interval(1e6 / 8, 10, 0).goodput);
}

TEST(ClusterFailures, ExactlyOneWayOfGivingTheRate) {
  const auto field = [](const json& in) {
    try {
      mlsys::calc("cluster-failures", in);
    } catch (const mlsys::InputError& e) {
      return e.field;
    }
    return std::string("none");
  };
  EXPECT_EQ(field({{"gpus", 8}}), "gpu_mtbf_s");
  EXPECT_EQ(field({{"gpu_mtbf_s", 1e6}, {"failures_per_gpu_per_year", 1}}), "failures_per_gpu_per_year");
  EXPECT_EQ(field({{"gpu_mtbf_s", 1e6}, {"failures", 3}, {"days", 2}}), "failures");
  EXPECT_EQ(field({{"failures_per_gpu_per_year", 1}, {"days", 2}}), "days");
  EXPECT_EQ(field({{"failures", 3}}), "days");
  EXPECT_EQ(field({{"days", 3}}), "failures");
  EXPECT_EQ(field({{"gpu_mtbf_s", 1e6}, {"restart_s", 60}}), "checkpoint_s");
  EXPECT_EQ(field({{"gpu_mtbf_s", 1e6}, {"checkpoint_s", 60}, {"restart_s", 60}}), "none");
}

TEST(CheckpointGoodput, MatchesCheckpointIntervalAndDalysModel) {
  const double m = 3 * 3600.0, d = 120, r = 600;
  const auto c = mlsys::checkpoint_interval(m, d, r);
  const auto g = mlsys::checkpoint_goodput(m, d, r, {c.daly_interval_s, 600, 3600}, {}, {}, 2);
  EXPECT_DOUBLE_EQ(g.young_interval_s, c.young_interval_s);
  EXPECT_DOUBLE_EQ(g.daly_interval_s, c.daly_interval_s);
  EXPECT_DOUBLE_EQ(g.goodput_at_daly, c.goodput);
  EXPECT_DOUBLE_EQ(g.points[0].goodput, c.goodput);
  EXPECT_DOUBLE_EQ(1 - g.points[0].goodput_exact, c.waste_fraction_exact);
  // First order by hand at τ = 600 s: 120/600 + 720/21600 + 600/10800.
  EXPECT_NEAR(g.points[1].goodput, 1 - (0.2 + 720.0 / 21600 + 600.0 / 10800), 1e-12);
  // Daly's complete model by hand at τ = 3600 s.
  EXPECT_NEAR(g.points[2].goodput_exact, 3600 / (m * std::exp(r / m) * std::expm1((3600 + d) / m)), 1e-12);
  // The exact optimum solves e^((τ+δ)/M)·(1 − τ/M) = 1 and beats every other interval.
  EXPECT_NEAR(std::exp((g.best_interval_s + d) / m) * (1 - g.best_interval_s / m), 1.0, 1e-9);
  for (double t : {0.5, 0.9, 1.1, 2.0}) {
    const auto p = mlsys::checkpoint_goodput_point(g.best_interval_s * t, m, d, r);
    EXPECT_LT(p.goodput_exact, g.best_goodput_exact);
  }
  // Daly's interval is close to the exact optimum (δ ≪ M); Young's first-order one less so.
  EXPECT_NEAR(c.daly_interval_s / g.best_interval_s, 1, 0.01);
  // The first-order model peaks at Young's interval.
  const auto y = mlsys::checkpoint_goodput(m, d, 0, {c.young_interval_s * 0.95, c.young_interval_s, c.young_interval_s * 1.05},
                                           {}, {}, 2);
  EXPECT_GT(y.points[1].goodput, y.points[0].goodput);
  EXPECT_GT(y.points[1].goodput, y.points[2].goodput);
}

TEST(CheckpointGoodput, RangeAndErrors) {
  const auto g = mlsys::checkpoint_goodput(1e4, 60, 0, {}, {}, {}, 61);
  ASSERT_EQ(g.points.size(), 61u);
  EXPECT_NEAR(g.points.front().interval_s, g.young_interval_s / 20, 1e-9);
  EXPECT_NEAR(g.points.back().interval_s, g.young_interval_s * 20, 1e-6);
  EXPECT_NEAR(g.points[30].interval_s, g.young_interval_s, 1e-9);
  for (const auto& p : g.points) {
    EXPECT_GE(p.goodput, 0);
    EXPECT_LE(p.goodput_exact, 1);
  }
  EXPECT_THROW(mlsys::checkpoint_goodput(1e4, 60, 0, {10}, 5.0, {}, 2), mlsys::InputError);
  EXPECT_THROW(mlsys::checkpoint_goodput(1e4, 60, 0, {}, 100.0, 50.0, 2), mlsys::InputError);
  EXPECT_THROW(mlsys::checkpoint_goodput(0, 60, 0, {}, {}, {}, 2), mlsys::InputError);
  // Extreme ratios stay finite: checkpoints longer than the MTBF.
  const auto x = mlsys::checkpoint_goodput(1, 1e7, 1e7, {}, {}, {}, 400);
  for (const auto& p : x.points) EXPECT_TRUE(std::isfinite(p.goodput_exact));
  EXPECT_TRUE(std::isfinite(x.best_interval_s));
}

TEST(FailuresExercises, AnswersAreTheCalculatorsOnTheDrawnInputs) {
  const auto get = [](const json& j, const char* k) { return j.at(k).get<double>(); };
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    auto e = mlsys::make_exercise("sf-cluster-mtbf", seed);
    EXPECT_NEAR(e.answer, get(mlsys::calc("cluster-failures", e.params), "cluster_mtbf_h"), 1e-9 * e.answer) << seed;
    e = mlsys::make_exercise("sf-scaled-failures", seed);
    EXPECT_NEAR(e.answer, get(mlsys::calc("cluster-failures", e.params), "failures_per_day"), 1e-9 * e.answer) << seed;
    e = mlsys::make_exercise("sf-young-interval", seed);
    EXPECT_NEAR(e.answer, get(mlsys::calc("checkpoint-interval", e.params), "young_interval_s") , 1e-9 * e.answer)
        << seed;
    e = mlsys::make_exercise("sf-sync-save", seed);
    EXPECT_NEAR(e.answer, get(mlsys::calc("checkpoint-save", e.params), "stall_s"), 1e-9 * e.answer) << seed;
    e = mlsys::make_exercise("sf-waste-at-interval", seed);
    const json g = mlsys::calc("checkpoint-goodput", e.params);
    EXPECT_NEAR(e.answer, 100 * (1 - g.at("points").at(0).at("goodput_exact").get<double>()), 1e-9 * e.answer) << seed;
  }
}

TEST(CheckpointGoodput, DalysPublishedOptima) {
  // Daly 2006 (FGCS 22(3)), figs. 3 and 4: R = 10 min, δ = 5 min; the model predicts
  // τ_opt = 117 min for M = 24 h and 57 min for M = 6 h.
  EXPECT_NEAR(mlsys::checkpoint_goodput(86400, 300, 600, {3600}, {}, {}, 2).daly_interval_s / 60, 117, 0.5);
  EXPECT_NEAR(mlsys::checkpoint_goodput(21600, 300, 600, {3600}, {}, {}, 2).daly_interval_s / 60, 57, 0.5);
}

TEST(ClusterFailures, ExactGoodputBesideTheFirstOrderOne) {
  // Llama 3's rate (419 in 54 days on 16,384 GPUs), Llama 3.1 405B's 405,853,388,800 parameters
  // × 14 B written by 128 writers at 2 GB/s (22.2 s) and a 10-minute restart: at Daly's
  // interval Daly's model gives 88.9%, the first-order sum 88.2%.
  const double delta = 405853388800.0 * 14 / 256e9;
  const auto r = mlsys::cluster_failures(16384, {}, {}, 419.0, 54.0, delta, 600.0);
  const double m = 54 * 86400.0 / 419, t = *r.daly_interval_s;
  EXPECT_NEAR(*r.goodput_exact, t / (m * std::exp(600 / m) * std::expm1((t + delta) / m)), 1e-12);
  EXPECT_NEAR(*r.goodput_exact, 0.889, 5e-4);
  EXPECT_NEAR(*r.goodput, 0.882, 5e-4);
  // The calculator returns it too.
  const json j = mlsys::calc("cluster-failures", {{"gpus", 16384}, {"failures", 419}, {"days", 54},
                                                  {"checkpoint_s", delta}, {"restart_s", 600}});
  EXPECT_DOUBLE_EQ(j.at("goodput_exact").get<double>(), *r.goodput_exact);
  EXPECT_FALSE(mlsys::calc("cluster-failures", {{"gpus", 16384}, {"failures", 419}, {"days", 54}}).contains("goodput_exact"));
  // One failure per GPU per year on 16,384 GPUs (every 32 minutes) is not beyond checkpointing:
  // a 1.78 s asynchronous stall and a one-minute restart keep 92.8%; a ten-minute restart 70.1%.
  const double stall = 405853388800.0 * 14 / 128 / 25e9;
  EXPECT_NEAR(*mlsys::cluster_failures(16384, {}, 1.0, {}, {}, stall, 60.0).goodput_exact, 0.928, 5e-4);
  EXPECT_NEAR(*mlsys::cluster_failures(16384, {}, 1.0, {}, {}, stall, 600.0).goodput_exact, 0.701, 5e-4);
}

TEST(CheckpointGoodput, FirstOrderErrsMostAtShortIntervals) {
  // δ/τ is the checkpoint time per second of work; the wall-clock share is δ/(τ + δ). At one
  // minute with the 22.2 s save the first-order sum leaves 57.3%, the exact model 68.9%; at an
  // hour they are 77.7% and 79.7%.
  const double delta = 405853388800.0 * 14 / 256e9, m = 54 * 86400.0 / 419;
  const auto g = mlsys::checkpoint_goodput(m, delta, 600, {60, 3600}, {}, {}, 2);
  EXPECT_NEAR(g.points[0].goodput, 0.573, 5e-4);
  EXPECT_NEAR(g.points[0].goodput_exact, 0.689, 5e-4);
  EXPECT_NEAR(g.points[1].goodput, 0.777, 5e-4);
  EXPECT_NEAR(g.points[1].goodput_exact, 0.797, 5e-4);
  EXPECT_GT(g.points[0].goodput_exact - g.points[0].goodput, g.points[1].goodput_exact - g.points[1].goodput);
}

TEST(FailuresExercises, WasteAndAsyncGoodputUseDalysModel) {
  const auto exact = [](double t, double m, double d, double r) { return t / (m * std::exp(r / m) * std::expm1((t + d) / m)); };
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    auto e = mlsys::make_exercise("sf-waste-at-interval", seed);
    const double m = e.params.at("mtbf_s"), d = e.params.at("checkpoint_s"), r = e.params.at("restart_s");
    const double t = e.params.at("intervals_s").at(0);
    EXPECT_NEAR(e.answer, 100 * (1 - exact(t, m, d, r)), 1e-9 * e.answer) << seed;
    // The first-order sum is refused wherever it differs beyond the tolerance.
    const double first = 100 * (d / t + (t + d) / (2 * m) + r / m);
    if (std::fabs(first - e.answer) > 0.03 * e.answer) {
      EXPECT_FALSE(mlsys::check_exercise("sf-waste-at-interval", seed, mlsys::format_number(first, 4))["correct"]) << seed;
    }
    e = mlsys::make_exercise("sf-async-goodput", seed);
    const double p = e.params.at("params"), w = e.params.at("writers"), c = e.params.at("copy_bandwidth_Bps");
    const double m2 = e.params.at("mtbf_s"), r2 = e.params.at("restart_s");
    const double stall = p * 14 / w / c, tau = std::sqrt(2 * stall * m2);
    EXPECT_NEAR(e.answer, 100 * exact(tau, m2, stall, r2), 1e-9 * e.answer) << seed;
    EXPECT_LT(p * 14 / std::min(2e12, w * 2e9) + stall, tau) << seed;  // the write ends before the next save
    const json s = mlsys::calc("checkpoint-save", {{"params", p}, {"writers", w}, {"copy_bandwidth_Bps", c}, {"async", true}});
    EXPECT_NEAR(s.at("stall_s").get<double>(), stall, 1e-9 * stall) << seed;
  }
}
