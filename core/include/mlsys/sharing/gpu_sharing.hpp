// Sharing one GPU among a stream of small jobs: a discrete-event simulation of four ways to do
// it. Each job alone on a whole GPU takes `job_time_s` and can keep only `job_sm_fraction` f of
// the SMs busy (too few blocks to fill the rest); its work is f × job_time_s SM-seconds in
// every mode. The modes:
//  - exclusive: one job at a time, to completion, first come first served (one job per GPU).
//  - time-slicing: every job's context is resident; the GPU runs one context at a time, in
//    round-robin slices of `timeslice_s`. A job holding the GPU runs at its alone speed (it
//    still uses only f of the SMs); each slice that ends with the job unfinished while another
//    waits costs `context_switch_s` of idle GPU. (CUDA's default sharing between processes and
//    the Kubernetes device plugin's "time-slicing" work this way; the driver's slice length is
//    not published as a number, so it is an input.)
//  - mps (CUDA Multi-Process Service): the kernels of up to `mps_clients` processes (48 at most
//    per GPU since Volta) run on the SMs at once. With k running jobs each gets min(f, 1/k) of
//    the SMs (they ask for f each; past a full GPU they share it evenly) and progresses at that
//    over f times its alone speed. Others wait in order.
//  - mig: fixed, isolated instances of one MIG profile of `hardware` (mig.hpp), as many as the
//    GPU holds (7 × 1g, 3 × 2g, 2 × 3g, 1 × 4g or 1 × 7g). A job on an instance of SM fraction
//    s (its SMs / the GPU's) gets min(f, s) and runs at min(f, s)/f of its alone speed; a free
//    instance takes the next waiting job. The instances' SMs may not add up to the whole GPU
//    (A100: 7 × 14 = 98 of 108).
// Left out: memory bandwidth, L2 and memory capacity contention between co-running jobs (MPS
// and time-slicing share them; MIG partitions them), so MPS here is an upper bound; the launch
// and host overheads of each job; the cost of creating processes or reconfiguring MIG.
// Jobs arrive all at t = 0 (default) or as a Poisson stream of `arrival_rate_per_s`; their
// lengths are job_time_s each, or lognormal with mean job_time_s and coefficient of variation
// `job_time_cv`, drawn from `seed` (foundations/deterministic.hpp). Closed forms, all jobs at 0
// and equal: exclusive makespan n·T; time-slicing n·T + n·(⌈T/q⌉ − 1)·c for n ≥ 2; MPS
// T·max(1, n·f) for n ≤ mps_clients; MIG ⌈n/K⌉·T·f/min(f, s). Utilization (busy SMs over the
// GPU's SMs, averaged over the makespan) is n·f·T̄ / makespan in every mode.
// One sample of a random stream can be far from the typical one (a few long jobs of a
// heavy-tailed draw decide it), so `repeats` runs the streams of seeds seed … seed + repeats − 1
// and averages every scalar output over them; and with Poisson arrivals the long-run means of
// the one-job-at-a-time queue (M/G/1, Kleinrock, Queueing Systems vol. 1, 1975) come with it:
// load ρ = λ·T, first come first served (exclusive) by Pollaczek–Khinchine
// T + λ·E[S²]/(2(1 − ρ)) with E[S²] = T²(1 + cv²), and processor sharing T/(1 − ρ), the limit
// of round robin as the slice and the switch cost go to zero, whatever the spread of lengths.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

inline constexpr int kMaxSharingJobs = 512;
inline constexpr int kMpsMaxClients = 48;     // Volta and later MPS: client contexts per GPU
inline constexpr int kSharingTimelineJobs = 64;
inline constexpr int kMaxSharingRepeats = 200;
inline constexpr int kMaxSharingJobRepeats = 20000;  // jobs × repeats simulated in one call

struct SharingJob {
  int job = 0;
  double arrival_s = 0, start_s = 0, end_s = 0;  // first time it ran, completion
  int lane = 0;                                 // MIG instance it ran on (0 otherwise)
};

struct GpuSharingConfig {
  int jobs = 28;
  double job_sm_fraction = 0.1;  // f
  double job_time_s = 0.01;      // T, alone on a whole GPU
  std::string mode = "time-slicing";
  double context_switch_s = 1e-4;  // c
  double timeslice_s = 2e-3;       // q
  int mps_clients = kMpsMaxClients;
  std::string hardware = "h100-sxm";  // MIG table
  std::string mig_profile = "1g";     // 1g, 2g, 3g, 4g or 7g (the profile with the least memory)
  double arrival_rate_per_s = 0;      // 0: all jobs wait at t = 0
  double job_time_cv = 0;
  std::uint64_t seed = 0;
  int repeats = 1;  // independent streams (seeds seed, seed + 1, …) averaged
};

struct GpuSharing {
  double makespan_s = 0;             // last completion
  double throughput_jobs_per_s = 0;  // jobs / makespan
  double mean_latency_s = 0;         // mean of completion − arrival
  double max_latency_s = 0;
  double utilization = 0;            // Σ f·work / makespan: busy SMs / all SMs, time-averaged
  double busy_fraction = 0;          // time some job runs / makespan
  long long context_switches = 0;
  double switch_time_s = 0;          // context_switches × context_switch_s
  int lanes = 1;                     // jobs that can run at once: MIG instances, MPS clients, 1
  double lane_sm_fraction = 1;       // SMs one job may use: MIG instance's SMs / GPU's; 1 otherwise
  double job_speed = 1;              // a job's speed when it has its lane alone (MIG: min(f, s)/f)
  double mean_job_time_s = 0;        // mean drawn length (alone)
  std::string mig_instance = "none"; // the MIG profile used (mig mode; "none" otherwise)
  std::vector<SharingJob> timeline;  // the first kSharingTimelineJobs jobs (of the first sample)
  int repeats = 1;                   // samples averaged into the scalar outputs
  double sample_mean_latency_min_s = 0, sample_mean_latency_max_s = 0;  // spread of mean_latency_s over the samples
  // With Poisson arrivals: ρ = λ·T, and for ρ < 1 the long-run mean latency of one job at a time
  // first come first served (Pollaczek–Khinchine) and under processor sharing (round robin in the
  // limit q, c → 0).
  std::optional<double> offered_load, steady_fcfs_mean_latency_s, steady_ps_mean_latency_s;
};

// InputError naming the field for out-of-range inputs or an unknown mode.
GpuSharing gpu_sharing(const GpuSharingConfig& config);

}  // namespace mlsys
