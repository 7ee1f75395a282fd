// Activation memory of backpropagation with and without checkpointing (autograd/backprop_memory.hpp).
#include "mlsys/autograd/backprop_memory.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

CheckpointPlan checkpoint_plan(long long layers, long long k, double layer_bytes, double checkpoint_bytes,
                               double layer_flops, double training_flops) {
  CheckpointPlan p{0, 0, 0, 0, 0, 0, 0};
  if (k == 0) {
    p.stored_bytes = p.peak_bytes = static_cast<double>(layers) * layer_bytes;
    return p;
  }
  p.k = std::min(k, layers);
  p.checkpoints = (layers + p.k - 1) / p.k;
  p.stored_bytes = static_cast<double>(p.checkpoints) * checkpoint_bytes;
  // The segment's first input is its checkpoint, already counted in stored_bytes.
  p.peak_bytes = p.stored_bytes + static_cast<double>(p.k) * layer_bytes - checkpoint_bytes;
  p.recomputed_layers = layers;
  p.recompute_flops = static_cast<double>(layers) * layer_flops;
  p.recompute_fraction = p.recompute_flops / training_flops;
  return p;
}

namespace {
long long sqrt_k(long long layers) {
  auto k = static_cast<long long>(std::ceil(std::sqrt(static_cast<double>(layers))));
  while (k * k < layers) ++k;  // exact ceil for perfect squares and rounding
  while (k > 1 && (k - 1) * (k - 1) >= layers) --k;
  return k;
}
}  // namespace

BackpropMemory backprop_memory(long long layers, double width, double batch, double bytes_per_element, long long k) {
  if (layers < 1 || layers > kMaxBackpropLayers)
    throw InputError("layers", "'layers' must be between 1 and " + std::to_string(kMaxBackpropLayers) + ".");
  if (k < 1) throw InputError("k", "'k' must be at least 1.");
  BackpropMemory r{};
  r.bytes_per_element = bytes_per_element;
  r.layer_bytes = 2 * batch * width * bytes_per_element;
  r.checkpoint_bytes = batch * width * bytes_per_element;
  r.weight_bytes = static_cast<double>(layers) * width * width * bytes_per_element;
  const double layer_flops = 2 * batch * width * width;
  r.forward_flops = static_cast<double>(layers) * layer_flops;
  r.training_flops = 3 * r.forward_flops;
  auto plan = [&](long long L, long long kk) {
    return checkpoint_plan(L, kk, r.layer_bytes, r.checkpoint_bytes, layer_flops, 3 * static_cast<double>(L) * layer_flops);
  };
  r.none = plan(layers, 0);
  r.every_k = plan(layers, k);
  r.sqrt_l = plan(layers, sqrt_k(layers));
  r.best_k = 1;
  r.best_peak_bytes = plan(layers, 1).peak_bytes;
  for (long long kk = 2; kk <= layers; ++kk) {
    const double peak = plan(layers, kk).peak_bytes;
    if (peak < r.best_peak_bytes) r.best_k = kk, r.best_peak_bytes = peak;
  }
  const long long points = std::min<long long>(layers, 256);
  for (long long i = 1; i <= points; ++i) {
    const long long L = points == layers ? i : std::max<long long>(1, (i * layers + points / 2) / points);
    r.curve.push_back({L, plan(L, 0).peak_bytes, plan(L, k).peak_bytes, plan(L, sqrt_k(L)).peak_bytes});
  }
  return r;
}

}  // namespace mlsys
