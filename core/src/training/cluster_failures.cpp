#include "mlsys/training/cluster_failures.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/profiling/training_compute.hpp"

namespace mlsys {

ClusterFailures cluster_failures(double gpus, std::optional<double> gpu_mtbf_s,
                                 std::optional<double> failures_per_gpu_per_year, std::optional<double> failures,
                                 std::optional<double> days, std::optional<double> checkpoint_s,
                                 std::optional<double> restart_s) {
  if (!(gpus >= 1)) throw InputError("gpus", "Give at least one GPU.");
  const int ways = (gpu_mtbf_s ? 1 : 0) + (failures_per_gpu_per_year ? 1 : 0) + ((failures || days) ? 1 : 0);
  if (ways == 0)
    throw InputError("gpu_mtbf_s",
                     "Give the failure rate one way: 'gpu_mtbf_s', 'failures_per_gpu_per_year', or 'failures' with 'days'.");
  if (ways > 1) {
    const std::string field = failures_per_gpu_per_year && gpu_mtbf_s ? "failures_per_gpu_per_year"
                              : failures                                ? "failures"
                                                                        : "days";
    throw InputError(field, "Give the failure rate one way only: 'gpu_mtbf_s', 'failures_per_gpu_per_year', or "
                            "'failures' with 'days'.");
  }
  if (failures && !days) throw InputError("days", "Give 'days', the time over which 'failures' were observed.");
  if (days && !failures) throw InputError("failures", "Give 'failures', the failures observed over 'days'.");
  if (restart_s && !checkpoint_s) throw InputError("checkpoint_s", "Give 'checkpoint_s' with 'restart_s'.");

  ClusterFailures r;
  r.gpus = gpus;
  if (gpu_mtbf_s) {
    if (!(*gpu_mtbf_s > 0)) throw InputError("gpu_mtbf_s", "The MTBF of one GPU must be positive.");
    r.gpu_mtbf_s = *gpu_mtbf_s;
  } else if (failures_per_gpu_per_year) {
    if (!(*failures_per_gpu_per_year > 0))
      throw InputError("failures_per_gpu_per_year", "The failure rate must be positive.");
    r.gpu_mtbf_s = kSecondsPerYear / *failures_per_gpu_per_year;
  } else {
    if (!(*failures > 0)) throw InputError("failures", "Give at least one observed failure.");
    if (!(*days > 0)) throw InputError("days", "The observation must last more than zero days.");
    // The N GPUs together failed `failures` times in days·86,400 s: M_cluster, and M_gpu = N·M_cluster.
    r.gpu_mtbf_s = gpus * (*days * kSecondsPerDay / *failures);
  }
  r.failures_per_gpu_per_year = kSecondsPerYear / r.gpu_mtbf_s;
  r.cluster_mtbf_s = r.gpu_mtbf_s / gpus;
  r.cluster_mtbf_h = r.cluster_mtbf_s / 3600;
  r.failures_per_day = kSecondsPerDay / r.cluster_mtbf_s;
  r.failure_free_day_probability = exp_det(-r.failures_per_day);
  if (checkpoint_s) {
    if (!(*checkpoint_s > 0)) throw InputError("checkpoint_s", "The checkpoint time must be positive.");
    const double restart = restart_s.value_or(0.0);
    if (!(restart >= 0)) throw InputError("restart_s", "The restart time cannot be negative.");
    const CheckpointInterval c = checkpoint_interval(r.cluster_mtbf_s, *checkpoint_s, restart);
    r.young_interval_s = c.young_interval_s;
    r.daly_interval_s = c.daly_interval_s;
    r.waste_fraction = c.waste_fraction;
    r.goodput = c.goodput;
    r.goodput_exact = 1 - c.waste_fraction_exact;
  }
  return r;
}

GoodputPoint checkpoint_goodput_point(double interval_s, double mtbf_s, double checkpoint_s, double restart_s) {
  GoodputPoint p;
  p.interval_s = interval_s;
  p.goodput = 1 - checkpoint_waste(interval_s, mtbf_s, checkpoint_s, restart_s);
  p.goodput_exact = 1 - checkpoint_waste_exact(interval_s, mtbf_s, checkpoint_s, restart_s);
  p.checkpoint_fraction = checkpoint_s / interval_s;
  p.rework_fraction = (interval_s + checkpoint_s) / (2 * mtbf_s);
  p.restart_fraction = restart_s / mtbf_s;
  return p;
}

CheckpointGoodput checkpoint_goodput(double mtbf_s, double checkpoint_s, double restart_s,
                                     const std::vector<double>& intervals_s, std::optional<double> interval_min_s,
                                     std::optional<double> interval_max_s, int points) {
  if (!(mtbf_s > 0)) throw InputError("mtbf_s", "The MTBF must be positive.");
  if (!(checkpoint_s > 0)) throw InputError("checkpoint_s", "The checkpoint time must be positive.");
  if (!(restart_s >= 0)) throw InputError("restart_s", "The restart time cannot be negative.");
  if (intervals_s.size() > static_cast<std::size_t>(kMaxGoodputPoints))
    throw InputError("intervals_s", "At most " + std::to_string(kMaxGoodputPoints) + " intervals.");
  const CheckpointInterval c = checkpoint_interval(mtbf_s, checkpoint_s, restart_s);
  CheckpointGoodput r;
  r.young_interval_s = c.young_interval_s;
  r.daly_interval_s = c.daly_interval_s;
  r.goodput_at_daly = c.goodput;
  r.goodput_exact_at_daly = 1 - c.waste_fraction_exact;

  // The exact model's optimum: the wall time per unit of work, M·e^(R/M)·(e^((τ+δ)/M) − 1)/τ,
  // is convex-shaped in τ with one minimum; golden-section search over ln τ.
  // exp_det and log_det (foundations/deterministic.hpp): the same bits natively and in WASM.
  const auto expm1_det = [](double x) { return std::fabs(x) < 1e-5 ? x * (1 + x * (0.5 + x / 6)) : exp_det(x) - 1; };
  const auto wall = [&](double tau) { return expm1_det((tau + checkpoint_s) / mtbf_s) / tau; };
  double lo = log_det(std::min(c.young_interval_s, mtbf_s) * 1e-3), hi = log_det(10 * (mtbf_s + checkpoint_s));
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
  double fa = wall(exp_det(a)), fb = wall(exp_det(b));
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    if (fa < fb) {
      hi = b, b = a, fb = fa, a = hi - g * (hi - lo), fa = wall(exp_det(a));
    } else {
      lo = a, a = b, fa = fb, b = lo + g * (hi - lo), fb = wall(exp_det(b));
    }
  }
  r.best_interval_s = exp_det((lo + hi) / 2);
  r.best_goodput_exact = 1 - checkpoint_waste_exact(r.best_interval_s, mtbf_s, checkpoint_s, restart_s);

  std::vector<double> taus = intervals_s;
  if (taus.empty()) {
    if (points < 2 || points > kMaxGoodputPoints)
      throw InputError("points", "Give 2 to " + std::to_string(kMaxGoodputPoints) + " points.");
    const double t0 = interval_min_s.value_or(c.young_interval_s / 20);
    const double t1 = interval_max_s.value_or(c.young_interval_s * 20);
    if (!(t0 > 0)) throw InputError("interval_min_s", "The smallest interval must be positive.");
    if (!(t1 > t0)) throw InputError("interval_max_s", "The largest interval must exceed the smallest.");
    for (int i = 0; i < points; ++i) taus.push_back(t0 * exp_det(log_det(t1 / t0) * i / (points - 1)));
  } else if (interval_min_s || interval_max_s) {
    throw InputError("intervals_s", "Give 'intervals_s' or a range ('interval_min_s', 'interval_max_s'), not both.");
  }
  for (double t : taus) {
    if (!(t > 0)) throw InputError("intervals_s", "Every interval must be positive.");
    r.points.push_back(checkpoint_goodput_point(t, mtbf_s, checkpoint_s, restart_s));
  }
  return r;
}

}  // namespace mlsys
