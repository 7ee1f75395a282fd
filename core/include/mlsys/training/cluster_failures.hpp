// Failures of a synchronous training job on many GPUs, and what checkpointing costs against
// them. Each GPU (with its share of host, network and software) fails independently at a
// constant rate λ = 1 / M_gpu (exponentially distributed times between failures); a job that
// stops when any of its N GPUs fails sees the minimum of N exponentials, itself exponential with
// rate N·λ, so M_cluster = M_gpu / N. The rate can be given as M_gpu, as failures per GPU per
// year (a year of 365.25 days), or as failures observed over days on the N GPUs (Llama 3: 419
// unexpected interruptions in a 54-day snapshot on 16,384 H100s; Llama Team 2024,
// arXiv:2407.21783, section 3.3.4). With a checkpoint time δ and a restart time R the Young
// (1974) and Daly (2006) intervals and the goodput are those of `checkpoint_interval`
// (profiling/training_compute.hpp), called, not copied. `checkpoint_goodput` evaluates the
// goodput at chosen intervals τ with the first-order waste δ/τ + (τ + δ)/(2M) + R/M
// (`checkpoint_waste`) and Daly's complete model for exponential failures
// (`checkpoint_waste_exact`), and finds the exact model's optimum by golden-section search.
// Units: seconds, GPUs and failures as plain counts.
#pragma once
#include <optional>
#include <vector>

namespace mlsys {

inline constexpr double kSecondsPerDay = 86400.0;
inline constexpr double kSecondsPerYear = 365.25 * 86400.0;  // Julian year
inline constexpr int kMaxGoodputPoints = 400;

struct ClusterFailures {
  double gpus = 0;
  double gpu_mtbf_s = 0;                 // M_gpu
  double failures_per_gpu_per_year = 0;  // year / M_gpu
  double cluster_mtbf_s = 0;             // M_gpu / N
  double cluster_mtbf_h = 0;             // cluster_mtbf_s / 3600
  double failures_per_day = 0;           // 86,400 / M_cluster
  double failure_free_day_probability = 0;  // e^(−failures_per_day): a day with no failure
  // With checkpoint_s (and restart_s, default 0): checkpoint_interval(M_cluster, δ, R). goodput is
  // the first-order 1 − waste at Daly's interval; goodput_exact is Daly's exponential-failure
  // model at the same interval (1 − checkpoint_waste_exact).
  std::optional<double> young_interval_s, daly_interval_s, waste_fraction, goodput, goodput_exact;
};

// Exactly one of gpu_mtbf_s, failures_per_gpu_per_year, or failures with days; restart_s only
// with checkpoint_s. InputError naming the field otherwise.
ClusterFailures cluster_failures(double gpus, std::optional<double> gpu_mtbf_s,
                                 std::optional<double> failures_per_gpu_per_year, std::optional<double> failures,
                                 std::optional<double> days, std::optional<double> checkpoint_s,
                                 std::optional<double> restart_s);

struct GoodputPoint {
  double interval_s = 0;     // τ: work between checkpoints
  double goodput = 0;        // 1 − checkpoint_waste (first order, at least 0)
  double goodput_exact = 0;  // 1 − checkpoint_waste_exact (Daly's exponential model)
  double checkpoint_fraction = 0, rework_fraction = 0, restart_fraction = 0;  // δ/τ, (τ+δ)/(2M), R/M
};

struct CheckpointGoodput {
  double young_interval_s = 0, daly_interval_s = 0;  // from checkpoint_interval
  double goodput_at_daly = 0;                        // first order, at the Daly interval
  double goodput_exact_at_daly = 0;                  // exact model at the Daly interval
  double best_interval_s = 0;                        // maximises the exact model's goodput
  double best_goodput_exact = 0;
  std::vector<GoodputPoint> points;
};

GoodputPoint checkpoint_goodput_point(double interval_s, double mtbf_s, double checkpoint_s, double restart_s);

// At the given intervals, or (empty list) at `points` intervals evenly spaced in log between
// interval_min_s and interval_max_s (defaults: Young / 20 and Young × 20).
CheckpointGoodput checkpoint_goodput(double mtbf_s, double checkpoint_s, double restart_s,
                                     const std::vector<double>& intervals_s, std::optional<double> interval_min_s,
                                     std::optional<double> interval_max_s, int points);

}  // namespace mlsys
