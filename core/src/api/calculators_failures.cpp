// Calculators of the surviving-failures lesson (shared/API.md): `cluster-failures` (the MTBF
// of a job on N GPUs failing independently, M_gpu / N, with the Young/Daly interval and goodput
// of `checkpoint-interval`), `checkpoint-save` (bytes, write time and stall, synchronous or
// asynchronous), and, beyond API.md, `checkpoint-goodput` (goodput at chosen checkpoint
// intervals, first-order and Daly's exponential-failure model, with the exact optimum).
#include "mlsys/training/checkpoint_save.hpp"
#include "mlsys/training/cluster_failures.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(ClusterFailures, MLSYS_OUT(gpus, "", "N, the GPUs the job needs all of"),
               MLSYS_OUT(gpu_mtbf_s, "s", "M_gpu: mean time between failures of one GPU (with its share of host and network)"),
               MLSYS_OUT(failures_per_gpu_per_year, "1/yr", "Failures per GPU per year of 365.25 days: year / M_gpu"),
               MLSYS_OUT(cluster_mtbf_s, "s", "M_cluster = M_gpu / N: mean time between failures of the job"),
               MLSYS_OUT(cluster_mtbf_h, "h", "cluster_mtbf_s in hours"),
               MLSYS_OUT(failures_per_day, "1/day", "86,400 s / M_cluster"),
               MLSYS_OUT(failure_free_day_probability, "", "e^(−failures_per_day): chance that a day passes with no failure"),
               MLSYS_OUT(young_interval_s, "s", "With checkpoint_s: Young's interval sqrt(2·δ·M_cluster)"),
               MLSYS_OUT(daly_interval_s, "s", "With checkpoint_s: Daly's interval (checkpoint-interval)"),
               MLSYS_OUT(waste_fraction, "", "With checkpoint_s: waste at the Daly interval (checkpoint-interval)"),
               MLSYS_OUT(goodput, "", "With checkpoint_s: 1 − waste_fraction (checkpoint-interval), first order"),
               MLSYS_OUT(goodput_exact, "", "With checkpoint_s: Daly's exponential-failure model at the Daly interval"));
MLSYS_DESCRIBE(GoodputPoint, MLSYS_OUT(interval_s, "s", "τ: work between checkpoints"),
               MLSYS_OUT(goodput, "", "1 − [δ/τ + (τ + δ)/(2M) + R/M], at least 0 (first order)"),
               MLSYS_OUT(goodput_exact, "", "τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)): Daly's exponential-failure model"),
               MLSYS_OUT(checkpoint_fraction, "", "δ/τ"), MLSYS_OUT(rework_fraction, "", "(τ + δ)/(2M)"),
               MLSYS_OUT(restart_fraction, "", "R/M"));
MLSYS_DESCRIBE(CheckpointGoodput, MLSYS_OUT(young_interval_s, "s", "sqrt(2·δ·M) (checkpoint-interval)"),
               MLSYS_OUT(daly_interval_s, "s", "Daly's interval (checkpoint-interval)"),
               MLSYS_OUT(goodput_at_daly, "", "First-order goodput at the Daly interval (checkpoint-interval's goodput)"),
               MLSYS_OUT(goodput_exact_at_daly, "", "Exact-model goodput at the Daly interval"),
               MLSYS_OUT(best_interval_s, "s", "Interval that maximises the exact model's goodput"),
               MLSYS_OUT(best_goodput_exact, "", "The exact model's goodput there"),
               MLSYS_OUT(points, "", "Goodput at each interval"));
MLSYS_DESCRIBE(CheckpointSave, MLSYS_OUT(checkpoint_bytes, "B", "params × bytes_per_param"),
               MLSYS_OUT(bytes_per_writer, "B", "checkpoint_bytes / writers"),
               MLSYS_OUT(write_bandwidth_Bps, "B/s", "min(storage_bandwidth_Bps, writers × per_writer_bandwidth_Bps)"),
               MLSYS_OUT(bottleneck, "", "storage or writers: which bound sets the write bandwidth"),
               MLSYS_OUT(write_s, "s", "checkpoint_bytes / write_bandwidth_Bps"),
               MLSYS_OUT(copy_s, "s", "Async: bytes_per_writer / copy_bandwidth_Bps (device to pinned host memory); 0 when synchronous"),
               MLSYS_OUT(save_time_s, "s", "Until the checkpoint is on storage: write_s, plus copy_s when async"),
               MLSYS_OUT(stall_s, "s", "What the training step waits: the whole save when synchronous, copy_s when async"),
               MLSYS_OUT(host_bytes_per_writer, "B", "Pinned host memory each writer's async copy needs (0 when synchronous)"));

