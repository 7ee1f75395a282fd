// Optimizers on the 2-D quadratic f(x, y) = ½(x² + κ·y²): the iterates of SGD, momentum,
// Nesterov, Adam and AdamW with PyTorch's update rules (torch.optim.SGD, Adam, AdamW).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace mlsys {

inline constexpr long long kMaxOptimizerSteps = 10000;
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

struct TrajectoryPoint {
  long long step;
  double x, y, loss;
};

struct Trajectory {
  std::vector<TrajectoryPoint> path;  // step 0 (the start) first
  double final_loss;
  bool diverged;
  std::optional<long long> diverged_step;  // the step whose loss crossed the threshold
};

// f(x, y) = ½(x² + κ·y²).
double quadratic_loss(double x, double y, double condition);

// `steps` updates from (x0, y0). Stops early, diverged, at the first step whose loss exceeds
// kDivergenceFactor × the start loss (that step is the path's last point) or is not finite
// (the path ends one step before it). Throws InputError for unknown optimizers, nesterov
// without momentum, or steps past kMaxOptimizerSteps.
Trajectory optimizer_trajectory(const OptimizerSettings& s, double condition, double x0, double y0, long long steps);

}  // namespace mlsys
