// Calculators of the sharing-a-gpu lesson (shared/API.md): `mig` (NVIDIA's MIG profile tables
// for the A100 80GB, H100 80GB and H200, and whether a layout of instances fits one GPU under
// the placement rules) and `gpu-sharing` (a discrete-event simulation of small jobs sharing one
// GPU exclusively, by time-slicing, under MPS or on MIG instances).
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/sharing/gpu_sharing.hpp"
#include "mlsys/sharing/mig.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(MigProfile, MLSYS_OUT(name, "", "Profile name as nvidia-smi lists it"),
               MLSYS_OUT(compute_slices, "", "Compute slices of the GPU's 7"),
               MLSYS_OUT(memory_slices, "", "Memory slices of the GPU's 8"),
               MLSYS_OUT(memory_bytes, "B", "memory_slices / 8 × the GPU's HBM (nvidia-smi reports a little less usable)"),
               MLSYS_OUT(sms, "", "Streaming multiprocessors of one instance (nvidia-smi mig -lgip)"),
               MLSYS_OUT(sm_fraction, "", "sms / the GPU's SMs"),
               MLSYS_OUT(max_instances, "", "Instances of this profile one GPU holds"),
               MLSYS_OUT(placements, "", "Memory slices an instance may start at"),
               MLSYS_OUT(media_extensions, "", "+me (media extensions): the one 1g variant that also gets the optical-flow accelerator (OFA)"));
MLSYS_DESCRIBE(MigInstance, MLSYS_OUT(name, "", "Profile"), MLSYS_OUT(start, "", "First memory slice"),
               MLSYS_OUT(compute_slices, "", "Compute slices"), MLSYS_OUT(memory_slices, "", "Memory slices"),
               MLSYS_OUT(sms, "", "SMs"), MLSYS_OUT(memory_bytes, "B", "Memory"),
               MLSYS_OUT(compute_slice_ids, "", "Compute slices it occupies"),
               MLSYS_OUT(memory_slice_ids, "", "Memory slices it occupies"));
MLSYS_DESCRIBE(MigReport, MLSYS_OUT(hardware, "", "Accelerator id"), MLSYS_OUT(name, "", "Accelerator name"),
               MLSYS_OUT(source, "", "Where the table comes from"),
               MLSYS_OUT(compute_slices, "", "Compute slices of the GPU (7)"),
               MLSYS_OUT(memory_slices, "", "Memory slices of the GPU (8)"),
               MLSYS_OUT(sms, "", "SMs of the whole GPU (hardware table)"),
               MLSYS_OUT(hbm_bytes, "B", "HBM capacity (hardware table)"),
               MLSYS_OUT(profiles, "", "GPU instance profiles: {name, compute_slices, memory_slices, memory_bytes, sms, sm_fraction, max_instances, placements, media_extensions}"),
               MLSYS_OUT(valid, "", "With layout: whether the instances fit one GPU together"),
               MLSYS_OUT(reason, "", "With layout: why not, or the placement that fits"),
               MLSYS_OUT(compute_slices_used, "", "With layout: compute slices the instances take"),
               MLSYS_OUT(memory_slices_used, "", "With layout: memory slices the instances take"),
               MLSYS_OUT(sms_used, "", "With layout: SMs of all the instances"),
               MLSYS_OUT(memory_bytes_used, "B", "With layout: memory of all the instances"),
               MLSYS_OUT(sm_fraction_used, "", "With layout: sms_used / the GPU's SMs"),
               MLSYS_OUT(instances, "", "With layout: the placement found, by first memory slice (empty when invalid)"));
MLSYS_DESCRIBE(SharingJob, MLSYS_OUT(job, "", "Job number, in arrival order"), MLSYS_OUT(arrival_s, "s", "Arrival"),
               MLSYS_OUT(start_s, "s", "First time it ran"), MLSYS_OUT(end_s, "s", "Completion"),
               MLSYS_OUT(lane, "", "MIG instance it ran on (0 in the other modes)"));
MLSYS_DESCRIBE(GpuSharing, MLSYS_OUT(makespan_s, "s", "Time of the last completion"),
               MLSYS_OUT(throughput_jobs_per_s, "1/s", "jobs / makespan_s"),
               MLSYS_OUT(mean_latency_s, "s", "Mean of completion − arrival"),
               MLSYS_OUT(max_latency_s, "s", "Largest completion − arrival"),
               MLSYS_OUT(utilization, "", "Busy SMs / the GPU's SMs, averaged over the makespan: f × Σ job times / makespan"),
               MLSYS_OUT(busy_fraction, "", "Share of the makespan during which some job runs"),
               MLSYS_OUT(context_switches, "", "Time-slicing: slices that ended in a switch to another context"),
               MLSYS_OUT(switch_time_s, "s", "context_switches × context_switch_s"),
               MLSYS_OUT(lanes, "", "Jobs that can run at once: MIG instances, MPS clients, or 1"),
               MLSYS_OUT(lane_sm_fraction, "", "SMs one job may use, as a share of the GPU's (MIG: the instance's; 1 otherwise)"),
               MLSYS_OUT(job_speed, "", "A job's speed on its own lane relative to alone on the GPU (MIG: min(f, s)/f)"),
               MLSYS_OUT(mean_job_time_s, "s", "Mean of the drawn job times (alone on the GPU)"),
               MLSYS_OUT(mig_instance, "", "MIG: the profile of the instances (\"none\" in the other modes)"),
               MLSYS_OUT(timeline, "", "The first 64 jobs: {job, arrival_s, start_s, end_s, lane} (of the first sample)"),
               MLSYS_OUT(repeats, "", "Samples (seeds seed, seed + 1, …) averaged into the scalar outputs"),
               MLSYS_OUT(sample_mean_latency_min_s, "s", "Smallest mean latency of one sample"),
               MLSYS_OUT(sample_mean_latency_max_s, "s", "Largest mean latency of one sample"),
               MLSYS_OUT(offered_load, "", "With arrivals: ρ = arrival rate × job_time_s, the share of time one job at a time keeps the GPU busy"),
               MLSYS_OUT(steady_fcfs_mean_latency_s, "s", "With arrivals and ρ < 1: long-run mean latency of one job at a time, first come first served (M/G/1, Pollaczek–Khinchine: T + λT²(1 + cv²)/(2(1 − ρ)))"),
               MLSYS_OUT(steady_ps_mean_latency_s, "s", "With arrivals and ρ < 1: long-run mean latency under processor sharing, round robin with slices and switches of zero length (T/(1 − ρ))"));