void add_failures_calculators(Calculators& out) {
  out.add("cluster-failures",
          "Mean time between failures of a synchronous job on N GPUs that fail independently with exponentially "
          "distributed times: M_cluster = M_gpu / N. Give the rate one way: gpu_mtbf_s, failures_per_gpu_per_year "
          "(year of 365.25 days), or failures observed over days on these N GPUs. With checkpoint_s (and restart_s): "
          "the Young/Daly interval and goodput of checkpoint-interval at M_cluster.",
          {integer_field("gpus", "", "N: GPUs the job needs all of", 16384, 1, 10000000),
           optional(number_field("gpu_mtbf_s", "s", "Mean time between failures of one GPU", json(), 1.0, 1e13)),
           optional(number_field("failures_per_gpu_per_year", "1/yr", "Failures per GPU per year", json(), 0.0, 1e4,
                                 true)),
           optional(number_field("failures", "", "Failures observed on these GPUs over 'days'", json(), 0.0, 1e7, true)),
           optional(number_field("days", "days", "Length of the observation", json(), 0.0, 1e5, true)),
           optional(number_field("checkpoint_s", "s", "Time to write one checkpoint δ", json(), 1e-3, 1e7)),
           optional(number_field("restart_s", "s", "Time to restart after a failure R (default 0)", json(), 0.0, 1e7))},
          [](const Inputs& in) {
            return cluster_failures(static_cast<double>(in.integer("gpus")), in.num_if("gpu_mtbf_s"),
                                    in.num_if("failures_per_gpu_per_year"), in.num_if("failures"), in.num_if("days"),
                                    in.num_if("checkpoint_s"), in.num_if("restart_s"));
          });

  out.add("checkpoint-save",
          "Checkpoint of params × bytes_per_param bytes (14: bf16 weights + fp32 master weights and two Adam moments) "
          "written by `writers` GPUs in parallel at min(storage_bandwidth_Bps, writers × per_writer_bandwidth_Bps). "
          "Synchronous: training waits for the whole write. Async (PyTorch DCP async_save): training waits for the copy "
          "of each writer's share to host memory at copy_bandwidth_Bps; the write follows in the background.",
          {number_field("params", "", "Parameters", 405e9, 0.0, 1e15, true),
           number_field("bytes_per_param", "B", "Checkpoint bytes per parameter", 14, 0.0, 64, true),
           number_field("storage_bandwidth_Bps", "B/s", "Aggregate write bandwidth of the storage system", 2e12, 1e6,
                        1e15),
           integer_field("writers", "", "GPUs writing their shares in parallel", 128, 1, 10000000),
           number_field("per_writer_bandwidth_Bps", "B/s", "Write bandwidth one writer can sustain", 2e9, 1e6, 1e13),
           boolean_field("async", "Copy to host memory, then write in the background", false),
           number_field("copy_bandwidth_Bps", "B/s", "Device-to-host copy bandwidth per writer", 25e9, 1e6, 1e13)},
          [](const Inputs& in) {
            return checkpoint_save(in.num("params"), in.num("bytes_per_param"), in.num("storage_bandwidth_Bps"),
                                   static_cast<double>(in.integer("writers")), in.num("per_writer_bandwidth_Bps"),
                                   in.boolean("async"), in.num("copy_bandwidth_Bps"));
          });

  out.add("checkpoint-goodput",
          "Goodput when checkpointing every τ seconds of work (δ to write, R to restart, failures every M on average): "
          "first order 1 − [δ/τ + (τ + δ)/(2M) + R/M] (checkpoint-interval's waste) and Daly's exponential-failure "
          "model τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)), at the given intervals or a log-spaced range (default Young/20 to "
          "Young × 20); with the Young and Daly intervals and the exact model's optimum.",
          {number_field("mtbf_s", "s", "Mean time between failures M of the whole job", json(), 1.0, 1e10),
           number_field("checkpoint_s", "s", "Time to write one checkpoint δ", json(), 1e-3, 1e7),
           number_field("restart_s", "s", "Time to restart after a failure R", 0.0, 0.0, 1e7),
           optional(number_list_field("intervals_s", "s", "Intervals τ to evaluate", json(), 1e-3, 1e11, 1,
                                      kMaxGoodputPoints)),
           optional(number_field("interval_min_s", "s", "Smallest τ of the range (default Young / 20)", json(), 1e-3, 1e11)),
           optional(number_field("interval_max_s", "s", "Largest τ of the range (default Young × 20)", json(), 1e-3, 1e11)),
           integer_field("points", "", "Intervals in the range", 61, 2, kMaxGoodputPoints)},
          [](const Inputs& in) {
            return checkpoint_goodput(in.num("mtbf_s"), in.num("checkpoint_s"), in.num("restart_s"),
                                      in.has("intervals_s") ? in.numbers("intervals_s") : std::vector<double>{},
                                      in.num_if("interval_min_s"), in.num_if("interval_max_s"),
                                      static_cast<int>(in.integer("points")));
          });
}

}  // namespace mlsys::api
