// Exercises of the sharing-a-gpu lesson: the makespan of small jobs under MPS and under
// time-slicing, the throughput of MIG instances, the SMs busy on a MIG layout (`mig`),
// and the utilization of a time-sliced GPU (`gpu-sharing`).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/sharing/gpu_sharing.hpp"
#include "mlsys/sharing/mig.hpp"

namespace mlsys::exercises {

namespace {

GpuSharing simulate(const std::string& mode, int jobs, double f, double t, double c = 1e-4, double q = 2e-3,
                    const std::string& hardware = "h100-sxm", const std::string& profile = "1g") {
  GpuSharingConfig cfg;
  cfg.mode = mode;
  cfg.jobs = jobs;
  cfg.job_sm_fraction = f;
  cfg.job_time_s = t;
  cfg.context_switch_s = c;
  cfg.timeslice_s = q;
  cfg.hardware = hardware;
  cfg.mig_profile = profile;
  return gpu_sharing(cfg);
}

const std::vector<double> kFractions = {0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3};

// MPS serves up to 48 client processes per GPU (the lesson's count, from NVIDIA's MPS
// documentation for Volta and later).
constexpr int kMaxMpsClients = 48;

Exercise mps_makespan(Rng& rng) {
  double f = 0;
  int n = 0;
  do {
    f = rng.pick(kFractions);
    n = rng.integer(4, kMaxMpsClients);
  } while (n * f < 1.2);
  const double t_ms = rng.integer(4, 60);
  const GpuSharing r = simulate("mps", n, f, t_ms / 1e3);
  Exercise e;
  e.title = "Small jobs under MPS";
  e.params = {{"mode", "mps"}, {"jobs", n}, {"job_sm_fraction", f}, {"job_time_s", t_ms / 1e3}};
  e.prompt = format_int(n) + " inference processes start at the same moment on one GPU under MPS. Each, alone on "
             "the GPU, runs for " + format_int(t_ms) + " ms and keeps only " + format_number(100 * f, 2) +
             "% of the SMs busy. Assuming the SMs are the only shared resource and the MPS scheduler shares them "
             "evenly once they are all asked for, when does the last process finish? Answer in milliseconds.";
  e.unit = "ms";
  e.answer = r.makespan_s * 1e3;
  e.rel_tolerance = 0.01;
  e.hint = "Together they ask for n·f of the GPU. Up to a whole GPU they all run at full speed; beyond it the GPU "
           "is full and the total work, n·f·T SM-seconds of a whole GPU, sets the time.";
  e.solution = "Demand: " + format_int(n) + " × " + format_number(f, 2) + " = " + format_number(n * f, 3) +
               " GPUs' worth of SMs, more than one GPU, so each runs at 1/" + format_number(n * f, 3) +
               " of its alone speed: " + format_int(t_ms) + " ms × " + format_number(n * f, 3) + " = " +
               format_number(e.answer, 4) + " ms.";
  require_between(e, n, 2, kMaxMpsClients, "MPS clients on one GPU");
  require(e, n * f > 1, "the jobs ask for more than the whole GPU, so they share it");
  reject_mistake(e, n * t_ms, "ran the jobs one after another, as time-slicing would");
  return e;
}

Exercise time_slicing_makespan(Rng& rng) {
  int n = 0, slices = 0;
  double q_ms = 0, t_ms = 0, c_us = 0;
  do {  // redrawn until leaving out the switches is a different answer
    n = rng.integer(3, 24);
    q_ms = rng.pick(std::vector<double>{1, 2, 4});
    slices = rng.integer(2, 12);
    t_ms = q_ms * slices;
    c_us = rng.pick(std::vector<double>{25, 50, 100, 200, 400});
  } while (!tells_apart(n * t_ms + n * (slices - 1) * c_us / 1e3, n * t_ms, 0.002));
  const GpuSharing r = simulate("time-slicing", n, 0.1, t_ms / 1e3, c_us / 1e6, q_ms / 1e3);
  Exercise e;
  e.title = "Time-slicing: the cost of the switches";
  e.params = {{"mode", "time-slicing"}, {"jobs", n}, {"job_sm_fraction", 0.1}, {"job_time_s", t_ms / 1e3},
              {"context_switch_s", c_us / 1e6}, {"timeslice_s", q_ms / 1e3}};
  e.prompt = format_int(n) + " processes share one GPU by time-slicing, all ready at t = 0. Each needs " +
             format_int(t_ms) + " ms of GPU time; the GPU runs one context at a time in slices of " + format_int(q_ms) +
             " ms, round robin, and every switch from a preempted job to the next costs " + format_int(c_us) +
             " µs of idle GPU. (A job that finishes within its slice frees the GPU without a switch.) When does the "
             "last job finish? Answer in milliseconds.";
  e.unit = "ms";
  e.answer = r.makespan_s * 1e3;
  e.rel_tolerance = 0.002;
  e.hint = "Each job needs T/q slices and is preempted after all but its last: n·(T/q − 1) switches in all.";
  e.solution = "Slices per job: " + format_int(t_ms) + " / " + format_int(q_ms) + " = " + format_int(slices) +
               ", so " + format_int(slices - 1) + " preemptions each, " + format_int(n * (slices - 1)) +
               " switches in all: " + format_int(n) + " × " + format_int(t_ms) + " ms + " + format_int(n * (slices - 1)) +
               " × " + format_int(c_us) + " µs = " + format_number(e.answer, 5) + " ms.";
  require_whole(e, slices, "slices per job");
  require_between(e, c_us, 25, 1000, "a context switch in µs");
  require_between(e, e.answer, 1, 60000, "the makespan in ms");
  reject_mistake(e, n * t_ms, "left out the context switches");
  return e;
}

struct Gpu {
  const char* id;
  const char* name;
};
const std::vector<Gpu> kGpus = {{"a100-sxm-80gb", "A100 80GB"}, {"h100-sxm", "H100"}, {"h200-sxm", "H200"}};

Exercise mig_throughput(Rng& rng) {
  const Gpu gpu = rng.pick(kGpus);
  const std::string size = rng.pick(std::vector<std::string>{"1g", "2g", "3g"});
  const MigTable table = mig_table(gpu.id);
  const MigProfile* p = nullptr;
  for (const auto& q : table.profiles)
    if (!q.media_extensions && std::to_string(q.compute_slices) + "g" == size && (!p || q.memory_slices < p->memory_slices)) p = &q;
  // A job that wants more SMs than its instance has, so the slowdown the question describes acts.
  double f = 0;
  do f = rng.pick(std::vector<double>{0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5});
  while (f * table.sms <= 1.05 * p->sms);
  const int n = p->max_instances * rng.integer(2, 12);
  const double t_ms = rng.integer(5, 80);
  const GpuSharing r = simulate("mig", n, f, t_ms / 1e3, 0, 2e-3, gpu.id, size);
  Exercise e;
  e.title = "Throughput of MIG instances";
  e.params = {{"mode", "mig"}, {"jobs", n}, {"job_sm_fraction", f}, {"job_time_s", t_ms / 1e3}, {"hardware", gpu.id},
              {"mig_profile", size}};
  e.prompt = article(gpu.name, true) + gpu.name + " (" + format_int(table.sms) + " SMs) is split into " +
             format_int(p->max_instances) + " MIG instances of profile " + p->name + ", each with " + format_int(p->sms) +
             " SMs. " + format_int(n) + " jobs wait; each, alone on the whole GPU, takes " + format_int(t_ms) +
             " ms and could keep " + format_number(100 * f, 2) + "% of the GPU's SMs busy. Each instance runs one job "
             "at a time, and a job runs slower in proportion when its instance has fewer SMs than it could use. How "
             "many jobs per second does the GPU complete? Answer as a plain number of jobs per second.";
  e.unit = "";  // jobs per second, typed as a plain number (the answer parser has no jobs/s unit)
  e.answer = r.throughput_jobs_per_s;
  e.rel_tolerance = 0.01;
  e.hint = "A job wants f × SMs of the GPU; on an instance with fewer it runs at (instance SMs)/(f × GPU SMs) of its "
           "speed. The instances work in parallel.";
  const double want = f * table.sms;
  e.solution = "A job could use " + format_number(100 * f, 2) + "% × " + format_int(table.sms) + " = " +
               format_number(want, 4) + " SMs; the instance has " + format_int(p->sms) + ", so a job takes " +
               format_int(t_ms) + " ms × " + format_number(std::max(1.0, want / p->sms), 4) + " = " +
               format_number(t_ms / r.job_speed, 4) + " ms. " + format_int(p->max_instances) + " instances: " +
               format_int(p->max_instances) + " / " + format_number(t_ms / r.job_speed, 4) + " ms = " +
               format_number(e.answer, 4) + " jobs per second.";
  require_whole(e, static_cast<double>(n) / p->max_instances, "rounds of jobs over the instances");
  require(e, p->max_instances * p->compute_slices <= 7, "the instances fit the GPU's seven compute slices");
  require(e, want > p->sms, "a job wants more SMs than its instance has");
  reject_mistake(e, p->max_instances / (t_ms / 1e3), "ignored the instance's smaller share of SMs");
  reject_mistake(e, p->max_instances / (t_ms / 1e3 * std::max(1.0, want / (table.sms * p->compute_slices / 7.0))),
                 "gave each compute slice a seventh of the GPU's SMs, more than a MIG slice has");
  return e;
}

Exercise mig_busy_sms(Rng& rng) {
  const Gpu gpu = rng.pick(kGpus);
  const MigTable table = mig_table(gpu.id);
  // Layouts that fit, by compute size, each size with its smallest-memory profile.
  const std::vector<std::vector<int>> layouts = {{1, 1, 1, 1, 1, 1, 1}, {2, 2, 2, 1}, {3, 3}, {4, 3}, {4, 2, 1},
                                                 {3, 2, 1, 1}, {4, 1, 1, 1}, {2, 2, 1, 1, 1}, {3, 1, 1, 1, 1},
                                                 {2, 1, 1, 1, 1, 1}, {4, 2}, {3, 2, 2}};
  std::vector<int> sizes;
  double f = 0;
  // Redrawn until some instance has more SMs than its job keeps busy, so that counting every
  // instance SM as busy is a different answer.
  for (;;) {
    sizes = rng.pick(layouts);
    f = rng.pick(std::vector<double>{0.05, 0.08, 0.1, 0.12, 0.15, 0.2});
    const int largest = *std::max_element(sizes.begin(), sizes.end());
    const MigProfile* big = nullptr;
    for (const auto& q : table.profiles)
      if (!q.media_extensions && q.compute_slices == largest && (!big || q.memory_slices < big->memory_slices)) big = &q;
    if (big && big->sms > 1.2 * f * table.sms) break;
  }
  std::vector<std::string> names;
  for (int s : sizes)
    for (const auto& q : table.profiles)
      if (!q.media_extensions && q.compute_slices == s && q.memory_slices == (s == 1 ? 1 : s == 2 ? 2 : 4)) {
        names.push_back(q.name);
        break;
      }
  const MigLayout l = mig_layout(table, names);
  const double want = f * table.sms;
  double busy = 0;
  for (const auto& inst : l.instances) busy += std::min(want, static_cast<double>(inst.sms));
  std::string list, per, layout;
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    list += (i ? (i + 1 == names.size() ? " and " : ", ") : "") + names[i];
    layout += (i ? "," : "") + names[i];
    if (std::find(seen.begin(), seen.end(), names[i]) == seen.end()) {
      seen.push_back(names[i]);
      per += (per.empty() ? "" : ", ") + names[i] + ": " + format_int(mig_profile(table, names[i]).sms);
    }
  }
  Exercise e;
  e.title = "Busy SMs on a partitioned GPU";
  e.params = {{"hardware", gpu.id}, {"layout", layout}};
  e.prompt = article(gpu.name, true) + gpu.name + " with " + format_int(table.sms) + " SMs is partitioned into MIG "
             "instances " + list + " (SMs per instance, as nvidia-smi lists them: " + per + "). Every instance runs "
             "one job; each job, alone on the whole GPU, could keep " + format_number(100 * f, 2) + "% of the GPU's SMs busy, "
             "and on an instance with fewer SMs it keeps all of the instance's SMs busy. What percentage of the "
             "GPU's SMs is busy?";
  e.unit = "%";
  e.answer = 100 * busy / table.sms;
  e.rel_tolerance = 0.01;
  e.hint = "A job keeps min(f × GPU SMs, instance SMs) busy. Add over the instances; SMs outside every instance are "
           "idle too.";
  std::string terms;
  for (const auto& inst : l.instances) terms += (terms.empty() ? "" : " + ") + format_number(std::min(want, static_cast<double>(inst.sms)), 4);
  e.solution = "A job could use " + format_number(100 * f, 2) + "% × " + format_int(table.sms) + " = " +
               format_number(want, 4) + " SMs. Busy: " + terms + " = " + format_number(busy, 4) + " of " +
               format_int(table.sms) + " SMs (the instances hold " + format_int(l.sms_used) + "): " +
               format_number(e.answer, 4) + "%.";
  int slices = 0;
  for (int sz : sizes) slices += sz;
  require(e, slices <= 7, "the layout uses at most the GPU's seven compute slices");
  require(e, l.sms_used <= table.sms, "the instances hold no more SMs than the GPU has");
  require_between(e, e.answer, 0, 100, "busy percentage");
  reject_mistake(e, 100.0 * l.sms_used / table.sms, "counted every SM of every instance as busy");
  return e;
}

Exercise time_slicing_utilization(Rng& rng) {
  const double f = rng.pick(kFractions);
  const double q_ms = rng.pick(std::vector<double>{1, 2, 4, 8});
  const int slices = rng.integer(2, 10);
  const double t_ms = q_ms * slices;
  const double c_us = rng.pick(std::vector<double>{50, 100, 200, 500, 1000});
  const int n = rng.integer(4, 32);
  const GpuSharing r = simulate("time-slicing", n, f, t_ms / 1e3, c_us / 1e6, q_ms / 1e3);
  Exercise e;
  e.title = "Utilization of a time-sliced GPU";
  e.params = {{"mode", "time-slicing"}, {"jobs", n}, {"job_sm_fraction", f}, {"job_time_s", t_ms / 1e3},
              {"context_switch_s", c_us / 1e6}, {"timeslice_s", q_ms / 1e3}};
  e.prompt = format_int(n) + " identical processes share a GPU by time-slicing, all ready at the start. Each needs " +
             format_int(t_ms) + " ms of GPU time and, while it runs, keeps " + format_number(100 * f, 2) +
             "% of the SMs busy. Slices are " + format_int(q_ms) + " ms; each switch after a preemption costs " +
             format_int(c_us) + " µs with no work done. Averaged until the last one finishes, what percentage of the "
             "GPU's SMs is busy?";
  e.unit = "%";
  e.answer = 100 * r.utilization;
  e.rel_tolerance = 0.01;
  e.hint = "Only one context runs at a time, so at best the SMs are f busy; switches add idle time. Per job: T of "
           "work and (T/q − 1) switches.";
  e.solution = "Per job: " + format_int(t_ms) + " ms of work and " + format_int(slices - 1) + " × " + format_int(c_us) +
               " µs of switching = " + format_number(t_ms + (slices - 1) * c_us / 1e3, 5) + " ms. Utilization: " +
               format_number(100 * f, 2) + "% × " + format_int(t_ms) + " / " +
               format_number(t_ms + (slices - 1) * c_us / 1e3, 5) + " = " + format_number(e.answer, 4) + "%.";
  require(e, e.answer < 100 * f, "time-slicing keeps at most f of the SMs busy");
  require_between(e, c_us, 25, 1000, "a context switch in µs");
  reject_mistake(e, 100 * std::min(1.0, n * f), "counted the time-sliced jobs as running side by side");
  return e;
}

}  // namespace

void add_sharing_exercises(std::vector<Generator>& out) {
  out.push_back({"sg-mps-makespan", mps_makespan});
  out.push_back({"sg-time-slicing-makespan", time_slicing_makespan});
  out.push_back({"sg-mig-throughput", mig_throughput});
  out.push_back({"sg-mig-busy-sms", mig_busy_sms});
  out.push_back({"sg-time-slicing-utilization", time_slicing_utilization});
}

}  // namespace mlsys::exercises