void add_sharing_calculators(Calculators& out) {
  out.add("mig",
          "NVIDIA Multi-Instance GPU profiles of a GPU (MIG user guide's tables; SMs as nvidia-smi mig -lgip lists "
          "them), and with `layout` whether those instances fit one GPU together: 7 compute slices, 8 memory "
          "slices, each profile starting only at the memory slices its placement list allows (1g: 0-6; 1g with two "
          "memory slices: 0, 2, 4, 6; 2g: 0, 2, 4; 3g: 0, 4; 4g and 7g: 0), no memory slice shared, one +me instance "
          "at most. `layout` is a list of profile names (or one string of them separated by commas).",
          {string_field("hardware", "GPU with a MIG table", "h100-sxm", mig_hardware_ids()),
           optional(string_list_field("layout", "MIG profile names, e.g. [\"4g.40gb\", \"2g.20gb\", \"1g.10gb\"]",
                                      json(), {}, 1, 16))},
          [](const Inputs& in) {
            const std::vector<std::string> layout = in.has("layout") ? in.strings("layout") : std::vector<std::string>{};
            return mig_report(in.str("hardware"), layout);
          });

  out.add("gpu-sharing",
          "A discrete-event simulation of `jobs` small jobs sharing one GPU. Each job alone on the whole GPU takes "
          "job_time_s and keeps only job_sm_fraction f of the SMs busy. exclusive: one job at a time; time-slicing: "
          "one context at a time in round-robin slices of timeslice_s, each preemption costing context_switch_s; "
          "mps: up to mps_clients jobs run at once, each with min(f, 1/k) of the SMs; mig: the instances of one MIG "
          "profile of `hardware`, one job each. Memory-bandwidth and cache contention are left out (MPS is an "
          "upper bound). Jobs wait at t = 0, or arrive as a Poisson stream; lengths are fixed or lognormal "
          "(job_time_cv), drawn from the seed; `repeats` averages that many independent samples, and with arrivals "
          "the M/G/1 long-run mean latencies come with it.",
          {integer_field("jobs", "", "Jobs to run", 28, 1, kMaxSharingJobs),
           number_field("job_sm_fraction", "", "Share of the GPU's SMs one job can keep busy (f)", 0.1, 0.0, 1.0, true),
           number_field("job_time_s", "s", "Time of one job alone on the whole GPU (T)", 0.01, 1e-6, 1e4),
           string_field("mode", "How the GPU is shared", "time-slicing", {"exclusive", "time-slicing", "mps", "mig"}),
           number_field("context_switch_s", "s", "Time-slicing: idle time of one context switch (c)", 1e-4, 0.0, 1.0),
           number_field("timeslice_s", "s", "Time-slicing: length of one slice (q)", 2e-3, 1e-5, 10.0),
           integer_field("mps_clients", "", "MPS: jobs that run at once (48 at most since Volta)", kMpsMaxClients, 1,
                         kMpsMaxClients),
           string_field("hardware", "MIG: GPU whose profile table is used", "h100-sxm", mig_hardware_ids()),
           string_field("mig_profile", "MIG: instance size (the profile with the least memory of that size)", "1g",
                        {"1g", "2g", "3g", "4g", "7g"}),
           number_field("arrival_rate_per_s", "1/s", "Poisson arrival rate; 0: all jobs wait at t = 0", 0.0, 0.0, 1e7),
           number_field("job_time_cv", "", "Coefficient of variation of the job times (lognormal; 0: all equal)", 0.0,
                        0.0, 4.0),
           seed_field(0),
           integer_field("repeats", "", "Independent samples of the job stream (seeds seed, seed + 1, …) whose outputs are averaged; jobs × repeats ≤ 20000",
                         1, 1, kMaxSharingRepeats)},
          [](const Inputs& in) {
            GpuSharingConfig c;
            c.jobs = static_cast<int>(in.integer("jobs"));
            c.job_sm_fraction = in.num("job_sm_fraction");
            c.job_time_s = in.num("job_time_s");
            c.mode = in.str("mode");
            c.context_switch_s = in.num("context_switch_s");
            c.timeslice_s = in.num("timeslice_s");
            c.mps_clients = static_cast<int>(in.integer("mps_clients"));
            c.hardware = in.str("hardware");
            c.mig_profile = in.str("mig_profile");
            c.arrival_rate_per_s = in.num("arrival_rate_per_s");
            c.job_time_cv = in.num("job_time_cv");
            c.seed = static_cast<std::uint64_t>(in.integer("seed"));
            c.repeats = static_cast<int>(in.integer("repeats"));
            return gpu_sharing(c);
          });
}

}  // namespace mlsys::api
