// Optimizers on the 2-D quadratic f(x, y) = ½(x² + κ·y²): the iterates of SGD, momentum,
// Nesterov, Adam and AdamW with PyTorch's update rules (torch.optim.SGD, Adam, AdamW).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlsys/optimizers/schedule.hpp"

namespace mlsys {

inline constexpr long long kMaxOptimizerSteps = 20000;
// The path stops, diverged, once the loss exceeds this multiple of the start loss.
inline constexpr double kDivergenceFactor = 1e6;

struct OptimizerSettings {
  std::string optimizer = "sgd";  // sgd | momentum | nesterov | adam | adamw
  double lr = 0.1;
  double momentum = 0.9;  // momentum and nesterov
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // adam and adamw
  // sgd, momentum, nesterov, adam: L2, added to the gradient; adamw: decoupled, x ← x − lr·wd·x.
  double weight_decay = 0;
};

// The problem around the optimizer: the valley turned by `rotation_deg` (degrees,
// counter-clockwise, about the minimum), gradient noise and a learning-rate schedule.
struct ProblemSettings {
  // The loss is ½(a² + κ·b²) in the valley's own axes (a, b) = Rᵀ·(x, y), R the rotation by
  // rotation_deg; the start (x0, y0) is turned with it, p0 = R·(x0, y0), so a rotation moves
  // nothing but the axes the optimizer works in.
  double rotation_deg = 0;
  // Each gradient coordinate gets noise·ξ, ξ uniform on [−√3, √3) (mean 0, variance 1), drawn
  // from SeededStream(mix_seed(seed, salt_of("optimizer-trajectory"))), x before y each step.
  double noise = 0;
  std::uint64_t seed = 0;
  // The learning rate of update k (k = 1 … steps) is lr_at_step(schedule, k − 1) with
  // peak_lr = lr and total_steps = steps; none: lr throughout.
  std::optional<ScheduleSettings> schedule;
};

struct TrajectoryPoint {
  long long step;
  double x, y, loss;
};

struct Trajectory {
  std::vector<TrajectoryPoint> path;  // step 0 (the start) first
  double final_loss;
  // The mean loss over the path's last tenth (at least its last point): with gradient noise, the
  // level the loss settles at rather than one draw of it.
  double late_mean_loss;
  bool diverged;
  std::optional<long long> diverged_step;  // the step whose loss crossed the threshold
};

// f(x, y) = ½(x² + κ·y²).
double quadratic_loss(double x, double y, double condition);
// The same loss with the valley turned by rotation_deg: ½(a² + κ·b²), (a, b) = Rᵀ·(x, y).
double rotated_loss(double x, double y, double condition, double rotation_deg);

// `steps` updates from (x0, y0). Stops early, diverged, at the first step whose loss exceeds
// kDivergenceFactor × the start loss (that step is the path's last point) or is not finite
// (the path ends one step before it). Throws InputError for unknown optimizers, nesterov
// without momentum, or steps past kMaxOptimizerSteps.
Trajectory optimizer_trajectory(const OptimizerSettings& s, double condition, double x0, double y0, long long steps,
                                const ProblemSettings& problem = {});

}  // namespace mlsys
