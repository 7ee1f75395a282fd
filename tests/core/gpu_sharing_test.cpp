// The sharing-a-gpu models: MIG profile tables as NVIDIA publishes them (Multi-Instance GPU User
// Guide, "Supported MIG Profiles",
// https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html: names,
// fractions of memory and SMs, instances available; SMs per instance as nvidia-smi mig -lgip
// prints them), layouts against the placement rules, and the sharing simulation against its
// closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "mlsys/api/calc.hpp"
#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/sharing/gpu_sharing.hpp"
#include "mlsys/sharing/mig.hpp"

namespace mlsys {
namespace {

struct Expected {
  const char* name;
  int compute, memory, sms, max_instances;
};

void expect_table(const std::string& hw, const std::vector<Expected>& rows, double hbm_gib) {
  const MigTable t = mig_table(hw);
  ASSERT_EQ(t.profiles.size(), rows.size()) << hw;
  EXPECT_EQ(t.compute_slices, 7);
  EXPECT_EQ(t.memory_slices, 8);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const MigProfile& p = t.profiles[i];
    EXPECT_EQ(p.name, rows[i].name) << hw;
    EXPECT_EQ(p.compute_slices, rows[i].compute) << p.name;
    EXPECT_EQ(p.memory_slices, rows[i].memory) << p.name;
    EXPECT_EQ(p.sms, rows[i].sms) << p.name;
    EXPECT_EQ(p.max_instances, rows[i].max_instances) << p.name;
    EXPECT_DOUBLE_EQ(p.memory_bytes, hbm_gib * 1073741824.0 * rows[i].memory / 8) << p.name;
  }
}

TEST(GpuSharingMig, A100TableAsTheGuideAndNvidiaSmi) {
  // A100-SXM4-80GB: 1/8 memory and 1/7 SMs for 1g (7 instances), 2/8 for 1g.20gb (4), 2g (3),
  // 4/8 for 3g (2) and 4g (1); 14, 28, 42, 56 and 98 SMs (nvidia-smi mig -lgip).
  expect_table("a100-sxm-80gb",
               {{"1g.10gb", 1, 1, 14, 7}, {"1g.10gb+me", 1, 1, 14, 1}, {"1g.20gb", 1, 2, 14, 4}, {"2g.20gb", 2, 2, 28, 3},
                {"3g.40gb", 3, 4, 42, 2}, {"4g.40gb", 4, 4, 56, 1}, {"7g.80gb", 7, 8, 98, 1}},
               80);
}

TEST(GpuSharingMig, H100AndH200Tables) {
  // H100 80GB: 16, 16, 26, 32, 60, 64, 132 SMs (nvidia-smi mig -lgip); the H200 141GB's names
  // from the guide's H200 table (1g.18gb ... 7g.141gb) on the same GH100.
  expect_table("h100-sxm",
               {{"1g.10gb", 1, 1, 16, 7}, {"1g.10gb+me", 1, 1, 16, 1}, {"1g.20gb", 1, 2, 26, 4}, {"2g.20gb", 2, 2, 32, 3},
                {"3g.40gb", 3, 4, 60, 2}, {"4g.40gb", 4, 4, 64, 1}, {"7g.80gb", 7, 8, 132, 1}},
               80);
  expect_table("h200-sxm",
               {{"1g.18gb", 1, 1, 16, 7}, {"1g.18gb+me", 1, 1, 16, 1}, {"1g.35gb", 1, 2, 26, 4}, {"2g.35gb", 2, 2, 32, 3},
                {"3g.71gb", 3, 4, 60, 2}, {"4g.71gb", 4, 4, 64, 1}, {"7g.141gb", 7, 8, 132, 1}},
               141);
  // Seven 1g instances of an A100 hold 98 of its 108 SMs; of an H100, 112 of 132.
  EXPECT_EQ(mig_layout(mig_table("a100-sxm-80gb"), std::vector<std::string>(7, "1g.10gb")).sms_used, 98);
  EXPECT_EQ(mig_layout(mig_table("h100-sxm"), std::vector<std::string>(7, "1g.10gb")).sms_used, 112);
  EXPECT_THROW(mig_table("mi300x"), InputError);
}

TEST(GpuSharingMig, PlacementRules) {
  const MigTable t = mig_table("h100-sxm");
  auto valid = [&](std::vector<std::string> l) { return mig_layout(t, l).valid; };
  EXPECT_TRUE(valid({"4g.40gb", "3g.40gb"}));
  EXPECT_TRUE(valid({"3g.40gb", "3g.40gb"}));
  EXPECT_TRUE(valid({"4g.40gb", "2g.20gb", "1g.10gb"}));
  EXPECT_TRUE(valid({"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}));
  EXPECT_TRUE(valid({"2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb"}));
  EXPECT_TRUE(valid({"1g.20gb", "1g.20gb", "1g.20gb", "1g.20gb"}));
  EXPECT_TRUE(valid({"1g.10gb+me", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"}));
  // Seven compute slices but nine memory slices: the two 3g instances take all eight.
  const MigLayout a = mig_layout(t, {"3g.40gb", "3g.40gb", "1g.10gb"});
  EXPECT_FALSE(a.valid);
  EXPECT_EQ(a.compute_slices_used, 7);
  EXPECT_EQ(a.memory_slices_used, 9);
  EXPECT_NE(a.reason.find("memory slices"), std::string::npos);
  EXPECT_FALSE(valid({"4g.40gb", "3g.40gb", "1g.10gb"}));   // 8 compute slices
  EXPECT_FALSE(valid({"4g.40gb", "4g.40gb"}));              // one 4g at most
  EXPECT_FALSE(valid({"1g.10gb+me", "1g.10gb+me"}));        // one +me at most
  EXPECT_FALSE(valid({"1g.20gb", "1g.20gb", "1g.20gb", "1g.20gb", "1g.10gb"}));  // 9 memory slices
  EXPECT_FALSE(valid(std::vector<std::string>(8, "1g.10gb")));
  // The placement found: 4g at 0-3, 2g at 4-5, 1g at 6 (the order nvidia-smi reports, -lgi).
  const MigLayout b = mig_layout(t, {"1g.10gb", "2g.20gb", "4g.40gb"});
  ASSERT_TRUE(b.valid);
  ASSERT_EQ(b.instances.size(), 3u);
  EXPECT_EQ(b.instances[0].name, "4g.40gb");
  EXPECT_EQ(b.instances[0].start, 0);
  EXPECT_EQ(b.instances[1].start, 4);
  EXPECT_EQ(b.instances[2].start, 6);
  EXPECT_THROW(mig_layout(t, {"5g.50gb"}), InputError);
}

GpuSharing run(const std::string& mode, int jobs, double f, double t, double c = 0, double q = 2e-3) {
  GpuSharingConfig cfg;
  cfg.mode = mode;
  cfg.jobs = jobs;
  cfg.job_sm_fraction = f;
  cfg.job_time_s = t;
  cfg.context_switch_s = c;
  cfg.timeslice_s = q;
  return gpu_sharing(cfg);
}

TEST(GpuSharingSimulation, OneJobTakesItsTimeInEveryMode) {
  for (const char* mode : {"exclusive", "time-slicing", "mps"}) {
    const GpuSharing r = run(mode, 1, 0.3, 0.05, 1e-3);
    EXPECT_DOUBLE_EQ(r.makespan_s, 0.05) << mode;
    EXPECT_DOUBLE_EQ(r.mean_latency_s, 0.05) << mode;
    EXPECT_NEAR(r.utilization, 0.3, 1e-12) << mode;
    EXPECT_EQ(r.context_switches, 0) << mode;
  }
  // On one 1g instance of an H100 (16 of 132 SMs) a job that wants 30% runs at (16/132)/0.3.
  const GpuSharing m = run("mig", 1, 0.3, 0.05);
  EXPECT_NEAR(m.makespan_s, 0.05 * 0.3 / (16.0 / 132), 1e-15);
}

TEST(GpuSharingSimulation, ClosedForms) {
  // MPS: k jobs of 1/k of the SMs each finish together in one job time; past a full GPU the
  // makespan is n·f·T.
  for (int k : {2, 4, 7, 16, 48}) EXPECT_NEAR(run("mps", k, 1.0 / k, 0.02).makespan_s, 0.02, 1e-15) << k;
  EXPECT_NEAR(run("mps", 40, 0.1, 0.01).makespan_s, 40 * 0.1 * 0.01, 1e-15);
  EXPECT_NEAR(run("mps", 40, 0.1, 0.01).utilization, 1.0, 1e-12);
  // Exclusive: n·T, latency (n+1)/2·T; utilization f.
  const GpuSharing e = run("exclusive", 28, 0.1, 0.01);
  EXPECT_NEAR(e.makespan_s, 0.28, 1e-14);
  EXPECT_NEAR(e.mean_latency_s, 14.5 * 0.01, 1e-14);
  EXPECT_NEAR(e.utilization, 0.1, 1e-12);
  // Time-slicing without switch cost: utilization f; with it, n·T + n·(⌈T/q⌉ − 1)·c.
  EXPECT_NEAR(run("time-slicing", 28, 0.1, 0.01, 0).utilization, 0.1, 1e-12);
  const GpuSharing ts = run("time-slicing", 28, 0.1, 0.01, 1e-4, 2e-3);
  EXPECT_EQ(ts.context_switches, 28 * 4);
  EXPECT_NEAR(ts.makespan_s, 0.28 + 28 * 4 * 1e-4, 1e-13);
  EXPECT_NEAR(ts.utilization, 0.1 * 0.28 / ts.makespan_s, 1e-12);
  // Jobs shorter than a slice never switch: time-slicing is exclusive.
  EXPECT_NEAR(run("time-slicing", 10, 0.2, 1e-3, 1e-4, 2e-3).makespan_s, 0.01, 1e-15);
  // MIG: ⌈n/7⌉·T on 1g instances when f fits the instance.
  const GpuSharing g = run("mig", 28, 0.1, 0.01);
  EXPECT_NEAR(g.makespan_s, 4 * 0.01, 1e-15);
  EXPECT_EQ(g.lanes, 7);
  EXPECT_NEAR(g.utilization, 0.7, 1e-12);
}

TEST(GpuSharingSimulation, SeededStreamIsDeterministicAndConservesWork) {
  GpuSharingConfig cfg;
  cfg.jobs = 200;
  cfg.arrival_rate_per_s = 60;
  cfg.job_time_cv = 1.5;
  cfg.seed = 7;
  for (const char* mode : {"exclusive", "time-slicing", "mps", "mig"}) {
    cfg.mode = mode;
    const GpuSharing a = gpu_sharing(cfg), b = gpu_sharing(cfg);
    EXPECT_EQ(a.makespan_s, b.makespan_s);
    EXPECT_EQ(a.mean_latency_s, b.mean_latency_s);
    EXPECT_NEAR(a.utilization, 0.1 * a.mean_job_time_s * 200 / a.makespan_s, 1e-12);
    EXPECT_LE(a.utilization, 1.0);
    for (const auto& j : a.timeline) {
      EXPECT_GE(j.start_s, j.arrival_s);
      EXPECT_GT(j.end_s, j.start_s);
    }
  }
  cfg.seed = 8;
  cfg.mode = "mps";
  GpuSharingConfig other = cfg;
  other.seed = 7;
  EXPECT_NE(gpu_sharing(cfg).makespan_s, gpu_sharing(other).makespan_s);
}

TEST(GpuSharingSimulation, JobsThatFillTheGpuMeetExceptOnMigInstancesThatHoldLess) {
  // f = 1: exclusive and MPS keep every SM busy; seven 1g instances of an H100 hold only 112 of
  // its 132 SMs (nvidia-smi mig -lgip: 16 each), so MIG stays at 112/132 however large the jobs;
  // only the one 7g instance (all 132) meets the others.
  EXPECT_NEAR(run("exclusive", 28, 1.0, 0.01).utilization, 1.0, 1e-12);
  EXPECT_NEAR(run("mps", 28, 1.0, 0.01).utilization, 1.0, 1e-12);
  EXPECT_NEAR(run("mig", 28, 1.0, 0.01).utilization, 112.0 / 132, 1e-12);
  GpuSharingConfig seven_g;
  seven_g.mode = "mig";
  seven_g.mig_profile = "7g";
  seven_g.job_sm_fraction = 1.0;
  EXPECT_NEAR(gpu_sharing(seven_g).utilization, 1.0, 1e-12);
}

GpuSharingConfig arrivals(const std::string& mode, double rate, double cv, int jobs, int repeats) {
  GpuSharingConfig c;
  c.mode = mode;
  c.jobs = jobs;
  c.arrival_rate_per_s = rate;
  c.job_time_cv = cv;
  c.repeats = repeats;
  return c;
}

TEST(GpuSharingSimulation, RepeatsAverageIndependentSamples) {
  GpuSharingConfig c = arrivals("time-slicing", 60, 2, 100, 1);
  double sum = 0, lo = 1e9, hi = 0;
  for (std::uint64_t seed = 5; seed < 15; ++seed) {
    c.seed = seed;
    const GpuSharing one = gpu_sharing(c);
    EXPECT_EQ(one.sample_mean_latency_min_s, one.mean_latency_s);
    sum += one.mean_latency_s;
    lo = std::min(lo, one.mean_latency_s);
    hi = std::max(hi, one.mean_latency_s);
  }
  c.seed = 5;
  c.repeats = 10;
  const GpuSharing avg = gpu_sharing(c);
  EXPECT_EQ(avg.repeats, 10);
  EXPECT_NEAR(avg.mean_latency_s, sum / 10, 1e-12 * sum);
  EXPECT_EQ(avg.sample_mean_latency_min_s, lo);
  EXPECT_EQ(avg.sample_mean_latency_max_s, hi);
  EXPECT_LT(lo, hi);  // the samples differ
  c.repeats = kMaxSharingRepeats + 1;
  EXPECT_THROW(gpu_sharing(c), InputError);
  c.repeats = 2;
  c.jobs = kMaxSharingJobs;
  c.repeats = kMaxSharingJobRepeats / kMaxSharingJobs + 1;
  EXPECT_THROW(gpu_sharing(c), InputError);
}

TEST(GpuSharingSimulation, SteadyStateQueueMeansAndTheSimulationApproachingThem) {
  // M/G/1 (Kleinrock, Queueing Systems vol. 1): λ = 60/s, T = 10 ms, cv 2 gives ρ = 0.6,
  // first come first served T + λ·T²(1 + cv²)/(2(1 − ρ)) = 10 + 0.06·500/0.8 = 47.5 ms, and
  // processor sharing T/(1 − ρ) = 25 ms.
  const GpuSharing a = gpu_sharing(arrivals("exclusive", 60, 2, 200, 1));
  ASSERT_TRUE(a.offered_load && a.steady_fcfs_mean_latency_s && a.steady_ps_mean_latency_s);
  EXPECT_NEAR(*a.offered_load, 0.6, 1e-12);
  EXPECT_NEAR(*a.steady_fcfs_mean_latency_s, 0.0475, 1e-12);
  EXPECT_NEAR(*a.steady_ps_mean_latency_s, 0.025, 1e-12);
  // At or past a full GPU there is no steady state; without arrivals, no queue at all.
  EXPECT_FALSE(gpu_sharing(arrivals("exclusive", 100, 1, 50, 1)).steady_fcfs_mean_latency_s);
  EXPECT_FALSE(run("exclusive", 28, 0.1, 0.01).offered_load);
  // A light-tailed stream (cv 0.5, ρ = 0.5) converges quickly: 400 jobs averaged over 40 seeds
  // come within 10% of both long-run values (FCFS 10 + 50·1.25e-4/1 = 16.25 ms; PS 20 ms, which
  // round robin approaches with slices of 0.2 ms and free switches).
  const GpuSharing fcfs = gpu_sharing(arrivals("exclusive", 50, 0.5, 400, 40));
  EXPECT_NEAR(fcfs.mean_latency_s, *fcfs.steady_fcfs_mean_latency_s, 0.1 * *fcfs.steady_fcfs_mean_latency_s);
  GpuSharingConfig rr = arrivals("time-slicing", 50, 0.5, 400, 40);
  rr.timeslice_s = 2e-4;
  rr.context_switch_s = 0;
  const GpuSharing ps = gpu_sharing(rr);
  EXPECT_NEAR(ps.mean_latency_s, *ps.steady_ps_mean_latency_s, 0.1 * *ps.steady_ps_mean_latency_s);
}

TEST(GpuSharingSimulation, BadInputsNameTheirField) {
  GpuSharingConfig cfg;
  cfg.jobs = 0;
  EXPECT_THROW(gpu_sharing(cfg), InputError);
  cfg.jobs = 4;
  cfg.job_sm_fraction = 0;
  EXPECT_THROW(gpu_sharing(cfg), InputError);
  cfg.job_sm_fraction = 0.5;
  cfg.mode = "vgpu";
  EXPECT_THROW(gpu_sharing(cfg), InputError);
}

TEST(GpuSharingExercises, AnswersAreTheCalculatorsOnTheDrawnInputs) {
  using nlohmann::json;
  const auto get = [](const json& j, const char* k) { return j.at(k).get<double>(); };
  for (std::uint32_t seed = 0; seed < 30; ++seed) {
    auto e = make_exercise("sg-mps-makespan", seed);
    EXPECT_NEAR(e.answer, 1e3 * get(mlsys::calc("gpu-sharing", e.params), "makespan_s"), 1e-9 * e.answer) << seed;
    e = make_exercise("sg-time-slicing-makespan", seed);
    EXPECT_NEAR(e.answer, 1e3 * get(mlsys::calc("gpu-sharing", e.params), "makespan_s"), 1e-9 * e.answer) << seed;
    e = make_exercise("sg-mig-throughput", seed);
    EXPECT_NEAR(e.answer, get(mlsys::calc("gpu-sharing", e.params), "throughput_jobs_per_s"), 1e-9 * e.answer) << seed;
    // The answer box takes a plain number (the parser has no jobs/s unit), and the prompt says so.
    EXPECT_NE(e.prompt.find("plain number of jobs per second"), std::string::npos) << seed;
    e = make_exercise("sg-time-slicing-utilization", seed);
    EXPECT_NEAR(e.answer, 100 * get(mlsys::calc("gpu-sharing", e.params), "utilization"), 1e-9 * e.answer) << seed;
    e = make_exercise("sg-mig-busy-sms", seed);
    const json m = mlsys::calc("mig", e.params);
    EXPECT_TRUE(m.at("valid").get<bool>()) << seed;
    EXPECT_LE(e.answer, 100 * get(m, "sm_fraction_used") + 1e-9) << seed;
  }
}

}  // namespace
}  // namespace mlsys
