// Activation memory that backpropagation keeps for an L-layer MLP (width w, batch b), without
// checkpointing, checkpointing the input of every k-th layer, and with k = ceil(sqrt(L))
// (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost", arXiv:1604.06174).
// Each layer y = act(x·W) keeps 2·b·w values for backward: its input x (for the weight
// gradient x^T·dy) and its pre-activation x·W (for the activation's derivative). A checkpoint
// is one layer input, b·w values. Peak = the checkpoints + one segment re-run from its
// checkpoint: the segment's first input is that checkpoint, so the re-run adds its other k − 1
// inputs and its k pre-activations, (2k − 1)·b·w values. With L ≤ k this is the 2L of no
// checkpointing. With checkpoints every layer's forward is charged twice (Chen et al.'s one
// extra forward pass, an upper bound: the last segment could keep its activations).
#pragma once
#include <string>
#include <vector>

namespace mlsys {

inline constexpr long long kMaxBackpropLayers = 4096;

struct CheckpointPlan {
  long long k;                 // layers per segment (0: no checkpointing)
  long long checkpoints;       // layer inputs kept
  double stored_bytes;         // held at the end of the forward pass
  double peak_bytes;           // stored + the largest segment re-run during backward, less its checkpoint
  long long recomputed_layers; // layer forwards run again in the backward pass
  double recompute_flops;
  double recompute_fraction;   // recompute_flops / training_flops
};

struct DepthPoint {
  long long layers;
  double none_bytes, every_k_bytes, sqrt_bytes;  // peak activation bytes at this depth
};

struct BackpropMemory {
  double bytes_per_element;
  double layer_bytes;       // 2·b·w·size: what one layer keeps for backward
  double checkpoint_bytes;  // b·w·size: one layer input
  double weight_bytes;      // L·w²·size: the weights, for comparison
  double forward_flops;     // 2·b·w²·L (the matmuls)
  double training_flops;    // forward + backward = 3 × forward
  CheckpointPlan none, every_k, sqrt_l;
  long long best_k;          // k with the smallest peak
  double best_peak_bytes;
  std::vector<DepthPoint> curve;  // depth 1 .. L (at most 256 depths, evenly spaced, L included)
};

// Peak and stored bytes of every-k checkpointing (k = 0: none) for L layers.
CheckpointPlan checkpoint_plan(long long layers, long long k, double layer_bytes, double checkpoint_bytes,
                               double layer_flops, double training_flops);

BackpropMemory backprop_memory(long long layers, double width, double batch, double bytes_per_element, long long k);

}  // namespace mlsys
