// Discrete-event simulation of jobs sharing one GPU (mlsys/sharing/gpu_sharing.hpp for the
// model). Only + − × ÷, sqrt and the deterministic exp/log: the same bits natively and in WASM.
#include "mlsys/sharing/gpu_sharing.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/sharing/mig.hpp"

namespace mlsys {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Job {
  double arrival = 0, work = 0, remaining = 0, start = -1, end = -1;
  int lane = 0;
};

void check(bool ok, const char* field, const std::string& message) {
  if (!ok) throw InputError(field, message);
}

// Exclusive: first come, first served, to completion, at alone speed.
void run_exclusive(std::vector<Job>& jobs) {
  double t = 0;
  for (auto& j : jobs) {
    t = std::max(t, j.arrival);
    j.start = t;
    t += j.work;
    j.end = t;
  }
}

// Fixed lanes of equal speed (MIG instances): the next job in order takes the lane that frees
// first (the lowest-numbered among ties).
void run_lanes(std::vector<Job>& jobs, int lanes, double speed) {
  std::vector<double> free_at(static_cast<std::size_t>(lanes), 0.0);
  for (auto& j : jobs) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < free_at.size(); ++k)
      if (std::max(free_at[k], j.arrival) < std::max(free_at[best], j.arrival)) best = k;
    j.start = std::max(free_at[best], j.arrival);
    j.end = j.start + j.work / speed;
    j.lane = static_cast<int>(best);
    free_at[best] = j.end;
  }
}

// MPS: up to `clients` jobs run at once, each at min(f, 1/k) of the SMs, i.e. speed
// min(1, 1/(k·f)) of its alone speed; the rest wait in order.
void run_mps(std::vector<Job>& jobs, double f, int clients) {
  const std::size_t n = jobs.size();
  std::vector<std::size_t> active;
  std::size_t next = 0, done = 0;
  double t = 0;
  while (done < n) {
    while (next < n && jobs[next].arrival <= t && active.size() < static_cast<std::size_t>(clients)) {
      jobs[next].start = t;
      active.push_back(next++);
    }
    const double t_arrival = (next < n && active.size() < static_cast<std::size_t>(clients)) ? jobs[next].arrival : kInf;
    if (active.empty()) {
      t = jobs[next].arrival;
      continue;
    }
    const double k = static_cast<double>(active.size());
    const double speed = k * f <= 1 ? 1.0 : 1.0 / (k * f);
    double rmin = kInf;
    for (std::size_t i : active) rmin = std::min(rmin, jobs[i].remaining);
    const double t_done = t + rmin / speed;
    if (t_arrival < t_done) {
      const double dt = t_arrival - t;
      for (std::size_t i : active) jobs[i].remaining -= speed * dt;
      t = t_arrival;
      continue;
    }
    const double dt = rmin / speed;
    t = t_done;
    std::vector<std::size_t> still;
    for (std::size_t i : active) {
      Job& j = jobs[i];
      j.remaining = j.remaining == rmin ? 0.0 : j.remaining - speed * dt;
      if (j.remaining <= 1e-12 * j.work) {
        j.remaining = 0;
        j.end = t;
        ++done;
      } else {
        still.push_back(i);
      }
    }
    active.swap(still);
  }
}

// Time-slicing: round robin over resident jobs in slices of q; a slice that ends with its job
// unfinished while another waits is followed by a context switch of c. Whole rounds in which
// every job is preempted are taken in one step (no arrival falls inside them).
long long run_time_slicing(std::vector<Job>& jobs, double q, double c) {
  const std::size_t n = jobs.size();
  std::deque<std::size_t> ready;
  std::size_t next = 0, done = 0;
  long long switches = 0;
  double t = 0;
  auto admit = [&](double upto) {
    while (next < n && jobs[next].arrival <= upto) ready.push_back(next++);
  };
  const double tiny = 1e-12;
  while (done < n) {
    admit(t);
    if (ready.empty()) {
      t = jobs[next].arrival;
      continue;
    }
    const double t_arrival = next < n ? jobs[next].arrival : kInf;
    const std::size_t k = ready.size();
    if (k >= 2) {
      double rmin = kInf;
      for (std::size_t i : ready) rmin = std::min(rmin, jobs[i].remaining);
      double rounds = std::ceil(rmin / q * (1 - tiny)) - 1;  // rounds that preempt every job
      const double round_s = static_cast<double>(k) * (q + c);
      if (t_arrival < kInf) rounds = std::min(rounds, std::floor((t_arrival - t) / round_s));
      if (rounds >= 1) {
        std::size_t pos = 0;
        for (std::size_t i : ready) {
          if (jobs[i].start < 0) jobs[i].start = t + static_cast<double>(pos) * (q + c);
          jobs[i].remaining -= rounds * q;
          ++pos;
        }
        t += rounds * round_s;
        switches += static_cast<long long>(rounds) * static_cast<long long>(k);
        continue;
      }
    }
    const std::size_t i = ready.front();
    ready.pop_front();
    Job& j = jobs[i];
    if (j.start < 0) j.start = t;
    double run = std::min(q, j.remaining);
    if (ready.empty()) {
      // Alone: it keeps the GPU until it finishes or, after an arrival, its slice ends.
      run = j.remaining;
      if (t_arrival < t + j.remaining) run = std::min(j.remaining, std::ceil((t_arrival - t) / q * (1 - tiny)) * q);
      run = std::max(run, std::min(q, j.remaining));
    }
    t += run;
    j.remaining = run >= j.remaining * (1 - tiny) ? 0.0 : j.remaining - run;
    admit(t);
    if (j.remaining > 0) {
      if (!ready.empty()) {
        t += c;
        ++switches;
        admit(t);
        ready.push_back(i);
      } else {
        ready.push_front(i);
      }
    } else {
      j.end = t;
      ++done;
    }
  }
  return switches;
}

