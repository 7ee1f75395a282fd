// Exercises of the surviving-failures lesson: the MTBF of a job on N GPUs from one GPU's
// (`cluster-failures`), failures per day on a bigger cluster from an observed count, Young's
// checkpoint interval (`checkpoint-interval`), the time of a synchronous checkpoint save
// (`checkpoint-save`), the lost share of time at a chosen interval with Daly's exact model
// (`checkpoint-goodput`), and the goodput of asynchronous checkpoints with restarts.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/profiling/training_compute.hpp"
#include "mlsys/training/checkpoint_save.hpp"
#include "mlsys/training/cluster_failures.hpp"

namespace mlsys::exercises {

namespace {

const std::vector<int> kGpus = {1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536};

Exercise cluster_mtbf(Rng& rng) {
  const int gpus = rng.pick(kGpus);
  const double years = round_sig(2 + 18 * rng.uniform(), 2);
  const ClusterFailures r = cluster_failures(gpus, years * kSecondsPerYear, {}, {}, {}, {}, {});
  Exercise e;
  e.title = "Mean time between failures of a large job";
  e.params = {{"gpus", gpus}, {"gpu_mtbf_s", years * kSecondsPerYear}};
  e.prompt = "Each GPU of a training cluster, counted with its share of the host, network and software, fails on "
             "average once every " + format_number(years, 2) + " years (of 365.25 days), independently of the "
             "others. A synchronous job stops whenever any of its " + format_int(gpus) +
             " GPUs fails. What is the job's mean time between failures, in hours?";
  e.unit = "h";
  e.answer = r.cluster_mtbf_h;
  e.rel_tolerance = 0.01;
  e.hint = "The minimum of N independent exponential failure times is exponential with N times the rate: "
           "M_cluster = M_gpu / N.";
  e.solution = "M_gpu = " + format_number(years, 2) + " × 365.25 × 24 = " + format_int(years * 365.25 * 24) +
               " h; divided by " + format_int(gpus) + " GPUs: " + format_number(e.answer, 4) + " h.";
  require_between(e, years, 2, 20, "one GPU's MTBF in years (Llama 3's run measured about 5.8)");
  require_between(e, e.answer, 0.25, 24 * 8, "the job's MTBF in hours (15 minutes to 8 days)");
  return e;
}

Exercise scaled_failures(Rng& rng) {
  const int n1 = rng.pick(std::vector<int>{1024, 2048, 4096, 8192});
  const int n2 = n1 * rng.pick(std::vector<int>{2, 3, 4, 6, 8, 12, 16});
  const int days = rng.integer(20, 90);
  const int failures = rng.integer(5, 60) * n1 / 1024;
  const double gpu_mtbf_s = n1 * (days * kSecondsPerDay / failures);
  const ClusterFailures r = cluster_failures(n2, gpu_mtbf_s, {}, {}, {}, {}, {});
  Exercise e;
  e.title = "Failures per day on a bigger cluster";
  e.params = {{"gpus", n2}, {"gpu_mtbf_s", gpu_mtbf_s}};
  e.prompt = "Over " + counted(days, "day") + ", jobs running on " + format_int(n1) + " GPUs were interrupted " +
             counted(failures, "time") + " by hardware failures. Assuming each GPU fails independently at the same "
             "constant rate, how many interruptions per day should a job on " + format_int(n2) + " GPUs expect?";
  e.unit = "";
  e.answer = r.failures_per_day;
  e.rel_tolerance = 0.01;
  e.hint = "The rate per GPU is failures / (GPUs × days); the job's rate is that times its GPUs.";
  e.solution = "Per GPU: " + format_int(failures) + " / (" + format_int(n1) + " × " + format_int(days) + ") = " +
               prose(static_cast<double>(failures) / (n1 * static_cast<double>(days)), 4) + " failures per GPU-day; × " +
               format_int(n2) + " GPUs = " + format_number(e.answer, 4) + " per day.";
  require_whole(e, failures, "observed interruptions");
  require_between(e, gpu_mtbf_s / kSecondsPerYear, 0.9, 60, "the implied MTBF of one GPU in years (Llama 3: 5.8)");
  require_between(e, n2, 2048, 131072, "GPUs of the larger job");
  reject_mistake(e, static_cast<double>(failures) / days, "kept the smaller cluster's rate: failures grow with the GPUs");
  return e;
}

Exercise young_interval(Rng& rng) {
  const double mtbf_h = round_sig(1.5 + 10.5 * rng.uniform(), 2);
  const double delta = rng.pick(std::vector<double>{20, 30, 45, 60, 90, 120, 180, 240, 300, 450, 600});
  const CheckpointInterval c = checkpoint_interval(mtbf_h * 3600, delta, 0);
  Exercise e;
  e.title = "Young's checkpoint interval";
  e.params = {{"mtbf_s", mtbf_h * 3600}, {"checkpoint_s", delta}, {"restart_s", 0}};
  e.prompt = "A training job fails on average every " + format_number(mtbf_h, 2) + " hours, and writing one "
             "checkpoint stops training for " + format_int(delta) + " s. By Young's first-order rule, how much time "
             "of training should pass between checkpoints? Answer in seconds.";
  e.unit = "s";
  e.answer = c.young_interval_s;
  e.rel_tolerance = 0.01;
  e.hint = "τ = √(2·δ·M), with δ and M in the same unit.";
  e.solution = "M = " + format_number(mtbf_h, 2) + " × 3,600 = " + format_int(mtbf_h * 3600) + " s; τ = √(2 × " +
               format_int(delta) + " × " + format_int(mtbf_h * 3600) + ") = " + format_number(c.young_interval_s, 4) +
               " s (" + format_number(e.answer / 60, 3) + " min): " + format_number(e.answer, 4) + " s.";
  require(e, delta <= 0.2 * mtbf_h * 3600, "a checkpoint is short against the MTBF, where Young's first-order rule holds");
  require(e, e.answer > delta, "the interval is longer than one checkpoint");
  reject_mistake(e, std::sqrt(delta * mtbf_h * 3600), "left out the factor 2 under the root");
  reject_mistake(e, std::sqrt(2 * delta * mtbf_h), "mixed units: the MTBF in hours with δ in seconds");
  return e;
}

Exercise sync_save(Rng& rng) {
  double params = 0, per_writer = 0, storage = 0;
  int writers = 0;
  CheckpointSave r;
  // Redrawn until the two bounds differ (so taking the wrong one is a different answer) and the
  // save takes between a second and an hour.
  for (;;) {
    params = rng.pick(std::vector<double>{7e9, 8e9, 13e9, 34e9, 70e9, 175e9, 405e9});
    writers = rng.pick(std::vector<int>{8, 16, 32, 64, 128, 256, 512});
    per_writer = rng.pick(std::vector<double>{1e9, 1.5e9, 2e9, 3e9, 5e9});
    storage = rng.pick(std::vector<double>{1e11, 2e11, 4e11, 5e11, 1e12});
    r = checkpoint_save(params, 14, storage, writers, per_writer, false, 25e9);
    if (tells_apart(storage, writers * per_writer, 0.01) && r.save_time_s >= 1 && r.save_time_s <= 3600) break;
  }
  Exercise e;
  e.title = "A synchronous checkpoint save";
  e.params = {{"params", params}, {"bytes_per_param", 14}, {"storage_bandwidth_Bps", storage}, {"writers", writers},
              {"per_writer_bandwidth_Bps", per_writer}, {"async", false}};
  e.prompt = article(format_number(params / 1e9, 3), true) + format_number(params / 1e9, 3) + "-billion-parameter model is trained with Adam in mixed precision; "
             "its checkpoint holds 14 bytes per parameter. " + format_int(writers) + " GPUs write equal shares in "
             "parallel, each at up to " + format_number(per_writer / 1e9, 2) + " GB/s, to a storage system that "
             "accepts at most " + format_number(storage / 1e9, 3) + " GB/s in total. Training waits for the whole "
             "save. How many seconds does it wait?";
  e.unit = "s";
  e.answer = r.save_time_s;
  e.rel_tolerance = 0.01;
  e.hint = "Bytes = params × 14. The write bandwidth is the smaller of the storage's and the writers' combined.";
  e.solution = "Checkpoint: " + format_number(params / 1e9, 3) + "e9 × 14 = " + format_number(r.checkpoint_bytes / 1e9, 4) +
               " GB. Writers together: " + format_int(writers) + " × " + format_number(per_writer / 1e9, 2) + " = " +
               format_number(writers * per_writer / 1e9, 4) + " GB/s; the bound is the " + r.bottleneck + " at " +
               format_number(r.write_bandwidth_Bps / 1e9, 4) + " GB/s, so the save takes " +
               format_number(e.answer, 4) + " s.";
  require_between(e, e.answer, 1, 3600, "the save's length in seconds");
  require_between(e, writers * per_writer / 1e9, 8, 2560, "the writers' combined bandwidth in GB/s");
  reject_mistake(e, params * 14 / std::max(storage, writers * per_writer), "took the larger of the two bandwidths");
  reject_mistake(e, params * 16 / r.write_bandwidth_Bps, "counted the gradients too (16 bytes per parameter)");
  return e;
}

// Daly's exact goodput τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)) at τ; the lost share is 1 − that.
double daly_goodput(double tau, double m, double delta, double r) {
  return 1 - checkpoint_waste_exact(tau, m, delta, r);
}

Exercise waste_at_interval(Rng& rng) {
  double mtbf_h = 0, delta = 0, restart_min = 0, tau_min = 0;
  CheckpointGoodput g;
  // Intervals from a few minutes to three hours, short against the MTBF or not: the lesson's
  // exact model holds everywhere, and the first-order slip is declared where it is wrong.
  for (;;) {
    mtbf_h = round_sig(1 + 11 * rng.uniform(), 2);
    delta = rng.pick(std::vector<double>{20, 30, 60, 90, 120, 180, 300, 600});
    restart_min = rng.pick(std::vector<double>{2, 5, 10, 15, 20, 30});
    tau_min = rng.pick(std::vector<double>{2, 3, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180});
    g = checkpoint_goodput(mtbf_h * 3600, delta, restart_min * 60, {tau_min * 60}, {}, {}, 2);
    const double lost = 1 - g.points.front().goodput_exact;
    if (delta < tau_min * 60 && tau_min * 60 < mtbf_h * 3600 && lost >= 0.02 && lost <= 0.8) break;
  }
  const double m = mtbf_h * 3600, t = tau_min * 60, r = restart_min * 60;
  const auto& p = g.points.front();
  Exercise e;
  e.title = "Time lost at a chosen checkpoint interval";
  e.params = {{"mtbf_s", m}, {"checkpoint_s", delta}, {"restart_s", r}, {"intervals_s", {t}}};
  e.prompt = "A job fails at exponentially distributed times, on average every " + format_number(mtbf_h, 2) +
             " hours. It checkpoints after every " + format_int(tau_min) + " minutes of training; a checkpoint stops "
             "training for " + format_int(delta) + " s, and each restart costs " + format_int(restart_min) +
             " minutes. With Daly's model for exponential failures, what percentage of the wall-clock time is lost "
             "(to checkpoints, redone work and restarts)?";
  e.unit = "%";
  e.answer = 100 * (1 - p.goodput_exact);
  e.rel_tolerance = 0.01;
  e.hint = "Each segment of τ seconds of work takes M·e^(R/M)·(e^((τ + δ)/M) − 1) of wall time on average; the share "
           "of it that is new work is the goodput, and the rest is lost.";
  const double wall = m * std::exp(r / m) * std::expm1((t + delta) / m);
  e.solution = "M = " + format_int(m) + " s, τ = " + format_int(t) + " s. (The first-order sum δ/τ + (τ + δ)/(2M) + R/M "
               "would give " + format_number(100 * (1 - p.goodput), 4) + "%: it counts the checkpoint time per second of "
               "work, δ/τ, where its share of the wall clock is δ/(τ + δ).) Wall time per segment: " + format_int(m) +
               " × e^(" + format_int(r) + "/" + format_int(m) + ") × (e^(" + format_int(t + delta) + "/" + format_int(m) +
               ") − 1) = " + format_number(wall, 4) + " s, so the goodput is " + format_int(t) + " / " +
               format_number(wall, 4) + " = " + format_number(100 * p.goodput_exact, 4) + "% and " +
               format_number(e.answer, 4) + "% is lost.";
  require(e, delta < t && t < m, "δ < τ < M");
  require_between(e, e.answer, 2, 80, "the lost share in percent");
  reject_mistake_where_distinct(e, 100 * (1 - p.goodput), "used the first-order sum, which overstates short intervals");
  reject_mistake_where_distinct(e, 100 * (1 - daly_goodput(t, m, delta, 0)), "left out the restarts");
  reject_mistake_where_distinct(e, 100 * p.goodput_exact, "gave the goodput, not the time lost");
  return e;
}

Exercise async_goodput(Rng& rng) {
  double params = 0, copy = 0, mtbf_h = 0, restart_min = 0;
  int writers = 0;
  CheckpointSave sync, asyn;
  double tau = 0;
  // Redrawn until the background write finishes within the interval (the next save can start)
  // and the job keeps at least half its time.
  for (;;) {
    params = rng.pick(std::vector<double>{8e9, 13e9, 34e9, 70e9, 175e9, 405e9});
    writers = rng.pick(std::vector<int>{32, 64, 128, 256, 512, 1024});
    copy = rng.pick(std::vector<double>{10e9, 20e9, 25e9, 40e9, 50e9});
    mtbf_h = round_sig(0.5 + 11.5 * rng.uniform(), 2);
    restart_min = rng.pick(std::vector<double>{1, 2, 5, 10, 15, 20});
    sync = checkpoint_save(params, 14, 2e12, writers, 2e9, false, copy);
    asyn = checkpoint_save(params, 14, 2e12, writers, 2e9, true, copy);
    tau = checkpoint_interval(mtbf_h * 3600, asyn.stall_s, 0).young_interval_s;
    if (asyn.save_time_s < tau && daly_goodput(tau, mtbf_h * 3600, asyn.stall_s, restart_min * 60) >= 0.5) break;
  }
  const double m = mtbf_h * 3600, r = restart_min * 60, delta = asyn.stall_s;
  Exercise e;
  e.title = "Goodput with asynchronous checkpoints";
  e.params = {{"params", params}, {"bytes_per_param", 14}, {"writers", writers}, {"copy_bandwidth_Bps", copy},
              {"per_writer_bandwidth_Bps", 2e9}, {"storage_bandwidth_Bps", 2e12}, {"async", true}, {"mtbf_s", m},
              {"restart_s", r}};
  e.prompt = article(format_number(params / 1e9, 3), true) + format_number(params / 1e9, 3) +
             "-billion-parameter model trained with Adam in mixed precision checkpoints 14 bytes per parameter, "
             "asynchronously: " + format_int(writers) + " GPUs each copy an equal share to host memory at " +
             format_number(copy / 1e9, 2) + " GB/s while training waits, then write it to storage in the background at "
             "2 GB/s each (the storage system takes 2 TB/s). The job fails at exponentially distributed times, on average "
             "every " + format_number(mtbf_h, 2) + " hours, and each restart costs " + counted(restart_min, "minute") +
             ". It checkpoints at Young's interval for the time training waits. With Daly's model for exponential "
             "failures, what percentage of the wall-clock time is new training (the goodput)?";
  e.unit = "%";
  e.answer = 100 * daly_goodput(tau, m, delta, r);
  e.rel_tolerance = 0.003;  // the goodput is near 100%: ±0.3 points, not ±1
  e.hint = "Training waits only for the copy: δ = params × 14 / writers / copy bandwidth. Then τ = √(2δM), and the "
           "goodput is τ / (M·e^(R/M)·(e^((τ + δ)/M) − 1)).";
  e.solution = "Each writer holds " + format_number(params / 1e9, 3) + "e9 × 14 / " + format_int(writers) + " = " +
               format_number(asyn.bytes_per_writer / 1e9, 4) + " GB; copying it takes δ = " + format_number(delta, 4) +
               " s (the background write, " + format_number(asyn.write_s, 4) + " s, ends before the next checkpoint is due). "
               "M = " + format_int(m) + " s, so τ = √(2 × " + format_number(delta, 4) + " × " + format_int(m) + ") = " +
               format_number(tau, 4) + " s, and the goodput is " + format_number(tau, 4) + " / (" + format_int(m) +
               " × e^(" + format_int(r) + "/" + format_int(m) + ") × (e^(" + format_number(tau + delta, 4) + "/" +
               format_int(m) + ") − 1)) = " + format_number(e.answer, 4) + "%.";
  require(e, asyn.save_time_s < tau, "the background write ends before the next checkpoint");
  require_between(e, e.answer, 50, 100, "the goodput in percent");
  const double tau_sync = checkpoint_interval(m, sync.stall_s, 0).young_interval_s;
  reject_mistake_where_distinct(e, 100 * daly_goodput(tau_sync, m, sync.stall_s, r),
                                "waited for the whole write, as a synchronous save does");
  reject_mistake_where_distinct(e, 100 * daly_goodput(tau, m, delta, 0), "left out the restarts");
  reject_mistake_where_distinct(e, 100 * (1 - daly_goodput(tau, m, delta, r)), "gave the lost share, not the goodput");
  return e;
}

}  // namespace

void add_failures_exercises(std::vector<Generator>& out) {
  out.push_back({"sf-cluster-mtbf", cluster_mtbf});
  out.push_back({"sf-scaled-failures", scaled_failures});
  out.push_back({"sf-young-interval", young_interval});
  out.push_back({"sf-sync-save", sync_save});
  out.push_back({"sf-waste-at-interval", waste_at_interval});
  out.push_back({"sf-async-goodput", async_goodput});
}

}  // namespace mlsys::exercises