GpuSharing simulate(const GpuSharingConfig& cfg, std::uint64_t seed);

}  // namespace

GpuSharing gpu_sharing(const GpuSharingConfig& cfg) {
  check(cfg.jobs >= 1 && cfg.jobs <= kMaxSharingJobs, "jobs",
        "jobs must be between 1 and " + std::to_string(kMaxSharingJobs) + ".");
  check(std::isfinite(cfg.job_sm_fraction) && cfg.job_sm_fraction > 0 && cfg.job_sm_fraction <= 1, "job_sm_fraction",
        "job_sm_fraction must be in (0, 1].");
  check(std::isfinite(cfg.job_time_s) && cfg.job_time_s > 0, "job_time_s", "job_time_s must be positive.");
  check(std::isfinite(cfg.context_switch_s) && cfg.context_switch_s >= 0, "context_switch_s",
        "context_switch_s must be zero or positive.");
  check(std::isfinite(cfg.timeslice_s) && cfg.timeslice_s > 0, "timeslice_s", "timeslice_s must be positive.");
  check(cfg.mps_clients >= 1 && cfg.mps_clients <= kMpsMaxClients, "mps_clients",
        "mps_clients must be between 1 and " + std::to_string(kMpsMaxClients) + ".");
  check(std::isfinite(cfg.arrival_rate_per_s) && cfg.arrival_rate_per_s >= 0, "arrival_rate_per_s",
        "arrival_rate_per_s must be zero (all jobs at once) or positive.");
  check(std::isfinite(cfg.job_time_cv) && cfg.job_time_cv >= 0 && cfg.job_time_cv <= 4, "job_time_cv",
        "job_time_cv must be between 0 and 4.");
  // A bound on the slices simulated: whole rounds are one step, so what remains is about one
  // round per arrival and completion, at most jobs² slices; the work per slice is bounded too.
  check(cfg.job_time_s / cfg.timeslice_s <= 1e9, "timeslice_s", "timeslice_s is too short for job_time_s (over 1e9 slices per job).");
  const bool known = cfg.mode == "exclusive" || cfg.mode == "time-slicing" || cfg.mode == "mps" || cfg.mode == "mig";
  check(known, "mode", "mode must be one of exclusive, time-slicing, mps, mig.");
  check(cfg.repeats >= 1 && cfg.repeats <= kMaxSharingRepeats, "repeats",
        "repeats must be between 1 and " + std::to_string(kMaxSharingRepeats) + ".");
  check(static_cast<long long>(cfg.jobs) * cfg.repeats <= kMaxSharingJobRepeats, "repeats",
        "jobs × repeats must be at most " + std::to_string(kMaxSharingJobRepeats) + ".");

  // Every scalar output averaged over the samples; the timeline and the lanes of the first.
  GpuSharing r = simulate(cfg, cfg.seed);
  r.sample_mean_latency_min_s = r.sample_mean_latency_max_s = r.mean_latency_s;
  if (cfg.repeats > 1) {
    double switches = static_cast<double>(r.context_switches);
    for (int k = 1; k < cfg.repeats; ++k) {
      const GpuSharing s = simulate(cfg, cfg.seed + static_cast<std::uint64_t>(k));
      r.makespan_s += s.makespan_s;
      r.throughput_jobs_per_s += s.throughput_jobs_per_s;
      r.mean_latency_s += s.mean_latency_s;
      r.max_latency_s += s.max_latency_s;
      r.utilization += s.utilization;
      r.busy_fraction += s.busy_fraction;
      switches += static_cast<double>(s.context_switches);
      r.switch_time_s += s.switch_time_s;
      r.mean_job_time_s += s.mean_job_time_s;
      r.sample_mean_latency_min_s = std::min(r.sample_mean_latency_min_s, s.mean_latency_s);
      r.sample_mean_latency_max_s = std::max(r.sample_mean_latency_max_s, s.mean_latency_s);
    }
    const double m = cfg.repeats;
    r.makespan_s /= m;
    r.throughput_jobs_per_s /= m;
    r.mean_latency_s /= m;
    r.max_latency_s /= m;
    r.utilization /= m;
    r.busy_fraction /= m;
    r.context_switches = std::llround(switches / m);
    r.switch_time_s /= m;
    r.mean_job_time_s /= m;
  }
  r.repeats = cfg.repeats;
  if (cfg.arrival_rate_per_s > 0) {
    const double T = cfg.job_time_s, rho = cfg.arrival_rate_per_s * T;
    r.offered_load = rho;
    if (rho < 1) {
      const double second_moment = T * T * (1 + cfg.job_time_cv * cfg.job_time_cv);
      r.steady_fcfs_mean_latency_s = T + cfg.arrival_rate_per_s * second_moment / (2 * (1 - rho));
      r.steady_ps_mean_latency_s = T / (1 - rho);
    }
  }
  return r;
}

namespace {

// One sample: the stream of `seed`, run in cfg.mode.
GpuSharing simulate(const GpuSharingConfig& cfg, std::uint64_t seed) {
  // The jobs: arrivals and lengths from the seed.
  SeededStream rng(mix_seed(seed, 0x5AD7C0FFEE1234ULL));
  const double sigma2 = cfg.job_time_cv > 0 ? log_det(1 + cfg.job_time_cv * cfg.job_time_cv) : 0.0;
  const double sigma = std::sqrt(sigma2);
  std::vector<Job> jobs(static_cast<std::size_t>(cfg.jobs));
  double t_arrive = 0;  // the stream starts with a job at t = 0
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    Job& j = jobs[i];
    if (cfg.arrival_rate_per_s > 0 && i > 0) t_arrive += -log_det(rng.uniform_open()) / cfg.arrival_rate_per_s;
    j.arrival = t_arrive;
    j.work = cfg.job_time_cv > 0 ? cfg.job_time_s * exp_det(sigma * rng.normal() - sigma2 / 2) : cfg.job_time_s;
    j.remaining = j.work;
  }

  GpuSharing r;
  const double f = cfg.job_sm_fraction;
  if (cfg.mode == "exclusive") {
    run_exclusive(jobs);
  } else if (cfg.mode == "time-slicing") {
    r.context_switches = run_time_slicing(jobs, cfg.timeslice_s, cfg.context_switch_s);
    r.switch_time_s = static_cast<double>(r.context_switches) * cfg.context_switch_s;
  } else if (cfg.mode == "mps") {
    r.lanes = cfg.mps_clients;
    run_mps(jobs, f, cfg.mps_clients);
  } else {
    const MigTable table = mig_table(cfg.hardware);
    const MigProfile* chosen = nullptr;
    for (const auto& p : table.profiles)
      if (!p.media_extensions && std::to_string(p.compute_slices) + "g" == cfg.mig_profile &&
          (!chosen || p.memory_slices < chosen->memory_slices))
        chosen = &p;
    check(chosen != nullptr, "mig_profile", "mig_profile must be one of 1g, 2g, 3g, 4g, 7g.");
    r.lanes = chosen->max_instances;
    r.lane_sm_fraction = chosen->sm_fraction;
    r.job_speed = std::min(f, chosen->sm_fraction) / f;
    r.mig_instance = chosen->name;
    run_lanes(jobs, r.lanes, r.job_speed);
  }

  double sum_latency = 0, sum_work = 0;
  for (const auto& j : jobs) {
    r.makespan_s = std::max(r.makespan_s, j.end);
    sum_latency += j.end - j.arrival;
    r.max_latency_s = std::max(r.max_latency_s, j.end - j.arrival);
    sum_work += j.work;
  }
  const double n = static_cast<double>(jobs.size());
  r.mean_job_time_s = sum_work / n;
  r.throughput_jobs_per_s = n / r.makespan_s;
  r.mean_latency_s = sum_latency / n;
  r.utilization = std::min(1.0, f * sum_work / r.makespan_s);
  // Time with some job running: the union of the run intervals (time-slicing: work + nothing
  // else runs during a switch; the others: merge [start, end] per mode's own rule).
  if (cfg.mode == "time-slicing" || cfg.mode == "exclusive") {
    r.busy_fraction = std::min(1.0, sum_work / r.makespan_s);
  } else {
    std::vector<std::pair<double, double>> spans;
    for (const auto& j : jobs) spans.emplace_back(j.start, j.end);
    std::sort(spans.begin(), spans.end());
    double busy = 0, s0 = spans.front().first, e0 = spans.front().second;
    for (const auto& [s, e] : spans) {
      if (s > e0) {
        busy += e0 - s0;
        s0 = s;
        e0 = e;
      } else {
        e0 = std::max(e0, e);
      }
    }
    busy += e0 - s0;
    r.busy_fraction = std::min(1.0, busy / r.makespan_s);
  }
  for (std::size_t i = 0; i < jobs.size() && i < static_cast<std::size_t>(kSharingTimelineJobs); ++i)
    r.timeline.push_back({static_cast<int>(i), jobs[i].arrival, jobs[i].start, jobs[i].end, jobs[i].lane});
  return r;
}

}  // namespace

}  // namespace mlsys
